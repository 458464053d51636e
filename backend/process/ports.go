package process

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The original's port patterns, tried in order on a line with its ANSI
// codes removed: a loopback or any-address URL with a port; a word like
// "listening" or "Local" followed within 40 chars by ":PORT"; "port N".
var portPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)(?:https?://)?(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1?\]):(\d{1,5})\b`),
	regexp.MustCompile(`(?i)(?:listening|running|ready|started|local|preview).{0,40}?:(\d{1,5})\b`),
	regexp.MustCompile(`(?i)\bport[: ]\s*(\d{1,5})\b`),
}

// ansiCodes matches CSI and OSC escape sequences.
var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)")

// maxSniffBytes bounds the part of a line sniffed for a port (a line
// announcing one is short; a flood's long lines are not searched whole).
const maxSniffBytes = 4 << 10

// mayAnnouncePort is a quick test that rejects most lines sniffPort would
// find no port in (every pattern has ":" or "port" before the digits,
// maybe with an escape code between): a ":" followed by a digit or ESC,
// or "port" (any case) followed by ":", " " or ESC.
func mayAnnouncePort(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		switch c := b[i]; {
		case c == ':':
			if n := b[i+1]; n >= '0' && n <= '9' || n == 0x1b {
				return true
			}
		case c|0x20 == 'p' && i+4 < len(b) && b[i+1]|0x20 == 'o' && b[i+2]|0x20 == 'r' && b[i+3]|0x20 == 't':
			if n := b[i+4]; n == ':' || n == ' ' || n == 0x1b {
				return true
			}
		}
	}
	return false
}

// sniffPortBytes is sniffPort on the first maxSniffBytes of a line, when
// they are UTF-8 text (a flood of binary output is not searched).
func sniffPortBytes(line []byte) (int, bool) {
	head := line[:min(len(line), maxSniffBytes)]
	head = head[:completeUTF8(head)]
	if !utf8.Valid(head) {
		return 0, false
	}
	return sniffPort(string(head))
}

// sniffPort finds a dev server's port in a line of its output.
func sniffPort(line string) (int, bool) {
	if strings.IndexByte(line, ':') < 0 && !strings.Contains(strings.ToLower(line), "port") {
		return 0, false // cheap reject for most lines
	}
	line = ansiCodes.ReplaceAllString(line, "")
	for _, re := range portPatterns {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= 65535 {
				return n, true
			}
		}
	}
	return 0, false
}

// listeningPorts maps the inode of each TCP socket in state LISTEN (0A)
// to its local port, from /proc/net/tcp and tcp6.
func listeningPorts() map[uint64]int {
	out := map[uint64]int{}
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" {
				continue
			}
			_, portHex, ok := strings.Cut(fields[1], ":")
			if !ok {
				continue
			}
			port, err1 := strconv.ParseUint(portHex, 16, 16)
			inode, err2 := strconv.ParseUint(fields[9], 10, 64)
			if err1 != nil || err2 != nil || inode == 0 {
				continue
			}
			out[inode] = int(port)
		}
		f.Close()
	}
	return out
}

// socketInodes returns the inodes of the sockets pid has open.
func socketInodes(pid int) []uint64 {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []uint64
	for _, e := range ents {
		link, err := os.Readlink(dir + "/" + e.Name())
		if err != nil || !strings.HasPrefix(link, "socket:[") {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
