package registry

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/meith-dev/meith/backend/protocol"
)

type outItem struct {
	Name string  `json:"name" jsonschema:"the item's name"`
	Note *string `json:"note"`
	Size int     `json:"size,omitempty"`
}

type outBase struct {
	ID string `json:"id"`
}

type outResult struct {
	outBase                      // promoted: id
	Items   []outItem            `json:"items"`
	Tags    []string             `json:"tags,omitempty"`
	Counts  map[string]int       `json:"counts"`
	At      time.Time            `json:"at"`
	Data    json.RawMessage      `json:"data,omitempty"`
	Extra   any                  `json:"extra"`
	Blob    []byte               `json:"blob,omitempty"`
	Parent  *outItem             `json:"parent"`
	ByKey   map[string][]outItem `json:"byKey,omitzero"`
	Hidden  string               `json:"-"`
}

type outTree struct {
	Label    string     `json:"label"`
	Children []*outTree `json:"children"`
}

type outForest struct {
	Trees []outTree `json:"trees"`
}

type rawJSON struct{}

func (rawJSON) MarshalJSON() ([]byte, error) { return []byte(`"raw"`), nil }

// TestOutputSchema: the output schema of each kind of result type, or
// none where the content is not described.
func TestOutputSchema(t *testing.T) {
	item := `{"type":"object","properties":{"name":{"type":"string","description":"the item's name"},"note":{"type":["null","string"]},"size":{"type":"integer"}},"required":["name","note"]}`
	tests := []struct {
		name string
		typ  reflect.Type
		want string // "" for none
	}{
		{"struct", reflect.TypeFor[outItem](), item},
		{"pointer", reflect.TypeFor[*outItem](), strings.Replace(item, `"type":"object"`, `"type":["null","object"]`, 1)},
		{"slice", reflect.TypeFor[[]outItem](), `{"type":["null","array"],"items":` + item + `}`},
		{"array", reflect.TypeFor[[2]bool](), `{"type":"array","items":{"type":"boolean"}}`},
		{"map", reflect.TypeFor[map[string]float64](), `{"type":["null","object"],"additionalProperties":{"type":"number"}}`},
		{"time", reflect.TypeFor[time.Time](), `{"type":"string","format":"date-time"}`},
		{"string", reflect.TypeFor[string](), `{"type":"string"}`},
		{"bytes", reflect.TypeFor[[]byte](), `{"type":["null","string"],"contentEncoding":"base64"}`},
		{"slice of any", reflect.TypeFor[[]any](), `{"type":["null","array"],"items":{}}`},
		{"RawMessage", reflect.TypeFor[json.RawMessage](), ""},
		{"any", reflect.TypeFor[any](), ""},
		{"own MarshalJSON", reflect.TypeFor[rawJSON](), ""},
		{"ToolResult", reflect.TypeFor[protocol.ToolResult](), ""},
		{"*ToolResult", reflect.TypeFor[*protocol.ToolResult](), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, err := outputSchema(tt.typ)
			if err != nil {
				t.Fatalf("outputSchema(%s) error: %v", tt.typ, err)
			}
			if tt.want == "" {
				if raw != nil {
					t.Errorf("outputSchema(%s) = %s, want none", tt.typ, raw)
				}
				return
			}
			if string(raw) != tt.want {
				t.Errorf("outputSchema(%s) =\n %s\nwant\n %s", tt.typ, raw, tt.want)
			}
		})
	}
}

// TestOutputSchemaObject: a struct with every kind of field; keys are
// required unless omitempty or omitzero, a field tagged "-" is left out,
// embedded fields are promoted, and other keys are not refused.
func TestOutputSchemaObject(t *testing.T) {
	raw, err := OutputSchemaFor[outResult]()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"type":                   `"object"`,
		"required":               `["id","items","counts","at","extra","parent"]`,
		"additionalProperties":   `<missing>`,
		"properties.id":          `{"type":"string"}`,
		"properties.tags":        `{"items":{"type":"string"},"type":"array"}`, // omitempty: never null
		"properties.counts":      `{"additionalProperties":{"type":"integer"},"type":["null","object"]}`,
		"properties.at":          `{"format":"date-time","type":"string"}`,
		"properties.data":        `{}`,
		"properties.extra":       `{}`,
		"properties.blob":        `{"contentEncoding":"base64","type":"string"}`,
		"properties.parent.type": `["null","object"]`,
		"properties.byKey.type":  `"object"`,
		"properties.byKey.additionalProperties.type": `["null","array"]`,
		"properties.Hidden":                          `<missing>`,
		"properties.outBase":                         `<missing>`,
	} {
		if got := schemaAt(t, raw, path); got != want {
			t.Errorf("schema %s = %s, want %s", path, got, want)
		}
	}
}

