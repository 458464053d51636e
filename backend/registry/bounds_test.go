package registry

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

type boundedIn struct {
	Name  string   `json:"name" maxLength:"5"`
	Note  *string  `json:"note,omitempty" maxLength:"3"`
	Paths []string `json:"paths,omitempty" maxLength:"4" maxItems:"2"`
}

// TestLengthTags: maxLength bounds a string (or each string of a list) and
// maxItems a list; both show in the schema, and a value over its bound is
// refused with a VALIDATION_ERROR naming the argument and the bound, never
// the value.
func TestLengthTags(t *testing.T) {
	raw, err := SchemaFor[boundedIn]()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"properties.name.maxLength":        `5`,
		"properties.note.maxLength":        `3`,
		"properties.paths.maxItems":        `2`,
		"properties.paths.items.maxLength": `4`,
	} {
		if got := schemaAt(t, raw, path); got != want {
			t.Errorf("schema %s = %s, want %s", path, got, want)
		}
	}
	r := New(Options{})
	Register(r, Tool{Name: "bounded", Description: "d", Capabilities: readOnly}, noop[boundedIn])
	tests := []struct {
		args, wantMsg, wantPath string
	}{
		{`{"name":"secret"}`, `argument "name" must be at most 5 characters long, got 6`, "name"},
		{`{"name":"ok","note":"long"}`, `argument "note" must be at most 3 characters long, got 4`, "note"},
		{`{"name":"ok","paths":["a","b","c"]}`, `argument "paths" must have at most 2 items, got 3`, "paths"},
		{`{"name":"ok","paths":["a","bbbbb"]}`, `argument "paths[1]" must be at most 4 characters long, got 5`, "paths[1]"},
		{`{"name":"ééééé"}`, "", ""}, // characters, not bytes
	}
	for _, tt := range tests {
		res := r.Call(context.Background(), Request{ToolName: "bounded", Args: json.RawMessage(tt.args)})
		if tt.wantMsg == "" {
			if !res.OK {
				t.Errorf("bounded(%s) = %+v, want ok", tt.args, res.Error)
			}
			continue
		}
		if res.OK || res.Error.Code != protocol.CodeValidation || !strings.HasSuffix(res.Error.Message, tt.wantMsg) ||
			strings.Contains(res.Error.Message, "secret") {
			t.Errorf("bounded(%s) = %+v, want VALIDATION_ERROR %q", tt.args, res.Error, tt.wantMsg)
			continue
		}
		if issues := res.Error.Details.(ValidationDetails).Issues; issues[0].Path != tt.wantPath {
			t.Errorf("bounded(%s) issue path = %q, want %q", tt.args, issues[0].Path, tt.wantPath)
		}
	}
}

// TestLengthTagErrors: a bad maxLength or maxItems tag fails the
// registration.
func TestLengthTagErrors(t *testing.T) {
	type onInt struct {
		N int `json:"n" maxLength:"3"`
	}
	type negative struct {
		S string `json:"s" maxLength:"-1"`
	}
	type notNumber struct {
		L []string `json:"l" maxItems:"many"`
	}
	type itemsOnString struct {
		S string `json:"s" maxItems:"2"`
	}
	for name, f := range map[string]func() error{
		"maxLength on an int":   func() error { _, err := SchemaFor[onInt](); return err },
		"negative maxLength":    func() error { _, err := SchemaFor[negative](); return err },
		"maxItems not a number": func() error { _, err := SchemaFor[notNumber](); return err },
		"maxItems on a string":  func() error { _, err := SchemaFor[itemsOnString](); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "bad max") {
			t.Errorf("%s: SchemaFor error = %v, want a bad-tag error", name, err)
		}
	}
}

