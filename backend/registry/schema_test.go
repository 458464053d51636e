package registry

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

type schemaIn struct {
	Cwd       string            `json:"cwd" jsonschema:"the working directory"`
	Scope     string            `json:"scope,omitempty" enum:"all, staged ,unstaged" default:"all"`
	Mode      string            `json:"mode" enum:"fast,slow" default:"slow"`
	DelayMs   int               `json:"delayMs,omitempty" minimum:"0" maximum:"600000" default:"250"`
	Ratio     float64           `json:"ratio,omitzero" minimum:"0.5"`
	Level     *int              `json:"level,omitempty" enum:"1,2,3"`
	Count     uint8             `json:"count,omitempty" maximum:"10"`
	Verbose   bool              `json:"verbose,omitempty" default:"true"`
	Paths     []string          `json:"paths,omitempty" jsonschema:"files to include"`
	Kinds     []string          `json:"kinds,omitempty" enum:"a,b"`
	Weights   []int             `json:"weights,omitempty" minimum:"1"`
	Opts      *schemaOpts       `json:"opts,omitempty"`
	Inline    schemaOpts        `json:"inline"`
	Items     []schemaOpts      `json:"items,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Data      json.RawMessage   `json:"data,omitempty" jsonschema:"any JSON"`
	RawList   []json.RawMessage `json:"rawList,omitempty"`
	Anything  any               `json:"anything,omitempty"`
	Tags      []string          `json:"tags,omitempty" default:"[\"x\",\"y\"]"`
	Started   time.Time         `json:"started,omitzero"`
	Ignored   string            `json:"-"`
	unexposed string
}

type schemaOpts struct {
	Depth int    `json:"depth" jsonschema:"how deep"`
	Name  string `json:"name,omitempty" default:"n"`
}

// schemaAt returns the JSON of the value at a dotted path in a schema.
func schemaAt(t *testing.T, raw json.RawMessage, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("json.Unmarshal(schema): %v", err)
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "<missing>"
		}
		if v, ok = m[p]; !ok {
			return "<missing>"
		}
	}
	return mustJSON(t, v)
}

func TestSchemaInference(t *testing.T) {
	raw, err := SchemaFor[schemaIn]()
	if err != nil {
		t.Fatalf("SchemaFor[schemaIn]() error: %v", err)
	}
	tests := []struct {
		path string
		want string
	}{
		{"type", `"object"`},
		{"additionalProperties", `false`},
		{"required", `["cwd","inline"]`}, // mode has a default, so it is optional
		{"properties.cwd", `{"description":"the working directory","type":"string"}`},
		{"properties.scope.enum", `["all","staged","unstaged"]`},
		{"properties.scope.default", `"all"`},
		{"properties.mode.default", `"slow"`},
		{"properties.delayMs", `{"default":250,"maximum":600000,"minimum":0,"type":"integer"}`},
		{"properties.ratio", `{"minimum":0.5,"type":"number"}`},
		{"properties.level", `{"enum":[1,2,3,null],"type":["null","integer"]}`},
		{"properties.count", `{"maximum":10,"minimum":0,"type":"integer"}`},
		{"properties.verbose.default", `true`},
		{"properties.paths", `{"description":"files to include","items":{"type":"string"},"type":["null","array"]}`},
		{"properties.kinds.items.enum", `["a","b"]`},
		{"properties.weights.items.minimum", `1`},
		{"properties.opts.type", `["null","object"]`},
		{"properties.opts.required", `["depth"]`},
		{"properties.opts.additionalProperties", `false`},
		{"properties.opts.properties.depth.description", `"how deep"`},
		{"properties.opts.properties.name.default", `"n"`},
		{"properties.inline.type", `"object"`},
		{"properties.items.items.properties.depth.type", `"integer"`},
		{"properties.items.items.additionalProperties", `false`},
		{"properties.env", `{"additionalProperties":{"type":"string"},"type":"object"}`},
		{"properties.data", `{"description":"any JSON"}`},
		{"properties.rawList.items", `{}`},
		{"properties.anything", `{}`},
		{"properties.tags.default", `["x","y"]`},
		{"properties.started.type", `"string"`},
		{"properties.Ignored", `<missing>`},
		{"properties.unexposed", `<missing>`},
	}
	for _, tt := range tests {
		if got := schemaAt(t, raw, tt.path); got != tt.want {
			t.Errorf("schema at %q = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestSchemaPropertyOrder(t *testing.T) {
	raw, err := SchemaFor[schemaOpts]()
	if err != nil {
		t.Fatalf("SchemaFor[schemaOpts]() error: %v", err)
	}
	want := `{"type":"object","properties":{"depth":{"type":"integer","description":"how deep"},"name":{"type":"string","default":"n"}},"required":["depth"],"additionalProperties":false}`
	if string(raw) != want {
		t.Errorf("SchemaFor[schemaOpts]() = %s, want %s", raw, want)
	}
}

type embedBase struct {
	Cwd   string `json:"cwd,omitempty" default:"." jsonschema:"working directory"`
	Scope string `json:"scope,omitempty" enum:"a,b"`
}

type embedIn struct {
	embedBase
	Name string `json:"name"`
}

func TestSchemaEmbeddedStruct(t *testing.T) {
	raw, err := SchemaFor[embedIn]()
	if err != nil {
		t.Fatalf("SchemaFor[embedIn]() error: %v", err)
	}
	tests := []struct{ path, want string }{
		{"properties.cwd", `{"default":".","description":"working directory","type":"string"}`},
		{"properties.scope.enum", `["a","b"]`},
		{"required", `["name"]`},
	}
	for _, tt := range tests {
		if got := schemaAt(t, raw, tt.path); got != tt.want {
			t.Errorf("schema at %q = %s, want %s", tt.path, got, tt.want)
		}
	}
	r := New(Options{})
	var got embedIn
	Register(r, Tool{Name: "emb", Description: "d", Capabilities: readOnly},
		func(_ context.Context, _ *Call, in embedIn) (any, error) { got = in; return nil, nil })
	if res := r.Call(context.Background(), Request{ToolName: "emb", Args: json.RawMessage(`{"name":"n"}`)}); !res.OK || got.Cwd != "." || got.Name != "n" {
		t.Errorf("Call(emb, name=n) = %+v decoded %+v, want ok with cwd \".\"", res, got)
	}
	res := r.Call(context.Background(), Request{ToolName: "emb", Args: json.RawMessage(`{"name":"n","scope":"c"}`)})
	if want := `Invalid arguments for "emb": argument "scope" must be one of "a", "b", got a string not in the list`; messageOf(res) != want {
		t.Errorf("Call(emb, scope=c) = %q, want %q", messageOf(res), want)
	}
}

func TestSchemaNoArgs(t *testing.T) {
	raw, err := SchemaFor[NoArgs]()
	if err != nil {
		t.Fatalf("SchemaFor[NoArgs]() error: %v", err)
	}
	want := `{"type":"object","properties":{},"additionalProperties":false}`
	if string(raw) != want {
		t.Errorf("SchemaFor[NoArgs]() = %s, want %s", raw, want)
	}
}

func TestSchemaForErrors(t *testing.T) {
	if _, err := SchemaFor[string](); err == nil || !contains(err.Error(), "not a struct") {
		t.Errorf("SchemaFor[string]() error = %v, want one containing %q", err, "not a struct")
	}
	if _, err := SchemaFor[*schemaOpts](); err == nil || !contains(err.Error(), "not a struct") {
		t.Errorf("SchemaFor[*schemaOpts]() error = %v, want one containing %q", err, "not a struct")
	}
}

var readOnly = []protocol.Capability{protocol.CapReadOnly}

func noop[In any](context.Context, *Call, In) (any, error) { return nil, nil }

type (
	badChan struct {
		C chan int `json:"c"`
	}
	badMapKey struct {
		M map[int]string `json:"m"`
	}
	badDefaultInt struct {
		N int `json:"n,omitempty" default:"abc"`
	}
	badDefaultBool struct {
		B bool `json:"b,omitempty" default:"maybe"`
	}
	badDefaultJSON struct {
		L []string `json:"l,omitempty" default:"[1,"`
	}
	badDefaultShape struct {
		L []string `json:"l,omitempty" default:"{\"a\":1}"`
	}
	badEnumInt struct {
		N int `json:"n" enum:"1,two"`
	}
	badEnumBool struct {
		B bool `json:"b" enum:"true,false"`
	}
	badEnumEmpty struct {
		S string `json:"s" enum:"a,,b"`
	}
	badEnumDup struct {
		S string `json:"s" enum:"a,b,a"`
	}
	badDefaultNotInEnum struct {
		S string `json:"s,omitempty" enum:"a,b" default:"c"`
	}
	badDefaultAboveMax struct {
		N int `json:"n,omitempty" maximum:"10" default:"11"`
	}
	badMinOnString struct {
		S string `json:"s" minimum:"1"`
	}
	badMinNotNumber struct {
		N int `json:"n" minimum:"one"`
	}
	badMinFraction struct {
		N int `json:"n" minimum:"1.5"`
	}
	badMinAboveMax struct {
		N int `json:"n" minimum:"5" maximum:"1"`
	}
	badMaxOutsideType struct {
		N uint8 `json:"n" maximum:"300"`
	}
	badEnumOutOfBounds struct {
		N int `json:"n" enum:"1,20" maximum:"10"`
	}
	badEmptyDescription struct {
		S string `json:"s" jsonschema:""`
	}
	badNested struct {
		Inner struct {
			N int `json:"n,omitempty" default:"x"`
		} `json:"inner"`
	}
	badCycle struct {
		Next *badCycle `json:"next,omitempty"`
	}
)

func TestRegisterPanics(t *testing.T) {
	tool := func(name string) Tool {
		return Tool{Name: name, Description: "A tool.", Capabilities: readOnly}
	}
	tests := []struct {
		name string
		reg  func(r *Registry)
		want string
	}{
		{"empty name", func(r *Registry) { Register(r, tool(""), noop[NoArgs]) }, "empty name"},
		{"upper case name", func(r *Registry) { Register(r, tool("Echo"), noop[NoArgs]) }, "must match ^[a-z][a-z0-9_]*$"},
		{"dashed name", func(r *Registry) { Register(r, tool("open-tab"), noop[NoArgs]) }, "must match"},
		{"leading digit", func(r *Registry) { Register(r, tool("1tab"), noop[NoArgs]) }, "must match"},
		{"duplicate name", func(r *Registry) {
			Register(r, tool("dup"), noop[NoArgs])
			Register(r, tool("dup"), noop[NoArgs])
		}, `tool already registered: "dup"`},
		{"empty description", func(r *Registry) {
			Register(r, Tool{Name: "x", Description: "  ", Capabilities: readOnly}, noop[NoArgs])
		}, "empty description"},
		{"no capabilities", func(r *Registry) {
			Register(r, Tool{Name: "x", Description: "d"}, noop[NoArgs])
		}, "no capabilities"},
		{"invalid capability", func(r *Registry) {
			Register(r, Tool{Name: "x", Description: "d", Capabilities: []protocol.Capability{"root"}}, noop[NoArgs])
		}, `invalid capability "root"`},
		{"capability twice", func(r *Registry) {
			Register(r, Tool{Name: "x", Description: "d", Capabilities: []protocol.Capability{"read-only", "read-only"}}, noop[NoArgs])
		}, `capability "read-only" listed twice`},
		{"negative timeout", func(r *Registry) {
			Register(r, Tool{Name: "x", Description: "d", Capabilities: readOnly, Timeout: -time.Second}, noop[NoArgs])
		}, "negative timeout"},
		{"nil handler", func(r *Registry) {
			Register[NoArgs, any](r, tool("x"), nil)
		}, "nil handler"},
		{"string input", func(r *Registry) { Register(r, tool("x"), noop[string]) }, "input type string is not a struct"},
		{"pointer input", func(r *Registry) { Register(r, tool("x"), noop[*schemaOpts]) }, "is not a struct"},
		{"map input", func(r *Registry) { Register(r, tool("x"), noop[map[string]any]) }, "is not a struct"},
		{"chan field", func(r *Registry) { Register(r, tool("x"), noop[badChan]) }, "unsupported"},
		{"int map key", func(r *Registry) { Register(r, tool("x"), noop[badMapKey]) }, "unsupported map key"},
		{"cycle", func(r *Registry) { Register(r, tool("x"), noop[badCycle]) }, "cycle"},
		{"empty jsonschema tag", func(r *Registry) { Register(r, tool("x"), noop[badEmptyDescription]) }, "empty jsonschema tag"},
		{"default not an int", func(r *Registry) { Register(r, tool("x"), noop[badDefaultInt]) }, `field "n": bad default tag "abc": "abc" is not an integer`},
		{"default not a bool", func(r *Registry) { Register(r, tool("x"), noop[badDefaultBool]) }, `"maybe" is not a boolean`},
		{"default bad JSON", func(r *Registry) { Register(r, tool("x"), noop[badDefaultJSON]) }, "is not valid JSON"},
		{"default wrong shape", func(r *Registry) { Register(r, tool("x"), noop[badDefaultShape]) }, "does not fit []string"},
		{"enum value not an int", func(r *Registry) { Register(r, tool("x"), noop[badEnumInt]) }, `bad enum tag "1,two": "two" is not an integer`},
		{"enum on bool", func(r *Registry) { Register(r, tool("x"), noop[badEnumBool]) }, "enum needs a string or integer field"},
		{"enum empty value", func(r *Registry) { Register(r, tool("x"), noop[badEnumEmpty]) }, "empty value"},
		{"enum duplicate", func(r *Registry) { Register(r, tool("x"), noop[badEnumDup]) }, `value "a" is listed twice`},
		{"default not in enum", func(r *Registry) { Register(r, tool("x"), noop[badDefaultNotInEnum]) }, `argument "s" must be one of "a", "b", got a string not in the list`},
		{"default above maximum", func(r *Registry) { Register(r, tool("x"), noop[badDefaultAboveMax]) }, `argument "n" must be <= 10, got a larger number`},
		{"minimum on string", func(r *Registry) { Register(r, tool("x"), noop[badMinOnString]) }, "bounds need a number field"},
		{"minimum not a number", func(r *Registry) { Register(r, tool("x"), noop[badMinNotNumber]) }, "not a number"},
		{"minimum fraction on int", func(r *Registry) { Register(r, tool("x"), noop[badMinFraction]) }, "1.5 is not an integer"},
		{"minimum above maximum", func(r *Registry) { Register(r, tool("x"), noop[badMinAboveMax]) }, "minimum 5 is greater than maximum 1"},
		{"maximum outside type", func(r *Registry) { Register(r, tool("x"), noop[badMaxOutsideType]) }, "300 is outside the range of uint8"},
		{"enum outside bounds", func(r *Registry) { Register(r, tool("x"), noop[badEnumOutOfBounds]) }, "enum value 20 is out of bounds"},
		{"nested bad default", func(r *Registry) { Register(r, tool("x"), noop[badNested]) }, `field "inner.n": bad default tag "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			msg := expectPanic(t, func() { tt.reg(r) })
			if !contains(msg, tt.want) {
				t.Errorf("Register(%s) panic = %q, want it to contain %q", tt.name, msg, tt.want)
			}
			if !strings.HasPrefix(msg, "registry: ") {
				t.Errorf("Register(%s) panic = %q, want the prefix %q", tt.name, msg, "registry: ")
			}
		})
	}
}

