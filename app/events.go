package app

// events.go: the Wails events the binding emits and their payloads, and the
// forwarding of change notices to the window as small hints.

import (
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// The Wails events the binding emits. Payloads stay small: WebKit keeps the
// JavaScript it evaluates for each event, so bulk data must be pulled by the
// frontend instead of pushed.
const (
	EventToolEvent        = "tool_event"
	EventToolResult       = "tool_result"
	EventApprovalsChanged = "approvals_changed"
	EventStateChanged     = "state_changed"
	EventLogsAppended     = "logs_appended"
	EventGitChanged       = "git_changed"
	EventProcessChanged   = "process_changed"
	EventAgentChanged     = "agent_changed"
)

// agentThrottle is the most often "agent_changed" hints are sent: a
// streaming answer announces itself at most this often.
const agentThrottle = 100 * time.Millisecond

// maxAgentHints is how many distinct (session, kind) hints one throttle
// period sends one by one; beyond it a single empty hint says "re-read".
const maxAgentHints = 16

// processThrottle is the most often "process_changed" hints are sent:
// changes within it are announced together, each process once.
const processThrottle = 150 * time.Millisecond

// maxProcessHints is how many distinct processes one throttle period
// announces one by one; beyond it a single hint with an empty kind and id
// says "re-read everything".
const maxProcessHints = 8

// ProcessChangedPayload is the payload of [EventProcessChanged]: a managed
// process (kind "dev-server" or "terminal") was added, removed, or changed
// status or port. Empty kind and id: many changed. The UI re-reads
// list_dev_servers, list_terminals and get_process_tree.
type ProcessChangedPayload struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// GitChangedPayload is the payload of [EventGitChanged]: the worktree root
// of a watched repository whose files, index, HEAD or branches changed, and
// how many paths changed (0: unknown, re-read everything). The UI re-reads
// git_status / git_diff for that root.
type GitChangedPayload struct {
	Root  string `json:"root"`
	Count int    `json:"count"`
}

// logsThrottle is the most often a "logs_appended" hint is sent: entries
// written within it are announced together.
const logsThrottle = 200 * time.Millisecond

// LogsAppendedPayload is the payload of [EventLogsAppended]: how many app
// log entries were written since the last hint (the UI re-reads them with
// app_get_logs), never the entries themselves.
type LogsAppendedPayload struct {
	Count int `json:"count"`
}

// ToolEventPayload is the payload of [EventToolEvent].
type ToolEventPayload struct {
	CallID string         `json:"callId"`
	Event  protocol.Event `json:"event"`
}

// ToolResultPayload is the payload of [EventToolResult].
type ToolResultPayload struct {
	CallID string              `json:"callId"`
	Result protocol.ToolResult `json:"result"`
}

// ApprovalsChangedPayload is the payload of [EventApprovalsChanged]: a hint
// to re-read the pending approvals, not the list itself.
type ApprovalsChangedPayload struct {
	Kind    permission.ApprovalEventKind `json:"kind"`
	ID      string                       `json:"id"`
	Pending int                          `json:"pending"`
}

// StateChangedPayload is the payload of [EventStateChanged]: what kind of
// state changed ("spaces", "tabs" or "settings") and the ids of the spaces
// or tabs concerned (empty for settings), never the state itself.
type StateChangedPayload struct {
	Kind string   `json:"kind"`
	IDs  []string `json:"ids"`
}

// emitter is all the binding needs of the Wails runtime.
type emitter interface {
	Emit(name string, payload any)
}

// onApproval forwards a change of the pending list to the window.
func (a *App) onApproval(ev permission.ApprovalEvent) {
	a.emit(EventApprovalsChanged, ApprovalsChangedPayload{
		Kind: ev.Kind, ID: ev.Request.ID, Pending: len(a.approvals.Pending()),
	})
}

// onStateChange forwards a change of the app state to the window.
func (a *App) onStateChange(c state.Change) {
	ids := c.IDs
	if ids == nil {
		ids = []string{}
	}
	a.emit(EventStateChanged, StateChangedPayload{Kind: c.Kind, IDs: ids})
}

// onLog counts a new log entry and schedules one hint for the entries of
// the next logsThrottle.
func (a *App) onLog(applog.Entry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shutdown {
		return
	}
	a.logCount++
	if a.logTimer == nil {
		a.logTimer = time.AfterFunc(logsThrottle, a.flushLogs)
	}
}

// flushLogs sends the pending logs_appended hint.
func (a *App) flushLogs() {
	a.mu.Lock()
	n := a.logCount
	a.logCount = 0
	a.logTimer = nil
	a.mu.Unlock()
	if n > 0 {
		a.emit(EventLogsAppended, LogsAppendedPayload{Count: n})
	}
}

// onProcessChange records a change of a managed process; the hints of the
// changes of one processThrottle go out together.
func (a *App) onProcessChange(kind, id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.shutdown && a.started {
		a.procHints.addLocked(a, ProcessChangedPayload{Kind: kind, ID: id})
	}
}

// onAgentChange records an agent session change; the hints of one
// agentThrottle go out together.
func (a *App) onAgentChange(c agent.Change) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.shutdown && a.started {
		a.agentHints.addLocked(a, c)
	}
}

// emit sends an event to the window, if there is one.
func (a *App) emit(name string, payload any) {
	a.mu.Lock()
	em := a.em
	a.mu.Unlock()
	if em != nil {
		em.Emit(name, payload)
	}
}
