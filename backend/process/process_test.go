package process

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// childEnv switches the test binary into a child "runtime" that starts a
// dev server with the RecordFile named by its value, prints "ready <id>
// <pgid>" and blocks (see TestOrphanSweep). With childCommandsEnv (a JSON
// list of commands) it starts those instead, prints "server <id> <pid>"
// for each, waits until the RecordFile lists childEscapeesEnv escapees and
// prints "ready" (see TestOrphanEscapees).
const (
	childEnv         = "MEITH_PROCESS_TEST_CHILD_RECORDS"
	childCommandsEnv = "MEITH_PROCESS_TEST_CHILD_COMMANDS"
	childEscapeesEnv = "MEITH_PROCESS_TEST_CHILD_ESCAPEES"
)

func TestMain(m *testing.M) {
	if rec := os.Getenv(childEnv); rec != "" {
		if cmds := os.Getenv(childCommandsEnv); cmds != "" {
			os.Exit(childRuntimeCommands(rec, cmds))
		}
		os.Exit(childRuntime(rec))
	}
	os.Exit(m.Run())
}

func childRuntime(recordFile string) int {
	m := New(Options{RecordFile: recordFile})
	d, err := m.StartDevServer(context.Background(), DevSpec{Cwd: os.TempDir(), Command: "sleep 1000 & sleep 1000"})
	if err != nil || d.Status != StatusRunning {
		fmt.Println("failed", err, d.Status)
		return 1
	}
	fmt.Printf("ready %s %d\n", d.ID, d.PID)
	select {}
}

// newManager returns a Manager whose processes are stopped at the end.
func newManager(t *testing.T, opts Options) *Manager {
	t.Helper()
	m := New(opts)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx, true); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return m
}

func startDev(t *testing.T, m *Manager, spec DevSpec) DevServer {
	t.Helper()
	if spec.Cwd == "" {
		spec.Cwd = t.TempDir()
	}
	d, err := m.StartDevServer(context.Background(), spec)
	if err != nil {
		t.Fatalf("StartDevServer(%q): %v", spec.Command, err)
	}
	return d
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitEnded waits until the dev server's exit is recorded.
func waitEnded(t *testing.T, m *Manager, id string) DevServer {
	t.Helper()
	var d DevServer
	waitFor(t, id+" to end", func() bool {
		d, _ = m.DevServer(id)
		return d.EndedAt != nil
	})
	return d
}

func texts(entries []LogEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Text
	}
	return out
}

// groupMembers lists the live (non-zombie) processes of a group.
func groupMembers(pgid int) []int {
	var out []int
	for pid, st := range readProcs() {
		if st.pgid == pgid && st.state != 'Z' {
			out = append(out, pid)
		}
	}
	return out
}

func TestSniffPort(t *testing.T) {
	cases := []struct {
		line string
		want int // 0: none
	}{
		{"  ➜  Local:   http://localhost:5173/", 5173},
		{"  \x1b[32m➜\x1b[39m  \x1b[1mLocal\x1b[22m:   \x1b[36mhttp://localhost:\x1b[1m5174\x1b[22m/\x1b[39m", 5174},
		{"ready - started server on 0.0.0.0:3000, url: http://localhost:3001", 3000},
		{"Listening on :4000, open http://localhost:5000", 5000}, // pattern 1 wins over 2
		{"Serving HTTP on :: port 8000 (http://[::]:8000/) ...", 8000},
		{"Server running at http://127.0.0.1:8080", 8080},
		{"https://[::1]:8443/", 8443},
		{"Listening on :4000", 4000},
		{"App listening on   some.host.name:9000", 9000},
		{"preview server at example:4173", 4173},
		{"using port 6006", 6006},
		{"Port: 7000", 7000},
		{"http://localhost:99999/ then port 1234", 1234}, // invalid value skipped
		{"http://localhost:0", 0},
		{"compiled 42 modules in 1.2s", 0},
		{"time: 12:30:45", 0},
		{"listening on a unix socket", 0},
	}
	for _, c := range cases {
		got, ok := sniffPort(c.line)
		if (c.want == 0) == ok || got != c.want {
			t.Errorf("sniffPort(%q) = %d, %v; want %d", c.line, got, ok, c.want)
		}
		// The dev server's path: the quick test, then the line's head.
		got, ok = 0, false
		if mayAnnouncePort([]byte(c.line)) {
			got, ok = sniffPortBytes([]byte(c.line))
		}
		if (c.want == 0) == ok || got != c.want {
			t.Errorf("mayAnnouncePort+sniffPortBytes(%q) = %d, %v; want %d", c.line, got, ok, c.want)
		}
	}
	// Binary output is not searched; a long line only at its head.
	for _, line := range []string{"\xff\xfe http://localhost:3000/", strings.Repeat("x", maxSniffBytes) + " http://localhost:3000/"} {
		if port, ok := sniffPortBytes([]byte(line)); ok {
			t.Errorf("sniffPortBytes(%.20q…) = %d", line, port)
		}
	}
}