// TestDiagnose: diagnostics a handler adds to its call are on its result,
// after those of an explicit envelope; they are dropped once the call has
// resolved.
func TestDiagnose(t *testing.T) {
	r := New(Options{})
	var late *Call
	Register(r, Tool{Name: "noted", Description: "d", Capabilities: readOnly},
		func(ctx context.Context, call *Call, in NoArgs) (string, error) {
			call.Diagnose(protocol.Diagnostic{Level: "warn", Message: "one"})
			call.Diagnose(protocol.Diagnostic{Level: "error", Message: "two"})
			late = call
			return "done", nil
		})
	Register(r, Tool{Name: "envelope", Description: "d", Capabilities: readOnly},
		func(ctx context.Context, call *Call, in NoArgs) (protocol.ToolResult, error) {
			call.Diagnose(protocol.Diagnostic{Level: "warn", Message: "added"})
			res := protocol.OKResult(1)
			res.Diagnostics = []protocol.Diagnostic{{Level: "info", Message: "own"}}
			return res, nil
		})
	Register(r, Tool{Name: "failing", Description: "d", Capabilities: readOnly},
		func(ctx context.Context, call *Call, in NoArgs) (string, error) {
			call.Diagnose(protocol.Diagnostic{Level: "warn", Message: "kept"})
			return "", errors.New("boom")
		})
	tests := []struct{ tool, want string }{
		{"noted", `[{"level":"warn","message":"one"},{"level":"error","message":"two"}]`},
		{"envelope", `[{"level":"info","message":"own"},{"level":"warn","message":"added"}]`},
		{"failing", `[{"level":"warn","message":"kept"}]`},
	}
	for _, tt := range tests {
		res := r.Call(context.Background(), Request{ToolName: tt.tool})
		if got := mustJSON(t, res.Diagnostics); got != tt.want {
			t.Errorf("%s diagnostics = %s, want %s", tt.tool, got, tt.want)
		}
	}
	late.Diagnose(protocol.Diagnostic{Level: "warn", Message: "late"})
	if res := r.Call(context.Background(), Request{ToolName: "noted"}); len(res.Diagnostics) != 2 {
		t.Errorf("a second call has %d diagnostics, want its own 2", len(res.Diagnostics))
	}
}

// TestAdmit: Options.Admit is asked before a tool that is not read-only
// runs (after validation, before authorization); its error ends the call
// with its code (TOOL_FAILED for a plain error), the tool and the
// authorizer never see it, and the outcome is audited. Read-only tools are
// never asked about.
func TestAdmit(t *testing.T) {
	var refuse error
	var asked []string
	var audit auditLog
	authorized := 0
	r := New(Options{
		Audit: audit.record,
		Admit: func(ctx context.Context, tool protocol.ToolDescriptor) error {
			asked = append(asked, tool.Name)
			return refuse
		},
		Authorizer: authorizerFunc(func(ctx context.Context, req AuthRequest) error { authorized++; return nil }),
	})
	ran := 0
	run := func(context.Context, *Call, NoArgs) (any, error) { ran++; return nil, nil }
	Register(r, Tool{Name: "write", Description: "d", Capabilities: []protocol.Capability{protocol.CapWritesFiles}}, run)
	Register(r, Tool{Name: "net", Description: "d", Capabilities: []protocol.Capability{protocol.CapAccessesNetwork}}, run)
	Register(r, Tool{Name: "read", Description: "d", Capabilities: readOnly}, run)

	for _, tool := range []string{"write", "net", "read"} {
		if res := r.Call(context.Background(), Request{ToolName: tool}); !res.OK {
			t.Errorf("%s admitted = %+v, want ok", tool, res.Error)
		}
	}
	if strings.Join(asked, ",") != "write,net" || ran != 3 {
		t.Errorf("asked about %v (ran %d), want write and net (3 runs)", asked, ran)
	}
	if res := r.Call(context.Background(), Request{ToolName: "write", Args: json.RawMessage(`{"x":1}`)}); res.OK ||
		res.Error.Code != protocol.CodeValidation || len(asked) != 2 {
		t.Errorf("invalid call = %+v (asked %v), want VALIDATION_ERROR before Admit", res.Error, asked)
	}

	ran, authorized = 0, 0
	for _, tt := range []struct {
		err  error
		code protocol.ErrorCode
		msg  string
	}{
		{errors.New("audit log cannot be written"), protocol.CodeToolFailed, "audit log cannot be written"},
		{&protocol.ToolError{Code: protocol.CodePermissionDenied, Message: "not now"}, protocol.CodePermissionDenied, "not now"},
	} {
		refuse = tt.err
		res := r.Call(context.Background(), Request{ToolName: "write"})
		if res.OK || res.Error.Code != tt.code || res.Error.Message != tt.msg {
			t.Errorf("refused call = %+v, want %s %q", res.Error, tt.code, tt.msg)
		}
	}
	if res := r.Call(context.Background(), Request{ToolName: "read"}); !res.OK {
		t.Errorf("read-only call while refusing = %+v, want ok", res.Error)
	}
	if ran != 1 || authorized != 1 {
		t.Errorf("while refusing: ran %d, authorized %d; want only the read-only call", ran, authorized)
	}
	outs := audit.all()
	if last := outs[len(outs)-2]; last.ToolName != "write" || last.Result.OK {
		t.Errorf("refused call audited as %+v, want the failed write", last)
	}
}

// authorizerFunc is an Authorizer from a func.
type authorizerFunc func(ctx context.Context, req AuthRequest) error

func (f authorizerFunc) Authorize(ctx context.Context, req AuthRequest) error { return f(ctx, req) }
