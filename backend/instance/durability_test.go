package instance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/internal/fulldisk"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/tools/apptools"
)

// storageCheck calls app_health and returns its status and storage check.
func storageCheck(t *testing.T, c *client.Client) (string, apptools.Check) {
	t.Helper()
	res := call(t, c, "app_health", `{}`, nil)
	var h apptools.Health
	if !res.OK || json.Unmarshal(res.Content, &h) != nil {
		t.Fatalf("app_health = %+v", res)
	}
	for _, ch := range h.Checks {
		if ch.Name == "storage" {
			return h.Status, ch
		}
	}
	t.Fatalf("app_health has no storage check: %s", res.Content)
	return "", apptools.Check{}
}

// notSaved reports whether res carries the diagnostic of a change that
// state.json could not take.
func notSaved(res protocol.ToolResult) bool {
	return slices.ContainsFunc(res.Diagnostics, func(d protocol.Diagnostic) bool {
		return d.Level == "error" && strings.HasPrefix(d.Message,
			"not saved: state.json could not be written (no space left on device); the change is kept in memory")
	})
}

// checkWholeLines fails unless every line of the JSON Lines file at path
// is a whole JSON value and the file ends with a newline; it returns the
// lines.
func checkWholeLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("%s ends in a partial line: ...%q", filepath.Base(path), b[max(0, len(b)-60):])
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("%s line %d is torn: %.80q", filepath.Base(path), i+1, l)
		}
	}
	return lines
}

