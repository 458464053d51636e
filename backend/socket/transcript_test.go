package socket

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

var update = flag.Bool("update", false, "rewrite the -- server -- sections of testdata/transcripts/*.txtar")

// TestTranscripts replays each golden conversation in testdata/transcripts
// against a fresh server and registry (see newFixture).
//
// The -- client -- section is sent to the socket byte for byte: each line
// with its newline, one write per line. Directive lines, on their own, are
// not sent:
//
//	#split N       send the next line in N-byte writes, pausing between them
//	#batch N       send the next N lines in a single write
//	#oversize N    send N bytes of 'x' with no newline (in 64 KiB writes)
//	#sleep D       pause for the duration D (e.g. 50ms)
//	#close         half-close the connection (the server sees EOF); must be last
//
// The -- server -- section lists the expected frames, one JSON object per
// line. Frames are compared as JSON after normalization: session ids become
// "socket:<uuid>". Because calls run concurrently, frames are compared
// grouped by requestId: frames without one first, in arrival order, then
// each requestId's frames in arrival order, the groups ordered by the first
// mention of the requestId in the client section.
//
// Unless the client section ends with #close, the runner then sends a fence
// frame, waits for its error (so every client frame was read) and for every
// dispatched call to be answered, and half-closes the connection; the server
// frames are everything received up to EOF, minus the fence's error.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			runTranscript(t, file)
		})
	}
}

const fenceType = "transcript_fence"