// TestOutputSchemaRecursive: a recursive struct is described once under
// $defs and referred to, at any depth.
func TestOutputSchemaRecursive(t *testing.T) {
	raw, err := OutputSchemaFor[outForest]()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"properties.trees.items":                  `{"$ref":"#/$defs/outTree"}`,
		"$defs.outTree.properties.children.items": `{"anyOf":[{"type":"null"},{"$ref":"#/$defs/outTree"}]}`,
		"$defs.outTree.required":                  `["label","children"]`,
	} {
		if got := schemaAt(t, raw, path); got != want {
			t.Errorf("schema %s = %s, want %s", path, got, want)
		}
	}
	forest := outForest{Trees: []outTree{{Label: "a", Children: []*outTree{{Label: "b"}, nil}}}}
	validateContent(t, raw, forest)
	if err := checkContent(raw, map[string]any{"trees": []any{map[string]any{"label": "a", "children": []any{map[string]any{"label": 3}}}}}); err == nil {
		t.Error("a child with a number for its label validates, want an error")
	}
}

// TestOutputSchemaValidates: what a handler returns, as the registry
// writes it, validates against the tool's output schema, for full and
// zero values; a wrong shape does not.
func TestOutputSchemaValidates(t *testing.T) {
	note := "n"
	full := outResult{
		outBase: outBase{ID: "x"},
		Items:   []outItem{{Name: "a", Note: &note, Size: 3}, {Name: "b"}},
		Tags:    []string{"t"},
		Counts:  map[string]int{"a": 1},
		At:      time.Date(2026, 12, 1, 10, 0, 0, 5, time.UTC),
		Data:    json.RawMessage(`[1,{"x":null}]`),
		Extra:   map[string]any{"k": []int{1}},
		Blob:    []byte{0, 1, 2},
		Parent:  &outItem{Name: "p"},
		ByKey:   map[string][]outItem{"k": nil},
	}
	r := New(Options{})
	Register(r, Tool{Name: "full", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (outResult, error) { return full, nil })
	Register(r, Tool{Name: "zero", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (outResult, error) { return outResult{}, nil })
	Register(r, Tool{Name: "nil_ptr", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (*outItem, error) { return nil, nil })
	for _, name := range []string{"full", "zero", "nil_ptr"} {
		d, _ := r.Describe(name)
		res := r.Call(context.Background(), Request{ToolName: name})
		if !res.OK {
			t.Fatalf("%s: %+v", name, res.Error)
		}
		content := res.Content
		if content == nil {
			content = json.RawMessage(`null`) // what a result without content stands for
		}
		var v any
		if err := json.Unmarshal(content, &v); err != nil {
			t.Fatal(err)
		}
		if err := checkContent(d.OutputSchema, v); err != nil {
			t.Errorf("%s: content %s does not validate: %v", name, content, err)
		}
	}
	d, _ := r.Describe("full")
	if err := checkContent(d.OutputSchema, map[string]any{"id": 1}); err == nil {
		t.Error("a wrong content validates, want an error")
	}
}

// validateContent marshals v as the registry does and validates it.
func validateContent(t *testing.T, schema json.RawMessage, v any) {
	t.Helper()
	raw := protocol.OKResult(v).Content
	var d any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if err := checkContent(schema, d); err != nil {
		t.Errorf("content %s does not validate: %v", raw, err)
	}
}

func checkContent(schema json.RawMessage, v any) error {
	var s jsonschema.Schema
	if err := json.Unmarshal(schema, &s); err != nil {
		return err
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return err
	}
	return rs.Validate(v)
}

// TestDescriptorOutputSchema: descriptors carry the output schema (copied,
// like the input schema) and leave it out for a tool that builds its own
// envelope or returns any value.
func TestDescriptorOutputSchema(t *testing.T) {
	r := New(Options{})
	Register(r, Tool{Name: "typed", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (outItem, error) { return outItem{}, nil })
	Register(r, Tool{Name: "envelope", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (protocol.ToolResult, error) { return protocol.OKResult(1), nil })
	Register(r, Tool{Name: "untyped", Description: "d", Capabilities: readOnly}, noop[NoArgs])

	list := r.List()
	if got := schemaAt(t, list[0].OutputSchema, "required"); got != `["name","note"]` {
		t.Errorf("typed output schema = %s", list[0].OutputSchema)
	}
	for _, d := range list[1:] {
		if d.OutputSchema != nil {
			t.Errorf("%s output schema = %s, want none", d.Name, d.OutputSchema)
		}
		if b, _ := json.Marshal(d); strings.Contains(string(b), "outputSchema") {
			t.Errorf("%s descriptor JSON = %s, want no outputSchema key", d.Name, b)
		}
	}
	list[0].OutputSchema[0] = 'X'
	if again, _ := r.Describe("typed"); again.OutputSchema[0] != '{' {
		t.Errorf("Describe(typed) after mutating a List copy = %s, want it unchanged", again.OutputSchema)
	}
}

// TestRegisterPanicsOnUnwritableOutput: a result type encoding/json
// cannot write fails the registration, naming where.
func TestRegisterPanicsOnUnwritableOutput(t *testing.T) {
	type withFunc struct {
		Done func() `json:"done"`
	}
	msg := expectPanic(t, func() {
		Register(New(Options{}), Tool{Name: "bad", Description: "d", Capabilities: readOnly},
			func(context.Context, *Call, NoArgs) (withFunc, error) { return withFunc{}, nil })
	})
	if !strings.Contains(msg, `register tool "bad": output type:`) || !strings.Contains(msg, "done: type func()") {
		t.Errorf("panic = %q, want the output type's field named", msg)
	}
}
