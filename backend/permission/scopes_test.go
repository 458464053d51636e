package permission

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
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/socket"
)

// The environment of the test binary run as a socket client (see
// runScopeClient): the socket, the file its outcome goes to, and the cwd
// it claims in its ClientInfo.
const (
	scopeSockEnv    = "MEITH_PERMISSION_TEST_SOCKET"
	scopeOutEnv     = "MEITH_PERMISSION_TEST_OUT"
	scopeClaimedEnv = "MEITH_PERMISSION_TEST_CLAIMED_CWD"
)

func TestMain(m *testing.M) {
	if sock := os.Getenv(scopeSockEnv); sock != "" {
		os.Exit(runScopeClient(sock, os.Getenv(scopeOutEnv), os.Getenv(scopeClaimedEnv)))
	}
	os.Exit(m.Run())
}

// runScopeClient is the test binary as a cli client: it calls the
// writes-files tool "touch" over the socket, claiming cwd claimed (when
// set) and a cwd argument, and writes the result's code ("OK" or the
// error code) to out.
func runScopeClient(sock, out, claimed string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code := "OK"
	c, err := client.Dial(ctx, sock)
	if err != nil {
		code = "DIAL " + err.Error()
	} else {
		args, _ := json.Marshal(map[string]string{"cwd": claimed})
		res, err := c.Call(ctx, "touch", args, client.CallOptions{ClientInfo: protocol.ClientInfo{Cwd: claimed}})
		switch {
		case err != nil:
			code = "CALL " + err.Error()
		case res.Err() != nil:
			code = string(protocol.CodeOf(res.Err()))
		}
		_ = c.Close()
	}
	if err := os.WriteFile(out+".tmp", []byte(code), 0o600); err != nil {
		return 1
	}
	if err := os.Rename(out+".tmp", out); err != nil {
		return 1
	}
	return 0
}

// scopeRuntime is a permission service behind a real socket, with a UI
// that hands each prompt to the test.
type scopeRuntime struct {
	svc   *Service
	sock  string
	asked chan ApprovalRequest
	a     *Approvals
}

// clock is an injectable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

// startScopeRuntime serves the tool "touch" (writes-files) on a socket in
// dir, authorized by a service with opts (its Approvals set here).
func startScopeRuntime(t *testing.T, dir string, opts Options) *scopeRuntime {
	t.Helper()
	rt := &scopeRuntime{asked: make(chan ApprovalRequest, 16), a: NewApprovals(ApprovalsOptions{})}
	opts.Approvals = rt.a
	if opts.ApprovalTimeout == 0 {
		opts.ApprovalTimeout = 45 * time.Second
	}
	rt.svc = New(opts)
	detach := rt.a.Attach()
	cancel := rt.a.Subscribe(func(ev ApprovalEvent) {
		if ev.Kind == ApprovalPending {
			rt.asked <- ev.Request
		}
	})
	reg := registry.New(registry.Options{Authorizer: rt.svc})
	type touchIn struct {
		Cwd string `json:"cwd,omitempty"`
	}
	registry.Register(reg, registry.Tool{Name: "touch", Description: "test", Capabilities: []protocol.Capability{wf}},
		func(ctx context.Context, call *registry.Call, in touchIn) (map[string]bool, error) {
			return map[string]bool{"ok": true}, nil
		})
	rt.sock = filepath.Join(dir, fmt.Sprintf("s%d.sock", time.Now().UnixNano()%1e6))
	srv, err := socket.Listen(context.Background(), socket.Options{Path: rt.sock, Registry: reg,
		OnSessionEnd: rt.svc.RevokeSession})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, c := context.WithTimeout(context.Background(), 10*time.Second)
		defer c()
		_ = srv.Close(ctx)
		cancel()
		detach()
	})
	return rt
}

// clientCmd is the shell command (or argv) running the test binary as a
// client of rt that writes its outcome to out.
func (rt *scopeRuntime) env(out, claimed string) []string {
	return []string{scopeSockEnv + "=" + rt.sock, scopeOutEnv + "=" + out, scopeClaimedEnv + "=" + claimed}
}

