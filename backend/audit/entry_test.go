package audit

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact/summary"
	"github.com/meith-dev/meith/backend/registry"
)

// TestDecisionOf is the decision table: the authorization's own decision
// when the call reached it, and for a call that ended before it, allow only
// when it needed no one's approval.
func TestDecisionOf(t *testing.T) {
	var (
		ok        = protocol.OKResult(map[string]int{"n": 1})
		denied    = protocol.ErrorResult(protocol.CodePermissionDenied, "no", nil)
		cancelled = protocol.ErrorResult(protocol.CodeCancelled, "c", nil)
		invalid   = protocol.ErrorResult(protocol.CodeValidation, "bad", nil)
		unknown   = protocol.ErrorResult(protocol.CodeUnknownTool, "?", nil)
		write     = []protocol.Capability{protocol.CapWritesFiles}
		read      = []protocol.Capability{protocol.CapReadOnly}
		cli       = protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"}
		plugin    = protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:p"}
		renderer  = protocol.ClientInfo{Caller: protocol.CallerRenderer}
	)
	auth := func(d registry.AuthDecision) registry.Authorization { return registry.Authorization{Decision: d} }
	tests := []struct {
		name string
		o    registry.Outcome
		want Decision
	}{
		// The authorization step's record.
		{"allowed without asking", registry.Outcome{Capabilities: write, Client: cli, Result: ok, Authorization: auth(registry.AuthAllow)}, DecisionAllow},
		{"approved on a prompt", registry.Outcome{Capabilities: write, Client: cli, Result: ok, Authorization: auth(registry.AuthApproved)}, DecisionApproved},
		{"approved, then cancelled before it ran", registry.Outcome{Capabilities: write, Client: cli, Result: cancelled, Authorization: auth(registry.AuthApproved)}, DecisionApproved},
		{"denied by policy", registry.Outcome{Capabilities: write, Client: cli, Result: denied, Authorization: auth(registry.AuthDeny)}, DecisionDeny},
		{"refused on a prompt", registry.Outcome{Capabilities: write, Client: cli, Result: denied, Authorization: auth(registry.AuthRefused)}, DecisionRefused},
		{"cancelled while waiting", registry.Outcome{Capabilities: write, Client: cli, Result: cancelled, Authorization: auth(registry.AuthCancelled)}, DecisionCancelled},
		{"prompt timed out", registry.Outcome{Capabilities: write, Client: cli, Result: denied, Authorization: auth(registry.AuthTimeout)}, DecisionTimeout},
		{"an unknown decision is deny", registry.Outcome{Capabilities: write, Client: cli, Result: ok, Authorization: auth("maybe")}, DecisionDeny},
		// Calls that ended before the authorization step.
		{"unknown tool", registry.Outcome{Client: cli, Result: unknown}, DecisionAllow},
		{"read-only tool, invalid arguments", registry.Outcome{Capabilities: read, Client: cli, Result: invalid}, DecisionAllow},
		{"privileged tool, invalid arguments", registry.Outcome{Capabilities: write, Client: cli, Result: invalid}, DecisionDeny},
		{"privileged tool, trusted caller", registry.Outcome{Capabilities: write, Client: renderer, Result: invalid}, DecisionAllow},
		{"plugin, read-only tool, invalid arguments", registry.Outcome{Capabilities: read, Client: plugin, Result: invalid}, DecisionDeny},
		{"cancelled before authorization", registry.Outcome{Capabilities: read, Client: cli, Result: cancelled}, DecisionCancelled},
		{"shutting down", registry.Outcome{Client: cli, Result: protocol.ErrorResult(protocol.CodeRuntimeShuttingDown, "s", nil)}, DecisionCancelled},
		{"admission refused with PERMISSION_DENIED", registry.Outcome{Capabilities: read, Client: cli, Result: denied}, DecisionDeny},
		{"failed without error", registry.Outcome{Result: protocol.ToolResult{OK: false}}, DecisionAllow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := DecisionOf(tt.o); got != tt.want {
				t.Errorf("DecisionOf(%s) = %s, want %s", tt.name, got, tt.want)
			}
			if got := EntryFrom(tt.o).Decision; got != tt.want {
				t.Errorf("EntryFrom(%s).Decision = %s, want %s", tt.name, got, tt.want)
			}
			if !tt.want.Valid() {
				t.Errorf("%s is not a valid decision", tt.want)
			}
		})
	}
}

