package processtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/processtools"
)

// harness is a registry with the process tools on a real engine.
type harness struct {
	t   *testing.T
	reg *registry.Registry
	m   *process.Manager
	dir string // a temp folder to run things in
}

func setup(t *testing.T, opts ...func(*registry.Options)) *harness {
	t.Helper()
	dir := t.TempDir()
	m := process.New(process.Options{RecordFile: filepath.Join(dir, "processes.json")})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := m.Shutdown(ctx, true); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	var ro registry.Options
	for _, o := range opts {
		o(&ro)
	}
	reg := registry.New(ro)
	processtools.Register(reg, processtools.Deps{Manager: m})
	return &harness{t: t, reg: reg, m: m, dir: dir}
}

// call runs a tool as the renderer (trusted) with the harness folder as
// the caller's cwd.
func (h *harness) call(tool, args string) protocol.ToolResult {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return h.reg.Call(ctx, registry.Request{ToolName: tool, Args: json.RawMessage(args), Timeout: 20 * time.Second,
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: h.dir}})
}

// ok runs a tool that must succeed and decodes its content into v.
func (h *harness) ok(tool, args string, v any) {
	h.t.Helper()
	res := h.call(tool, args)
	if !res.OK {
		h.t.Fatalf("%s(%s) = %+v", tool, args, res.Error)
	}
	if v != nil {
		if err := json.Unmarshal(res.Content, v); err != nil {
			h.t.Fatalf("%s content %s: %v", tool, res.Content, err)
		}
	}
}

// eventually polls cond until it holds or 10 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupAlive reports whether a process group still has members.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

