package process

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// TestDevServerStartLogRedacted: the log line of a started dev server
// names its command with the secrets in it redacted, in a shell command
// and in an argv (A1 of the 2026-12-01 attack).
func TestDevServerStartLogRedacted(t *testing.T) {
	const token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	var mu sync.Mutex
	var lines []string
	m := newManager(t, Options{Logf: func(level, format string, args ...any) {
		mu.Lock()
		lines = append(lines, fmt.Sprintf(format, args...))
		mu.Unlock()
	}})
	startDev(t, m, DevSpec{Command: "GITHUB_TOKEN=" + token + " DB_PASSWORD=hunter2 true --password hunter2"})
	startDev(t, m, DevSpec{Command: "true", Args: []string{"--password", "hunter 2", "--url", "https://u:hunter2@h/"}})
	mu.Lock()
	defer mu.Unlock()
	var started []string
	for _, l := range lines {
		if strings.Contains(l, " started (pid ") {
			started = append(started, l)
		}
	}
	if len(started) != 2 ||
		!strings.HasSuffix(started[0], "): GITHUB_TOKEN=[REDACTED] DB_PASSWORD=[REDACTED] true --password [REDACTED]") ||
		!strings.HasSuffix(started[1], "): true --password [REDACTED] --url https://[REDACTED]@h/") {
		t.Errorf("started lines = %q, want the two commands with their secrets redacted", started)
	}
	for _, l := range lines {
		if strings.Contains(l, "hunter") || strings.Contains(l, token[:10]) {
			t.Errorf("log line holds a secret: %q", l)
		}
	}
}

// TestParseSignalDoesNotEchoInput: the error for an unknown signal says
// what is wrong without quoting the argument, which may be anything.
func TestParseSignalDoesNotEchoInput(t *testing.T) {
	for _, in := range []string{"ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", "999"} {
		_, err := ParseSignal(in, syscall.SIGTERM)
		if !IsInvalid(err) || strings.Contains(err.Error(), in) {
			t.Errorf("ParseSignal(%q) = %v, want an invalid-input error that does not quote it", in, err)
		}
	}
}