func TestRegisterFailureLeavesRegistryUnchanged(t *testing.T) {
	r := New(Options{})
	registerEcho(r)
	expectPanic(t, func() { Register(r, Tool{Name: "bad", Description: "d", Capabilities: readOnly}, noop[badEnumInt]) })
	if got := r.Names(); len(got) != 1 || got[0] != "echo" {
		t.Errorf("Names() after a failed Register = %v, want [echo]", got)
	}
}

func TestDescriptors(t *testing.T) {
	r := New(Options{})
	Register(r, Tool{Name: "zeta", Description: "Last letter.", Capabilities: []protocol.Capability{protocol.CapWritesFiles, protocol.CapDestructive}}, noop[NoArgs])
	Register(r, Tool{Name: "alpha", Description: "First letter.", Capabilities: readOnly}, noop[schemaOpts])
	registerEcho(r)

	names := r.Names()
	if want := []string{"zeta", "alpha", "echo"}; strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("Names() = %v, want %v", names, want)
	}
	list := r.List()
	if len(list) != 3 {
		t.Fatalf("len(List()) = %d, want 3", len(list))
	}
	for i, d := range list {
		if d.Name != names[i] {
			t.Errorf("List()[%d].Name = %q, want %q", i, d.Name, names[i])
		}
		if len(d.InputSchema) == 0 || d.InputSchema[0] != '{' {
			t.Errorf("List()[%d].InputSchema = %s, want a JSON object", i, d.InputSchema)
		}
	}
	wantZeta := `{"name":"zeta","description":"Last letter.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"capabilities":["writes-files","destructive"]}`
	if got := mustJSON(t, list[0]); got != wantZeta {
		t.Errorf("List()[0] = %s, want %s", got, wantZeta)
	}

	d, ok := r.Describe("alpha")
	if !ok || d.Description != "First letter." || schemaAt(t, d.InputSchema, "required") != `["depth"]` {
		t.Errorf("Describe(alpha) = %+v, %v, want the alpha descriptor", d, ok)
	}
	if _, ok := r.Describe("nope"); ok {
		t.Errorf("Describe(nope) ok = true, want false")
	}

	// Descriptors are copies: changing one does not change the registry.
	list[0].Capabilities[0] = "mutated"
	list[0].InputSchema[0] = 'X'
	if again, _ := r.Describe("zeta"); again.Capabilities[0] != protocol.CapWritesFiles || again.InputSchema[0] != '{' {
		t.Errorf("Describe(zeta) after mutating a List copy = %+v, want it unchanged", again)
	}
}
