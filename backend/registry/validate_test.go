package registry

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

type valIn struct {
	URL     string          `json:"url" jsonschema:"the URL"`
	DelayMs int             `json:"delayMs,omitempty" minimum:"0" maximum:"600000"`
	Scope   string          `json:"scope,omitempty" enum:"all,staged,unstaged" default:"all"`
	Level   int             `json:"level,omitempty" enum:"1,2,3" default:"2"`
	Ratio   float64         `json:"ratio,omitempty" maximum:"1"`
	Flag    bool            `json:"flag,omitempty"`
	Tags    []string        `json:"tags,omitempty"`
	Opts    *valOpts        `json:"opts,omitempty"`
	Inline  valInline       `json:"inline,omitzero"`
	Meta    map[string]int  `json:"meta,omitempty"`
	Data    json.RawMessage `json:"data,omitempty"`
	Small   int8            `json:"small,omitempty"`
	Items   []valOpts       `json:"items,omitempty"`
}

type valOpts struct {
	Depth int    `json:"depth" minimum:"1"`
	Mode  string `json:"mode,omitempty" enum:"fast,slow"`
}

type valInline struct {
	Retries int `json:"retries,omitempty" default:"3"`
}

// newValRegistry registers "val" (valIn), "none" (NoArgs) and "echo"; the
// decoded input of the last "val" call is stored in *got.
func newValRegistry(got *valIn) *Registry {
	r := New(Options{})
	Register(r, Tool{Name: "val", Description: "Validate.", Capabilities: readOnly},
		func(_ context.Context, _ *Call, in valIn) (string, error) {
			*got = in
			return "ran", nil
		})
	Register(r, Tool{Name: "none", Description: "No arguments.", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (string, error) { return "ran", nil })
	registerEcho(r)
	return r
}

func TestValidationMessages(t *testing.T) {
	tests := []struct {
		tool, args string
		wantMsg    string // after `Invalid arguments for "<tool>": `
		wantPath   string
	}{
		{"val", `{}`, `missing required argument "url"`, "url"},
		{"val", ``, `missing required argument "url"`, "url"},
		{"val", `null`, `missing required argument "url"`, "url"},
		{"val", `{"url":"x","delayms":5}`, `unknown argument "delayms" (did you mean "delayMs"?)`, "delayms"},
		{"val", `{"url":"x","DelayMs":5}`, `unknown argument "DelayMs" (did you mean "delayMs"?)`, "DelayMs"},
		{"val", `{"url":"x","scop":"all"}`, `unknown argument "scop" (did you mean "scope"?)`, "scop"},
		{"val", `{"url":"x","zzzzzz":1}`, `unknown argument "zzzzzz" (expected one of "url", "delayMs", "scope", "level", "ratio", "flag", "tags", "opts", "inline", "meta", "data", "small", "items")`, "zzzzzz"},
		{"val", `{"url":"x","opts":{"depht":2}}`, `unknown argument "opts.depht" (did you mean "opts.depth"?)`, "opts.depht"},
		{"val", `{"url":"x","items":[{"depth":1},{"depth":1,"mdoe":"fast"}]}`, `unknown argument "items[1].mdoe" (did you mean "items[1].mode"?)`, "items[1].mdoe"},
		{"val", `{"url":"x","inline":{"retrys":1}}`, `unknown argument "inline.retrys" (did you mean "inline.retries"?)`, "inline.retrys"},
		{"val", `{"url":"x","inline":{"count":1}}`, `unknown argument "inline.count" (expected one of "inline.retries")`, "inline.count"},
		{"none", `{"x":1}`, `unknown argument "x" (this tool takes no arguments)`, "x"},
		{"val", `{"url":5}`, `argument "url" must be a string, got a number`, "url"},
		{"val", `{"url":null}`, `argument "url" must be a string, got null`, "url"},
		{"val", `{"url":["a"]}`, `argument "url" must be a string, got an array`, "url"},
		{"val", `{"url":"x","delayMs":1.5}`, `argument "delayMs" must be an integer, got a number with a fraction or an exponent`, "delayMs"},
		{"val", `{"url":"x","delayMs":1.0}`, `argument "delayMs" must be an integer, got a number with a fraction or an exponent`, "delayMs"},
		{"val", `{"url":"x","delayMs":1e3}`, `argument "delayMs" must be an integer, got a number with a fraction or an exponent`, "delayMs"},
		{"val", `{"url":"x","delayMs":"5"}`, `argument "delayMs" must be an integer, got a string`, "delayMs"},
		{"val", `{"url":"x","delayMs":99999999999999999999}`, `argument "delayMs" is out of range: it must be a 64-bit integer`, "delayMs"},
		{"val", `{"url":"x","delayMs":-1}`, `argument "delayMs" must be >= 0, got a smaller number`, "delayMs"},
		{"val", `{"url":"x","delayMs":600001}`, `argument "delayMs" must be <= 600000, got a larger number`, "delayMs"},
		{"val", `{"url":"x","ratio":1.01}`, `argument "ratio" must be <= 1, got a larger number`, "ratio"},
		{"val", `{"url":"x","ratio":true}`, `argument "ratio" must be a number, got true`, "ratio"},
		{"val", `{"url":"x","small":200}`, `argument "small" must be <= 127, got a larger number`, "small"},
		{"val", `{"url":"x","scope":"everything"}`, `argument "scope" must be one of "all", "staged", "unstaged", got a string not in the list`, "scope"},
		{"val", `{"url":"x","level":5}`, `argument "level" must be one of 1, 2, 3, got a number not in the list`, "level"},
		{"val", `{"url":"x","flag":"yes"}`, `argument "flag" must be a boolean, got a string`, "flag"},
		{"val", `{"url":"x","tags":"a"}`, `argument "tags" must be an array or null, got a string`, "tags"},
		{"val", `{"url":"x","tags":["a",1]}`, `argument "tags[1]" must be a string, got a number`, "tags[1]"},
		{"val", `{"url":"x","opts":"fast"}`, `argument "opts" must be an object or null, got a string`, "opts"},
		{"val", `{"url":"x","opts":{}}`, `missing required argument "opts.depth"`, "opts.depth"},
		{"val", `{"url":"x","opts":{"depth":0}}`, `argument "opts.depth" must be >= 1, got a smaller number`, "opts.depth"},
		{"val", `{"url":"x","opts":{"depth":1,"mode":"medium"}}`, `argument "opts.mode" must be one of "fast", "slow", got a string not in the list`, "opts.mode"},
		{"val", `{"url":"x","items":[{"depth":1},{}]}`, `missing required argument "items[1].depth"`, "items[1].depth"},
		{"val", `{"url":"x","inline":null}`, `argument "inline" must be an object, got null`, "inline"},
		{"val", `{"url":"x","meta":{"a":"b"}}`, `argument "meta.a" must be an integer, got a string`, "meta.a"},
		{"val", `{"url":"x","flag":"ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"}`, `argument "flag" must be a boolean, got a string`, "flag"},
		{"val", `{"url":"x","ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5":1}`, `unknown argument "[REDACTED]" (expected one of "url", "delayMs", "scope", "level", "ratio", "flag", "tags", "opts", "inline", "meta", "data", "small", "items")`, "[REDACTED]"},
		{"val", `[1]`, `arguments must be a JSON object, got an array`, ""},
		{"val", `"x"`, `arguments must be a JSON object, got a string`, ""},
		{"val", `{"url":`, `arguments are not valid JSON: unexpected EOF`, ""},
		{"val", `{} {}`, `arguments are not valid JSON: unexpected data after the JSON value`, ""},
	}
	for _, tt := range tests {
		var got valIn
		r := newValRegistry(&got)
		res := r.Call(context.Background(), Request{ToolName: tt.tool, Args: json.RawMessage(tt.args)})
		wantMsg := `Invalid arguments for "` + tt.tool + `": ` + tt.wantMsg
		if codeOf(res) != protocol.CodeValidation || messageOf(res) != wantMsg {
			t.Errorf("Call(%s, %s) = %s %q, want %s %q", tt.tool, tt.args, codeOf(res), messageOf(res), protocol.CodeValidation, wantMsg)
			continue
		}
		d, ok := res.Error.Details.(ValidationDetails)
		if !ok || len(d.Issues) == 0 {
			t.Errorf("Call(%s, %s) details = %#v, want ValidationDetails with issues", tt.tool, tt.args, res.Error.Details)
			continue
		}
		if d.Issues[0].Path != tt.wantPath || d.Issues[0].Message != tt.wantMsg {
			t.Errorf("Call(%s, %s) first issue = %+v, want {Path:%s Message:%s}", tt.tool, tt.args, d.Issues[0], tt.wantPath, tt.wantMsg)
		}
		if got.URL != "" {
			t.Errorf("Call(%s, %s) ran the tool, want it not run", tt.tool, tt.args)
		}
	}
}

func TestValidationDetailsListEveryIssue(t *testing.T) {
	var got valIn
	r := newValRegistry(&got)
	res := r.Call(context.Background(), Request{ToolName: "val", Args: json.RawMessage(`{"delayms":5,"scope":"x","tags":[1,2]}`)})
	want := `{"issues":[` +
		`{"path":"delayms","message":"unknown argument \"delayms\" (did you mean \"delayMs\"?)"},` +
		`{"path":"url","message":"missing required argument \"url\""},` +
		`{"path":"scope","message":"argument \"scope\" must be one of \"all\", \"staged\", \"unstaged\", got a string not in the list"},` +
		`{"path":"tags[0]","message":"argument \"tags[0]\" must be a string, got a number"},` +
		`{"path":"tags[1]","message":"argument \"tags[1]\" must be a string, got a number"}]}`
	if res.Error == nil {
		t.Fatalf("Call(val) = %+v, want a validation error", res)
	}
	if got := mustJSON(t, res.Error.Details); got != want {
		t.Errorf("Call(val) details = %s, want %s", got, want)
	}
	// The envelope serializes with the details inline.
	if got := mustJSON(t, res); !strings.Contains(got, `"code":"VALIDATION_ERROR"`) || !strings.Contains(got, `"details":{"issues":[`) {
		t.Errorf("json(result) = %s, want code and details.issues", got)
	}
}

func TestValidArgumentsAreDecodedWithDefaults(t *testing.T) {
	tests := []struct {
		args string
		want valIn
	}{
		{`{"url":"x"}`, valIn{URL: "x", Scope: "all", Level: 2, Inline: valInline{Retries: 3}}},
		{`{"url":"x","scope":"staged","level":3,"delayMs":600000}`, valIn{URL: "x", Scope: "staged", Level: 3, DelayMs: 600000, Inline: valInline{Retries: 3}}},
		{`{"url":"x","inline":{"retries":0}}`, valIn{URL: "x", Scope: "all", Level: 2}},
		{`{"url":"x","opts":{"depth":2}}`, valIn{URL: "x", Scope: "all", Level: 2, Opts: &valOpts{Depth: 2}, Inline: valInline{Retries: 3}}},
		{`{"url":"x","opts":null,"tags":null}`, valIn{URL: "x", Scope: "all", Level: 2, Inline: valInline{Retries: 3}}},
		{`{"url":"x","tags":["a","b"],"meta":{"k":1},"ratio":0.5,"flag":true}`, valIn{URL: "x", Scope: "all", Level: 2, Tags: []string{"a", "b"}, Meta: map[string]int{"k": 1}, Ratio: 0.5, Flag: true, Inline: valInline{Retries: 3}}},
		{`{"url":"x","data":{"any":[1,"two",null]}}`, valIn{URL: "x", Scope: "all", Level: 2, Inline: valInline{Retries: 3}, Data: json.RawMessage(`{"any":[1,"two",null]}`)}},
		{`{"url":"x","delayMs":-0}`, valIn{URL: "x", Scope: "all", Level: 2, Inline: valInline{Retries: 3}}},
	}
	for _, tt := range tests {
		var got valIn
		r := newValRegistry(&got)
		res := r.Call(context.Background(), Request{ToolName: "val", Args: json.RawMessage(tt.args)})
		if !res.OK {
			t.Errorf("Call(val, %s) = %+v, want ok", tt.args, res.Error)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Call(val, %s) decoded %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestNoArgsAcceptsEmptyArguments(t *testing.T) {
	var got valIn
	r := newValRegistry(&got)
	for _, args := range []string{``, `{}`, `null`, ` { } `} {
		res := r.Call(context.Background(), Request{ToolName: "none", Args: json.RawMessage(args)})
		if !res.OK || string(res.Content) != `"ran"` {
			t.Errorf("Call(none, %q) = %+v, want ok with content \"ran\"", args, res)
		}
	}
}

func TestUnknownToolSuggestion(t *testing.T) {
	r := New(Options{})
	for _, name := range []string{"git_diff", "git_status", "open_browser_tab", "echo"} {
		Register(r, Tool{Name: name, Description: "d", Capabilities: readOnly}, noop[NoArgs])
	}
	tests := []struct {
		name, want, suggestion string
	}{
		{"git_dif", `Unknown tool: git_dif (did you mean "git_diff"?)`, "git_diff"},
		{"git-status", `Unknown tool: git-status (did you mean "git_status"?)`, "git_status"},
		{"open-browser-tab", `Unknown tool: open-browser-tab (did you mean "open_browser_tab"?)`, "open_browser_tab"},
		{"open_browser", `Unknown tool: open_browser (did you mean "open_browser_tab"?)`, "open_browser_tab"},
		{"ECHO", `Unknown tool: ECHO (did you mean "echo"?)`, "echo"},
		{"frobnicate", `Unknown tool: frobnicate`, ""},
		{"", `Unknown tool: `, ""},
	}
	for _, tt := range tests {
		res := r.Call(context.Background(), Request{ToolName: tt.name})
		if codeOf(res) != protocol.CodeUnknownTool || messageOf(res) != tt.want {
			t.Errorf("Call(%q) = %s %q, want %s %q", tt.name, codeOf(res), messageOf(res), protocol.CodeUnknownTool, tt.want)
		}
		var gotSuggestion string
		if m, ok := res.Error.Details.(map[string]string); ok {
			gotSuggestion = m["suggestion"]
		}
		if gotSuggestion != tt.suggestion {
			t.Errorf("Call(%q) suggestion = %q, want %q", tt.name, gotSuggestion, tt.suggestion)
		}
	}
}

func TestSuggest(t *testing.T) {
	known := []string{"url", "delayMs", "includePatches", "scope", "cwd"}
	tests := []struct {
		in, want string
	}{
		{"delayms", "delayMs"},
		{"delay_ms", "delayMs"},
		{"dealyMs", "delayMs"},
		{"delyMs", "delayMs"},
		{"uri", "url"},
		{"ur", ""}, // too short to guess
		{"include", "includePatches"},
		{"scopes", "scope"},
		{"cwdd", "cwd"},
		{"xyz", ""},
		{"c", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.in, known); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"git_dif", "git_diff", 1},
		{"flaw", "lawn", 2},
		{"héllo", "hello", 1},
		{"mdoe", "mode", 1},
		{"ab", "ba", 1},
	}
	for _, tt := range tests {
		if got := levenshtein(tt.a, tt.b); got != tt.want {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDecodeStrictReportsTypeErrors(t *testing.T) {
	// Validation normally catches these first; decodeStrict is the last line.
	var dst struct {
		N int8 `json:"n"`
	}
	issues := decodeStrict(json.RawMessage(`{"n":1000}`), &dst)
	want := []Issue{{Path: "n", Message: `argument "n" must be an integer, got a number out of its range`}}
	if !reflect.DeepEqual(issues, want) {
		t.Errorf("decodeStrict(n=1000) = %+v, want %+v", issues, want)
	}
	issues = decodeStrict(json.RawMessage(`{"m":1}`), &dst)
	if len(issues) != 1 || !strings.Contains(issues[0].Message, `unknown field "m"`) {
		t.Errorf("decodeStrict(m=1) = %+v, want an unknown field issue", issues)
	}
}