func jsonArg(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestToolsRegistered(t *testing.T) {
	h := setup(t)
	sp, net, ro := protocol.CapStartsProcess, protocol.CapAccessesNetwork, protocol.CapReadOnly
	want := map[string][]protocol.Capability{
		"create_terminal": {sp}, "list_terminals": {ro}, "write_terminal": {sp}, "resize_terminal": {sp},
		"kill_terminal": {sp}, "close_terminal": {sp}, "get_terminal_snapshot": {ro},
		"start_dev_server": {sp, net}, "list_dev_servers": {ro}, "stop_dev_server": {sp},
		"get_process_tree": {ro}, "get_process_logs": {ro}, "attach_process_logs": {ro},
		"restart_dev_server": {sp}, "stop_orphan_process": {sp},
		"remove_dev_server": {sp}, "clear_process_logs": {sp},
	}
	if got := len(h.reg.Names()); got != len(want) {
		t.Errorf("registered %d tools (%v), want %d", got, h.reg.Names(), len(want))
	}
	for name, caps := range want {
		d, ok := h.reg.Describe(name)
		if !ok || !slices.Equal(d.Capabilities, caps) {
			t.Errorf("%s: registered %v, capabilities %v; want %v", name, ok, d.Capabilities, caps)
		}
	}
	if processtools.AttachTimeout != 2_147_483_647*time.Millisecond {
		t.Errorf("AttachTimeout = %v", processtools.AttachTimeout)
	}
}

func TestDevServerLifecycle(t *testing.T) {
	h := setup(t)
	app := filepath.Join(h.dir, "app")
	os.Mkdir(app, 0o755)
	script := `echo one; echo two; echo oops >&2; echo "ready on http://localhost:4321/"; exec sleep 60`

	var srv process.DevServer
	h.ok("start_dev_server", fmt.Sprintf(`{"cwd":"app","command":%s,"name":"web"}`, jsonArg(script)), &srv)
	if !strings.HasPrefix(srv.ID, "dev_") || srv.Cwd != app || srv.Command != script || srv.Name != "web" || srv.PID <= 0 ||
		(srv.Status != process.StatusStarting && srv.Status != process.StatusRunning) {
		t.Fatalf("start_dev_server = %+v (relative cwd resolved against the caller's %s)", srv, h.dir)
	}

	// The port is sniffed from the output; list_dev_servers shows it.
	eventually(t, "the port", func() bool {
		var list []process.DevServer
		h.ok("list_dev_servers", `{}`, &list)
		return len(list) == 1 && list[0].ID == srv.ID && list[0].Port != nil && *list[0].Port == 4321 && list[0].Status == process.StatusRunning
	})

	// get_process_logs: everything, or the newest N.
	var logs processtools.LogsResult
	eventually(t, "four lines", func() bool {
		h.ok("get_process_logs", `{"processId":"`+srv.ID+`"}`, &logs)
		return len(logs.Logs) >= 4
	})
	var texts []string
	for _, e := range logs.Logs {
		texts = append(texts, e.Stream+":"+e.Text)
	}
	for _, want := range []string{"stdout:one", "stdout:two", "stderr:oops", "stdout:ready on http://localhost:4321/"} {
		if !slices.Contains(texts, want) {
			t.Errorf("logs %q lack %q", texts, want)
		}
	}
	if logs.ProcessID != srv.ID {
		t.Errorf("processId = %q", logs.ProcessID)
	}
	h.ok("get_process_logs", `{"processId":"`+srv.ID+`","limit":2}`, &logs)
	if len(logs.Logs) != 2 || logs.Logs[1].Seq != 4 {
		t.Errorf("limit 2 = %+v, want the newest two (seq 3, 4)", logs.Logs)
	}

	// get_process_tree lists it with its subtree (the sleep).
	var tree processtools.TreeResult
	h.ok("get_process_tree", `{}`, &tree)
	i := slices.IndexFunc(tree.Processes, func(p process.ProcessInfo) bool { return p.ID == srv.ID })
	if i < 0 || tree.Processes[i].Kind != "dev-server" || tree.Processes[i].PID != srv.PID || tree.Processes[i].Cwd != app {
		t.Fatalf("get_process_tree = %+v, want dev server %s", tree.Processes, srv.ID)
	}

	// restart: a new server with the same command; the old group is gone.
	var again process.DevServer
	h.ok("restart_dev_server", `{"devServerId":"`+srv.ID+`"}`, &again)
	if again.ID == srv.ID || again.Command != script || again.Cwd != app || again.PID == srv.PID {
		t.Errorf("restart_dev_server = %+v, want a new server running %q in %s", again, script, app)
	}
	if groupAlive(srv.PID) {
		t.Errorf("the first server's group %d is alive after the restart", srv.PID)
	}
	if old, _ := h.m.DevServer(srv.ID); old.Status != process.StatusStopped {
		t.Errorf("restarted server's status = %q, want stopped", old.Status)
	}

	// stop_dev_server kills the whole group.
	var stopped processtools.StopResult
	h.ok("stop_dev_server", `{"devServerId":"`+again.ID+`"}`, &stopped)
	if stopped != (processtools.StopResult{DevServerID: again.ID, Stopped: true}) {
		t.Errorf("stop_dev_server = %+v", stopped)
	}
	if groupAlive(again.PID) {
		t.Errorf("group %d alive after stop_dev_server", again.PID)
	}
	var list []process.DevServer
	h.ok("list_dev_servers", `{}`, &list)
	if len(list) != 2 || list[1].Status != process.StatusStopped {
		t.Errorf("list_dev_servers after stop = %+v", list)
	}
}

func TestDevServerArgv(t *testing.T) {
	h := setup(t)
	// With args the command is an argv: no shell splits or expands them.
	var srv process.DevServer
	h.ok("start_dev_server", `{"cwd":"`+h.dir+`","command":"printf","args":["%s|","a b","$HOME"]}`, &srv)
	if !slices.Equal(srv.Args, []string{"%s|", "a b", "$HOME"}) {
		t.Errorf("args = %q", srv.Args)
	}
	eventually(t, "the exit", func() bool {
		s, _ := h.m.DevServer(srv.ID)
		return s.Status == process.StatusExited
	})
	var logs processtools.LogsResult
	h.ok("get_process_logs", `{"processId":"`+srv.ID+`"}`, &logs)
	var out []string
	for _, e := range logs.Logs {
		if e.Stream == process.StreamStdout {
			out = append(out, e.Text)
		}
	}
	if strings.Join(out, "\n") != "a b|$HOME|" {
		t.Errorf("stdout = %q, want %q", out, "a b|$HOME|")
	}
}

func TestTerminal(t *testing.T) {
	h := setup(t)
	var term process.Terminal
	// A missing folder falls back to its nearest existing parent.
	h.ok("create_terminal", `{"cwd":"`+filepath.Join(h.dir, "no", "such")+`","shell":"/bin/sh","cols":100,"rows":30}`, &term)
	if !strings.HasPrefix(term.ID, "term_") || term.Cwd != h.dir || term.Cols != 100 || term.Rows != 30 ||
		term.Status != process.StatusRunning || term.PID <= 0 || term.Shell != "/bin/sh" {
		t.Fatalf("create_terminal = %+v", term)
	}
	var list []process.Terminal
	h.ok("list_terminals", `{}`, &list)
	if len(list) != 1 || list[0].ID != term.ID {
		t.Errorf("list_terminals = %+v", list)
	}

	var w processtools.WriteResult
	h.ok("write_terminal", `{"terminalId":"`+term.ID+`","data":"echo hi-$((40+2))\r"}`, &w)
	if w.TerminalID != term.ID || w.Written != len("echo hi-$((40+2))\r") {
		t.Errorf("write_terminal = %+v", w)
	}
	var snap process.Snapshot
	eventually(t, "the echo in the scrollback", func() bool {
		h.ok("get_terminal_snapshot", `{"terminalId":"`+term.ID+`"}`, &snap)
		return strings.Contains(snap.Buffer, "hi-42")
	})
	if snap.ID != term.ID || snap.NextSeq < 2 {
		t.Errorf("snapshot = %+v", snap.Terminal)
	}
	var logs processtools.LogsResult
	h.ok("get_process_logs", `{"processId":"`+term.ID+`"}`, &logs)
	if len(logs.Logs) == 0 || logs.Logs[0].Stream != process.StreamPTY {
		t.Errorf("terminal logs = %+v, want pty chunks", logs.Logs)
	}

	var resized process.Terminal
	h.ok("resize_terminal", `{"terminalId":"`+term.ID+`","cols":120,"rows":40}`, &resized)
	if resized.Cols != 120 || resized.Rows != 40 {
		t.Errorf("resize_terminal = %+v", resized)
	}
	h.ok("write_terminal", `{"terminalId":"`+term.ID+`","data":"stty size\r"}`, nil)
	eventually(t, "stty size 40 120", func() bool {
		h.ok("get_terminal_snapshot", `{"terminalId":"`+term.ID+`"}`, &snap)
		return strings.Contains(snap.Buffer, "40 120")
	})

	var killed process.Terminal
	h.ok("kill_terminal", `{"terminalId":"`+term.ID+`","signal":"KILL"}`, &killed)
	if killed.ID != term.ID {
		t.Errorf("kill_terminal = %+v", killed)
	}
	eventually(t, "the terminal's exit", func() bool {
		h.ok("list_terminals", `{}`, &list)
		return len(list) == 1 && list[0].Status != process.StatusRunning
	})

	var closed processtools.CloseResult
	h.ok("close_terminal", `{"terminalId":"`+term.ID+`"}`, &closed)
	if closed != (processtools.CloseResult{TerminalID: term.ID, Closed: true}) {
		t.Errorf("close_terminal = %+v", closed)
	}
	h.ok("list_terminals", `{}`, &list)
	if len(list) != 0 {
		t.Errorf("list_terminals after close = %+v", list)
	}
}

func TestErrors(t *testing.T) {
	h := setup(t)
	var srv process.DevServer
	h.ok("start_dev_server", `{"cwd":"`+h.dir+`","command":"exec sleep 60"}`, &srv)
	empty := t.TempDir()
	tests := []struct {
		tool, args string
		code       protocol.ErrorCode
		msg        string
	}{
		{"write_terminal", `{"terminalId":"term_nope","data":"x"}`, protocol.CodeToolFailed, "Unknown terminal: term_nope"},
		{"resize_terminal", `{"terminalId":"term_nope","cols":10,"rows":10}`, protocol.CodeToolFailed, "Unknown terminal: term_nope"},
		{"kill_terminal", `{"terminalId":"term_nope"}`, protocol.CodeToolFailed, "Unknown terminal: term_nope"},
		{"close_terminal", `{"terminalId":"term_nope"}`, protocol.CodeToolFailed, "Unknown terminal: term_nope"},
		{"get_terminal_snapshot", `{"terminalId":"term_nope"}`, protocol.CodeToolFailed, "Unknown terminal: term_nope"},
		{"get_process_logs", `{"processId":"dev_nope"}`, protocol.CodeToolFailed, "Unknown process: dev_nope"},
		{"stop_orphan_process", `{"id":"orphan_nope"}`, protocol.CodeToolFailed, "Unknown process: orphan_nope"},
		{"stop_dev_server", `{"devServerId":"dev_nope"}`, protocol.CodeToolFailed, "Unknown dev server: dev_nope"},
		{"restart_dev_server", `{"devServerId":"dev_nope"}`, protocol.CodeToolFailed, "Unknown dev server: dev_nope"},
		{"attach_process_logs", `{}`, protocol.CodeValidation, "Provide either devServerId or cwd"},
		{"attach_process_logs", `{"replay":false}`, protocol.CodeValidation, "Provide either devServerId or cwd"},
		{"attach_process_logs", `{"devServerId":"dev_nope"}`, protocol.CodeToolFailed, "Unknown dev server: dev_nope"},
		{"attach_process_logs", `{"cwd":"` + empty + `"}`, protocol.CodeToolFailed, "No dev server running in " + empty},
		{"resize_terminal", `{"terminalId":"term_x","cols":0,"rows":10}`, protocol.CodeValidation, "cols"},
		{"write_terminal", `{"terminalId":"","data":"x"}`, protocol.CodeValidation, "terminalId"},
		{"stop_dev_server", `{"devServerId":"` + srv.ID + `","signal":"SIGFOO"}`, protocol.CodeValidation, "unknown signal"},
		{"kill_terminal", `{"terminalId":"term_x","signal":"NOPE"}`, protocol.CodeValidation, "unknown signal"},
		{"start_dev_server", `{"cwd":"` + h.dir + `","command":"  "}`, protocol.CodeValidation, "command"},
		{"start_dev_server", `{"command":"true"}`, protocol.CodeValidation, "cwd"},
		{"start_dev_server", `{"cwd":"` + filepath.Join(h.dir, "missing") + `","command":"true"}`, protocol.CodeValidation, "missing"},
		{"get_process_logs", `{"processId":"` + srv.ID + `","limit":10001}`, protocol.CodeValidation, "limit"},
	}
	for _, tt := range tests {
		res := h.call(tt.tool, tt.args)
		if res.OK || res.Error.Code != tt.code || !strings.Contains(res.Error.Message, tt.msg) {
			t.Errorf("%s(%s) = %+v, want %s containing %q", tt.tool, tt.args, res.Error, tt.code, tt.msg)
		}
	}
	// A relative cwd needs the caller's working directory.
	res := h.reg.Call(context.Background(), registry.Request{ToolName: "start_dev_server",
		Args: json.RawMessage(`{"cwd":"app","command":"true"}`), Client: protocol.ClientInfo{Caller: protocol.CallerRenderer}})
	if res.OK || res.Error.Code != protocol.CodeValidation || !strings.Contains(res.Error.Message, "relative") {
		t.Errorf("relative cwd without a caller cwd = %+v, want VALIDATION_ERROR", res.Error)
	}
	// The failed stop left the server alone.
	if s, _ := h.m.DevServer(srv.ID); s.Status != process.StatusRunning {
		t.Errorf("server status after the refused stop = %q", s.Status)
	}
}

// attachment is one attach_process_logs call in flight.
type attachment struct {
	mu     sync.Mutex
	events []protocol.Event
	cancel context.CancelFunc
	done   chan protocol.ToolResult
}

func (h *harness) attach(args string) *attachment {
	ctx, cancel := context.WithCancel(context.Background())
	a := &attachment{cancel: cancel, done: make(chan protocol.ToolResult, 1)}
	go func() {
		a.done <- h.reg.Call(ctx, registry.Request{ToolName: "attach_process_logs", Args: json.RawMessage(args),
			Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, Cwd: h.dir},
			Emit: func(ev protocol.Event) {
				a.mu.Lock()
				a.events = append(a.events, ev)
				a.mu.Unlock()
			}})
	}()
	h.t.Cleanup(cancel)
	return a
}

