package instance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// groupGone reports whether no process of the group is left.
func groupGone(pgid int) bool { return syscall.Kill(-pgid, 0) == syscall.ESRCH }

// TestProcessToolsNeedAGrant: the process tools that start or signal
// processes are privileged for CLI callers; reading is not.
func TestProcessToolsNeedAGrant(t *testing.T) {
	dir := t.TempDir()
	privileged := []struct{ tool, args string }{
		{"start_dev_server", `{"cwd":"` + dir + `","command":"true"}`},
		{"create_terminal", `{}`},
		{"write_terminal", `{"terminalId":"term_x","data":"x"}`},
		{"resize_terminal", `{"terminalId":"term_x","cols":10,"rows":10}`},
		{"kill_terminal", `{"terminalId":"term_x"}`},
		{"close_terminal", `{"terminalId":"term_x"}`},
		{"stop_dev_server", `{"devServerId":"dev_x"}`},
		{"restart_dev_server", `{"devServerId":"dev_x"}`},
		{"stop_orphan_process", `{"id":"x"}`},
	}
	readOnly := []string{"list_terminals", "list_dev_servers", "get_process_tree"}

	denied := instancetest.New(t)
	c := dial(t, denied)
	for _, p := range privileged {
		if res := call(t, c, p.tool, p.args, nil); res.OK || res.Error.Code != protocol.CodePermissionDenied ||
			!strings.Contains(res.Error.Message, "starts-process") {
			t.Errorf("%s without a grant = %+v, want PERMISSION_DENIED naming starts-process", p.tool, res.Error)
		}
	}
	for _, tool := range readOnly {
		if res := call(t, c, tool, `{}`, nil); !res.OK {
			t.Errorf("%s without a grant = %+v, want ok (read-only)", tool, res.Error)
		}
	}
	if n := len(denied.Processes().DevServers()); n != 0 {
		t.Errorf("a denied start_dev_server started %d servers", n)
	}

	granted := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapStartsProcess))
	c = dial(t, granted)
	for _, p := range privileged {
		if res := call(t, c, p.tool, p.args, nil); !res.OK && res.Error.Code == protocol.CodePermissionDenied {
			t.Errorf("%s with starts-process = %+v, want it to run", p.tool, res.Error)
		}
	}
}

// TestDevServerReachesRuntime: a dev server's environment names this
// runtime (socket, home, user data), and its group is recorded in
// processes.json; app_health counts it; the change bus hears of it.
func TestDevServerReachesRuntime(t *testing.T) {
	var mu sync.Mutex
	var changes []string
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapStartsProcess))
	defer inst.Hints().Subscribe(func(p hint.Payload) {
		c := p.(hint.ProcessChanged)
		mu.Lock()
		changes = append(changes, c.Kind+" "+c.ID)
		mu.Unlock()
	}, hint.TopicProcess)()
	c := dial(t, inst)
	dir := t.TempDir()
	res := call(t, c, "start_dev_server", `{"cwd":"`+dir+`","command":"echo \"$MEITH_SOCKET|$MEITH_HOME|$MEITH_USER_DATA\"; exec sleep 60"}`, nil)
	var srv process.DevServer
	if !res.OK || json.Unmarshal(res.Content, &srv) != nil {
		t.Fatalf("start_dev_server = %+v", res)
	}
	want := inst.SocketPath + "|" + inst.Home + "|" + inst.UserData
	waitFor(t, "the environment line", func() bool {
		logs, _, _ := inst.Processes().Logs(srv.ID, 0, 0)
		return slices.ContainsFunc(logs, func(e process.LogEntry) bool { return e.Text == want })
	})
	rec, err := os.ReadFile(filepath.Join(inst.UserData, instance.ProcessesFile))
	if err != nil || !strings.Contains(string(rec), srv.ID) {
		t.Errorf("processes.json = %s (%v), want the server %s recorded", rec, err, srv.ID)
	}
	res = call(t, c, "app_health", `{}`, nil)
	if !strings.Contains(string(res.Content), `"name":"processes"`) || !strings.Contains(string(res.Content), `"devServersRunning":1`) {
		t.Errorf("app_health = %s, want a processes check counting one running server", res.Content)
	}
	waitFor(t, "the process_changed hint", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(changes, "dev-server "+srv.ID)
	})
}

