package instance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
)

func dial(t *testing.T, inst *instancetest.Instance) *client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, inst.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func call(t *testing.T, c *client.Client, tool, args string, events *[]protocol.Event) protocol.ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Call(ctx, tool, json.RawMessage(args), client.CallOptions{OnEvent: func(ev protocol.Event) {
		if events != nil {
			*events = append(*events, ev)
		}
	}})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	return res
}

func TestStartPublishesRecordAndCloseRemovesIt(t *testing.T) {
	root, _ := os.MkdirTemp("", "mi")
	defer os.RemoveAll(root)
	home, ud := filepath.Join(root, "h"), filepath.Join(root, "u")
	// A record left by a runtime that died: its pid is gone.
	dead := exec.Command("true")
	dead.Run()
	os.MkdirAll(filepath.Join(home, "instances"), 0o700)
	staleRec := discovery.Record{PID: dead.Process.Pid, SocketPath: filepath.Join(root, "gone.sock"), UserDataPath: "/x", StartedAt: 1}
	if _, err := discovery.WriteRecord(filepath.Join(home, "instances"), staleRec); err != nil {
		t.Fatal(err)
	}

	inst, err := instance.New(instance.Config{Home: home, UserData: ud, Label: "work", AppPath: "/opt/meith"})
	if err != nil {
		t.Fatal(err)
	}
	if err := inst.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	recPath := discovery.RecordPath(filepath.Join(home, "instances"), os.Getpid())
	var rec discovery.Record
	b, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatalf("instance record not written: %v", err)
	}
	json.Unmarshal(b, &rec)
	if rec.Label != "work" || rec.SocketPath != filepath.Join(ud, "tool.sock") || rec.AppVersion == "" || rec.ProtocolVersion != 1 || rec.Kind != "serve" {
		t.Errorf("record = %+v", rec)
	}
	if _, err := os.Stat(discovery.RecordPath(filepath.Join(home, "instances"), dead.Process.Pid)); !os.IsNotExist(err) {
		t.Errorf("stale record of dead pid %d was not reaped", dead.Process.Pid)
	}
	cfg, err := discovery.ReadConfig(filepath.Join(home, "config.json"))
	if err != nil || cfg.SocketPath != rec.SocketPath || cfg.PID != os.Getpid() || cfg.InstancePath != recPath {
		t.Errorf("config.json = %+v, %v", cfg, err)
	}
	for path, want := range map[string]os.FileMode{ud: 0o700, filepath.Join(ud, "tool.sock"): 0o600, filepath.Join(ud, "audit.jsonl"): 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Errorf("mode of %s = %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}

	// A second runtime on the same user data must not steal the live socket.
	second, err := instance.New(instance.Config{Home: home, UserData: ud})
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Start(context.Background()); err == nil {
		t.Error("second Start on a live socket = nil, want an in-use error")
	}
	second.Close(context.Background())
	live, _ := discovery.List(filepath.Join(home, "instances"))
	if len(live) != 1 {
		t.Errorf("live instances after a refused second start = %d, want 1", len(live))
	}

	if err := inst.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(recPath); !os.IsNotExist(err) {
		t.Errorf("record still there after Close: %v", err)
	}
	if _, err := os.Stat(rec.SocketPath); !os.IsNotExist(err) {
		t.Errorf("socket still there after Close: %v", err)
	}
	if err := inst.Close(context.Background()); err != nil {
		t.Errorf("second Close = %v, want nil (idempotent)", err)
	}
}

func TestAppTools(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithLabel("tools"))
	c := dial(t, inst)

	var events []protocol.Event
	res := call(t, c, "app_ping", `{"delayMs":150,"progressSteps":3,"message":"hi"}`, &events)
	var pong struct {
		Pong      bool
		PID       int
		Echo      string
		ElapsedMs int64
		Caller    string
		SessionID string
	}
	json.Unmarshal(res.Content, &pong)
	if !res.OK || !pong.Pong || pong.PID != os.Getpid() || pong.Echo != "hi" || pong.ElapsedMs < 150 {
		t.Errorf("app_ping = %s, want pong from pid %d echoing hi after >=150ms", res.Content, os.Getpid())
	}
	if pong.Caller != "cli" || !strings.HasPrefix(pong.SessionID, "socket:") {
		t.Errorf("app_ping saw caller %q session %q, want cli and socket:<uuid>", pong.Caller, pong.SessionID)
	}
	if len(events) != 3 || events[2].Fraction == nil || *events[2].Fraction != 1 {
		t.Errorf("app_ping events = %+v, want 3 progress events ending at 1", events)
	}

	// Cancel: a long ping is cancelled by the client's context.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	res, err := c.Call(ctx, "app_ping", json.RawMessage(`{"delayMs":600000}`), client.CallOptions{})
	cancel()
	if err != nil || res.OK || res.Error.Code != protocol.CodeCancelled || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled app_ping = %+v, %v after %v, want CANCELLED promptly", res, err, time.Since(start))
	}

	res = call(t, c, "app_ping", `{"delayMs":-1}`, nil)
	if res.OK || res.Error.Code != protocol.CodeValidation {
		t.Errorf("app_ping delayMs -1 = %+v, want VALIDATION_ERROR", res)
	}

	res = call(t, c, "app_health", `{}`, nil)
	var health struct {
		Status string
		Checks []struct {
			Name    string
			OK      bool
			Message string
			Details map[string]any
		}
	}
	json.Unmarshal(res.Content, &health)
	// The browser check says whether Chromium would run sandboxed, and
	// why not (before it ever starts).
	for _, ck := range health.Checks {
		if ck.Name != "browser" {
			continue
		}
		sandbox, _ := ck.Details["sandbox"].(string)
		switch {
		case os.Geteuid() == 0 && (sandbox != "off (running as root)" || !strings.Contains(ck.Message, "without its sandbox")):
			t.Errorf("app_health browser check as root: sandbox %q, message %q; want off (running as root)", sandbox, ck.Message)
		case sandbox != "on" && !strings.HasPrefix(sandbox, "off ("):
			t.Errorf("app_health browser check: sandbox %q, want on or off (<reason>)", sandbox)
		}
		if _, ok := ck.Details["blockedConnections"]; !ok {
			t.Errorf("app_health browser check has no blockedConnections: %v", ck.Details)
		}
	}
	if health.Status != "ok" || len(health.Checks) < 4 {
		t.Errorf("app_health = %s, want ok with socket/registry/storage/permissions checks", res.Content)
	}
	if !strings.Contains(string(res.Content), `"name":"browser"`) || !strings.Contains(string(res.Content), `"running":false`) {
		t.Errorf("app_health = %s, want a browser check (not running: nothing started it)", res.Content)
	}

	res = call(t, c, "app_list_instances", `{}`, nil)
	if !strings.Contains(string(res.Content), `"label":"tools"`) {
		t.Errorf("app_list_instances = %s, want this instance (label tools)", res.Content)
	}

	res = call(t, c, "app_get_logs", `{"source":"instance","search":"started"}`, nil)
	if !strings.Contains(string(res.Content), "runtime") || !strings.Contains(string(res.Content), `"source":"instance"`) {
		t.Errorf("app_get_logs = %s, want the start entry", res.Content)
	}
	res = call(t, c, "app_get_logs", `{"limit":0}`, nil)
	if res.OK {
		t.Errorf("app_get_logs limit 0 = ok, want VALIDATION_ERROR (1..1000)")
	}
}

