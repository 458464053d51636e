package registry

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

type greetIn struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type greeter struct{ greeting string }

func (g *greeter) greet(_ context.Context, _ *Call, in greetIn) (string, error) {
	return g.greeting + ", " + in.Name, nil
}

func (g *greeter) wait(ctx context.Context, _ *Call, _ NoArgs) (string, error) {
	<-ctx.Done()
	return "", ctx.Err()
}

// A table registers its tools in order, with the definitions as given,
// and each row's handler runs with its own input type.
func TestRegisterAll(t *testing.T) {
	g := &greeter{greeting: "hello"}
	r := New(Options{})
	RegisterAll(r, []Def{
		{Name: "greet", Description: "Greet someone.", Capabilities: protocol.ReadOnly(), Handler: Handle(g.greet)},
		{Name: "wait", Description: "Wait until cancelled.", Capabilities: protocol.StartsProcess().Plus(protocol.CapAccessesNetwork),
			Timeout: 20 * time.Millisecond, MaxTimeout: time.Hour, Handler: Handle(g.wait)},
	})
	if got := r.Names(); !slices.Equal(got, []string{"greet", "wait"}) {
		t.Fatalf("Names() = %v, want [greet wait]", got)
	}
	desc, _ := r.Describe("wait")
	if want := []protocol.Capability{protocol.CapStartsProcess, protocol.CapAccessesNetwork}; !slices.Equal(desc.Capabilities, want) {
		t.Errorf("Describe(wait).Capabilities = %v, want %v", desc.Capabilities, want)
	}
	greet, _ := r.Describe("greet")
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(greet.InputSchema, &schema); err != nil || !slices.Equal(schema.Required, []string{"name"}) {
		t.Errorf("Describe(greet).InputSchema = %s (%v), want name required", greet.InputSchema, err)
	}

	res := r.Call(context.Background(), Request{ToolName: "greet", Args: json.RawMessage(`{"name":"Ada"}`)})
	if !res.OK || mustJSON(t, res.Content) != `"hello, Ada"` {
		t.Errorf("Call(greet) = %+v, want ok \"hello, Ada\"", res)
	}
	res = r.Call(context.Background(), Request{ToolName: "greet", Args: json.RawMessage(`{}`)})
	if codeOf(res) != protocol.CodeValidation {
		t.Errorf("Call(greet, {}) = %+v, want VALIDATION_ERROR", res)
	}
	// The row's timeout is the tool's.
	res = r.Call(context.Background(), Request{ToolName: "wait"})
	if codeOf(res) != protocol.CodeTimeout || messageOf(res) != `Tool "wait" timed out after 20ms` {
		t.Errorf("Call(wait) = %s %q, want TIMEOUT after 20ms", codeOf(res), messageOf(res))
	}
}

func TestRegisterAllPanics(t *testing.T) {
	g := &greeter{}
	tests := []struct {
		name string
		defs []Def
		want string
	}{
		{"no handler", []Def{{Name: "x", Description: "d", Capabilities: readOnly}}, `register tool "x": nil handler`},
		{"bad row", []Def{{Name: "x", Description: " ", Capabilities: readOnly, Handler: Handle(g.greet)}}, "empty description"},
		{"duplicate", []Def{
			{Name: "x", Description: "d", Capabilities: readOnly, Handler: Handle(g.greet)},
			{Name: "x", Description: "d", Capabilities: readOnly, Handler: Handle(g.wait)},
		}, `tool already registered: "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg := expectPanic(t, func() { RegisterAll(New(Options{}), tt.defs) })
			if !contains(msg, tt.want) {
				t.Errorf("RegisterAll(%s) panic = %q, want it to contain %q", tt.name, msg, tt.want)
			}
		})
	}
}