func TestDevServerPortFromOutputAndProcesses(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	var changes atomic.Int32
	m := newManager(t, Options{OnChange: func(kind, id string) {
		if kind == KindDevServer {
			changes.Add(1)
		}
	}})
	d := startDev(t, m, DevSpec{Command: py, Args: []string{"-u", "-m", "http.server", "0", "--bind", "127.0.0.1"}, Name: "web"})
	if d.Status != StatusRunning || d.PID == 0 || !strings.HasPrefix(d.ID, "dev_") || len(d.ID) != 16 {
		t.Fatalf("started %+v", d)
	}
	waitFor(t, "the sniffed port", func() bool { d, _ = m.DevServer(d.ID); return d.Port != nil })
	port := *d.Port
	// The sniffed port is the one the process really listens on.
	var info ProcessInfo
	waitFor(t, "the listening port in Processes", func() bool {
		for _, p := range m.Processes() {
			if p.ID == d.ID {
				info = p
			}
		}
		return len(info.Ports) == 1
	})
	if info.Ports[0] != port || info.Kind != KindDevServer || info.Tree == nil || info.Tree.PID != d.PID || len(info.Tree.Ports) != 1 {
		t.Fatalf("Processes entry %+v (tree %+v), sniffed port %d", info, info.Tree, port)
	}
	if !strings.Contains(info.Tree.Command, "http.server") {
		t.Errorf("tree command %q", info.Tree.Command)
	}
	if got, ok := m.DevServerByCwd(filepath.Dir(d.Cwd)); !ok || got.ID != d.ID {
		t.Errorf("DevServerByCwd(parent) = %v, %v", got.ID, ok)
	}
	if err := m.StopDevServer(context.Background(), d.ID, ""); err != nil {
		t.Fatal(err)
	}
	d, _ = m.DevServer(d.ID)
	if d.Status != StatusStopped || d.Signal == nil || *d.Signal != "SIGTERM" {
		t.Errorf("after stop: status %s signal %v", d.Status, d.Signal)
	}
	if n := changes.Load(); n < 4 { // add, running, port, stopped
		t.Errorf("OnChange called %d times, want ≥ 4", n)
	}
}

