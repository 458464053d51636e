package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/protocol"
)

// lastEntry is the audit entry of the newest call of tool.
func (e *env) lastEntry(tool string) audit.Entry {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.outcomes) - 1; i >= 0; i-- {
		if e.outcomes[i].ToolName == tool {
			return audit.EntryFrom(e.outcomes[i])
		}
	}
	e.t.Fatalf("no call of %s was audited", tool)
	return audit.Entry{}
}

// checkAgentEntry checks the decision, who decided and the card's id.
func checkAgentEntry(t *testing.T, what string, got audit.Entry, decision audit.Decision, decidedBy, approvalID string) {
	t.Helper()
	if got.Decision != decision || got.DecidedBy != decidedBy || got.ApprovalID != approvalID {
		t.Errorf("%s: audit decision %s decidedBy %q approvalId %q, want %s %q %q",
			what, got.Decision, got.DecidedBy, got.ApprovalID, decision, decidedBy, approvalID)
	}
	if got.RequestID == "" || got.Caller != protocol.CallerAgent {
		t.Errorf("%s: audit requestId %q caller %s, want the MCP request's id, caller agent", what, got.RequestID, got.Caller)
	}
}

// TestAuditDecisionsOfPermissionCards: a call settled on a permission card
// is audited as approved or refused by the card, with the card's id; one
// whose run ended while the card was open as cancelled; a remembered answer
// and Full access say so.
func TestAuditDecisionsOfPermissionCards(t *testing.T) {
	e := newEnv(t)
	sess, err := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.ID

	ch := e.sendAsync(context.Background(), agent.SendInput{SessionID: id, Text: `call write_note {"text":"yes"}`})
	p := e.waitPending(id)
	if err := e.svc.Decide(id, p.ToolCallID, agent.DecisionAllow, false); err != nil {
		t.Fatal(err)
	}
	<-ch
	checkAgentEntry(t, "card allowed", e.lastEntry("write_note"), audit.DecisionApproved, agent.DecidedByCard, p.ToolCallID)

	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: id, Text: `call write_note {"text":"no"}`})
	p = e.waitPending(id)
	if err := e.svc.Decide(id, p.ToolCallID, agent.DecisionDeny, false); err != nil {
		t.Fatal(err)
	}
	<-ch
	checkAgentEntry(t, "card denied", e.lastEntry("write_note"), audit.DecisionRefused, agent.DecidedByCard, p.ToolCallID)

	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: id, Text: `call write_note {"text":"never"}`})
	p = e.waitPending(id)
	e.svc.Cancel(id)
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end after Cancel")
	}
	got := e.lastEntry("write_note")
	checkAgentEntry(t, "run cancelled while the card was open", got, audit.DecisionCancelled, agent.DecidedByCard, p.ToolCallID)
	if got.ResultSummary == "" || len(e.notes) != 1 {
		t.Errorf("cancelled card: result %s, notes %v; want a failed call and only the approved note", got.ResultSummary, e.notes)
	}

	// Remembered answers: allow, then deny, each remembered.
	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: id, Text: `call write_note {"text":"r1"}`})
	p = e.waitPending(id)
	e.svc.Decide(id, p.ToolCallID, agent.DecisionAllow, true)
	<-ch
	e.send(agent.SendInput{SessionID: id, Text: `call write_note {"text":"r2"}`})
	checkAgentEntry(t, "remembered allow", e.lastEntry("write_note"), audit.DecisionApproved, agent.DecidedByRemembered, "")

	// A remembered deny refuses without a card.
	sess3, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	ch = e.sendAsync(context.Background(), agent.SendInput{SessionID: sess3.ID, Text: `call write_note {"text":"d1"}`})
	p = e.waitPending(sess3.ID)
	e.svc.Decide(sess3.ID, p.ToolCallID, agent.DecisionDeny, true)
	<-ch
	e.send(agent.SendInput{SessionID: sess3.ID, Text: `call write_note {"text":"d2"}`})
	checkAgentEntry(t, "remembered deny", e.lastEntry("write_note"), audit.DecisionRefused, agent.DecidedByRemembered, "")

	// Full access needs nobody's approval.
	sess2, _ := e.svc.Create(agent.CreateInput{Cwd: e.workdir()})
	on := true
	if _, err := e.svc.Update(context.Background(), sess2.ID, agent.UpdateInput{AutoAccept: &on}, true); err != nil {
		t.Fatal(err)
	}
	e.send(agent.SendInput{SessionID: sess2.ID, Text: `call write_note {"text":"auto"}`})
	checkAgentEntry(t, "full access", e.lastEntry("write_note"), audit.DecisionAllow, agent.DecidedByFullAccess, "")
}