// lines returns the log events so far as "level message".
func (a *attachment) lines() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, ev := range a.events {
		if ev.Kind == protocol.EventLog {
			// One event carries consecutive lines of one level.
			for _, line := range strings.Split(ev.Message, "\n") {
				out = append(out, string(ev.Level)+" "+line)
			}
		}
	}
	return out
}

func (a *attachment) has(line string) bool { return slices.Contains(a.lines(), line) }

func TestAttach(t *testing.T) {
	// A short registry default timeout: attach_process_logs' own (very
	// long) timeout must win over it.
	h := setup(t, func(o *registry.Options) { o.DefaultTimeout = 300 * time.Millisecond })
	dir := filepath.Join(h.dir, "proj")
	os.MkdirAll(filepath.Join(dir, "web"), 0o755)
	gate := filepath.Join(h.dir, "gate")
	script := fmt.Sprintf(`echo first; echo warned >&2; while [ ! -f %s ]; do sleep 0.05; done; echo second; exit 3`, gate)
	var srv process.DevServer
	h.ok("start_dev_server", fmt.Sprintf(`{"cwd":%s,"command":%s}`, jsonArg(filepath.Join(dir, "web")), jsonArg(script)), &srv)
	eventually(t, "the first lines", func() bool {
		logs, _, _ := h.m.Logs(srv.ID, 0, 0)
		return len(logs) >= 2
	})

	// By cwd (a parent of the server's folder), replaying: the held lines
	// first, stderr as a warning with its stream named.
	byCwd := h.attach(`{"cwd":` + jsonArg(dir) + `}`)
	// By id without replay: only what comes next.
	byID := h.attach(`{"devServerId":"` + srv.ID + `","replay":false}`)
	eventually(t, "the replay", func() bool { return byCwd.has("info first") && byCwd.has("warn [stderr] warned") })
	time.Sleep(500 * time.Millisecond) // past the registry's default timeout
	if got := byID.lines(); len(got) != 0 {
		t.Errorf("attach without replay sent %q before any new line", got)
	}

	// New lines stream to both; the exit's system line too.
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, a := range map[string]*attachment{"by cwd": byCwd, "by id": byID} {
		eventually(t, name+": second and the exit line", func() bool {
			return a.has("info second") && a.has("info [system] exited with code 3")
		})
	}
	if got := byID.lines(); got[0] != "info second" {
		t.Errorf("attach without replay = %q, want to start at the new line", got)
	}

	// After the exit the follow goes on until the caller cancels.
	time.Sleep(300 * time.Millisecond)
	select {
	case res := <-byCwd.done:
		t.Fatalf("attach ended by itself after the server exited: %+v", res)
	default:
	}
	for name, a := range map[string]*attachment{"by cwd": byCwd, "by id": byID} {
		a.cancel()
		select {
		case res := <-a.done:
			// The handler resolves {devServerId, attached:true} at once; the
			// registry keeps that when it is there as the call ends, else
			// answers CANCELLED itself.
			want := `{"devServerId":"` + srv.ID + `","attached":true}`
			if !(res.OK && string(res.Content) == want) && (res.OK || res.Error.Code != protocol.CodeCancelled) {
				t.Errorf("%s: cancelled attach = %s %+v, want %s or CANCELLED", name, res.Content, res.Error, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: attach did not end after cancellation", name)
		}
	}
	// The handlers returned too.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.reg.WaitIdle(ctx); err != nil {
		t.Errorf("attach handlers still running after cancellation: %v", err)
	}
}

// TestAttachNewestByCwd: by cwd, the newest server in (or below) the
// folder wins; a server above the folder does not count.
func TestAttachNewestByCwd(t *testing.T) {
	h := setup(t)
	for _, d := range []string{"a", "b", "b/src"} {
		os.MkdirAll(filepath.Join(h.dir, d), 0o755)
	}
	start := func(sub, word string) process.DevServer {
		var s process.DevServer
		h.ok("start_dev_server", fmt.Sprintf(`{"cwd":%s,"command":"echo %s; exec sleep 60"}`, jsonArg(filepath.Join(h.dir, sub)), word), &s)
		return s
	}
	start("a", "from-a")
	b := start("b", "from-b")
	a := h.attach(`{"cwd":` + jsonArg(h.dir) + `}`)
	eventually(t, "the newest server's line", func() bool { return a.has("info from-b") })
	if a.has("info from-a") {
		t.Errorf("attach by %s streamed the older server too: %q", h.dir, a.lines())
	}
	a.cancel()
	res := h.call("attach_process_logs", `{"cwd":`+jsonArg(filepath.Join(h.dir, "b", "src"))+`}`)
	if res.OK || !strings.Contains(res.Error.Message, "No dev server running in") {
		t.Errorf("attach below the server's folder = %+v, want no server (%s runs in its parent)", res, b.ID)
	}
}

// TestProcessLogsBounded: get_process_logs on a server that printed 20 MB
// as one line and 3 MB of random bytes without a newline (up to 6× as
// JSON) answers at most 4 MiB per call, says so, and pages on with after.
func TestProcessLogsBounded(t *testing.T) {
	h := setup(t)
	var srv process.DevServer
	h.ok("start_dev_server", `{"cwd":".","command":"head -c 20000000 /dev/zero | tr '\\0' a; echo; head -c 3000000 /dev/urandom | tr -d '\\n'; echo; echo flood-done; exec sleep 30"}`, &srv)
	deadline := time.Now().Add(2 * time.Minute) // bounds a hang; not a timing assertion
	for {
		logs, _, _ := h.m.Logs(srv.ID, 0, 1)
		if len(logs) == 1 && logs[0].Text == "flood-done" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the flood")
		}
		time.Sleep(20 * time.Millisecond)
	}
	const bound = process.MaxLogPageBytes + 1024
	res := h.call("get_process_logs", `{"processId":"`+srv.ID+`"}`)
	var logs processtools.LogsResult
	if !res.OK || json.Unmarshal(res.Content, &logs) != nil {
		t.Fatalf("get_process_logs = %.200s %+v", res.Content, res.Error)
	}
	if len(res.Content) > bound || !logs.Truncated || logs.Logs[len(logs.Logs)-1].Text != "flood-done" {
		t.Fatalf("get_process_logs: %d bytes (bound %d, frame limit %d), truncated %v, %d entries", len(res.Content), bound, protocol.MaxFrameBytes, logs.Truncated, len(logs.Logs))
	}
	if logs.NextSeq != logs.Logs[len(logs.Logs)-1].Seq+1 {
		t.Errorf("nextSeq %d, last seq %d", logs.NextSeq, logs.Logs[len(logs.Logs)-1].Seq)
	}
	// Paging from the start with after reaches the newest entry.
	after, pages := int64(0), 0
	for {
		res := h.call("get_process_logs", fmt.Sprintf(`{"processId":%q,"after":%d}`, srv.ID, after))
		var p processtools.LogsResult
		if !res.OK || json.Unmarshal(res.Content, &p) != nil || len(p.Logs) == 0 {
			t.Fatalf("page after %d = %.200s %+v", after, res.Content, res.Error)
		}
		if len(res.Content) > bound || p.Logs[0].Seq <= after {
			t.Fatalf("page after %d: %d bytes, first seq %d", after, len(res.Content), p.Logs[0].Seq)
		}
		pages++
		after = p.Logs[len(p.Logs)-1].Seq
		if !p.Truncated {
			break
		}
	}
	if pages < 2 || after != logs.NextSeq-1 {
		t.Errorf("%d pages ended after seq %d, want ≥ 2 pages up to %d", pages, after, logs.NextSeq-1)
	}
	if res := h.call("get_process_logs", `{"processId":"`+srv.ID+`","after":-1}`); res.OK || res.Error.Code != protocol.CodeValidation {
		t.Errorf("after -1 = %+v, want VALIDATION_ERROR", res.Error)
	}
}