func TestStopKillsWholeTree(t *testing.T) {
	m := newManager(t, Options{})
	d := startDev(t, m, DevSpec{Command: `sleep 1000 & (sleep 1000 & (sleep 1000 & sleep 1000) & wait) & echo ready; wait`})
	// Four sleeps at three depths; how many shells stand between them depends
	// on the shell (dash and bash exec a subshell's last command), so count
	// the sleeps.
	waitFor(t, "the tree", func() bool {
		n := 0
		for _, st := range readProcs() {
			if st.pgid == d.PID && st.state != 'Z' && st.comm == "sleep" {
				n++
			}
		}
		return n == 4
	})
	var tree *ProcessNode
	for _, p := range m.Processes() {
		if p.ID == d.ID {
			tree = p.Tree
		}
	}
	if tree == nil || len(tree.Children) != 2 {
		t.Fatalf("tree %+v", tree)
	}
	start := time.Now()
	if err := m.StopDevServer(context.Background(), d.ID, "SIGTERM"); err != nil {
		t.Fatal(err)
	}
	if left := groupMembers(d.PID); len(left) != 0 {
		t.Fatalf("processes of the group left after StopDevServer: %v", left)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("stop took %v for processes that take SIGTERM", el)
	}
	d, _ = m.DevServer(d.ID)
	if d.Status != StatusStopped {
		t.Errorf("status %s, want stopped", d.Status)
	}
}

func TestStopEscalatesToSIGKILL(t *testing.T) {
	old := stopGrace
	stopGrace = 300 * time.Millisecond
	t.Cleanup(func() { stopGrace = old })
	m := newManager(t, Options{})
	d := startDev(t, m, DevSpec{Command: `trap '' TERM; sleep 1000 & echo ready; while :; do sleep 0.05; done`})
	waitFor(t, "ready", func() bool {
		e, _, _ := m.Logs(d.ID, 0, 0)
		return len(e) > 0
	})
	start := time.Now()
	if err := m.StopDevServer(context.Background(), d.ID, ""); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < stopGrace {
		t.Errorf("stopped after %v, before the grace %v", el, stopGrace)
	}
	if left := groupMembers(d.PID); len(left) != 0 {
		t.Fatalf("processes left: %v", left)
	}
	d, _ = m.DevServer(d.ID)
	if d.Signal == nil || *d.Signal != "SIGKILL" || d.Status != StatusStopped {
		t.Errorf("signal %v status %s, want SIGKILL stopped", d.Signal, d.Status)
	}
}

func TestLogRingBound(t *testing.T) {
	m := newManager(t, Options{})
	d := startDev(t, m, DevSpec{Command: "seq 1 20000"})
	waitEnded(t, m, d.ID)
	entries, next, err := m.Logs(d.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != MaxLogEntries || next != 20002 {
		t.Fatalf("held %d entries, next %d; want %d, 20002", len(entries), next, MaxLogEntries)
	}
	for i, e := range entries {
		seq := int64(20002 - MaxLogEntries + i)
		if e.Seq != seq {
			t.Fatalf("entry %d has seq %d, want %d", i, e.Seq, seq)
		}
		if seq <= 20000 && (e.Text != fmt.Sprint(seq) || e.Stream != StreamStdout) {
			t.Fatalf("entry seq %d = %+v", seq, e)
		}
	}
	if last := entries[len(entries)-1]; last.Stream != StreamSystem || last.Text != "exited with code 0" {
		t.Errorf("last entry %+v", last)
	}
	tail, _, _ := m.Logs(d.ID, 0, 3)
	if got := texts(tail); strings.Join(got, ",") != "19999,20000,exited with code 0" {
		t.Errorf("Logs(limit 3) = %v", got)
	}
	mid, _, _ := m.Logs(d.ID, 19998, 0)
	if len(mid) != 3 || mid[0].Seq != 19999 {
		t.Errorf("Logs(after 19998) = %+v", mid)
	}
}

func TestDevServerOutputAndExit(t *testing.T) {
	m := newManager(t, Options{Env: []string{"MEITH_TEST_VAR=from-options"}})
	cases := []struct {
		name, command string
		args          []string
		want          []string
		status        string
	}{
		{"partial last line and CRLF", `printf 'a\nb\r\n\033[31mred\033[0m\npartial'`, nil,
			[]string{"a", "b", "\x1b[31mred\x1b[0m", "partial", "exited with code 0"}, StatusExited},
		{"stderr and exit code", `echo out; sleep 0.1; echo err >&2; exit 3`, nil,
			[]string{"out", "err", "exited with code 3"}, StatusExited},
		{"signal", `kill -KILL $$`, nil, []string{"exited with signal SIGKILL"}, StatusExited},
		{"env", `echo "$MEITH_TEST_VAR"`, nil, []string{"from-options", "exited with code 0"}, StatusExited},
		{"argv", "printf", []string{"%s|", "a b", "$HOME"}, []string{"a b|$HOME|", "exited with code 0"}, StatusExited},
		{"argv command missing", "meith-no-such-command", []string{"x"}, nil, StatusErrored},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := startDev(t, m, DevSpec{Command: c.command, Args: c.args})
			d = waitEnded(t, m, d.ID)
			if d.Status != c.status {
				t.Errorf("status %s, want %s", d.Status, c.status)
			}
			entries, _, _ := m.Logs(d.ID, 0, 0)
			got := texts(entries)
			if c.status == StatusErrored {
				if len(entries) != 1 || entries[0].Stream != StreamSystem || !strings.Contains(got[0], "meith-no-such-command") {
					t.Errorf("logs %q", got)
				}
				return
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("logs %q, want %q", got, c.want)
			}
			if c.name == "stderr and exit code" && (entries[1].Stream != StreamStderr || *d.ExitCode != 3) {
				t.Errorf("stderr entry %+v, exit code %v", entries[1], d.ExitCode)
			}
		})
	}
	if _, err := m.StartDevServer(context.Background(), DevSpec{Cwd: "/nonexistent/meith", Command: "true"}); !IsInvalid(err) {
		t.Errorf("missing cwd: %v, want an invalid-input error", err)
	}
	if _, err := m.StartDevServer(context.Background(), DevSpec{Cwd: t.TempDir()}); !IsInvalid(err) {
		t.Errorf("empty command: %v", err)
	}
}