func runTranscript(t *testing.T, file string) {
	ar, err := parseTxtar(file)
	if err != nil {
		t.Fatal(err)
	}
	var clientSec, serverSec *txtarFile
	for i := range ar.Files {
		switch ar.Files[i].Name {
		case "client":
			clientSec = &ar.Files[i]
		case "server":
			serverSec = &ar.Files[i]
		default:
			t.Fatalf("unknown section %q", ar.Files[i].Name)
		}
	}
	if clientSec == nil || serverSec == nil {
		t.Fatal("a transcript needs -- client -- and -- server -- sections")
	}

	f := newFixture(t)
	s := listen(t, f, nil)
	nc, err := net.Dial("unix", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	uc := nc.(*net.UnixConn)
	defer uc.Close()

	frames := make(chan json.RawMessage, 1024)
	readDone := make(chan error, 1)
	go func() {
		defer close(frames)
		r := protocol.NewReader(uc)
		for {
			// Read raw lines: the frames are checked as JSON, not decoded.
			msg, err := r.Next()
			if err != nil {
				if protocol.IsFrameError(err) {
					readDone <- fmt.Errorf("server sent an undecodable frame: %w", err)
					return
				}
				if errors.Is(err, io.EOF) {
					err = nil
				}
				readDone <- err
				return
			}
			b, err := json.Marshal(msg)
			if err != nil {
				readDone <- err
				return
			}
			frames <- b
		}
	}()

	lines := strings.Split(string(clientSec.Data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	order := requestOrder(lines)
	closed := sendClient(t, uc, lines)

	var got []json.RawMessage
	deadline := time.After(30 * time.Second)
	if !closed {
		fence := fmt.Sprintf(`{"type":%q}`+"\n", fenceType)
		if _, err := uc.Write([]byte(fence)); err != nil {
			t.Fatal(err)
		}
	fenceLoop:
		for {
			select {
			case b, ok := <-frames:
				if !ok {
					t.Fatalf("connection closed before the fence: %v", <-readDone)
				}
				if bytes.Contains(b, []byte(fenceType)) {
					break fenceLoop
				}
				got = append(got, b)
			case <-deadline:
				t.Fatal("timed out waiting for the fence")
			}
		}
		eventually(t, 10*time.Second, "every call answered", func() bool {
			return s.dispatched.Load() == s.answered.Load()
		})
		if err := uc.CloseWrite(); err != nil {
			t.Fatal(err)
		}
	}
	for b := range frames {
		got = append(got, b)
	}
	if err := <-readDone; err != nil {
		t.Fatalf("reading server frames: %v", err)
	}

	gotLines := canonical(t, got, order)
	if *update {
		serverSec.Data = []byte(strings.Join(gotLines, "\n") + "\n")
		if len(gotLines) == 0 {
			serverSec.Data = nil
		}
		if err := os.WriteFile(file, ar.format(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	var want []json.RawMessage
	for _, l := range strings.Split(string(serverSec.Data), "\n") {
		if strings.TrimSpace(l) != "" {
			want = append(want, json.RawMessage(l))
		}
	}
	wantLines := canonical(t, want, order)
	if !slices.Equal(gotLines, wantLines) {
		t.Errorf("server frames differ (run with -update to accept)\n got:\n%s\nwant:\n%s",
			strings.Join(gotLines, "\n"), strings.Join(wantLines, "\n"))
	}
}

// sendClient writes the client section; it reports whether it ended with
// #close.
func sendClient(t *testing.T, uc *net.UnixConn, lines []string) bool {
	write := func(b []byte) {
		t.Helper()
		if _, err := uc.Write(b); err != nil {
			t.Fatalf("write: %v", err)
		}
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		directive, arg, _ := strings.Cut(line, " ")
		switch directive {
		case "#split":
			n := atoi(t, arg)
			i++
			data := []byte(lines[i] + "\n")
			for len(data) > 0 {
				k := min(n, len(data))
				write(data[:k])
				data = data[k:]
				time.Sleep(2 * time.Millisecond)
			}
		case "#batch":
			n := atoi(t, arg)
			var buf bytes.Buffer
			for j := 0; j < n; j++ {
				i++
				buf.WriteString(lines[i] + "\n")
			}
			write(buf.Bytes())
		case "#oversize":
			n := atoi(t, arg)
			chunk := bytes.Repeat([]byte("x"), 64*1024)
			for n > 0 {
				k := min(n, len(chunk))
				write(chunk[:k])
				n -= k
			}
		case "#sleep":
			d, err := time.ParseDuration(arg)
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(d)
		case "#close":
			if i != len(lines)-1 {
				t.Fatal("#close must be the last client line")
			}
			if err := uc.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			return true
		default:
			if strings.HasPrefix(line, "#") {
				t.Fatalf("unknown directive %q", line)
			}
			write([]byte(line + "\n"))
		}
	}
	return false
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		t.Fatalf("bad directive argument %q", s)
	}
	return n
}

var requestIDRE = regexp.MustCompile(`"requestId"\s*:\s*"([^"]*)"`)

// requestOrder maps each requestId to the rank of its first mention in the
// client lines.
func requestOrder(lines []string) map[string]int {
	order := map[string]int{}
	for _, l := range lines {
		for _, m := range requestIDRE.FindAllStringSubmatch(l, -1) {
			if _, ok := order[m[1]]; !ok {
				order[m[1]] = len(order)
			}
		}
	}
	return order
}

var sessionRE = regexp.MustCompile(`^socket:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// canonical normalizes frames (volatile values, key order) and orders them
// by requestId group.
func canonical(t *testing.T, frames []json.RawMessage, order map[string]int) []string {
	t.Helper()
	type item struct {
		rank int
		line string
	}
	items := make([]item, 0, len(frames))
	for _, f := range frames {
		var v any
		if err := json.Unmarshal(f, &v); err != nil {
			t.Fatalf("frame %s: %v", f, err)
		}
		v = normalize(v)
		rank := -1
		if m, ok := v.(map[string]any); ok {
			if id, ok := m["requestId"].(string); ok {
				r, known := order[id]
				if !known {
					r = len(order) + 1
				}
				rank = r
			}
		}
		var buf bytes.Buffer // sorted keys, no HTML escaping
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		items = append(items, item{rank, strings.TrimSuffix(buf.String(), "\n")})
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.rank - b.rank })
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.line
	}
	return out
}

func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	case string:
		if sessionRE.MatchString(x) {
			return "socket:<uuid>"
		}
	}
	return v
}

// TestTranscriptCanonicalOrder checks the grouping the comparison relies on.
func TestTranscriptCanonicalOrder(t *testing.T) {
	order := requestOrder([]string{`{"requestId":"b"}`, `{"requestId":"a"}`})
	got := canonical(t, []json.RawMessage{
		json.RawMessage(`{"requestId":"a","n":1}`),
		json.RawMessage(`{"type":"error"}`),
		json.RawMessage(`{"requestId":"b","s":"socket:0f0e0d0c-0b0a-4908-8706-050403020100"}`),
		json.RawMessage(`{"requestId":"a","n":2}`),
	}, order)
	want := []string{
		`{"type":"error"}`,
		`{"requestId":"b","s":"socket:<uuid>"}`,
		`{"n":1,"requestId":"a"}`,
		`{"n":2,"requestId":"a"}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("canonical = %q, want %q", got, want)
	}
}
