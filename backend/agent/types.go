// Package agent is the AgentService: agent sessions that run in a space's
// folder, their persisted transcripts, the approval gate every agent tool
// call goes through, the checkpoint taken before each run, the system
// prompt with the context it describes (gathered from the engines the
// composition root passes as [Surroundings]), and the ACP adapter's
// per-session MCP bridge that lets an external agent call meith's tools as
// caller "agent".
package agent

import (
	"encoding/json"
	"strings"

	"github.com/meith-dev/meith/backend/protocol"
)

// Session statuses.
const (
	StatusIdle      = "idle"
	StatusRunning   = "running"
	StatusError     = "error"
	StatusCancelled = "cancelled"
)

// SessionPrefix is the id prefix of agent sessions ("sess_…").
const SessionPrefix = "sess"

// DefaultTitle is the title of a session before its first prompt.
const DefaultTitle = "New session"

// Session is the metadata of one agent session, kept in
// <userData>/agent/sessions.json.
type Session struct {
	ID      string  `json:"id"`
	Title   string  `json:"title"`
	Cwd     string  `json:"cwd"`
	SpaceID *string `json:"spaceId"`
	// Adapter is the agent preset the session runs (claude, codex, gemini,
	// custom).
	Adapter   string `json:"adapter"`
	Model     string `json:"model,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	// AutoAccept is "Full access": privileged tool calls run without asking.
	AutoAccept   bool   `json:"autoAccept"`
	Status       string `json:"status"`
	CreatedAt    int64  `json:"createdAt"` // Unix milliseconds
	UpdatedAt    int64  `json:"updatedAt"`
	LastViewedAt int64  `json:"lastViewedAt,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	// LastError is the message of the last failed run.
	LastError string `json:"lastError,omitempty"`
}

// Unseen reports whether the session changed after the user last looked.
func (s Session) Unseen() bool { return s.UpdatedAt > s.LastViewedAt }

// Usage is token usage as the agent reports it.
type Usage struct {
	InputTokens  int64 `json:"inputTokens,omitempty"`
	OutputTokens int64 `json:"outputTokens,omitempty"`
	// Used and Size are the context window's use, when reported.
	Used int64 `json:"used,omitempty"`
	Size int64 `json:"size,omitempty"`
	// CostAmount/CostCurrency is the reported cost.
	CostAmount   float64 `json:"costAmount,omitempty"`
	CostCurrency string  `json:"costCurrency,omitempty"`
}

// Message roles.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message statuses (assistant messages).
const (
	MessageStreaming = "streaming"
	MessageDone      = "done"
	MessageCancelled = "cancelled"
	MessageError     = "error"
)

// Message is one message of a transcript. An assistant message is built
// while it streams, by [Patch]es.
type Message struct {
	ID        string `json:"id"` // msg_…
	Role      string `json:"role"`
	CreatedAt int64  `json:"createdAt"`
	// Parts are the message's content in order: text, thoughts and tool
	// calls (by id) interleaved as the agent produced them.
	Parts       []Part       `json:"parts"`
	ToolCalls   []ToolCall   `json:"toolCalls"`
	Attachments []Attachment `json:"attachments,omitempty"`
	Plan        []PlanEntry  `json:"plan,omitempty"`
	Status      string       `json:"status,omitempty"`
	StopReason  string       `json:"stopReason,omitempty"`
	Error       *ErrorInfo   `json:"error,omitempty"`
	Usage       *Usage       `json:"usage,omitempty"`
}

// Text returns the message's text parts (not thoughts) joined.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Type == PartText {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolCall returns a pointer to the message's tool call with id, or nil.
func (m *Message) ToolCall(id string) *ToolCall {
	for i := range m.ToolCalls {
		if m.ToolCalls[i].ID == id {
			return &m.ToolCalls[i]
		}
	}
	return nil
}

// placed reports whether the message has the part of tool call id.
func (m *Message) placed(id string) bool {
	for _, p := range m.Parts {
		if p.Type == PartTool && p.ToolCallID == id {
			return true
		}
	}
	return false
}

// Part types.
const (
	PartText    = "text"
	PartThought = "thought"
	PartTool    = "tool"
)

// Part is one piece of a message: text or thought (Text), or a tool call
// (ToolCallID).
type Part struct {
	Type       string `json:"type"`
	Text       string `json:"text,omitempty"`
	ToolCallID string `json:"toolCallId,omitempty"`
}

// Tool call sources: meith's own tools called through the MCP bridge, or a
// tool of the agent itself that it reported over ACP.
const (
	SourceMeith = "meith"
	SourceAgent = "agent"
)

// Tool call statuses.
const (
	ToolPending            = "pending"
	ToolAwaitingPermission = "awaiting_permission"
	ToolRunning            = "running"
	ToolCompleted          = "completed"
	ToolFailed             = "failed"
	ToolDenied             = "denied"
	ToolCancelled          = "cancelled"
)

