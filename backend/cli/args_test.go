package cli

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func bare() FlagValue        { return FlagValue{Bare: true} }
func val(s string) FlagValue { return FlagValue{Text: s} }
func vals(s ...string) []FlagValue {
	out := make([]FlagValue, len(s))
	for i, x := range s {
		out[i] = val(x)
	}
	return out
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		want Args
	}{
		{"command positionals and a valued flag",
			[]string{"open", "http://localhost:3000", "--title", "Dev"},
			Args{Positionals: []string{"open", "http://localhost:3000"}, Flags: []Flag{{Name: "title", Values: vals("Dev")}}}},
		{"--flag=value and a boolean flag",
			[]string{"logs", "--limit=50", "--json"},
			Args{Positionals: []string{"logs"}, Flags: []Flag{{Name: "limit", Values: vals("50")}, {Name: "json", Values: []FlagValue{bare()}}}}},
		{"--flag= gives an empty value",
			[]string{"call", "t", "--q="},
			Args{Positionals: []string{"call", "t"}, Flags: []Flag{{Name: "q", Values: vals("")}}}},
		{"value containing =",
			[]string{"--expr=a=b"},
			Args{Flags: []Flag{{Name: "expr", Values: vals("a=b")}}}},
		{"protocol flags --timeout and --verbose",
			[]string{"call", "slow", "--timeout", "5000", "--verbose"},
			Args{Positionals: []string{"call", "slow"}, Flags: []Flag{{Name: "timeout", Values: vals("5000")}, {Name: "verbose", Values: []FlagValue{bare()}}}}},
		{"a flag followed by a flag is boolean",
			[]string{"--watch", "--limit", "3"},
			Args{Flags: []Flag{{Name: "watch", Values: []FlagValue{bare()}}, {Name: "limit", Values: vals("3")}}}},
		{"global booleans never take a value",
			[]string{"--json", "tools", "--quiet", "x"},
			Args{Positionals: []string{"tools", "x"}, Flags: []Flag{{Name: "json", Values: []FlagValue{bare()}}, {Name: "quiet", Values: []FlagValue{bare()}}}}},
		{"short flags are boolean",
			[]string{"-v", "call", "-h"},
			Args{Positionals: []string{"call"}, Flags: []Flag{{Name: "v", Values: []FlagValue{bare()}}, {Name: "h", Values: []FlagValue{bare()}}}}},
		{"short flag with =value",
			[]string{"-n=5"},
			Args{Flags: []Flag{{Name: "n", Values: vals("5")}}}},
		{"negative numbers are values and positionals",
			[]string{"scroll", "t1", "--deltaY", "-200", "-3.5"},
			Args{Positionals: []string{"scroll", "t1", "-3.5"}, Flags: []Flag{{Name: "deltaY", Values: vals("-200")}}}},
		{"a lone dash is a positional",
			[]string{"read", "-"},
			Args{Positionals: []string{"read", "-"}}},
		{"repeated flags keep argv order",
			[]string{"call", "tool", "--tag", "one", "--tag=two", "--x", "1", "--tag", "three"},
			Args{Positionals: []string{"call", "tool"}, Flags: []Flag{{Name: "tag", Values: vals("one", "two", "three")}, {Name: "x", Values: vals("1")}}}},
		{"--args captures everything after it",
			[]string{"start-dev", "/tmp", "node", "--args", "-e", "0", "--json"},
			Args{Positionals: []string{"start-dev", "/tmp", "node"}, Flags: []Flag{{Name: "args", List: true, Values: vals("-e", "0", "--json")}}}},
		{"-- passthrough",
			[]string{"start-dev", "/tmp", "node", "--", "-e", "0"},
			Args{Positionals: []string{"start-dev", "/tmp", "node"}, Passthrough: []string{"-e", "0"}}},
		{"unknown commands are kept for the dispatcher",
			[]string{"not-a-command", "--json"},
			Args{Positionals: []string{"not-a-command"}, Flags: []Flag{{Name: "json", Values: []FlagValue{bare()}}}}},
		{"--key-json takes a value",
			[]string{"--payload-json", `{"a":1}`},
			Args{Flags: []Flag{{Name: "payload-json", Values: vals(`{"a":1}`)}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse(tt.argv, globalBooleans)
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("Parse(%q) =\n  %+v\nwant\n  %+v", tt.argv, *got, tt.want)
			}
		})
	}
}

