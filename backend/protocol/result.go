package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ErrorCode classifies a failure. Tool failures carry one inside a
// [ToolResult]; PROTOCOL_ERROR is the only code of transport [ErrorFrame]s.
type ErrorCode string

// The error codes of the spec.
const (
	CodeUnknownTool         ErrorCode = "UNKNOWN_TOOL"
	CodeValidation          ErrorCode = "VALIDATION_ERROR"
	CodePermissionDenied    ErrorCode = "PERMISSION_DENIED"
	CodeTimeout             ErrorCode = "TIMEOUT"
	CodeToolFailed          ErrorCode = "TOOL_FAILED"
	CodeRuntimeShuttingDown ErrorCode = "RUNTIME_SHUTTING_DOWN"
	CodeCancelled           ErrorCode = "CANCELLED"
	CodeProtocol            ErrorCode = "PROTOCOL_ERROR"
)

// ErrorCodes lists every valid code.
var ErrorCodes = []ErrorCode{
	CodeUnknownTool, CodeValidation, CodePermissionDenied, CodeTimeout,
	CodeToolFailed, CodeRuntimeShuttingDown, CodeCancelled, CodeProtocol,
}

// Valid reports whether c is one of [ErrorCodes].
func (c ErrorCode) Valid() bool {
	for _, k := range ErrorCodes {
		if c == k {
			return true
		}
	}
	return false
}

// ToolResult is the envelope every tool call resolves to, success or failure.
type ToolResult struct {
	OK          bool            `json:"ok"`
	Content     json.RawMessage `json:"content,omitempty"`
	Meta        map[string]any  `json:"meta,omitempty"`
	Diagnostics []Diagnostic    `json:"diagnostics,omitempty"`
	Error       *ErrorInfo      `json:"error,omitempty"`

	// marshalled is Content as [OKResult] got it from json.Marshal (valid
	// and compact): while Content is still that slice, the frame encoder
	// copies it without checking it again.
	marshalled json.RawMessage
}

// Diagnostic is a non-fatal note attached to a result.
type Diagnostic struct {
	Level   string `json:"level"` // info | warn | error
	Message string `json:"message"`
}

// ErrorInfo is the error part of a failed [ToolResult].
type ErrorInfo struct {
	Code    ErrorCode `json:"code"`
	Message string    `json:"message"`
	Details any       `json:"details,omitempty"`
}

// OKResult builds a successful envelope around content (marshalled to JSON).
// A content that cannot be marshalled gives a TOOL_FAILED envelope.
func OKResult(content any) ToolResult {
	if content == nil {
		return ToolResult{OK: true}
	}
	raw, err := json.Marshal(content)
	if err != nil {
		return ErrorResult(CodeToolFailed, fmt.Sprintf("result is not serializable: %v", err), nil)
	}
	return ToolResult{OK: true, Content: raw, marshalled: raw}
}

// ErrorResult builds a failed envelope.
func ErrorResult(code ErrorCode, message string, details any) ToolResult {
	return ToolResult{OK: false, Error: &ErrorInfo{Code: code, Message: message, Details: details}}
}

// Err returns the result's failure as a *[ToolError], or nil when OK.
func (r ToolResult) Err() error {
	if r.OK {
		return nil
	}
	if r.Error == nil {
		return &ToolError{Code: CodeToolFailed, Message: "tool failed without an error"}
	}
	return &ToolError{Code: r.Error.Code, Message: r.Error.Message, Details: r.Error.Details}
}

// ToolError is a failure with an error code. A tool that returns one keeps
// its code in the result; any other error becomes TOOL_FAILED.
type ToolError struct {
	Code    ErrorCode
	Message string
	Details any
	// Err is an optional underlying cause, reachable with errors.Unwrap.
	Err error
}

// Error implements error.
func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the underlying cause.
func (e *ToolError) Unwrap() error { return e.Err }

// Errorf returns a *[ToolError] with code and a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *ToolError {
	return &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the code of the first *[ToolError] in err's chain, or "".
func CodeOf(err error) ErrorCode {
	var te *ToolError
	if errors.As(err, &te) {
		return te.Code
	}
	return ""
}

// IsCode reports whether err's chain holds a *[ToolError] with code.
func IsCode(err error, code ErrorCode) bool { return err != nil && CodeOf(err) == code }

// IsPermissionDenied reports whether err is a PERMISSION_DENIED tool error.
func IsPermissionDenied(err error) bool { return IsCode(err, CodePermissionDenied) }

// IsValidation reports whether err is a VALIDATION_ERROR tool error.
func IsValidation(err error) bool { return IsCode(err, CodeValidation) }

// IsCancelled reports whether err is a CANCELLED tool error.
func IsCancelled(err error) bool { return IsCode(err, CodeCancelled) }

// IsTimeout reports whether err is a TIMEOUT tool error.
func IsTimeout(err error) bool { return IsCode(err, CodeTimeout) }

// ToolDescriptor describes a tool in a tools_list frame.
type ToolDescriptor struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the JSON Schema of the content of a successful call,
	// inferred from the handler's Go result type; it is absent when that
	// type does not describe the content (a tool that builds its own
	// envelope, or returns any value).
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Capabilities []Capability    `json:"capabilities"`
}
