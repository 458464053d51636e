package mcpbridge_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

type reportOut struct {
	Title   string            `json:"title"`
	At      time.Time         `json:"at"`
	Lines   []string          `json:"lines"` // nil: null
	Labels  map[string]string `json:"labels"`
	Parent  *noteOut          `json:"parent"`
	Extra   any               `json:"extra,omitempty"`
	Skipped []int             `json:"skipped,omitempty"`
}

// outputFixture is a registry whose tools return each kind of result:
// objects (whose MCP tools advertise an output schema) and the rest.
func outputFixture(t *testing.T) mcpbridge.Binding {
	t.Helper()
	reg := registry.New(registry.Options{})
	ro := []protocol.Capability{protocol.CapReadOnly}
	add := func(name string, h func() any) {
		switch v := h().(type) {
		case noteOut:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) (noteOut, error) { return v, nil })
		case reportOut:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) (reportOut, error) { return v, nil })
		case *noteOut:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) (*noteOut, error) { return v, nil })
		case []noteOut:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) ([]noteOut, error) { return v, nil })
		case map[string]int:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) (map[string]int, error) { return v, nil })
		case string:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) (string, error) { return v, nil })
		case protocol.ToolResult:
			registry.Register(reg, registry.Tool{Name: name, Description: "d", Capabilities: ro},
				func(context.Context, *registry.Call, emptyIn) (protocol.ToolResult, error) { return v, nil })
		default:
			t.Fatalf("no case for %T", v)
		}
	}
	add("note", func() any { return noteOut{Note: "n", Session: "s"} })
	add("report_full", func() any {
		return reportOut{Title: "t", At: time.Now(), Lines: []string{"a"}, Labels: map[string]string{"k": "v"},
			Parent: &noteOut{Note: "p"}, Extra: []any{1, "x"}, Skipped: []int{1}}
	})
	add("report_zero", func() any { return reportOut{} })
	add("maybe_note", func() any { return (*noteOut)(nil) })
	add("notes", func() any { return []noteOut{{Note: "a"}} })
	add("counts", func() any { return map[string]int{"a": 1} })
	add("word", func() any { return "hello" })
	add("envelope", func() any { return protocol.OKResult(map[string]int{"a": 1}) })
	return mcpbridge.Binding{
		SessionID: "sess_out",
		List:      reg.List,
		Call: func(ctx context.Context, name string, args json.RawMessage, emit func(protocol.Event)) protocol.ToolResult {
			return reg.Call(ctx, registry.Request{ToolName: name, Args: args, Emit: emit,
				Client: protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "sess_out"}})
		},
	}
}

// TestOutputSchema: a tool whose result is always an object advertises
// the registry's output schema as MCP's outputSchema, and its results
// carry structuredContent that validates against it (as a client may
// check); the other tools advertise none (the key is absent, not null)
// and answer with text as before.
func TestOutputSchema(t *testing.T) {
	b, _ := newBridge(t, 0)
	ep := register(t, b, outputFixture(t))
	bg := context.Background()

	// On the wire: the key is there only for the object tools.
	post(bg, t, ep.URL, ep.Token, initializeBody, nil)
	post(bg, t, ep.URL, ep.Token, initializedBody, nil)
	var wire struct{ Tools []map[string]json.RawMessage }
	if err := json.Unmarshal(result(t, post(bg, t, ep.URL, ep.Token, toolsListBody, nil), 2), &wire); err != nil {
		t.Fatal(err)
	}
	var advertised []string
	for _, tool := range wire.Tools {
		var name string
		_ = json.Unmarshal(tool["name"], &name)
		if raw, ok := tool["outputSchema"]; ok {
			advertised = append(advertised, name)
			var s struct{ Type any }
			if err := json.Unmarshal(raw, &s); err != nil || s.Type != "object" {
				t.Errorf("%s outputSchema = %s, want an object schema", name, raw)
			}
		}
	}
	if want := []string{"note", "report_full", "report_zero"}; !slices.Equal(advertised, want) {
		t.Errorf("tools with an outputSchema = %v, want %v", advertised, want)
	}

	// Through the go-sdk client: structured content validates.
	cs := connect(t, ep, nil)
	list, err := cs.ListTools(bg, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		res, err := cs.CallTool(bg, &mcp.CallToolParams{Name: tool.Name})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool.Name, err, res)
		}
		if tool.OutputSchema == nil {
			if tool.Name == "notes" || tool.Name == "word" || tool.Name == "maybe_note" {
				if res.StructuredContent != nil {
					t.Errorf("%s structuredContent = %v, want none", tool.Name, res.StructuredContent)
				}
			}
			continue
		}
		if res.StructuredContent == nil {
			t.Errorf("%s has an outputSchema but no structuredContent", tool.Name)
			continue
		}
		if err := validate(tool.OutputSchema, res.StructuredContent); err != nil {
			t.Errorf("%s structuredContent %v does not validate: %v", tool.Name, res.StructuredContent, err)
		}
	}
}

// validate checks v against a JSON Schema decoded by the MCP client.
func validate(schema, v any) error {
	raw, err := json.Marshal(schema)
	if err != nil {
		return err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	return rs.Validate(v)
}
