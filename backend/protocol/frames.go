package protocol

import (
	"encoding/json"
	"fmt"
)

// FrameType is the "type" field of a frame.
type FrameType string

// The frame types of the spec.
const (
	TypeListTools      FrameType = "list_tools"
	TypeToolCall       FrameType = "tool_call"
	TypeCancelToolCall FrameType = "cancel_tool_call"
	TypeToolsList      FrameType = "tools_list"
	TypeToolEvent      FrameType = "tool_event"
	TypeToolResult     FrameType = "tool_result"
	TypeError          FrameType = "error"
)

// Message is any frame of the protocol.
type Message interface {
	// FrameType returns the frame's "type".
	FrameType() FrameType
	// version returns the frame's protocol field, for the encoder's stamp.
	version() *Version
	setVersion(v int)
}

// Header holds the fields every frame may carry.
type Header struct {
	Type     FrameType `json:"type"`
	Protocol *Version  `json:"protocol,omitempty"`
}

// Version is a frame's protocol field. It decodes any JSON number with an
// integral value (1, 1.0, 1e0), as a JavaScript peer would write it.
type Version int

// UnmarshalJSON implements json.Unmarshaler.
func (v *Version) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	if f != float64(int(f)) {
		return fmt.Errorf("protocol version %v is not an integer", f)
	}
	*v = Version(f)
	return nil
}

func (h *Header) version() *Version { return h.Protocol }
func (h *Header) setVersion(v int)  { x := Version(v); h.Protocol = &x }

// FrameType returns the frame's "type".
func (h *Header) FrameType() FrameType { return h.Type }

// ListTools asks for the tool descriptors. Answered by [ToolsList].
type ListTools struct {
	Header
	ClientInfo *ClientInfo `json:"clientInfo,omitempty"`
}

// ToolCall calls a registered tool. Answered by zero or more [ToolEvent]s and
// exactly one [ToolResult] with the same RequestID.
type ToolCall struct {
	Header
	RequestID  string          `json:"requestId"`
	ToolName   string          `json:"toolName"`
	Arguments  json.RawMessage `json:"arguments"`
	ClientInfo ClientInfo      `json:"clientInfo"`
	TimeoutMs  int64           `json:"timeoutMs,omitempty"`
}

// CancelToolCall cancels an in-flight call by request id. Unknown ids are
// ignored.
type CancelToolCall struct {
	Header
	RequestID string `json:"requestId"`
}

// ToolsList answers [ListTools].
type ToolsList struct {
	Header
	Tools []ToolDescriptor `json:"tools"`
}

// ToolEvent streams one event of an in-flight call.
type ToolEvent struct {
	Header
	RequestID string `json:"requestId"`
	Event     Event  `json:"event"`
}

// ToolResultFrame carries the final result of a call.
type ToolResultFrame struct {
	Header
	RequestID string     `json:"requestId"`
	Result    ToolResult `json:"result"`
}

// ErrorFrame reports a transport or protocol failure, never a tool failure.
type ErrorFrame struct {
	Header
	RequestID string    `json:"requestId,omitempty"`
	Code      ErrorCode `json:"code"`
	Message   string    `json:"message"`
}

// NewListTools returns a list_tools frame.
func NewListTools(ci *ClientInfo) *ListTools {
	return &ListTools{Header: Header{Type: TypeListTools}, ClientInfo: ci}
}

// NewToolCall returns a tool_call frame; nil args become {}.
func NewToolCall(requestID, tool string, args json.RawMessage, ci ClientInfo, timeoutMs int64) *ToolCall {
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if ci.Caller == "" {
		ci.Caller = CallerCLI
	}
	return &ToolCall{Header: Header{Type: TypeToolCall}, RequestID: requestID, ToolName: tool,
		Arguments: args, ClientInfo: ci, TimeoutMs: timeoutMs}
}

// NewCancel returns a cancel_tool_call frame.
func NewCancel(requestID string) *CancelToolCall {
	return &CancelToolCall{Header: Header{Type: TypeCancelToolCall}, RequestID: requestID}
}

// NewToolsList returns a tools_list frame.
func NewToolsList(tools []ToolDescriptor) *ToolsList {
	if tools == nil {
		tools = []ToolDescriptor{}
	}
	return &ToolsList{Header: Header{Type: TypeToolsList}, Tools: tools}
}

// NewToolEvent returns a tool_event frame.
func NewToolEvent(requestID string, ev Event) *ToolEvent {
	return &ToolEvent{Header: Header{Type: TypeToolEvent}, RequestID: requestID, Event: ev}
}

// NewToolResult returns a tool_result frame.
func NewToolResult(requestID string, r ToolResult) *ToolResultFrame {
	return &ToolResultFrame{Header: Header{Type: TypeToolResult}, RequestID: requestID, Result: r}
}

// NewError returns an error frame with code PROTOCOL_ERROR.
func NewError(requestID, message string) *ErrorFrame {
	return &ErrorFrame{Header: Header{Type: TypeError}, RequestID: requestID, Code: CodeProtocol, Message: message}
}