// TestDiskFull: with the user data on a real filesystem that fills up, a
// change that state.json cannot take is answered with a "not saved"
// diagnostic, app_health's storage check fails, calls that change
// something are refused once the audit log cannot be written while
// read-only calls keep working, and after space is freed everything
// recovers: the kept change and the kept audit entries reach their files,
// with no torn line and no entry lost.
func TestDiskFull(t *testing.T) {
	dir := fulldisk.Mount(t, 2<<20)
	cfg := instance.Config{Home: filepath.Join(dir, "h"), UserData: filepath.Join(dir, "u"),
		GrantCLI: []protocol.Capability{protocol.CapWritesFiles}}
	inst, err := instance.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := inst.Start(ctx); err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			inst.Close(ctx)
		}
	})
	c, err := client.Dial(ctx, inst.SocketPath())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	calls := 0
	do := func(tool, args string) protocol.ToolResult {
		t.Helper()
		calls++
		return call(t, c, tool, args, nil)
	}

	if res := do("create_space", `{"name":"Before"}`); !res.OK || len(res.Diagnostics) > 0 {
		t.Fatalf("create_space with space = %+v", res)
	}
	calls++ // app_health
	if status, ch := storageCheck(t, c); status != "ok" || !ch.OK {
		t.Fatalf("app_health with space: %s, storage %+v", status, ch)
	}
	if err := inst.FlushAudit(ctx); err != nil {
		t.Fatal(err)
	}

	free := fulldisk.Fill(t, filepath.Join(dir))
	res := do("create_space", `{"name":"During"}`)
	if !res.OK || !notSaved(res) {
		t.Fatalf("create_space on a full disk = %+v, want ok with a not-saved diagnostic", res)
	}
	calls++
	status, ch := storageCheck(t, c)
	if status != "degraded" || ch.OK || !strings.Contains(ch.Message, "state.json cannot be written: no space left on device") {
		t.Errorf("app_health on a full disk: %s, storage %+v; want degraded, naming state.json and the cause", status, ch)
	}
	// The audit log's last page takes a few more entries; then it fails
	// and calls that change something are refused.
	var refused protocol.ToolResult
	for i := 0; ; i++ {
		if i == 500 {
			t.Fatal("no call was refused while the disk is full")
		}
		res := do("switch_space", fmt.Sprintf(`{"spaceId":%q}`, inst.State().Get().Spaces[0].ID))
		if !res.OK {
			refused = res
			break
		}
		if !notSaved(res) {
			t.Fatalf("switch_space on a full disk = %+v, want a not-saved diagnostic", res)
		}
		if err := inst.FlushAudit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if refused.Error.Code != protocol.CodeToolFailed ||
		!strings.HasPrefix(refused.Error.Message, "switch_space was not run: the audit log cannot be written (no space left on device)") {
		t.Errorf("refused call = %+v, want TOOL_FAILED saying it was not run and why", refused.Error)
	}
	if res := do("create_space", `{"name":"Refused"}`); res.OK {
		t.Errorf("create_space while the audit log cannot be written = ok, want it refused")
	}
	res = do("list_spaces", `{}`)
	if !res.OK || !strings.Contains(string(res.Content), `"During"`) || strings.Contains(string(res.Content), `"Refused"`) {
		t.Errorf("list_spaces on a full disk = %+v, want ok with the kept change and without the refused one", res)
	}
	calls++
	if _, ch := storageCheck(t, c); !strings.Contains(ch.Message, "audit.jsonl cannot be written: no space left on device") {
		t.Errorf("storage check %+v, want audit.jsonl named", ch)
	}

	free()
	if res := do("create_space", `{"name":"After"}`); !res.OK || len(res.Diagnostics) > 0 {
		t.Fatalf("create_space after freeing space = %+v, want ok without diagnostics", res)
	}
	calls++
	if status, ch := storageCheck(t, c); status != "ok" || !ch.OK {
		t.Errorf("app_health after freeing space: %s, storage %+v; want ok", status, ch)
	}
	c.Close()
	closed = true
	if err := inst.Close(ctx); err != nil {
		t.Fatal(err)
	}

	b, err := os.ReadFile(filepath.Join(cfg.UserData, instance.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Before", "During", "After"} {
		if !strings.Contains(string(b), fmt.Sprintf("%q", name)) {
			t.Errorf("state.json lacks space %s", name)
		}
	}
	lines := checkWholeLines(t, filepath.Join(cfg.UserData, instance.AuditFile))
	entries := 0
	for _, l := range lines {
		var e audit.Entry
		if json.Unmarshal([]byte(l), &e) == nil && e.ToolName != audit.GapToolName {
			entries++
		}
	}
	if entries != calls {
		t.Errorf("audit.jsonl holds %d entries, want one for each of the %d calls (none lost)", entries, calls)
	}
	checkWholeLines(t, filepath.Join(cfg.UserData, instance.LogsFile))
}

// helperEnv switches the test binary into a meith runtime (meith serve
// --grant-cli writes-files) for TestAcknowledgedChangesSurviveSIGKILL.
const helperEnv = "MEITH_INSTANCE_TEST_RUNTIME"

// TestRuntimeHelper is the runtime a test starts as a child process and
// kills; it is skipped in a normal run.
func TestRuntimeHelper(t *testing.T) {
	if os.Getenv(helperEnv) == "" {
		t.Skip("runs only as the child runtime of TestAcknowledgedChangesSurviveSIGKILL")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(instance.ServeMain(ctx, []string{"--grant-cli", "writes-files", "--quiet"}, os.Stdout, os.Stderr))
}

// TestAcknowledgedChangesSurviveSIGKILL: every create_space that returned
// ok is in state.json after the runtime is killed with SIGKILL right after
// the last answer (ok means durable, not "written within 100 ms").
func TestAcknowledgedChangesSurviveSIGKILL(t *testing.T) {
	root, err := os.MkdirTemp("", "md")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	home, userData := filepath.Join(root, "h"), filepath.Join(root, "u")
	child := exec.Command(os.Args[0], "-test.run=^TestRuntimeHelper$")
	child.Env = append(os.Environ(), helperEnv+"=1", "MEITH_HOME="+home, "MEITH_USER_DATA="+userData)
	var stderr strings.Builder
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var c *client.Client
	for c == nil {
		if c, err = client.Dial(ctx, discovery.SocketPath(userData)); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("the child runtime did not listen: %v\n%s", err, stderr.String())
			}
			c = nil
			time.Sleep(20 * time.Millisecond)
		}
	}
	defer c.Close()

	const writers, each = 4, 25
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				name := fmt.Sprintf("w%d-%d", w, i)
				res, err := c.Call(ctx, "create_space", json.RawMessage(fmt.Sprintf(`{"name":%q}`, name)), client.CallOptions{})
				if err != nil || !res.OK {
					t.Errorf("create_space %s = %+v, %v", name, res, err)
					return
				}
				mu.Lock()
				acked = append(acked, name)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := child.Process.Kill(); err != nil { // right after the last ok
		t.Fatal(err)
	}
	child.Wait()

	// Restart: a new runtime on the same data.
	inst, err := instance.New(instance.Config{Home: home, UserData: userData})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close(context.Background())
	var have []string
	for _, sp := range inst.State().Get().Spaces {
		have = append(have, sp.Name)
	}
	var lost []string
	for _, name := range acked {
		if !slices.Contains(have, name) {
			lost = append(lost, name)
		}
	}
	if len(acked) != writers*each || len(lost) > 0 {
		t.Errorf("after SIGKILL and restart, %d of %d acknowledged spaces are missing: %v", len(lost), len(acked), lost)
	}
}