// orphanGroup starts `sleep 60` in a process group of its own, as an
// earlier runtime would have, and records it in userData's processes.json
// as started by a runtime that is gone. It returns the group's pid and a
// channel closed when the sleep has died (and been reaped).
func orphanGroup(t *testing.T, userData, cwd string) (int, <-chan struct{}) {
	t.Helper()
	deadRuntime := exec.Command("true")
	if err := deadRuntime.Run(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	cmd.Dir = cwd
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	gone := make(chan struct{})
	go func() { cmd.Wait(); close(gone) }()
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	doc := map[string]any{"version": 1, "processes": []map[string]any{{
		"id": "dev_0rphan", "kind": "dev-server", "pid": pid, "pgid": pid, "cwd": cwd, "command": "sleep 60",
		"startedAt": time.Now().UnixMilli(), "runtimePid": deadRuntime.Process.Pid,
	}}}
	b, _ := json.Marshal(doc)
	if err := os.MkdirAll(userData, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userData, instance.ProcessesFile), b, 0o600); err != nil {
		t.Fatal(err)
	}
	return pid, gone
}

// startAt builds and starts an instance on root's dirs; the test
// closes it.
func startAt(t *testing.T, root string, grant ...protocol.Capability) *instance.Instance {
	t.Helper()
	inst, err := instance.New(instance.Config{Home: filepath.Join(root, "h"), UserData: filepath.Join(root, "u"), GrantCLI: grant})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Start(context.Background()); err != nil {
		inst.Close(context.Background())
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close(context.Background()) })
	return inst
}

// setSettings changes the settings of root's instance before it starts.
func setSettings(t *testing.T, root string, fn func(*state.AppSettings)) {
	t.Helper()
	ud := filepath.Join(root, "u")
	os.MkdirAll(ud, 0o700)
	st, err := state.Open(filepath.Join(ud, instance.StateFile), state.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Update(func(s *state.State) error { fn(&s.Settings); return nil }); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

func logged(t *testing.T, inst *instance.Instance, search string) []applog.Entry {
	t.Helper()
	entries, err := inst.Logger().Query(applog.Filter{Source: "process", Search: search})
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// TestOrphansStoppedOnStart: with stopOrphansOnStart (the default) a
// process group an earlier run left is stopped when the runtime starts,
// and the log says so.
func TestOrphansStoppedOnStart(t *testing.T) {
	root := t.TempDir()
	pid, gone := orphanGroup(t, filepath.Join(root, "u"), root)
	inst := startAt(t, root)
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatalf("the orphaned group %d still runs after the start", pid)
	}
	want := fmt.Sprintf("stopped orphaned dev server sleep 60 (pid %d) left by an earlier run", pid)
	if e := logged(t, inst, want); len(e) != 1 || e[0].Level != protocol.LevelInfo {
		t.Errorf("log entries %+v, want one info %q", e, want)
	}
	if o := inst.Processes().Orphans(); len(o) != 0 {
		t.Errorf("orphans after the sweep = %+v", o)
	}
}

// TestOrphansKeptWhenAsked: without stopOrphansOnStart the orphan is only
// logged as a warning; get_process_tree lists it (kind orphan), app_health
// counts it, and stop_orphan_process stops it.
func TestOrphansKeptWhenAsked(t *testing.T) {
	root := t.TempDir()
	setSettings(t, root, func(s *state.AppSettings) { s.StopOrphansOnStart = false })
	pid, gone := orphanGroup(t, filepath.Join(root, "u"), root)
	inst := startAt(t, root, protocol.CapStartsProcess)
	if e := logged(t, inst, "stop_orphan_process dev_0rphan"); len(e) != 1 || e[0].Level != protocol.LevelWarn {
		t.Errorf("log entries %+v, want one warning naming stop_orphan_process", e)
	}
	time.Sleep(200 * time.Millisecond)
	select {
	case <-gone:
		t.Fatal("the orphan was stopped although stopOrphansOnStart is false")
	default:
	}

	c := dial(t, &instancetest.Instance{Instance: inst, SocketPath: inst.SocketPath()})
	res := call(t, c, "get_process_tree", `{}`, nil)
	var tree struct{ Processes []process.ProcessInfo }
	json.Unmarshal(res.Content, &tree)
	if !res.OK || len(tree.Processes) != 1 || tree.Processes[0].Kind != "orphan" || tree.Processes[0].ID != "dev_0rphan" ||
		tree.Processes[0].PID != pid {
		t.Fatalf("get_process_tree = %s %+v, want the orphan", res.Content, res.Error)
	}
	res = call(t, c, "app_health", `{}`, nil)
	if !strings.Contains(string(res.Content), `"orphans":1`) {
		t.Errorf("app_health = %s, want one orphan counted", res.Content)
	}
	res = call(t, c, "stop_orphan_process", `{"id":"dev_0rphan"}`, nil)
	if !res.OK || string(res.Content) != `{"id":"dev_0rphan","stopped":true}` {
		t.Fatalf("stop_orphan_process = %s %+v", res.Content, res.Error)
	}
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the orphan still runs after stop_orphan_process")
	}
	res = call(t, c, "get_process_tree", `{}`, nil)
	if !strings.Contains(string(res.Content), `"processes":[]`) {
		t.Errorf("get_process_tree after the stop = %s, want none", res.Content)
	}
}

// TestCloseStopsServers: Close stops the dev servers' groups with
// stopServersOnClose (the default) and leaves them running, recorded,
// without it; terminals end either way.
func TestCloseStopsServers(t *testing.T) {
	for _, stop := range []bool{true, false} {
		t.Run(fmt.Sprint("stopServersOnClose=", stop), func(t *testing.T) {
			root := t.TempDir()
			setSettings(t, root, func(s *state.AppSettings) { s.StopServersOnClose = stop })
			inst := startAt(t, root)
			srv, err := inst.Processes().StartDevServer(context.Background(), process.DevSpec{Cwd: root, Command: "exec sleep 60"})
			if err != nil {
				t.Fatal(err)
			}
			term, err := inst.Processes().CreateTerminal(context.Background(), process.TermSpec{Cwd: root, Shell: "/bin/sh"})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(-srv.PID, syscall.SIGKILL) })
			waitFor(t, "the server running", func() bool {
				s, _ := inst.Processes().DevServer(srv.ID)
				return s.Status == process.StatusRunning
			})
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			if err := inst.Close(ctx); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the terminal's end", func() bool { return groupGone(term.PID) })
			if got := groupGone(srv.PID); got != stop {
				t.Errorf("server group gone after Close = %v, want %v", got, stop)
			}
			rec, _ := os.ReadFile(filepath.Join(root, "u", instance.ProcessesFile))
			if got := strings.Contains(string(rec), srv.ID); got == stop {
				t.Errorf("processes.json after Close = %s; server recorded = %v, want %v", rec, got, !stop)
			}
		})
	}
}

