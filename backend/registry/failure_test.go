package registry

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

func TestInvalidArg(t *testing.T) {
	tests := []struct {
		name, field, msg string
		wantMsg          string
	}{
		{"plain", "keys", "keys must not be empty", "keys must not be empty"},
		{"secret shapes are scanned", "cwd", "cwd ghp_0123456789abcdefghijklmnopqrstuvwxyzAB is relative",
			"cwd [REDACTED] is relative"},
		{"no field", "", "give either paths or patch", "give either paths or patch"},
	}
	for _, tt := range tests {
		te := InvalidArg(tt.field, tt.msg)
		if te.Code != protocol.CodeValidation || te.Message != "Invalid arguments: "+tt.wantMsg || te.Err != nil {
			t.Errorf("%s: InvalidArg(%q, …) = %s %q (err %v), want VALIDATION_ERROR %q", tt.name, tt.field, te.Code, te.Message, te.Err, "Invalid arguments: "+tt.wantMsg)
		}
		want := ValidationDetails{Issues: []Issue{{Path: tt.field, Message: tt.wantMsg}}}
		if got := mustJSON(t, te.Details); got != mustJSON(t, want) {
			t.Errorf("%s: InvalidArg details = %s, want %s", tt.name, got, mustJSON(t, want))
		}
	}
}

// engineErr is a typed error of a made-up engine, for the hook.
type engineErr struct{ id string }

func (e *engineErr) Error() string { return "no such thing " + e.id }

func TestMapError(t *testing.T) {
	toolErr := protocol.Errorf(protocol.CodePermissionDenied, "owned by another")
	wrappedToolErr := fmt.Errorf("open: %w", toolErr)
	typedErr := fmt.Errorf("look up: %w", &engineErr{id: "x1"})
	mapped := protocol.Errorf(protocol.CodeToolFailed, "Unknown thing: x1")
	hook := func(err error) error {
		var ee *engineErr
		if errors.As(err, &ee) {
			return mapped
		}
		return nil
	}
	plain := errors.New("disk on fire")
	deadline := fmt.Errorf("read: %w", context.DeadlineExceeded)
	tests := []struct {
		name  string
		err   error
		typed func(error) error
		want  error // compared by identity, unless wantTE
		// wantTE is the TOOL_FAILED error expected for errors no rule knows.
		wantTE bool
	}{
		{"nil", nil, hook, nil, false},
		{"tool error kept", toolErr, hook, toolErr, false},
		{"wrapped tool error kept as is", wrappedToolErr, hook, wrappedToolErr, false},
		{"cancellation stays", context.Canceled, hook, context.Canceled, false},
		{"deadline stays, wrapped", deadline, hook, deadline, false},
		{"typed error goes to the hook", typedErr, hook, mapped, false},
		{"unknown error is TOOL_FAILED", plain, hook, nil, true},
		{"no hook", typedErr, nil, nil, true},
	}
	for _, tt := range tests {
		got := MapError(tt.err, tt.typed)
		switch {
		case tt.wantTE:
			var te *protocol.ToolError
			if !errors.As(got, &te) || te.Code != protocol.CodeToolFailed || te.Message != tt.err.Error() || te.Err != tt.err {
				t.Errorf("%s: MapError = %#v, want TOOL_FAILED %q wrapping the error", tt.name, got, tt.err.Error())
			}
		case got != tt.want:
			t.Errorf("%s: MapError = %v, want %v", tt.name, got, tt.want)
		}
	}
}
