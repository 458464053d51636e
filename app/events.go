package app

// events.go: the Wails events the binding emits and their payloads, and the
// forwarding of the runtime's change hints to the window.

import (
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/protocol"
)

// The Wails events the binding emits. Payloads stay small: WebKit keeps the
// JavaScript it evaluates for each event, so bulk data must be pulled by the
// frontend instead of pushed. The change hints are named after their topics
// on the runtime's change bus and carry its payloads unchanged
// (hint.StateChanged, hint.ApprovalsChanged, hint.LogsAppended,
// hint.AuditAppended, hint.GitChanged, hint.ProcessChanged,
// hint.AgentChanged, hint.FilesChanged).
const (
	EventToolEvent        = "tool_event"
	EventToolResult       = "tool_result"
	EventApprovalsChanged = hint.TopicApprovals
	EventStateChanged     = hint.TopicState
	EventLogsAppended     = hint.TopicLogs
	EventAuditAppended    = hint.TopicAudit
	EventGitChanged       = hint.TopicGit
	EventProcessChanged   = hint.TopicProcess
	EventAgentChanged     = hint.TopicAgent
	EventFilesChanged     = hint.TopicFiles
)

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

// emitter is all the binding needs of the Wails runtime.
type emitter interface {
	Emit(name string, payload any)
}

// forwardHint sends a hint of the runtime's change bus to the window as the
// Wails event of its topic, its payload unchanged. The bus calls it on the
// window's subscription goroutine, one hint at a time, in order.
func (a *App) forwardHint(p hint.Payload) { a.emit(p.Topic(), p) }

// emit sends an event to the window, if there is one.
func (a *App) emit(name string, payload any) {
	a.mu.Lock()
	em := a.em
	a.mu.Unlock()
	if em != nil {
		em.Emit(name, payload)
	}
}
