package process

import (
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ParseSignal maps a signal name ("SIGTERM", "TERM", "term") or number
// ("15") to the signal; "" gives def. An unknown name gives an error for
// which [IsInvalid] is true.
func ParseSignal(name string, def syscall.Signal) (syscall.Signal, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return def, nil
	}
	if n, err := strconv.Atoi(name); err == nil {
		if n <= 0 || n > 64 {
			return 0, invalidf("unknown signal number (signals are 1 to 64)")
		}
		return syscall.Signal(n), nil
	}
	up := strings.ToUpper(name)
	if !strings.HasPrefix(up, "SIG") {
		up = "SIG" + up
	}
	if s := unix.SignalNum(up); s != 0 {
		return s, nil
	}
	return 0, invalidf("unknown signal (use a name like SIGTERM, SIGINT, SIGKILL or SIGHUP)")
}

// signalName is the conventional name of s ("SIGTERM"), or its number.
func signalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return strconv.Itoa(int(s))
}
