package registry

import (
	"context"
	"errors"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
)

// InvalidArg is the VALIDATION_ERROR a tool returns for an argument the
// schema could not refuse, shaped like the registry's own: the message is
// "Invalid arguments: " + msg, and details.issues names field with msg.
// msg must not quote the argument's value (it may be a secret; ids and
// paths the caller needs to act may stay); it goes through the value
// scanner ([redact.String]) all the same.
func InvalidArg(field, msg string) *protocol.ToolError {
	msg = redact.String(msg)
	return &protocol.ToolError{Code: protocol.CodeValidation, Message: "Invalid arguments: " + msg,
		Details: ValidationDetails{Issues: []Issue{{Path: field, Message: msg}}}}
}

// MapError maps the error of a tool's engine to the error the tool
// returns. nil stays nil; a *protocol.ToolError (anywhere in the chain)
// is kept as it is; the end of a context (context.Canceled,
// context.DeadlineExceeded) stays itself, so the registry reports
// CANCELLED or TIMEOUT; any other error goes to typed, the package's hook
// for its engine's typed errors, which returns the tool error to use or
// nil when it does not know the error; what is left is TOOL_FAILED with
// the error's text. typed may be nil.
func MapError(err error, typed func(error) error) error {
	if err == nil {
		return nil
	}
	var te *protocol.ToolError
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	if typed != nil {
		if mapped := typed(err); mapped != nil {
			return mapped
		}
	}
	return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
}
