package process

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func newTerminal(t *testing.T, m *Manager, spec TermSpec) Terminal {
	t.Helper()
	term, err := m.CreateTerminal(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return term
}

func writeTerm(t *testing.T, m *Manager, id, data string) {
	t.Helper()
	if _, err := m.WriteTerminal(id, data); err != nil {
		t.Fatal(err)
	}
}

// waitOutput waits until the terminal's scrollback contains want.
func waitOutput(t *testing.T, m *Manager, id, want string) string {
	t.Helper()
	var buf string
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, err := m.TerminalSnapshot(id)
		buf = s.Buffer
		if err == nil && strings.Contains(buf, want) {
			return buf
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for terminal output %s; the terminal shows (last 2 KiB):\n%q", want, buf[max(0, len(buf)-2048):])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTerminal(t *testing.T) {
	m := newManager(t, Options{})
	term := newTerminal(t, m, TermSpec{Shell: "bash", Cwd: "~"})
	home, _ := os.UserHomeDir()
	if term.Cols != 80 || term.Rows != 24 || term.Cwd != home || term.Status != StatusRunning || !strings.HasPrefix(term.ID, "term_") {
		t.Fatalf("terminal %+v", term)
	}
	writeTerm(t, m, term.ID, "echo hel''lo-$TERM-$COLORTERM; shopt -q login_shell && echo LOG''IN\r")
	waitOutput(t, m, term.ID, "hello-xterm-256color-truecolor")
	waitOutput(t, m, term.ID, "LOGIN")

	if _, err := m.ResizeTerminal(term.ID, 100, 40); err != nil {
		t.Fatal(err)
	}
	writeTerm(t, m, term.ID, "stty size\r")
	waitOutput(t, m, term.ID, "40 100")
	if got := m.Terminals(); len(got) != 1 || got[0].Cols != 100 || got[0].Rows != 40 {
		t.Errorf("Terminals() = %+v", got)
	}
	if _, err := m.ResizeTerminal(term.ID, 0, 10); !IsInvalid(err) {
		t.Errorf("resize 0: %v", err)
	}

	// Output is held as pty chunks with consecutive seqs.
	entries, next, err := m.Logs(term.ID, 0, 0)
	if err != nil || len(entries) == 0 || entries[len(entries)-1].Seq != next-1 || entries[0].Stream != StreamPTY {
		t.Fatalf("Logs = %d entries, next %d, %v", len(entries), next, err)
	}

	writeTerm(t, m, term.ID, "exit 7\r")
	waitFor(t, "the exit", func() bool {
		ts := m.Terminals()
		return ts[0].Status == StatusExited
	})
	if got := m.Terminals()[0]; got.ExitCode == nil || *got.ExitCode != 7 {
		t.Errorf("exit code %v", got.ExitCode)
	}
	if _, err := m.WriteTerminal(term.ID, "x"); err == nil {
		t.Error("write to an exited terminal succeeded")
	}
	if err := m.CloseTerminal(context.Background(), term.ID); err != nil {
		t.Fatal(err)
	}
	if len(m.Terminals()) != 0 {
		t.Error("closed terminal still listed")
	}
}

func TestTerminalMissingCwdAndKill(t *testing.T) {
	m := newManager(t, Options{})
	term := newTerminal(t, m, TermSpec{Shell: "/bin/sh", Cwd: "/nonexistent/meith", Cols: 120, Rows: 30})
	home, _ := os.UserHomeDir()
	if term.Cwd != home || term.Cols != 120 {
		t.Errorf("terminal %+v", term)
	}
	if _, err := m.KillTerminal(term.ID, "SIGKILL"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the kill", func() bool { return m.Terminals()[0].Status == StatusExited })
	if c := m.Terminals()[0].ExitCode; c == nil || *c != 128+9 {
		t.Errorf("exit code %v", c)
	}
}

func TestTerminalFlood(t *testing.T) {
	m := newManager(t, Options{})
	term := newTerminal(t, m, TermSpec{Shell: "/bin/sh"})
	writeTerm(t, m, term.ID, "yes | head -c 5000000; echo FLO''OD-DONE\r")
	waitOutput(t, m, term.ID, "FLOOD-DONE")
	snap, _ := m.TerminalSnapshot(term.ID)
	chunks := snap.NextSeq - 1
	// 5 MB through a tty is 7.5 MB ("y\r\n"); 32 KiB chunks make ~230.
	if chunks > 2000 {
		t.Errorf("%d entries for a 5 MB flood: reads are not coalesced", chunks)
	}
	if len(snap.Buffer) > scrollbackBytes {
		t.Errorf("scrollback holds %d bytes, cap %d", len(snap.Buffer), scrollbackBytes)
	}
	t.Logf("%d chunks, %d bytes held", chunks, len(snap.Buffer))
}

func TestOutputHandler(t *testing.T) {
	old := outputPollWait
	outputPollWait = 300 * time.Millisecond
	t.Cleanup(func() { outputPollWait = old })
	m := newManager(t, Options{})
	srv := httptest.NewServer(m.OutputHandler())
	defer srv.Close()
	d := startDev(t, m, DevSpec{Command: "echo first; sleep 0.6; echo second; sleep 1000"})

	get := func(path string) (int, outputResponse, http.Header) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body outputResponse
		if resp.StatusCode == 200 {
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode, body, resp.Header
	}
	code, body, h := get(OutputPath + d.ID + "/output?after=0")
	if code != 200 || len(body.Entries) != 1 || body.Entries[0].Text != "first" || body.NextSeq != 2 || body.Status != StatusRunning {
		t.Fatalf("first poll: %d %+v", code, body)
	}
	if h.Get("Cache-Control") != "no-store" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
	// Nothing new within the poll: an empty answer after the wait.
	start := time.Now()
	code, body, _ = get(OutputPath + d.ID + "/output?after=1")
	if code != 200 || body.Entries == nil || len(body.Entries) != 0 && body.Entries[0].Text != "second" {
		t.Fatalf("empty poll: %d %+v", code, body)
	}
	if len(body.Entries) == 0 && time.Since(start) < 250*time.Millisecond {
		t.Errorf("empty poll answered after %v, want the long-poll wait", time.Since(start))
	}
	// A long poll answers as soon as the line arrives.
	waitFor(t, "second", func() bool {
		_, body, _ = get(OutputPath + d.ID + "/output?after=1")
		return len(body.Entries) == 1 && body.Entries[0].Text == "second"
	})
	for _, p := range []string{OutputPath + "dev_000000000000/output", OutputPath + d.ID + "/other", "/elsewhere"} {
		if code, _, h := get(p); code != 404 || h.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d", p, code)
		}
	}
	if code, _, _ := get(OutputPath + d.ID + "/output?after=x"); code != 400 {
		t.Errorf("bad after: %d", code)
	}
	// Terminals are served too.
	term := newTerminal(t, m, TermSpec{Shell: "/bin/sh"})
	writeTerm(t, m, term.ID, "echo via-h''ttp\r")
	waitFor(t, "terminal output over http", func() bool {
		_, body, _ := get(OutputPath + term.ID + "/output?after=0")
		var all string
		for _, e := range body.Entries {
			all += e.Text
		}
		return strings.Contains(all, "via-http")
	})
}