// The Processes panel's Remove and Clear output on a stopped dev server.
func TestRemoveAndClearStoppedDevServer(t *testing.T) {
	h := setup(t)
	var srv process.DevServer
	h.ok("start_dev_server", `{"cwd":".","command":"echo hello; exec sleep 60"}`, &srv)
	var logs processtools.LogsResult
	eventually(t, "the output", func() bool {
		h.ok("get_process_logs", `{"processId":"`+srv.ID+`"}`, &logs)
		return len(logs.Logs) > 0
	})
	// A running server is not removed.
	if res := h.call("remove_dev_server", `{"devServerId":"`+srv.ID+`"}`); res.OK || res.Error.Code != protocol.CodeValidation {
		t.Fatalf("remove_dev_server of a running server = %+v", res)
	}
	h.ok("stop_dev_server", `{"devServerId":"`+srv.ID+`"}`, nil)

	var cleared processtools.ClearLogsResult
	h.ok("clear_process_logs", `{"processId":"`+srv.ID+`"}`, &cleared)
	h.ok("get_process_logs", `{"processId":"`+srv.ID+`"}`, &logs)
	if !cleared.Cleared || len(logs.Logs) != 0 || logs.NextSeq < 2 {
		t.Errorf("after clear_process_logs %+v: logs %+v, next %d", cleared, logs.Logs, logs.NextSeq)
	}

	var removed processtools.RemoveResult
	h.ok("remove_dev_server", `{"devServerId":"`+srv.ID+`"}`, &removed)
	var list []process.DevServer
	h.ok("list_dev_servers", `{}`, &list)
	if removed != (processtools.RemoveResult{DevServerID: srv.ID, Removed: true}) || len(list) != 0 {
		t.Errorf("remove_dev_server = %+v, list %+v", removed, list)
	}
	if res := h.call("remove_dev_server", `{"devServerId":"`+srv.ID+`"}`); res.OK || res.Error.Code != protocol.CodeToolFailed {
		t.Errorf("remove_dev_server again = %+v", res)
	}
}