// outcome waits for the client's result in out, answering a prompt with d;
// with d "" a prompt fails the test. It returns the code and the prompt.
func (rt *scopeRuntime) outcome(t *testing.T, out string, d Decision) (string, *ApprovalRequest) {
	t.Helper()
	var asked *ApprovalRequest
	deadline := time.Now().Add(40 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case req := <-rt.asked:
			if d == "" {
				t.Fatalf("asked for %s from %+v, want no prompt", req.ToolName, req.Origin)
			}
			asked = &req
			if err := rt.a.Decide(req.ID, d); err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Millisecond):
		}
		if b, err := os.ReadFile(out); err == nil {
			return string(b), asked
		}
	}
	t.Fatalf("no outcome in %s", out)
	return "", nil
}

// runDirect runs the client as a child of the test (not of any terminal)
// working in cwd.
func (rt *scopeRuntime) runDirect(t *testing.T, cwd, out, claimed string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), rt.env(out, claimed)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
}

// shortTemp is a directory with a path short enough for a socket.
func shortTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "mp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	dir, _ = filepath.EvalSymlinks(dir)
	return dir
}

// TestThisTerminalScope: a client started by a shell in a real PTY is named
// after its terminal; "this terminal" allows the next call from another
// child of that shell without asking, not a call from an unrelated process,
// and ends when the terminal closes.
func TestThisTerminalScope(t *testing.T) {
	dir := shortTemp(t)
	procs := process.New(process.Options{})
	t.Cleanup(func() { procs.Shutdown(context.Background(), true) })
	var mu sync.Mutex
	labels := map[string]string{}
	rt := startScopeRuntime(t, dir, Options{Terminals: func() []TerminalShell {
		var out []TerminalShell
		mu.Lock()
		defer mu.Unlock()
		for _, s := range procs.TerminalShells() {
			out = append(out, TerminalShell{ID: s.ID, PID: s.PID, StartTime: s.StartTime, Label: labels[s.ID]})
		}
		return out
	}})
	term, err := procs.CreateTerminal(context.Background(), process.TermSpec{Shell: "/bin/sh", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	labels[term.ID] = "todo-api"
	mu.Unlock()
	runInTerminal := func(out string) {
		t.Helper()
		line := strings.Join(rt.env(out, ""), " ") + " '" + os.Args[0] + "' -test.run='^$'\r"
		if _, err := procs.WriteTerminal(term.ID, line); err != nil {
			t.Fatal(err)
		}
	}

	runInTerminal(filepath.Join(dir, "out1"))
	code, asked := rt.outcome(t, filepath.Join(dir, "out1"), AllowThisTerminal)
	if code != "OK" || asked == nil {
		t.Fatalf("first call from the terminal: %q, asked %v; want OK after a prompt", code, asked != nil)
	}
	if asked.Origin.Kind != OriginTerminal || asked.Origin.Label != "Terminal · todo-api" || asked.Origin.TerminalID != term.ID {
		t.Errorf("origin = %+v, want Terminal · todo-api (%s)", asked.Origin, term.ID)
	}
	if !slices.Contains(asked.Scopes, AllowThisTerminal) || asked.Scopes[0] != AllowOnce || asked.Scopes[len(asked.Scopes)-1] != Deny {
		t.Errorf("scopes = %v, want allow_once first, allow_terminal, deny last", asked.Scopes)
	}

	runInTerminal(filepath.Join(dir, "out2"))
	if code, _ := rt.outcome(t, filepath.Join(dir, "out2"), ""); code != "OK" {
		t.Errorf("second call from the same terminal = %q, want OK without a prompt", code)
	}

	rt.runDirect(t, dir, filepath.Join(dir, "out3"), "")
	code, asked = rt.outcome(t, filepath.Join(dir, "out3"), Deny)
	if code != string(protocol.CodePermissionDenied) || asked == nil {
		t.Errorf("call from an unrelated process = %q, asked %v; want a prompt (denied)", code, asked != nil)
	} else if asked.Origin.Kind != OriginProcess || slices.Contains(asked.Scopes, AllowThisTerminal) {
		t.Errorf("unrelated origin = %+v, scopes %v; want a process without the terminal scope", asked.Origin, asked.Scopes)
	}
	if err := rt.a.Decide("appr_000000000000", AllowThisTerminal); err == nil {
		t.Error("Decide of an unknown id succeeded")
	}

	if !rt.svc.TerminalGranted(term.ID) {
		t.Fatal("the terminal grant is not held before the terminal closes")
	}
	if err := procs.CloseTerminal(context.Background(), term.ID); err != nil {
		t.Fatal(err)
	}
	if rt.svc.TerminalGranted(term.ID) {
		t.Error("the terminal grant outlived its terminal")
	}
}

// TestScopeNotOffered: a scope the prompt did not offer cannot be chosen.
func TestScopeNotOffered(t *testing.T) {
	dir := shortTemp(t)
	rt := startScopeRuntime(t, dir, Options{})
	rt.runDirect(t, dir, filepath.Join(dir, "out"), "")
	req := <-rt.asked
	if err := rt.a.Decide(req.ID, AllowThisTerminal); err == nil || !strings.Contains(err.Error(), "not offered") {
		t.Errorf("Decide(allow_terminal) for a non-terminal call = %v, want not offered", err)
	}
	if err := rt.a.Decide(req.ID, Deny); err != nil {
		t.Fatal(err)
	}
	if code, _ := rt.outcome(t, filepath.Join(dir, "out"), ""); code != string(protocol.CodePermissionDenied) {
		t.Errorf("code = %q", code)
	}
}

// TestFifteenMinuteScope: "for 15 minutes" allows the same executable in
// the same folder until the injected clock passes 15 minutes; another
// folder is asked.
func TestFifteenMinuteScope(t *testing.T) {
	dir := shortTemp(t)
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o700); err != nil {
		t.Fatal(err)
	}
	clk := &clock{now: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	rt := startScopeRuntime(t, dir, Options{Now: clk.Now})
	out := func(n int) string { return filepath.Join(dir, fmt.Sprintf("out%d", n)) }

	rt.runDirect(t, dir, out(1), "")
	code, asked := rt.outcome(t, out(1), AllowFor15Minutes)
	if code != "OK" || asked == nil || asked.Origin.Exe != os.Args[0] && filepath.Base(asked.Origin.Exe) != filepath.Base(os.Args[0]) || asked.Origin.Folder != dir {
		t.Fatalf("first call = %q, prompt %+v", code, asked)
	}
	if want := filepath.Base(asked.Origin.Exe) + " in " + dir; asked.Origin.Label != want {
		t.Errorf("label = %q, want %q", asked.Origin.Label, want)
	}
	clk.advance(14 * time.Minute)
	rt.runDirect(t, dir, out(2), "")
	if code, _ := rt.outcome(t, out(2), ""); code != "OK" {
		t.Errorf("within 15 minutes = %q, want OK without a prompt", code)
	}
	rt.runDirect(t, other, out(3), dir) // another folder, claiming the first
	if code, asked := rt.outcome(t, out(3), Deny); asked == nil || code != string(protocol.CodePermissionDenied) {
		t.Errorf("another folder claiming the granted one = %q, asked %v; want a prompt", code, asked != nil)
	}
	clk.advance(time.Minute)
	rt.runDirect(t, dir, out(4), "")
	if code, asked := rt.outcome(t, out(4), Deny); asked == nil || code != string(protocol.CodePermissionDenied) {
		t.Errorf("after 15 minutes = %q, asked %v; want a prompt", code, asked != nil)
	}
}

// TestFolderRule: "always for this folder" is written 0600, survives a
// restart of the service, covers subfolders, is not matched by a cwd the
// client only claims, and asks again once revoked.
func TestFolderRule(t *testing.T) {
	dir := shortTemp(t)
	proj := filepath.Join(dir, "proj")
	sub := filepath.Join(proj, "sub")
	elsewhere := filepath.Join(dir, "elsewhere")
	for _, d := range []string{sub, elsewhere} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	rulesFile := filepath.Join(dir, "data", "approval-rules.json")
	out := func(n int) string { return filepath.Join(dir, fmt.Sprintf("out%d", n)) }

	first := startScopeRuntime(t, dir, Options{RulesFile: rulesFile})
	first.runDirect(t, proj, out(1), "")
	if code, asked := first.outcome(t, out(1), AllowAlwaysInFolder); code != "OK" || asked == nil {
		t.Fatalf("first call = %q, asked %v", code, asked != nil)
	}
	fi, err := os.Stat(rulesFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("rules file: %v, %v; want mode 0600", fi, err)
	}

	rt := startScopeRuntime(t, dir, Options{RulesFile: rulesFile}) // a restart
	rules := rt.svc.Rules()
	if len(rules) != 1 || rules[0].Folder != proj || rules[0].Capability != wf || !strings.HasPrefix(rules[0].ID, "rule_") {
		t.Fatalf("rules after restart = %+v", rules)
	}
	rt.runDirect(t, proj, out(2), "")
	if code, _ := rt.outcome(t, out(2), ""); code != "OK" {
		t.Errorf("in the folder after restart = %q, want OK without a prompt", code)
	}
	rt.runDirect(t, sub, out(3), "")
	if code, _ := rt.outcome(t, out(3), ""); code != "OK" {
		t.Errorf("in a subfolder = %q, want OK without a prompt", code)
	}
	rt.runDirect(t, elsewhere, out(4), proj) // forged: claims the folder
	if code, asked := rt.outcome(t, out(4), Deny); asked == nil || code != string(protocol.CodePermissionDenied) {
		t.Errorf("a forged cwd = %q, asked %v; want a prompt", code, asked != nil)
	} else if asked.Origin.Folder != elsewhere {
		t.Errorf("forged call's origin folder = %q, want the real %q", asked.Origin.Folder, elsewhere)
	}

	if err := rt.svc.RevokeRule(rules[0].ID); err != nil {
		t.Fatal(err)
	}
	if err := rt.svc.RevokeRule(rules[0].ID); err == nil {
		t.Error("revoking twice succeeded")
	}
	rt.runDirect(t, proj, out(5), "")
	if code, asked := rt.outcome(t, out(5), Deny); asked == nil || code != string(protocol.CodePermissionDenied) {
		t.Errorf("after revoke = %q, asked %v; want a prompt", code, asked != nil)
	}
	if again := New(Options{RulesFile: rulesFile}); len(again.Rules()) != 0 || again.RulesLoadError() != nil {
		t.Errorf("rules on disk after revoke = %+v (%v)", again.Rules(), again.RulesLoadError())
	}
}

// TestFolderRuleNotForDestructive: a destructive call is never offered
// "always for this folder".
func TestFolderRuleNotForDestructive(t *testing.T) {
	o := Origin{Kind: OriginProcess, Exe: "/usr/bin/meith", Folder: "/home/me/p"}
	if got := offeredScopes(o, []protocol.Capability{de, wf}); slices.Contains(got, AllowAlwaysInFolder) {
		t.Errorf("scopes for destructive = %v", got)
	}
	if got := offeredScopes(o, []protocol.Capability{wf}); !slices.Equal(got, []Decision{AllowOnce, AllowFor15Minutes, AllowAlwaysInFolder, Deny}) {
		t.Errorf("scopes for writes-files = %v", got)
	}
}

// TestRulesFileBounds: a rules file over the bound or malformed loads no
// rules and says why; invalid entries are dropped.
func TestRulesFileBounds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := write("big.json", `{"rules":[`+strings.Repeat(" ", maxRulesFileBytes)+`]}`)
	if s := New(Options{RulesFile: big}); s.RulesLoadError() == nil || len(s.Rules()) != 0 {
		t.Errorf("oversized file: %v, %v", s.RulesLoadError(), s.Rules())
	}
	bad := write("bad.json", `{"rules":`)
	if s := New(Options{RulesFile: bad}); s.RulesLoadError() == nil {
		t.Error("malformed file loaded without error")
	}
	mixed := write("mixed.json", `{"version":1,"rules":[
		{"id":"rule_1","folder":"/p","capability":"writes-files"},
		{"id":"rule_2","folder":"rel","capability":"writes-files"},
		{"id":"rule_3","folder":"/p","capability":"read-only"},
		{"id":"rule_4","folder":"/p","capability":"destructive"},
		{"id":"x","folder":"/p","capability":"writes-files"}]}`)
	if s := New(Options{RulesFile: mixed}); len(s.Rules()) != 1 || s.Rules()[0].ID != "rule_1" {
		t.Errorf("mixed file rules = %+v", s.Rules())
	}
}