// TestEntryFromAuthorization: the request, the question, who answered, the
// wait and the peer reach the entry and its line.
func TestEntryFromAuthorization(t *testing.T) {
	o := registry.Outcome{
		RequestID: "req_7", ToolName: "write_file", Capabilities: []protocol.Capability{protocol.CapWritesFiles},
		Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1"},
		Peer:   &registry.Peer{PID: 4242, Exe: "/usr/bin/meith"},
		Result: protocol.ErrorResult(protocol.CodeCancelled, "c", nil),
		Authorization: registry.Authorization{Decision: registry.AuthCancelled, ApprovalID: "appr_1", DecidedBy: "window",
			Waited: 1500 * time.Millisecond},
	}
	e := EntryFrom(o)
	line := string(appendEntry(nil, &e))
	for _, want := range []string{`"decision":"cancelled"`, `"requestId":"req_7"`, `"approvalId":"appr_1"`, `"decidedBy":"window"`,
		`"waitedMs":1500`, `"clientPid":4242`, `"clientExe":"/usr/bin/meith"`} {
		if !strings.Contains(line, want) {
			t.Errorf("entry line %s lacks %s", line, want)
		}
	}
	// An in-process call without a question: none of the optional fields.
	e = EntryFrom(registry.Outcome{ToolName: "app_ping", Authorization: registry.Authorization{Decision: registry.AuthAllow}})
	line = string(appendEntry(nil, &e))
	for _, absent := range []string{"requestId", "approvalId", "decidedBy", "waitedMs", "clientPid", "clientExe"} {
		if strings.Contains(line, absent) {
			t.Errorf("entry line %s has %s, want it omitted", line, absent)
		}
	}
}

func TestEntryFromFields(t *testing.T) {
	started := time.Date(2026, 5, 1, 14, 0, 0, 123_456_789, time.FixedZone("CEST", 2*3600))
	o := registry.Outcome{
		RequestID:    "req_1",
		Started:      started,
		Duration:     1500*time.Millisecond + 700*time.Microsecond,
		ToolName:     "open_browser_tab",
		Capabilities: []protocol.Capability{protocol.CapControlsBrowser, protocol.CapAccessesNetwork},
		Client:       protocol.ClientInfo{Caller: protocol.CallerCLI, Cwd: "/w", SessionID: "socket:1", SpaceID: "space_1", TabID: "btab_1"},
		Args:         json.RawMessage(`{"url":"http://x","headers":{"X-Auth":"Bearer abcdefghijklmnop"}}`),
		Result:       protocol.OKResult(map[string]any{"apiKey": "sk-live-1", "id": "btab_2"}),
	}
	e := EntryFrom(o)
	if !regexp.MustCompile(`^audit_[0-9a-f]{12}$`).MatchString(e.ID) {
		t.Errorf("EntryFrom().ID = %q, want audit_<12 hex>", e.ID)
	}
	checks := []struct{ field, got, want string }{
		{"TS", e.TS, "2026-05-01T12:00:01.624Z"},
		{"Caller", string(e.Caller), "cli"},
		{"ToolName", e.ToolName, "open_browser_tab"},
		{"Capabilities", strings.Join(e.Capabilities, ","), "controls-browser,accesses-network"},
		{"Cwd", e.Cwd, "/w"},
		{"SessionID", e.SessionID, "socket:1"},
		{"SpaceID", e.SpaceID, "space_1"},
		{"TabID", e.TabID, "btab_1"},
		{"ArgsSummary", e.ArgsSummary, `{"url":"http://x","headers":{"X-Auth":"[REDACTED]"}}`},
		{"ResultSummary", e.ResultSummary, `{"ok":true,"content":{"apiKey":"[REDACTED]","id":"btab_2"}}`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("EntryFrom().%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if e.DurationMs != 1500 {
		t.Errorf("EntryFrom().DurationMs = %d, want 1500", e.DurationMs)
	}
}

func TestEntryFromUnknownTool(t *testing.T) {
	e := EntryFrom(registry.Outcome{
		ToolName: "nope",
		Client:   protocol.ClientInfo{Caller: protocol.CallerCLI},
		Result:   protocol.ErrorResult(protocol.CodeUnknownTool, `Unknown tool "nope"`, nil),
	})
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	wants := map[string]string{
		"capabilities":  `[]`,
		"argsSummary":   `"{}"`,
		"resultSummary": `"{\"ok\":false,\"error\":{\"code\":\"UNKNOWN_TOOL\",\"message\":\"Unknown tool \\\"nope\\\"\"}}"`,
		"cwd":           `""`,
		"decision":      `"allow"`,
	}
	for k, want := range wants {
		if got := string(m[k]); got != want {
			t.Errorf("EntryFrom(unknown tool) JSON %s = %s, want %s", k, got, want)
		}
	}
	for _, k := range []string{"sessionId", "spaceId", "tabId"} {
		if v, ok := m[k]; ok {
			t.Errorf("EntryFrom(unknown tool) JSON has %s = %s, want it left out", k, v)
		}
	}
	if e.TS == "" {
		t.Errorf("EntryFrom(no start time).TS is empty, want now")
	}
}

func TestEntryFromErrorDetailsRedacted(t *testing.T) {
	e := EntryFrom(registry.Outcome{Result: protocol.ErrorResult(protocol.CodeToolFailed, "fetch failed",
		map[string]any{"authorization": "Basic abc", "status": 401})})
	want := `{"ok":false,"error":{"code":"TOOL_FAILED","message":"fetch failed","details":{"authorization":"[REDACTED]","status":401}}}`
	if e.ResultSummary != want {
		t.Errorf("EntryFrom(error with details).ResultSummary = %s, want %s", e.ResultSummary, want)
	}
}

// TestEntryFromErrorMessageRedacted: an error message that quotes a
// secret (as validation errors did) is scanned like any string.
func TestEntryFromErrorMessageRedacted(t *testing.T) {
	e := EntryFrom(registry.Outcome{ToolName: "git_restore", Args: json.RawMessage(`{"confirm":"ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"}`),
		Result: protocol.ErrorResult(protocol.CodeValidation, `argument "confirm" must be a boolean, got "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"`, nil)})
	want := `{"ok":false,"error":{"code":"VALIDATION_ERROR","message":"argument \"confirm\" must be a boolean, got \"[REDACTED]\""}}`
	if e.ResultSummary != want {
		t.Errorf("EntryFrom(error quoting a token).ResultSummary = %s, want %s", e.ResultSummary, want)
	}
	e = EntryFrom(registry.Outcome{ToolName: "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5", Client: protocol.ClientInfo{Cwd: "/tmp/TOKEN=x"}})
	if e.ToolName != summary.RedactedMarker || e.Cwd != "/tmp/TOKEN=[REDACTED]" {
		t.Errorf("EntryFrom(token as tool name and cwd) = %q, %q; want them redacted", e.ToolName, e.Cwd)
	}
}

// encodingPieces build strings for the entry encoder: every byte that JSON
// escapes, the HTML characters, the line separators, invalid UTF-8 and
// characters of every UTF-8 length.
var encodingPieces = []string{
	"a", "Z", "0", " ", "/", "\"", "\\", "\x00", "\x01", "\x1f", "\b", "\f", "\n", "\r", "\t", "\x7f",
	"<", ">", "&", "\u2028", "\u2029", "\xff", "\xc3", "\xe2\x82", "é", "€", "😀", "tool_name", "/tmp/x y",
}

// genString returns a string of up to 8 pieces.
func genString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(9) {
		b.WriteString(encodingPieces[r.IntN(len(encodingPieces))])
	}
	return b.String()
}

// TestAppendEntryEqualsMarshal compares the entry encoder with json.Marshal.
func TestAppendEntryEqualsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 5000 {
		e := Entry{ID: genString(r), TS: genString(r), Caller: protocol.Caller(genString(r)), ToolName: genString(r),
			Decision: Decision(genString(r)), Cwd: genString(r), ArgsSummary: genString(r), ResultSummary: genString(r),
			DurationMs: r.Int64N(1e6) - 1000, Capabilities: []string{}}
		for range r.IntN(4) {
			e.Capabilities = append(e.Capabilities, genString(r))
		}
		if i%2 == 0 {
			e.SessionID, e.SpaceID, e.TabID = genString(r), genString(r), genString(r)
		}
		if i%3 == 0 {
			e.RequestID, e.ApprovalID, e.DecidedBy, e.ClientExe = genString(r), genString(r), genString(r), genString(r)
			e.WaitedMs, e.ClientPID = r.Int64N(1e6)-1000, r.IntN(1e6)-1000
		}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEntry(nil, &e); string(got) != string(want)+"\n" {
			t.Fatalf("appendEntry(%+v)\n got %s\nwant %s", e, got, want)
		}
	}
	// Nil capabilities are written as [] (Record's rule).
	if got := appendEntry(nil, &Entry{}); !strings.Contains(string(got), `"capabilities":[]`) {
		t.Errorf("appendEntry(no capabilities) = %s, want capabilities []", got)
	}
}