func TestPrivilegedCLICallDeniedWithoutGrant(t *testing.T) {
	inst := instancetest.New(t)
	c := dial(t, inst)
	res := call(t, c, "app_set_debug_mode", `{"enabled":true}`, nil)
	if res.OK || res.Error.Code != protocol.CodePermissionDenied || !strings.Contains(res.Error.Message, "--grant-cli writes-files") {
		t.Fatalf("app_set_debug_mode without grant = %+v, want PERMISSION_DENIED saying how to grant", res.Error)
	}
	if inst.Logger().Debug() {
		t.Error("debug mode changed although the call was denied")
	}
}

func TestGrantCLIPolicy(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapWritesFiles))
	c := dial(t, inst)
	res := call(t, c, "app_set_debug_mode", `{"enabled":true}`, nil)
	if !res.OK || string(res.Content) != `{"debugMode":true}` || !inst.Logger().Debug() {
		t.Fatalf("app_set_debug_mode with --grant-cli writes-files = %+v, want ok debugMode true", res)
	}
}

func TestApprovalPathForCLI(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithApprovalUI())
	detach := inst.Approvals().Attach()
	defer detach()
	decisions := make(chan permission.Decision, 3)
	stop := inst.Approvals().Subscribe(func(ev permission.ApprovalEvent) {
		if ev.Kind != permission.ApprovalPending {
			return
		}
		d := <-decisions
		go inst.Approvals().Decide(ev.Request.ID, d)
	})
	defer stop()
	c := dial(t, inst)

	decisions <- permission.Deny
	res := call(t, c, "app_set_debug_mode", `{"enabled":true}`, nil)
	if res.OK || res.Error.Code != protocol.CodePermissionDenied {
		t.Errorf("denied by the user = %+v, want PERMISSION_DENIED", res)
	}

	var events []protocol.Event
	decisions <- permission.AllowCapabilityForConnection
	res = call(t, c, "app_set_debug_mode", `{"enabled":true}`, &events)
	if !res.OK {
		t.Fatalf("allowed for the connection = %+v, want ok", res)
	}
	if len(events) == 0 || !strings.Contains(events[0].Message, "waiting for approval") {
		t.Errorf("events = %+v, want a 'waiting for approval' progress event", events)
	}
	// The grant holds for this connection: no second prompt.
	res = call(t, c, "app_set_debug_mode", `{"enabled":false}`, nil)
	if !res.OK {
		t.Errorf("second call on the same connection = %+v, want ok without a prompt", res)
	}
	// A new connection is a new session and needs its own approval.
	c2 := dial(t, inst)
	decisions <- permission.Deny
	if res := call(t, c2, "app_set_debug_mode", `{"enabled":true}`, nil); res.OK {
		t.Errorf("a new connection reused another connection's grant")
	}
}

