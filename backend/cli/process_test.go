package cli

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
)

// TestProcessCommands runs the mapped process commands (start-dev,
// dev-servers, processes, process-logs, stop-dev, create-terminal,
// write-terminal, terminal-snapshot) against a real runtime with real
// processes.
func TestProcessCommands(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapStartsProcess))
	dir := t.TempDir()
	cli := socketCLI{t: t, socket: inst.SocketPath}
	run, decode := cli.run, cli.decode
	eventually := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	var srv struct{ ID, Cwd, Command, Status string }
	decode("start-dev", run("start-dev", dir, "echo hello-dev; exec sleep 60"), &srv)
	if !strings.HasPrefix(srv.ID, "dev_") || srv.Cwd != dir || srv.Command != "echo hello-dev; exec sleep 60" {
		t.Fatalf("start-dev = %+v", srv)
	}
	if out := run("dev-servers"); !strings.Contains(out, `"id": "`+srv.ID+`"`) {
		t.Errorf("dev-servers = %s, want %s", out, srv.ID)
	}
	eventually("hello-dev in process-logs", func() bool {
		return strings.Contains(run("process-logs", srv.ID, "--limit", "5"), `"text": "hello-dev"`)
	})
	if out := run("processes"); !strings.Contains(out, `"kind": "dev-server"`) || !strings.Contains(out, srv.ID) {
		t.Errorf("processes = %s, want the dev server", out)
	}

	// Words after "--" are the argv of a command run without a shell.
	var argv struct {
		ID   string
		Args []string
	}
	decode("start-dev --", run("start-dev", dir, "printf", "--", "%s|", "a b"), &argv)
	if strings.Join(argv.Args, ",") != "%s|,a b" {
		t.Errorf("start-dev -- args = %q", argv.Args)
	}
	eventually("printf's output", func() bool { return strings.Contains(run("process-logs", argv.ID), `"text": "a b|"`) })

	var stopped struct {
		DevServerID string
		Stopped     bool
	}
	decode("stop-dev", run("stop-dev", srv.ID), &stopped)
	if stopped.DevServerID != srv.ID || !stopped.Stopped {
		t.Errorf("stop-dev = %+v", stopped)
	}

	var term struct{ ID, Cwd string }
	decode("create-terminal", run("create-terminal", "--cwd", dir, "--shell", "/bin/sh"), &term)
	if !strings.HasPrefix(term.ID, "term_") || term.Cwd != dir {
		t.Fatalf("create-terminal = %+v", term)
	}
	var written struct {
		TerminalID string
		Written    int
	}
	decode("write-terminal", run("write-terminal", term.ID, "echo cli-$((6*7))\r"), &written)
	if written.TerminalID != term.ID || written.Written != len("echo cli-$((6*7))\r") {
		t.Errorf("write-terminal = %+v", written)
	}
	eventually("cli-42 in the snapshot", func() bool {
		var snap struct{ Buffer string }
		decode("terminal-snapshot", run("terminal-snapshot", term.ID), &snap)
		return strings.Contains(snap.Buffer, "cli-42")
	})
}

// TestDevlogsFollowsRealServer follows a dev server with `meith devlogs` until the context
// is cancelled (Ctrl+C): the held lines first, then new ones, and exit 0.
func TestDevlogsFollowsRealServer(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapStartsProcess))
	dir := t.TempDir()
	gate := dir + "/gate"
	var out, errw bytes.Buffer
	if code := Main(context.Background(), []string{"--socket", inst.SocketPath, "start-dev", dir,
		"echo before; echo careful >&2; while [ ! -f " + gate + " ]; do sleep 0.05; done; echo after; exec sleep 60"},
		&Streams{Out: &out, Err: &errw}); code != 0 {
		t.Fatalf("start-dev: %d %s %s", code, out.String(), errw.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stdout := &signalWriter{seen: make(chan struct{})}
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--socket", inst.SocketPath, "devlogs", "--cwd", dir}, &Streams{Out: stdout, Err: &stderr})
	}()
	waitOut := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(stdout.String(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("devlogs printed %q, want %q", stdout.String(), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOut("before\n")
	waitOut("[stderr] careful\n")
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitOut("after\n")
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("devlogs after Ctrl+C exited %d, want 0; stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("devlogs did not return after cancellation")
	}
	if want := "attaching to dev server logs (cwd " + dir + ")… Ctrl+C to stop\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

// TestDevlogsUnknown: an attach that fails prints the tool error, exit 1.
func TestDevlogsUnknown(t *testing.T) {
	inst := instancetest.New(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"devlogs", "--id", "dev_nope"}, "error (TOOL_FAILED): Unknown dev server: dev_nope\n"},
		{[]string{"devlogs", "--cwd", "/"}, "error (TOOL_FAILED): No dev server running in /\n"},
	}
	for _, tt := range tests {
		var out, errw bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		code := Main(ctx, append([]string{"--socket", inst.SocketPath, "--quiet"}, tt.args...), &Streams{Out: &out, Err: &errw})
		cancel()
		if code != 1 || errw.String() != tt.want || out.Len() != 0 {
			t.Errorf("meith %s = %d, stdout %q, stderr %q; want 1 and %q", strings.Join(tt.args, " "), code, out.String(), errw.String(), tt.want)
		}
	}
}