// The writer's summary cache gives what summary gives, for repeated and
// new arguments and results, failures and large values included, and
// stays bounded.
func TestSummaryCache(t *testing.T) {
	var sc summaryCache
	big := `{"text":"` + strings.Repeat("x", summaryCacheKeyMax) + `"}`
	results := []protocol.ToolResult{
		{OK: true, Content: json.RawMessage(`{"pong":true,"token":"sk-abcdefghijklmnopqrstuvwxyz012345"}`)},
		{OK: true, Content: json.RawMessage(`{"pong":true,"token":"sk-abcdefghijklmnopqrstuvwxyz012345"}`)},
		{OK: true, Content: json.RawMessage(`{"pong":true}`)},
		{OK: true},
		{OK: true, Content: json.RawMessage(big)},
		{OK: true, Content: json.RawMessage(`{"broken"`)},
		protocol.ErrorResult(protocol.CodeToolFailed, "password=hunter2", nil),
	}
	for round := range 2 {
		for i, r := range results {
			if got, want := sc.result(r), summary.OfResult(r); got != want {
				t.Errorf("round %d result %d: cached %q, want %q", round, i, got, want)
			}
		}
		for _, a := range []string{`{}`, `{"password":"hunter2"}`, big, `not json`} {
			if got, want := sc.args([]byte(a)), summary.OfJSON([]byte(a)); got != want {
				t.Errorf("round %d args %.40s: cached %q, want %q", round, a, got, want)
			}
		}
	}
	for i := range 3 * summaryCacheLen {
		sc.args([]byte(fmt.Sprintf(`{"n":%d}`, i)))
	}
	if n := len(sc.argSums); n > summaryCacheLen {
		t.Errorf("%d cached argument summaries, want at most %d", n, summaryCacheLen)
	}
}