// TestClosingATerminalTabEndsItsShell: close_workspace_tab and close_space
// end the terminals of the terminal tabs they remove.
func TestClosingATerminalTabEndsItsShell(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapWritesFiles, protocol.CapDestructive, protocol.CapStartsProcess))
	c := dial(t, inst)
	dir := t.TempDir()
	openTerminalTab := func(spaceID string) (tabID string, term process.Terminal) {
		t.Helper()
		var err error
		if term, err = inst.Processes().CreateTerminal(context.Background(), process.TermSpec{Cwd: dir, Shell: "/bin/sh"}); err != nil {
			t.Fatal(err)
		}
		var tab state.WorkspaceTab
		args := fmt.Sprintf(`{"title":"sh","cwd":%q,"kind":"terminal","terminalId":%q,"spaceId":%q}`, dir, term.ID, spaceID)
		res := call(t, c, "open_workspace_tab", args, nil)
		if !res.OK {
			t.Fatalf("open_workspace_tab: %+v", res.Error)
		}
		json.Unmarshal(res.Content, &tab)
		return tab.ID, term
	}
	alive := func(id string) bool {
		for _, term := range inst.Processes().Terminals() {
			if term.ID == id {
				return true
			}
		}
		return false
	}

	var spaces struct{ ActiveSpaceID string }
	json.Unmarshal(call(t, c, "list_spaces", `{}`, nil).Content, &spaces)
	tabID, term := openTerminalTab(spaces.ActiveSpaceID)
	if res := call(t, c, "close_workspace_tab", fmt.Sprintf(`{"tabId":%q}`, tabID), nil); !res.OK {
		t.Fatalf("close_workspace_tab: %+v", res.Error)
	}
	waitFor(t, "the closed tab's shell to end", func() bool { return !alive(term.ID) && groupGone(term.PID) })

	var other state.Space
	json.Unmarshal(call(t, c, "create_space", `{"name":"other"}`, nil).Content, &other)
	_, term2 := openTerminalTab(other.ID)
	if res := call(t, c, "close_space", fmt.Sprintf(`{"spaceId":%q}`, other.ID), nil); !res.OK {
		t.Fatalf("close_space: %+v", res.Error)
	}
	waitFor(t, "the closed space's shell to end", func() bool { return !alive(term2.ID) && groupGone(term2.PID) })
}