// TestDevSpecEnvAndLinks: the spec's Env reaches the server (winning over
// Options.Env) and its project and space are on the record.
func TestDevSpecEnvAndLinks(t *testing.T) {
	m := newManager(t, Options{Env: []string{"MEITH_TEST_VAR=from-options"}})
	d := startDev(t, m, DevSpec{Command: `echo "$MEITH_TEST_VAR $PROJECT_ONLY"`,
		Env: []string{"MEITH_TEST_VAR=from-spec", "PROJECT_ONLY=yes"}, ProjectID: "proj_1", SpaceID: "space_1"})
	d = waitEnded(t, m, d.ID)
	entries, _, _ := m.Logs(d.ID, 0, 0)
	if got := texts(entries); len(got) == 0 || got[0] != "from-spec yes" {
		t.Errorf("logs %q, want the spec's env first", got)
	}
	if d.ProjectID != "proj_1" || d.SpaceID != "space_1" {
		t.Errorf("links %q %q, want proj_1 space_1", d.ProjectID, d.SpaceID)
	}
}

func TestUnknownProcess(t *testing.T) {
	m := newManager(t, Options{})
	_, _, err := m.Logs("dev_000000000000", 0, 0)
	if !IsUnknown(err) || err.Error() != "Unknown process: dev_000000000000" {
		t.Errorf("Logs: %v", err)
	}
	for name, err := range map[string]error{
		"WaitLogs": func() error { _, _, err := m.WaitLogs(context.Background(), "x", 0); return err }(),
		"Stop":     m.StopDevServer(context.Background(), "x", ""),
		"Write":    func() error { _, err := m.WriteTerminal("x", "a"); return err }(),
		"Orphan":   m.StopOrphan(context.Background(), "x"),
	} {
		if !IsUnknown(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	d := startDev(t, m, DevSpec{Command: "sleep 5"})
	if err := m.StopDevServer(context.Background(), d.ID, "SIGNOPE"); !IsInvalid(err) {
		t.Errorf("bad signal: %v", err)
	}
}

func TestWaitLogs(t *testing.T) {
	m := newManager(t, Options{})
	fifo := filepath.Join(t.TempDir(), "in")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The script reads lines from the fifo ($0) and echoes them.
	d := startDev(t, m, DevSpec{Command: "/bin/sh", Args: []string{"-c", `echo one; echo two; exec 3<"$0"; while read l <&3; do echo "$l"; [ "$l" = end ] && exit 0; done`, fifo}})
	ctx := context.Background()
	var all []LogEntry
	for len(all) < 2 { // replay
		e, _, err := m.WaitLogs(ctx, d.ID, int64(len(all)))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, e...)
	}
	got := make(chan []LogEntry, 1)
	go func() {
		e, _, err := m.WaitLogs(ctx, d.ID, 2)
		if err != nil {
			t.Error(err)
		}
		got <- e
	}()
	select {
	case e := <-got:
		t.Fatalf("WaitLogs returned %v before any new line", e)
	case <-time.After(200 * time.Millisecond):
	}
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fmt.Fprintln(w, "three")
	if e := <-got; len(e) != 1 || e[0].Text != "three" || e[0].Seq != 3 {
		t.Fatalf("streamed %+v", e)
	}
	// Cancel.
	cctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if e, next, err := m.WaitLogs(cctx, d.ID, 3); err == nil || len(e) != 0 || next != 4 {
		t.Fatalf("cancelled WaitLogs = %v, %d, %v", e, next, err)
	}
	// The end wakes a waiter, which then gets the exit line.
	fmt.Fprintln(w, "end")
	var tail []LogEntry
	after := int64(3)
	for {
		e, next, err := m.WaitLogs(ctx, d.ID, after)
		if err != nil {
			t.Fatal(err)
		}
		tail = append(tail, e...)
		if len(e) == 0 {
			break // ended, nothing more
		}
		after = next - 1
	}
	if got := strings.Join(texts(tail), ","); got != "end,exited with code 0" {
		t.Errorf("tail %q", got)
	}
}

func TestRecordFileWritten(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "state", "processes.json")
	m := newManager(t, Options{RecordFile: rec, Logf: func(level, format string, args ...any) {
		if level == "warn" || level == "error" {
			t.Errorf(format, args...)
		}
	}})
	d := startDev(t, m, DevSpec{Command: "sleep 1000"})
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(rec); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	for _, want := range []string{d.ID, fmt.Sprintf(`"pgid": %d`, d.PID), fmt.Sprintf(`"runtimePid": %d`, os.Getpid()), `"startTime": `} {
		if !strings.Contains(string(b), want) {
			t.Errorf("record file lacks %s:\n%s", want, b)
		}
	}
	if err := m.StopDevServer(context.Background(), d.ID, ""); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(rec)
	if strings.Contains(string(b), d.ID) {
		t.Errorf("record of a stopped server kept:\n%s", b)
	}
	// Shutdown without stopping servers leaves them running and recorded.
	d2 := startDev(t, m, DevSpec{Command: "sleep 1000"})
	term := newTerminal(t, m, TermSpec{Shell: "/bin/sh"})
	if err := m.Shutdown(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-d2.PID, syscall.SIGKILL) })
	b, _ = os.ReadFile(rec)
	if !strings.Contains(string(b), d2.ID) || strings.Contains(string(b), term.ID) {
		t.Errorf("after Shutdown(false) the file should list %s and not the terminal %s:\n%s", d2.ID, term.ID, b)
	}
	if len(groupMembers(d2.PID)) == 0 || len(groupMembers(term.PID)) != 0 {
		t.Errorf("after Shutdown(false): server group %v, terminal group %v", groupMembers(d2.PID), groupMembers(term.PID))
	}
	if _, err := m.StartDevServer(context.Background(), DevSpec{Cwd: t.TempDir(), Command: "true"}); err == nil {
		t.Error("start after Shutdown succeeded")
	}
}

