package instance_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/git/gittest"
	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// TestEnginesPublishOnTheBus: the instance wires every engine to its change
// bus, so one subscription hears of state, approvals, logs, git, process
// and agent changes. (Processes: TestDevServerReachesRuntime.)
func TestEnginesPublishOnTheBus(t *testing.T) {
	inst := instancetest.New(t, instancetest.WithApprovalUI())
	var mu sync.Mutex
	var got []hint.Payload
	defer inst.Hints().Subscribe(func(p hint.Payload) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})()
	seen := func(what string, match func(hint.Payload) bool) {
		t.Helper()
		waitFor(t, what, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return slices.ContainsFunc(got, match)
		})
	}

	// State.
	if err := inst.State().Update(func(s *state.State) error { s.Settings.AutoRunOnOpen = true; return nil }); err != nil {
		t.Fatal(err)
	}
	seen("state_changed", func(p hint.Payload) bool {
		c, ok := p.(hint.StateChanged)
		return ok && c.Kind == state.ChangeSettings && c.IDs != nil && len(c.IDs) == 0
	})

	// Audit: every written batch, except one of audit_query entries only
	// (the Audit panel's re-reading would announce itself for ever).
	if res := call(t, dial(t, inst), "app_ping", `{}`, nil); !res.OK {
		t.Fatalf("app_ping = %+v", res)
	}
	seen("audit", func(p hint.Payload) bool { c, ok := p.(hint.AuditAppended); return ok && c.Count >= 1 })
	if err := inst.FlushAudit(context.Background()); err != nil {
		t.Fatal(err)
	}
	inst.Hints().Flush(context.Background())
	mu.Lock()
	audits := 0
	for _, p := range got {
		if _, ok := p.(hint.AuditAppended); ok {
			audits++
		}
	}
	mu.Unlock()
	if res := call(t, dial(t, inst), "audit_query", `{"limit":1}`, nil); !res.OK {
		t.Fatalf("audit_query = %+v", res)
	}
	if err := inst.FlushAudit(context.Background()); err != nil {
		t.Fatal(err)
	}
	inst.Hints().Flush(context.Background())
	mu.Lock()
	for _, p := range got {
		if _, ok := p.(hint.AuditAppended); ok {
			audits--
		}
	}
	mu.Unlock()
	if audits != 0 {
		t.Errorf("audit_query's own entry published %d audit hints, want none", -audits)
	}

	// Logs.
	inst.Logger().Logf(protocol.LevelInfo, "test", "hello")
	seen("logs_appended", func(p hint.Payload) bool { c, ok := p.(hint.LogsAppended); return ok && c.Count >= 1 })

	// Approvals: a CLI call waits for the window, which denies it once the
	// hint of the pending request arrived.
	defer inst.Approvals().Attach()()
	isPending := func(p hint.Payload) bool {
		a, ok := p.(hint.ApprovalsChanged)
		return ok && a.Kind == string(permission.ApprovalPending) && a.ID != "" && a.Pending == 1
	}
	go func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			i := slices.IndexFunc(got, isPending)
			var id string
			if i >= 0 {
				id = got[i].(hint.ApprovalsChanged).ID
			}
			mu.Unlock()
			if id != "" {
				_ = inst.Approvals().Decide(id, permission.Deny)
				return
			}
		}
	}()
	if res := call(t, dial(t, inst), "app_set_debug_mode", `{"enabled":true}`, nil); res.OK || res.Error.Code != protocol.CodePermissionDenied {
		t.Fatalf("a call the window denied = %+v", res)
	}
	seen("approvals_changed (resolved)", func(p hint.Payload) bool {
		a, ok := p.(hint.ApprovalsChanged)
		return ok && a.Kind == string(permission.ApprovalResolved) && a.ID != "" && a.Pending == 0
	})

	// Git: a watched repository changes.
	dir := gittest.NewRepo(t)
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	inst.GitWatch().Engine(r)
	gittest.Write(t, dir, "new.txt", "x\n", 0o644)
	seen("git_changed", func(p hint.Payload) bool { g, ok := p.(hint.GitChanged); return ok && g.Root == dir && g.Count == 1 })

	// Agents: a new session.
	res := inst.Registry().Call(context.Background(), registry.Request{
		RequestID: "req_test", ToolName: "agent_create_session", Args: json.RawMessage(`{"cwd":"` + dir + `"}`),
		Client: protocol.ClientInfo{Caller: protocol.CallerRenderer, SessionID: "renderer"},
	})
	var created struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
	}
	if !res.OK || json.Unmarshal(res.Content, &created) != nil || created.Session.ID == "" {
		t.Fatalf("agent_create_session = %+v", res)
	}
	seen("agent_changed", func(p hint.Payload) bool {
		a, ok := p.(hint.AgentChanged)
		return ok && (a.SessionID == created.Session.ID || a == hint.AgentChanged{})
	})
}