// ToolCall is one tool call of an assistant message.
type ToolCall struct {
	ID     string `json:"id"` // call_… for meith tools, the agent's id for its own
	Name   string `json:"name"`
	Title  string `json:"title,omitempty"`
	Source string `json:"source"`
	// Kind is the ACP tool kind of an agent tool (read, edit, execute…).
	Kind         string                `json:"kind,omitempty"`
	Capabilities []protocol.Capability `json:"capabilities,omitempty"`
	// Capability is the gating capability when the call needed approval.
	Capability protocol.Capability `json:"capability,omitempty"`
	Args       json.RawMessage     `json:"args,omitempty"`
	Status     string              `json:"status"`
	// Result is the (clipped) result of a meith tool; Output the (clipped)
	// text an agent tool reported.
	Result    *protocol.ToolResult `json:"result,omitempty"`
	Output    string               `json:"output,omitempty"`
	Decision  string               `json:"decision,omitempty"` // allow|deny, when the user was asked
	StartedAt int64                `json:"startedAt"`
	EndedAt   int64                `json:"endedAt,omitempty"`
}

// Attachment is a file attached to a user message, staged into
// <cwd>/.meith/attachments.
type Attachment struct {
	Name string `json:"name"`
	Path string `json:"path"` // absolute, inside the staging folder
	Size int64  `json:"size"`
}

// PlanEntry is one entry of the agent's plan.
type PlanEntry struct {
	Content  string `json:"content"`
	Status   string `json:"status"`
	Priority string `json:"priority,omitempty"`
}

// ErrorInfo is a run's error, as a tool error code and message.
type ErrorInfo struct {
	Code    protocol.ErrorCode `json:"code"`
	Message string             `json:"message"`
}

// Patch is one change of a message, as persisted in the transcript after
// the message record and as applied live. Exactly the fields set apply.
type Patch struct {
	MessageID string `json:"id"`
	// AppendText appends to the last part when it has the same type
	// (text|thought), else adds a part.
	AppendText *Part `json:"appendText,omitempty"`
	// ToolCall adds a tool call (and its part, unless Unplaced) or replaces
	// the one with the same id.
	ToolCall *ToolCall `json:"toolCall,omitempty"`
	// Unplaced adds a new ToolCall without its part: where it goes in the
	// text is known later (Place).
	Unplaced bool `json:"unplaced,omitempty"`
	// Place adds the part of a tool call added Unplaced, at the end.
	Place      string      `json:"place,omitempty"`
	Plan       []PlanEntry `json:"plan,omitempty"`
	Usage      *Usage      `json:"usage,omitempty"`
	Status     string      `json:"status,omitempty"`
	StopReason string      `json:"stopReason,omitempty"`
	Error      *ErrorInfo  `json:"error,omitempty"`
}

// Apply applies p to m (whose ID must be p.MessageID).
func (p Patch) Apply(m *Message) {
	if t := p.AppendText; t != nil && t.Text != "" {
		if n := len(m.Parts); n > 0 && m.Parts[n-1].Type == t.Type {
			m.Parts[n-1].Text += t.Text
		} else {
			m.Parts = append(m.Parts, Part{Type: t.Type, Text: t.Text})
		}
	}
	if tc := p.ToolCall; tc != nil {
		if old := m.ToolCall(tc.ID); old != nil {
			*old = *tc
		} else {
			m.ToolCalls = append(m.ToolCalls, *tc)
			if !p.Unplaced {
				m.Parts = append(m.Parts, Part{Type: PartTool, ToolCallID: tc.ID})
			}
		}
	}
	if id := p.Place; id != "" && m.ToolCall(id) != nil && !m.placed(id) {
		m.Parts = append(m.Parts, Part{Type: PartTool, ToolCallID: id})
	}
	if p.Plan != nil {
		m.Plan = p.Plan
	}
	if p.Usage != nil {
		u := *p.Usage
		m.Usage = &u
	}
	if p.Status != "" {
		m.Status = p.Status
	}
	if p.StopReason != "" {
		m.StopReason = p.StopReason
	}
	if p.Error != nil {
		e := *p.Error
		m.Error = &e
	}
}

// PermissionRequest is a pending approval: an agent's tool call that waits
// for the user (the inline permission card).
type PermissionRequest struct {
	SessionID  string              `json:"sessionId"`
	ToolCallID string              `json:"toolCallId"`
	ToolName   string              `json:"toolName"`
	Title      string              `json:"title,omitempty"`
	Source     string              `json:"source"`
	Capability protocol.Capability `json:"capability"`
	// Action is the card's phrase: "write files", "control the browser"…
	Action    string          `json:"action"`
	Args      json.RawMessage `json:"args"`
	CreatedAt int64           `json:"createdAt"`
}

// Transcript is a bounded read of a session's messages, oldest first.
type Transcript struct {
	Messages []Message `json:"messages"`
	// Omitted reports that earlier messages or content were left out of
	// this read ("[Earlier content omitted]").
	Omitted bool `json:"omitted"`
}