func TestEveryCallIsAuditedWithRedaction(t *testing.T) {
	inst := instancetest.New(t)
	c := dial(t, inst)
	calls := []struct{ tool, args string }{
		{"app_ping", `{"message":"Bearer abcdefghijklmnopqrstuvwxyz"}`},
		{"app_ping", `{"apiKey":"x"}`}, // validation failure (unknown key)
		{"no_such_tool", `{}`},
		{"app_set_debug_mode", `{"enabled":true}`}, // denied
		{"app_health", `{}`},
	}
	for _, cl := range calls {
		call(t, c, cl.tool, cl.args, nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := inst.FlushAudit(ctx); err != nil { // the audit log writes in the background
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(inst.UserData, instance.AuditFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var entries []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		entries = append(entries, e)
	}
	if len(entries) != len(calls) {
		t.Fatalf("audit has %d entries, want %d (one per call)", len(entries), len(calls))
	}
	raw, _ := os.ReadFile(f.Name())
	if strings.Contains(string(raw), "abcdefghijklmnopqrstuvwxyz") {
		t.Errorf("audit.jsonl leaks a bearer token:\n%s", raw)
	}
	wantDecision := []string{"allow", "allow", "allow", "deny", "allow"}
	for i, e := range entries {
		if e["decision"] != wantDecision[i] || e["toolName"] != calls[i].tool || e["caller"] != "cli" {
			t.Errorf("audit[%d] = %v, want tool %s decision %s caller cli", i, e, calls[i].tool, wantDecision[i])
		}
		if sid, _ := e["sessionId"].(string); !strings.HasPrefix(sid, "socket:") {
			t.Errorf("audit[%d].sessionId = %v, want socket:<uuid>", i, e["sessionId"])
		}
	}
}

func TestShutdownAnswersRuntimeShuttingDown(t *testing.T) {
	inst := instancetest.New(t)
	c := dial(t, inst)
	inst.Registry().BeginShutdown()
	res := call(t, c, "app_health", `{}`, nil)
	if res.OK || res.Error.Code != protocol.CodeRuntimeShuttingDown {
		t.Errorf("call after BeginShutdown = %+v, want RUNTIME_SHUTTING_DOWN", res)
	}
}

func TestHugeToolNameIsCheapAndBounded(t *testing.T) {
	inst := instancetest.New(t)
	c := dial(t, inst)
	name := strings.Repeat("x", 1<<20)
	start := time.Now()
	res := call(t, c, name, `{}`, nil)
	if res.OK || res.Error.Code != protocol.CodeUnknownTool || len(res.Error.Message) > 200 {
		t.Fatalf("1 MiB tool name = %s %d-byte message, want UNKNOWN_TOOL with a short message", res.Error.Code, len(res.Error.Message))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a 1 MiB unknown tool name took %v", d)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	inst.FlushAudit(ctx)
	for _, f := range []string{instance.AuditFile, instance.LogsFile} {
		fi, err := os.Stat(filepath.Join(inst.UserData, f))
		if err != nil || fi.Size() > 16*1024 {
			t.Errorf("%s is %d bytes after one call with a 1 MiB name (%v), want it bounded", f, fi.Size(), err)
		}
	}
}
