package permission

import (
	"context"
	"encoding/json"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// auditedCLICall runs tool name through tr as the cli session (peer pid
// 4242) and returns its result and audit entry.
func auditedCLICall(t *testing.T, ctx context.Context, tr *testRegistry, session, name string) (protocol.ToolResult, audit.Entry) {
	t.Helper()
	res := tr.reg.Call(ctx, registry.Request{
		RequestID: "req_dec", ToolName: name, Args: json.RawMessage(`{}`),
		Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: session, Cwd: "/work/project"},
		Peer:   &registry.Peer{PID: 4242, UID: 1000, Exe: "/usr/local/bin/meith", Cwd: "/work/project"},
	})
	select {
	case e := <-tr.entries:
		return res, e
	default:
		t.Fatalf("call %s was not audited", name)
		return res, audit.Entry{}
	}
}

// wantEntry is what an audit entry of a cli call must say.
type wantEntry struct {
	code      protocol.ErrorCode // "" for ok
	decision  audit.Decision
	decidedBy string
	asked     bool // approvalId is the prompt's appr_… id
}

// checkEntry checks res and e against w, and the fields every cli entry has.
func checkEntry(t *testing.T, what string, res protocol.ToolResult, e audit.Entry, w wantEntry, approvalID string) {
	t.Helper()
	if got := protocol.CodeOf(res.Err()); got != w.code {
		t.Errorf("%s: result code = %q (%v), want %q", what, got, res.Err(), w.code)
	}
	if e.Decision != w.decision || e.DecidedBy != w.decidedBy {
		t.Errorf("%s: audit decision = %s decidedBy %q, want %s decidedBy %q", what, e.Decision, e.DecidedBy, w.decision, w.decidedBy)
	}
	if e.RequestID != "req_dec" || e.ClientPID != 4242 || e.ClientExe != "/usr/local/bin/meith" {
		t.Errorf("%s: audit requestId %q clientPid %d clientExe %q, want req_dec 4242 /usr/local/bin/meith", what, e.RequestID, e.ClientPID, e.ClientExe)
	}
	switch {
	case w.asked && (e.ApprovalID == "" || e.ApprovalID != approvalID):
		t.Errorf("%s: audit approvalId = %q, want the prompt's %q", what, e.ApprovalID, approvalID)
	case !w.asked && (e.ApprovalID != "" || e.WaitedMs != 0):
		t.Errorf("%s: audit approvalId %q waitedMs %d, want none (nobody was asked)", what, e.ApprovalID, e.WaitedMs)
	}
}

// TestAuditDecisionsOfCLIPrompts: every way a cli prompt ends is audited as
// what happened, with the prompt's id and who answered; a call that was
// never approved is never "allow".
func TestAuditDecisionsOfCLIPrompts(t *testing.T) {
	cases := []struct {
		name   string
		answer Decision // "" for none
		cancel bool     // cancel the call's context once the prompt is open
		want   wantEntry
		runs   int32
	}{
		{"approved once", AllowOnce, false, wantEntry{"", audit.DecisionApproved, DecidedByWindow, true}, 1},
		{"approved for the connection", AllowCapabilityForConnection, false, wantEntry{"", audit.DecisionApproved, DecidedByWindow, true}, 1},
		{"refused", Deny, false, wantEntry{protocol.CodePermissionDenied, audit.DecisionRefused, DecidedByWindow, true}, 0},
		{"cancelled while waiting", "", true, wantEntry{protocol.CodeCancelled, audit.DecisionCancelled, DecidedByWindow, true}, 0},
		{"timed out", "", false, wantEntry{protocol.CodePermissionDenied, audit.DecisionTimeout, DecidedByWindow, true}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := NewApprovals(ApprovalsOptions{})
			s := New(Options{Approvals: a, ApprovalTimeout: 200 * time.Millisecond})
			if c.answer != "" || c.cancel {
				s = New(Options{Approvals: a, ApprovalTimeout: time.Minute})
			}
			tr := newTestRegistry(t, s)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var approvalID atomic.Value // the UI's goroutine stores it
			approvalID.Store("")
			pending := make(chan string, 1)
			startUI(t, a, func(r ApprovalRequest) (Decision, bool) {
				approvalID.Store(r.ID)
				pending <- r.ID
				return c.answer, c.answer != ""
			})
			if c.cancel {
				go func() {
					<-pending
					cancel()
				}()
			}
			res, e := auditedCLICall(t, ctx, tr, cliSession, "write_file")
			checkEntry(t, c.name, res, e, c.want, approvalID.Load().(string))
			if tr.runs.Load() != c.runs {
				t.Errorf("tool ran %d times, want %d", tr.runs.Load(), c.runs)
			}
			if c.want.decision == audit.DecisionTimeout && e.WaitedMs < 200 {
				t.Errorf("timed out entry waitedMs = %d, want at least the 200ms timeout", e.WaitedMs)
			}
			if !regexp.MustCompile(`^appr_[0-9a-f]{12}$`).MatchString(e.ApprovalID) {
				t.Errorf("approvalId = %q, want appr_<12 hex>", e.ApprovalID)
			}
		})
	}
}