// create_terminal restores the scrollback an earlier run saved.
func TestCreateTerminalRestoresScrollback(t *testing.T) {
	dir := t.TempDir()
	m := process.New(process.Options{ScrollbackDir: dir})
	old, err := m.CreateTerminal(context.Background(), process.TermSpec{Shell: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	m.WriteTerminal(old.ID, "echo kept-$((6*7))\r")
	eventually(t, "the echo", func() bool {
		s, _ := m.TerminalSnapshot(old.ID)
		return strings.Contains(s.Buffer, "kept-42")
	})
	if err := m.Shutdown(context.Background(), true); err != nil {
		t.Fatal(err)
	}

	h := setup(t)
	h.m = process.New(process.Options{ScrollbackDir: dir})
	t.Cleanup(func() { _ = h.m.Shutdown(context.Background(), true) })
	h.reg = registry.New(registry.Options{})
	processtools.Register(h.reg, processtools.Deps{Manager: h.m})
	var term process.Terminal
	h.ok("create_terminal", `{"shell":"/bin/sh","restoreFrom":"`+old.ID+`"}`, &term)
	if term.RestoredFrom != old.ID {
		t.Fatalf("create_terminal = %+v", term)
	}
	var snap process.Snapshot
	eventually(t, "the old output", func() bool {
		h.ok("get_terminal_snapshot", `{"terminalId":"`+term.ID+`"}`, &snap)
		return strings.Contains(snap.Buffer, "kept-42") && strings.Contains(snap.Buffer, process.SessionEndedNote)
	})
}