func TestNoGoroutineLeak(t *testing.T) {
	loginPATH() // the cached lookup's goroutine is not a leak
	before := runtime.NumGoroutine()
	m := New(Options{})
	d := startDev(t, m, DevSpec{Command: "echo hi; sleep 1000 & sleep 1000"})
	startDev(t, m, DevSpec{Command: "echo done"})
	term := newTerminal(t, m, TermSpec{Shell: "/bin/sh"})
	writeTerm(t, m, term.ID, "echo x\r")
	newTerminal(t, m, TermSpec{Shell: "/bin/sh"})
	waitFor(t, "output", func() bool { e, _, _ := m.Logs(d.ID, 0, 0); return len(e) > 0 })
	if err := m.Shutdown(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the engine's goroutines to end", func() bool { return runtime.NumGoroutine() <= before })
}

func TestOrphanSweep(t *testing.T) {
	old := stopGrace
	stopGrace = time.Second
	t.Cleanup(func() { stopGrace = old })
	rec := filepath.Join(t.TempDir(), "processes.json")
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+rec)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		child.Process.Kill()
		child.Wait()
		t.Fatalf("child runtime: %v", err)
	}
	var id string
	var pgid int
	if _, err := fmt.Sscanf(line, "ready %s %d", &id, &pgid); err != nil {
		t.Fatalf("child said %q", line)
	}
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	// The runtime crashes; its dev server lives on.
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	if len(groupMembers(pgid)) == 0 {
		t.Fatal("the dev server died with its runtime")
	}

	m := newManager(t, Options{RecordFile: rec})
	orphans := m.Orphans()
	if len(orphans) != 1 || orphans[0].ID != id || orphans[0].PGID != pgid || orphans[0].Kind != KindDevServer {
		t.Fatalf("Orphans() = %+v, want %s pgid %d", orphans, id, pgid)
	}
	var found *ProcessInfo
	for _, p := range m.Processes() {
		if p.ID == id {
			found = &p
		}
	}
	if found == nil || found.Kind != KindOrphan || found.Tree == nil || found.Tree.PID != pgid {
		t.Fatalf("Processes() orphan entry %+v", found)
	}
	if n := countNodes(*found.Tree); n != len(groupMembers(pgid)) {
		t.Errorf("orphan tree has %d nodes, the group %d processes: %+v", n, len(groupMembers(pgid)), *found.Tree)
	}
	// A second runtime while the orphan runs still sees it.
	if o := New(Options{RecordFile: rec}).Orphans(); len(o) != 1 {
		t.Errorf("second New: %+v", o)
	}
	if err := m.StopOrphan(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if left := groupMembers(pgid); len(left) != 0 {
		t.Fatalf("orphan group left %v", left)
	}
	if o := m.Orphans(); len(o) != 0 {
		t.Errorf("Orphans() after StopOrphan = %+v", o)
	}
	if o := New(Options{RecordFile: rec}).Orphans(); len(o) != 0 {
		t.Errorf("New after StopOrphan lists %+v", o)
	}
}

func countNodes(n ProcessNode) int {
	c := 1
	for _, ch := range n.Children {
		c += countNodes(ch)
	}
	return c
}

func TestRecordsOfALiveRuntimeAreKept(t *testing.T) {
	rec := filepath.Join(t.TempDir(), "processes.json")
	// The records of a runtime that still runs (here: the test's parent).
	parent := os.Getppid()
	doc := fmt.Sprintf(`{"version":1,"processes":[{"id":"dev_0123456789ab","kind":"dev-server","pid":%d,"pgid":%d,"cwd":"/","command":"x","startedAt":1,"runtimePid":%d,"runtimeStartTime":%d}]}`,
		parent, parent, parent, procStartTime(parent))
	if err := os.WriteFile(rec, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New(Options{RecordFile: rec})
	if o := m.Orphans(); len(o) != 0 {
		t.Errorf("a live runtime's process is an orphan: %+v", o)
	}
	if got, _ := os.ReadFile(rec); string(got) != doc {
		t.Errorf("a second runtime rewrote the records of the running one:\n%s", got)
	}
}