func TestArgsAccessors(t *testing.T) {
	a := Parse([]string{"--json", "--quiet=false", "--socket", "/s", "--socket", "/t", "--x"}, globalBooleans)
	if !a.Bool("json") || a.Bool("quiet") || a.Bool("missing") || !a.Bool("nope", "x") {
		t.Errorf("Bool: json=%v quiet=%v missing=%v x=%v", a.Bool("json"), a.Bool("quiet"), a.Bool("missing"), a.Bool("nope", "x"))
	}
	if v, present, bare := a.Value("socket"); v != "/t" || !present || bare {
		t.Errorf(`Value("socket") = %q, %v, %v; want "/t" (last wins)`, v, present, bare)
	}
	if _, present, bare := a.Value("x"); !present || !bare {
		t.Errorf(`Value("x"): present=%v bare=%v`, present, bare)
	}
}

func TestCoerce(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{"50", json.Number("50")},
		{"-2", json.Number("-2")},
		{"3.14", json.Number("3.14")},
		{"0", json.Number("0")},
		{"true", true},
		{"false", false},
		{"hello", "hello"},
		{"", ""},
		{"007", "007"},   // leading zeros are ids, not numbers
		{"1e3", "1e3"},   // no exponents: Go tools reject 1e3 for an int
		{"0x10", "0x10"}, // no hex
		{"1.", "1."},
		{"True", "True"},
		{"12345678901234567890123", json.Number("12345678901234567890123")}, // kept exactly
	}
	for _, tt := range tests {
		if got := Coerce(tt.in); got != tt.want {
			t.Errorf("Coerce(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

// build parses argv as a command line whose command is argv[0] and returns
// the JSON of its resolved params.
func build(t *testing.T, argv []string, o BuildOptions, schema string) (string, error) {
	t.Helper()
	a := Parse(argv, globalBooleans)
	o.Reserved = isReserved
	p, err := BuildParams(a, a.Positionals[1:], o)
	if err != nil {
		return "", err
	}
	b, err := p.JSON(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return string(b), nil
}

func TestBuildParams(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		o    BuildOptions
		want string
	}{
		{"positionals map to slots and flags merge",
			[]string{"open", "http://localhost:3000", "--title", "Dev"}, BuildOptions{Slots: []string{"url"}},
			`{"title":"Dev","url":"http://localhost:3000"}`},
		{"fewer positionals than slots",
			[]string{"navigate", "t1"}, BuildOptions{Slots: []string{"tabId", "url"}},
			`{"tabId":"t1"}`},
		{"numeric flag is coerced",
			[]string{"logs", "--limit", "120"}, BuildOptions{},
			`{"limit":120}`},
		{"negative, decimal and boolean coercion",
			[]string{"call", "--a", "-2", "--b", "3.14", "--c", "true", "--d=false", "--e", "text"}, BuildOptions{},
			`{"a":-2,"b":3.14,"c":true,"d":false,"e":"text"}`},
		{"positionals are coerced too",
			[]string{"resize-terminal", "term_1", "80", "24"}, BuildOptions{Slots: []string{"terminalId", "cols", "rows"}},
			`{"cols":80,"rows":24,"terminalId":"term_1"}`},
		{"bare flags are true",
			[]string{"call", "--force", "--x"}, BuildOptions{},
			`{"force":true,"x":true}`},
		{"repeated flags become arrays in order",
			[]string{"call", "--tag", "one", "--tag=two", "--tag", "3"}, BuildOptions{},
			`{"tag":["one","two",3]}`},
		{"a variadic last slot takes the remaining positionals",
			[]string{"stage", "a.txt", "dir/b.txt", "c d.txt"}, BuildOptions{Slots: []string{"paths..."}},
			`{"paths":["a.txt","dir/b.txt","c d.txt"]}`},
		{"a variadic slot after fixed ones",
			[]string{"x", "one", "two", "three"}, BuildOptions{Slots: []string{"first", "rest..."}},
			`{"first":"one","rest":["two","three"]}`},
		{"a variadic slot may stay empty",
			[]string{"stage", "--patch", "p"}, BuildOptions{Slots: []string{"paths..."}},
			`{"patch":"p"}`},
		{"--args is an array of strings",
			[]string{"start-dev", "/tmp", "node", "--args", "-e", "0"}, BuildOptions{Slots: []string{"cwd", "command"}},
			`{"args":["-e","0"],"command":"node","cwd":"/tmp"}`},
		{"-- passthrough becomes args",
			[]string{"start-dev", "/tmp", "node", "--", "-e", "0", "--json"}, BuildOptions{Slots: []string{"cwd", "command"}},
			`{"args":["-e","0","--json"],"command":"node","cwd":"/tmp"}`},
		{"reserved global flags are never forwarded",
			[]string{"call", "--socket", "/s", "--instance", "x", "--timeout", "5", "--json", "--quiet", "-v", "--verbose", "-V", "--version", "-h", "--help", "--stdin", "--keep", "1"}, BuildOptions{},
			`{"keep":1}`},
		{"--arg-json merges an object, explicit flags override it",
			[]string{"call", "--arg-json", `{"a":1,"b":"x"}`, "--c", "2", "--b", "y"}, BuildOptions{},
			`{"a":1,"b":"y","c":2}`},
		{"several --arg-json merge in order",
			[]string{"call", "--arg-json", `{"a":1,"b":1}`, "--arg-json", `{"b":2}`}, BuildOptions{},
			`{"a":1,"b":2}`},
		{"--key-json is one nested JSON value",
			[]string{"call", "--payload-json", `{"nested":[1,2]}`}, BuildOptions{},
			`{"payload":{"nested":[1,2]}}`},
		{"--key-json beats --key",
			[]string{"call", "--p-json", `"007"`, "--p", "7"}, BuildOptions{},
			`{"p":"007"}`},
		{"--key-json keeps big numbers exact",
			[]string{"call", "--n-json", `12345678901234567890`}, BuildOptions{},
			`{"n":12345678901234567890}`},
		{"repeated --key-json is an array",
			[]string{"call", "--e-json", `{"a":1}`, "--e-json", `{"b":2}`}, BuildOptions{},
			`{"e":[{"a":1},{"b":2}]}`},
		{"array keys wrap a single value",
			[]string{"approve-plugin", "p1", "--capabilities", "read-only"}, BuildOptions{Slots: []string{"pluginId"}, ArrayKeys: []string{"capabilities", "apis"}},
			`{"capabilities":["read-only"],"pluginId":"p1"}`},
		{"array keys keep arrays",
			[]string{"approve-plugin", "p1", "--capabilities", "a", "--capabilities", "b", "--apis-json", `["x"]`}, BuildOptions{Slots: []string{"pluginId"}, ArrayKeys: []string{"capabilities", "apis"}},
			`{"apis":["x"],"capabilities":["a","b"],"pluginId":"p1"}`},
		{"base (--stdin) is overridden by flags and positionals",
			[]string{"open", "http://b", "--title", "T"}, BuildOptions{Slots: []string{"url"}, Base: map[string]json.RawMessage{"url": json.RawMessage(`"http://a"`), "keep": json.RawMessage(`{"z":1,"a":2}`)}},
			`{"keep":{"z":1,"a":2},"title":"T","url":"http://b"}`},
		{"no arguments is an empty object",
			[]string{"tabs"}, BuildOptions{},
			`{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := build(t, tt.argv, tt.o, "")
			if err != nil {
				t.Fatalf("BuildParams(%q): %v", tt.argv, err)
			}
			if got != tt.want {
				t.Errorf("BuildParams(%q) =\n  %s\nwant\n  %s", tt.argv, got, tt.want)
			}
		})
	}
}

func TestBuildParamsErrors(t *testing.T) {
	tests := []struct {
		name string
		argv []string
		o    BuildOptions
		want string
	}{
		{"bad JSON in a -json flag", []string{"call", "--payload-json", "{not json}"}, BuildOptions{}, "Invalid JSON for --payload-json: "},
		{"trailing data in a -json flag", []string{"call", "--payload-json", "1 2"}, BuildOptions{}, "Invalid JSON for --payload-json: "},
		{"-json flag without a value", []string{"call", "--payload-json"}, BuildOptions{}, "--payload-json needs a JSON value"},
		{"--arg-json must be an object", []string{"call", "--arg-json", "[1,2]"}, BuildOptions{}, "--arg-json must be a JSON object: got an array"},
		{"--arg-json bad JSON", []string{"call", "--arg-json", "{"}, BuildOptions{}, "--arg-json must be a JSON object: "},
		{"--arg-json without a value", []string{"call", "--arg-json"}, BuildOptions{}, "--arg-json needs a JSON object value"},
		{"too many positionals", []string{"open", "a", "b"}, BuildOptions{Slots: []string{"url"}, Command: `"open"`}, `too many arguments for "open" (got "b"): it takes at most 1 (<url>)`},
		{"positional where none is taken", []string{"tabs", "x"}, BuildOptions{Command: `"tabs"`}, `"tabs" takes no positional arguments (got "x")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := build(t, tt.argv, tt.o, "")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("BuildParams(%q) error = %v, want prefix %q", tt.argv, err, tt.want)
			}
		})
	}
}

// TestResolveWithSchema checks the schema-aware typing of words.
func TestResolveWithSchema(t *testing.T) {
	const schema = `{"type":"object","properties":{
		"name":{"type":"string"},
		"count":{"type":"integer"},
		"ratio":{"type":"number"},
		"on":{"type":"boolean"},
		"maybe":{"type":["string","null"]},
		"either":{"anyOf":[{"type":"integer"},{"type":"string"}]},
		"tags":{"type":"array","items":{"type":"string"}},
		"ids":{"type":"array","items":{"type":"integer"}},
		"opts":{"type":"object"},
		"mode":{"enum":["1","2"]}
	},"required":["name"]}`
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"a string field keeps number-like words", []string{"call", "--name", "007", "--maybe", "42"}, `{"maybe":"42","name":"007"}`},
		{"a string field keeps true", []string{"call", "--name", "true"}, `{"name":"true"}`},
		{"integer and number fields are numbers", []string{"call", "--count", "3", "--ratio", "0.5"}, `{"count":3,"ratio":0.5}`},
		{"a decimal for an integer field stays a number (the runtime reports it)", []string{"call", "--count", "1.5"}, `{"count":1.5}`},
		{"a non-number for an integer field stays a string (the runtime reports it)", []string{"call", "--count", "abc"}, `{"count":"abc"}`},
		{"boolean field", []string{"call", "--on", "false"}, `{"on":false}`},
		{"union keeps the coerced type when allowed", []string{"call", "--either", "5"}, `{"either":5}`},
		{"an array field wraps one value", []string{"call", "--tags", "a"}, `{"tags":["a"]}`},
		{"array items follow the item type", []string{"call", "--tags", "1", "--tags", "2", "--ids", "3"}, `{"ids":[3],"tags":["1","2"]}`},
		{"an array field accepts a JSON array word", []string{"call", "--ids", "[1,2]"}, `{"ids":[1,2]}`},
		{"an object field accepts a JSON object word", []string{"call", "--opts", `{"a":1}`}, `{"opts":{"a":1}}`},
		{"a string enum keeps its string values", []string{"call", "--mode", "1"}, `{"mode":"1"}`},
		{"unknown fields fall back to coercion", []string{"call", "--other", "1"}, `{"other":1}`},
		{"a bare flag on an array field", []string{"call", "--on"}, `{"on":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := build(t, tt.argv, BuildOptions{}, schema)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("%q =\n  %s\nwant\n  %s", tt.argv, got, tt.want)
			}
		})
	}
}

func TestResolveBadSchema(t *testing.T) {
	for _, schema := range []string{"", "null", "[]", `{"properties":[]}`, `{"properties":{"a":5}}`, "{"} {
		got, err := build(t, []string{"call", "--a", "1"}, BuildOptions{}, schema)
		if err != nil || got != `{"a":1}` {
			t.Errorf("schema %q: got %s, %v; want plain coercion", schema, got, err)
		}
	}
}