// TestAuditDecisionsWithoutPrompt: the policy's own answers, and the
// scopes a person chose earlier.
func TestAuditDecisionsWithoutPrompt(t *testing.T) {
	t.Run("headless runtime denies", func(t *testing.T) {
		tr := newTestRegistry(t, New(Options{}))
		res, e := auditedCLICall(t, t.Context(), tr, cliSession, "write_file")
		checkEntry(t, "no approval UI", res, e, wantEntry{protocol.CodePermissionDenied, audit.DecisionDeny, "", false}, "")
	})
	t.Run("no window attached denies", func(t *testing.T) {
		tr := newTestRegistry(t, New(Options{Approvals: NewApprovals(ApprovalsOptions{})}))
		res, e := auditedCLICall(t, t.Context(), tr, cliSession, "write_file")
		checkEntry(t, "no window", res, e, wantEntry{protocol.CodePermissionDenied, audit.DecisionDeny, "", false}, "")
	})
	t.Run("operator policy allows", func(t *testing.T) {
		tr := newTestRegistry(t, New(Options{CLIGrants: []protocol.Capability{wf}}))
		res, e := auditedCLICall(t, t.Context(), tr, cliSession, "write_file")
		checkEntry(t, "--grant-cli", res, e, wantEntry{"", audit.DecisionAllow, "", false}, "")
	})
	t.Run("read-only allows", func(t *testing.T) {
		tr := newTestRegistry(t, New(Options{}))
		res, e := auditedCLICall(t, t.Context(), tr, cliSession, "read_state")
		checkEntry(t, "read-only", res, e, wantEntry{"", audit.DecisionAllow, "", false}, "")
	})
	t.Run("no session denies", func(t *testing.T) {
		tr := newTestRegistry(t, New(Options{}))
		res, e := auditedCLICall(t, t.Context(), tr, "", "write_file")
		checkEntry(t, "no session", res, e, wantEntry{protocol.CodePermissionDenied, audit.DecisionDeny, "", false}, "")
	})
	t.Run("connection scope approves later calls", func(t *testing.T) {
		a := NewApprovals(ApprovalsOptions{})
		tr := newTestRegistry(t, New(Options{Approvals: a}))
		startUI(t, a, always(AllowCapabilityForConnection))
		auditedCLICall(t, t.Context(), tr, cliSession, "write_file")
		res, e := auditedCLICall(t, t.Context(), tr, cliSession, "write_file")
		checkEntry(t, "second call", res, e, wantEntry{"", audit.DecisionApproved, DecidedByConnection, false}, "")
	})
	t.Run("window closed while waiting cancels", func(t *testing.T) {
		a := NewApprovals(ApprovalsOptions{})
		tr := newTestRegistry(t, New(Options{Approvals: a}))
		detach := a.Attach()
		defer a.Subscribe(func(ev ApprovalEvent) {
			if ev.Kind == ApprovalPending {
				detach()
			}
		})()
		res, e := auditedCLICall(t, t.Context(), tr, cliSession, "write_file")
		if got := protocol.CodeOf(res.Err()); got != protocol.CodePermissionDenied || e.Decision != audit.DecisionCancelled ||
			e.ApprovalID == "" || tr.runs.Load() != 0 {
			t.Errorf("window closed: code %s decision %s approvalId %q runs %d, want PERMISSION_DENIED cancelled with the prompt's id, not run",
				got, e.Decision, e.ApprovalID, tr.runs.Load())
		}
	})
}

// TestAuditDecisionsOfTheAgentGate: the gate's record reaches the audit
// through the permission service, and an approval the gate reports without
// a record is still never "allow" unless nobody was asked.
func TestAuditDecisionsOfTheAgentGate(t *testing.T) {
	var s *Service
	waiting := make(chan struct{}, 1)
	gate := func(ctx context.Context, r registry.AuthRequest) error {
		r.Record.Ask("card_1", "agent-card")
		var note struct{ Note string }
		_ = json.Unmarshal(r.Args, &note)
		switch note.Note {
		case "allow":
			s.Grant(Grant{Caller: protocol.CallerAgent, SessionID: r.Client.SessionID, ToolName: r.Tool.Name, Capabilities: r.Tool.Capabilities, Uses: 1})
			r.Record.Decide(registry.AuthApproved, "")
			return nil
		case "refuse":
			r.Record.Decide(registry.AuthRefused, "")
			return &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: "User denied"}
		}
		waiting <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}
	s = New(Options{AgentGate: gate})
	tr := newTestRegistry(t, s)
	call := func(ctx context.Context, note string) (protocol.ToolResult, audit.Entry) {
		return tr.call(t, ctx, "write_file", protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: agentSession}, `{"note":"`+note+`"}`)
	}
	res, e := call(t.Context(), "allow")
	checkCall(t, tr, "card allowed", res, e, "", 1, audit.DecisionApproved)
	if e.ApprovalID != "card_1" || e.DecidedBy != "agent-card" {
		t.Errorf("card allowed: approvalId %q decidedBy %q, want card_1 agent-card", e.ApprovalID, e.DecidedBy)
	}
	res, e = call(t.Context(), "refuse")
	checkCall(t, tr, "card refused", res, e, protocol.CodePermissionDenied, 1, audit.DecisionRefused)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		<-waiting
		cancel() // the agent's MCP request gives up
	}()
	res, e = call(ctx, "wait")
	checkCall(t, tr, "request gave up", res, e, protocol.CodeCancelled, 1, audit.DecisionCancelled)
	if e.ApprovalID != "card_1" {
		t.Errorf("request gave up: approvalId %q, want card_1", e.ApprovalID)
	}
}
