package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
)

// fakeConn is a scripted runtime connection.
type fakeConn struct {
	mu      sync.Mutex
	tools   []protocol.ToolDescriptor
	listErr error
	// respond answers a call; nil answers {ok:true, content:null}.
	respond func(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error)

	lists int
	calls []fakeCall
}

type fakeCall struct {
	Tool string
	Args string
	Opts client.CallOptions
}

func (f *fakeConn) ListTools(ctx context.Context) ([]protocol.ToolDescriptor, error) {
	f.mu.Lock()
	f.lists++
	f.mu.Unlock()
	return f.tools, f.listErr
}

func (f *fakeConn) Call(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{Tool: tool, Args: string(args), Opts: opts})
	f.mu.Unlock()
	if f.respond == nil {
		return protocol.ToolResult{OK: true}, nil
	}
	return f.respond(ctx, tool, args, opts)
}

func (f *fakeConn) Close() error { return nil }

func (f *fakeConn) lastCall(t *testing.T) fakeCall {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		t.Fatal("no call was made")
	}
	return f.calls[len(f.calls)-1]
}

type runResult struct {
	code     int
	out, err string
	dialed   []string
}

// runWith runs the CLI with f as the runtime (f nil: every dial fails).
func runWith(ctx context.Context, f *fakeConn, stdin string, args ...string) runResult {
	var out, errb bytes.Buffer
	var mu sync.Mutex
	var dialed []string
	r := &runner{
		s: &Streams{In: strings.NewReader(stdin), Out: &out, Err: &errb},
		dial: func(ctx context.Context, path string) (conn, error) {
			mu.Lock()
			dialed = append(dialed, path)
			mu.Unlock()
			if f == nil {
				return nil, &client.ConnectError{Path: path, Err: errors.New("connection refused")}
			}
			return f, nil
		},
	}
	code := r.run(ctx, args)
	return runResult{code: code, out: out.String(), err: errb.String(), dialed: dialed}
}

func run(f *fakeConn, args ...string) runResult {
	return runWith(context.Background(), f, "", args...)
}

func (r runResult) String() string {
	return "exit " + strconv.Itoa(r.code) + "\n--- stdout\n" + r.out + "--- stderr\n" + r.err
}

func expect(t *testing.T, got runResult, code int, out, errOut string) {
	t.Helper()
	if got.code != code || got.out != out || got.err != errOut {
		t.Errorf("got:\n%s\nwant:\n%s", got, runResult{code: code, out: out, err: errOut})
	}
}

const sock = "/fake.sock"

func TestVersion(t *testing.T) {
	old := buildinfo.Version
	buildinfo.Version = "1.2.3"
	defer func() { buildinfo.Version = old }()
	expect(t, run(nil, "--version"), 0, "1.2.3\n", "")
	expect(t, run(nil, "tools", "-V"), 0, "1.2.3\n", "")
}

func TestTimeoutFlag(t *testing.T) {
	for _, bad := range [][]string{{"--timeout", "0"}, {"--timeout", "-5"}, {"--timeout", "abc"}, {"--timeout", "1.5"}, {"--timeout"}, {"--timeout="}} {
		args := append([]string{"--socket", sock, "call", "t"}, bad...)
		expect(t, run(&fakeConn{}, args...), 1, "", "error: --timeout must be a positive integer (milliseconds).\n")
	}
	f := &fakeConn{}
	expect(t, run(f, "--socket", sock, "call", "t", "--timeout", "2500"), 0, "ok\n", "")
	if got := f.lastCall(t); got.Opts.Timeout != 2500*time.Millisecond || got.Args != `{}` {
		t.Errorf("call = %+v; want timeout 2.5s and no timeout param", got)
	}
}

func TestGlobalFlagValues(t *testing.T) {
	// "--socket tools" is a socket path and no command: the help (which
	// asks that socket, once, for the runtime's tools).
	if r := run(nil, "--socket", "tools"); r.code != 0 || !strings.HasPrefix(r.out, "meith — ") || len(r.dialed) > 1 || len(r.dialed) == 1 && r.dialed[0] != "tools" {
		t.Errorf("--socket tools:\n%s", r)
	}
	expect(t, run(nil, "tools", "--socket"), 1, "", "error: --socket needs a path.\n")
	expect(t, run(nil, "tools", "--instance"), 1, "", "error: --instance needs a pid or label.\n")
}

func TestCallUsage(t *testing.T) {
	expect(t, run(&fakeConn{}, "call"), 1, "", "Usage: meith call <toolName> [--key value ...]\n")
	expect(t, run(&fakeConn{}, "--socket", sock, "call", "t", "extra"), 1, "",
		"error: meith call t takes no positional arguments (got \"extra\"); pass parameters as --key value\n")
}

func TestUnknownCommand(t *testing.T) {
	tests := []struct{ cmd, hint string }{
		{"frobnicate", ""},
		{"tols", "Did you mean \"tools\"?\n"},
		{"navigat", "Did you mean \"navigate\"?\n"},
		{"app_health", "Did you mean \"meith health\" (or \"meith call app_health\")?\n"},
		{"foo_bar", "To call a tool by name: meith call foo_bar\n"},
	}
	for _, tt := range tests {
		r := run(&fakeConn{}, tt.cmd, "--json")
		expect(t, r, 1, "", `error: Unknown command "`+tt.cmd+`". Run "meith --help".`+"\n"+tt.hint)
		if len(r.dialed) != 0 {
			t.Errorf("%s: dialed %v; an unknown command must not connect", tt.cmd, r.dialed)
		}
	}
	expect(t, run(nil, "serve"), 1, "", "error: \"serve\" runs the runtime; it is handled by the meith executable, not by the CLI library.\n")
}

func TestMappedCommand(t *testing.T) {
	f := &fakeConn{}
	expect(t, run(f, "--socket", sock, "open", "http://x", "--title", "T", "--json=false"), 0, "ok\n", "")
	c := f.lastCall(t)
	if c.Tool != "open_browser_tab" || c.Args != `{"title":"T","url":"http://x"}` {
		t.Errorf("call = %s %s", c.Tool, c.Args)
	}
	wd, _ := os.Getwd()
	if c.Opts.ClientInfo.Caller != protocol.CallerCLI || c.Opts.ClientInfo.Cwd != wd || c.Opts.Timeout != 0 || c.Opts.OnEvent == nil {
		t.Errorf("call options = %+v; want caller cli, cwd %s, no timeout, an event handler", c.Opts, wd)
	}

	expect(t, run(f, "--socket", sock, "open", "a", "b"), 1, "",
		"error: too many arguments for \"open\" (got \"b\"): it takes at most 1 (<url>); pass other parameters as --key value\n")

	f.respond = func(context.Context, string, json.RawMessage, client.CallOptions) (protocol.ToolResult, error) {
		return protocol.OKResult(map[string]string{"tabId": "btab_1", "path": "/tmp/shot.png"}), nil
	}
	expect(t, run(f, "--socket", sock, "screenshot", "btab_1"), 0, "/tmp/shot.png\n", "")
	if c := f.lastCall(t); c.Tool != "take_screenshot" || c.Args != `{"tabId":"btab_1"}` {
		t.Errorf("call = %s %s", c.Tool, c.Args)
	}

	f.respond = nil
	expect(t, run(f, "--socket", sock, "start-dev", "/w", "npm", "--", "run", "dev"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Tool != "start_dev_server" || c.Args != `{"args":["run","dev"],"command":"npm","cwd":"/w"}` {
		t.Errorf("call = %s %s", c.Tool, c.Args)
	}
	expect(t, run(f, "--socket", sock, "set-tab-file", "t1", "--openFilePaths", "a.go"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Args != `{"openFilePaths":["a.go"],"tabId":"t1"}` {
		t.Errorf("set-tab-file args = %s", c.Args)
	}
}

func TestSchemaTyping(t *testing.T) {
	f := &fakeConn{tools: []protocol.ToolDescriptor{{Name: "t", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}}}`)}}}
	expect(t, run(f, "--socket", sock, "call", "t", "--name", "007", "--n", "7", "--tags", "1"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Args != `{"n":7,"name":"007","tags":["1"]}` {
		t.Errorf("args = %s", c.Args)
	}
	if f.lists != 1 {
		t.Errorf("list_tools sent %d times, want 1", f.lists)
	}
	// Only JSON-typed parameters: no schema lookup.
	expect(t, run(f, "--socket", sock, "call", "t", "--arg-json", `{"name":7}`), 0, "ok\n", "")
	if f.lists != 1 {
		t.Errorf("list_tools sent for JSON-only params")
	}
	// A runtime whose list fails still gets the call, coerced plainly.
	f.listErr = errors.New("no list")
	expect(t, run(f, "--socket", sock, "call", "t", "--name", "007", "--n", "7"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Args != `{"n":7,"name":"007"}` {
		t.Errorf("args without schema = %s", c.Args)
	}
}

func TestStdin(t *testing.T) {
	f := &fakeConn{}
	ctx := context.Background()
	expect(t, runWith(ctx, f, `{"a":1,"b":{"z":1,"y":2},"c":"x"}`, "--socket", sock, "call", "t", "--stdin", "--c", "y"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Args != `{"a":1,"b":{"z":1,"y":2},"c":"y"}` {
		t.Errorf("args = %s", c.Args)
	}
	expect(t, runWith(ctx, f, "  \n", "--socket", sock, "call", "t", "--stdin"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Args != `{}` {
		t.Errorf("empty stdin args = %s", c.Args)
	}
	expect(t, runWith(ctx, f, `[1]`, "--socket", sock, "call", "t", "--stdin"), 1, "", "error: --stdin must be a JSON object: got an array\n")
	r := runWith(ctx, f, `{"a":`, "--socket", sock, "call", "t", "--stdin")
	if r.code != 1 || !strings.HasPrefix(r.err, "error: --stdin must be a JSON object: ") {
		t.Errorf("bad stdin: %s", r)
	}
	expect(t, run(f, "--socket", sock, "call", "t", "--x-json", "{"), 1, "", "error: Invalid JSON for --x-json: unexpected EOF\n")
}

func TestTransportErrors(t *testing.T) {
	expect(t, run(nil, "--socket", sock, "call", "t"), 1, "",
		"error: Could not connect to the meith runtime at /fake.sock. Is the desktop app (or \"meith serve\") running? (connection refused)\nsocket: /fake.sock\n")
	f := &fakeConn{respond: func(context.Context, string, json.RawMessage, client.CallOptions) (protocol.ToolResult, error) {
		return protocol.ToolResult{}, &client.ProtocolError{Code: protocol.CodeProtocol, Message: "Unsupported protocol version 2; server requires 1"}
	}}
	expect(t, run(f, "--socket", sock, "health"), 1, "",
		"error: meith runtime protocol error (PROTOCOL_ERROR): Unsupported protocol version 2; server requires 1\nsocket: /fake.sock\n")
	f.respond = func(context.Context, string, json.RawMessage, client.CallOptions) (protocol.ToolResult, error) {
		return protocol.ToolResult{}, errors.New("call t: connection lost")
	}
	expect(t, run(f, "--socket", sock, "tools"), 0, "", "No tools match.\n")
	expect(t, run(f, "--socket", sock, "call", "t"), 1, "", "error: call t: connection lost\nsocket: /fake.sock\n")
}

func TestToolFailure(t *testing.T) {
	f := &fakeConn{
		tools: []protocol.ToolDescriptor{{Name: "app_ping"}, {Name: "app_health"}},
		respond: func(_ context.Context, tool string, _ json.RawMessage, _ client.CallOptions) (protocol.ToolResult, error) {
			// As decoded from the wire: details is a JSON object.
			return protocol.ErrorResult(protocol.CodeUnknownTool, "Unknown tool: "+tool,
				map[string]any{"suggestion": "app_ping"}), nil
		},
	}
	expect(t, run(f, "--socket", sock, "call", "app_pnig"), 1, "",
		"error (UNKNOWN_TOOL): Unknown tool: app_pnig\nDid you mean \"app_ping\"? Run \"meith tools\" to list the runtime's tools.\n")
	expect(t, run(f, "--socket", sock, "--json", "call", "app_pnig"), 1,
		"{\n  \"ok\": false,\n  \"error\": {\n    \"code\": \"UNKNOWN_TOOL\",\n    \"message\": \"Unknown tool: app_pnig\",\n    \"details\": {\n      \"suggestion\": \"app_ping\"\n    }\n  }\n}\n", "")
}

// TestMappedCommandToolMissing: a mapped command whose tool the runtime
// lacks (an older runtime) prints the runtime's UNKNOWN_TOOL and exits 1.
func TestMappedCommandToolMissing(t *testing.T) {
	f := &fakeConn{
		tools: []protocol.ToolDescriptor{{Name: "app_ping"}},
		respond: func(_ context.Context, tool string, _ json.RawMessage, _ client.CallOptions) (protocol.ToolResult, error) {
			return protocol.ErrorResult(protocol.CodeUnknownTool, "Unknown tool: "+tool, nil), nil
		},
	}
	expect(t, run(f, "--socket", sock, "plugins"), 1, "", "error (UNKNOWN_TOOL): Unknown tool: list_plugins\n")
	if c := f.lastCall(t); c.Tool != "list_plugins" || c.Args != `{}` {
		t.Errorf("call = %s %s", c.Tool, c.Args)
	}
}

// TestTopHelpHidesMissingTools: --help lists only the mapped commands
// whose tools the runtime has and says how many it left out; --all lists
// every one.
func TestTopHelpHidesMissingTools(t *testing.T) {
	var tools []protocol.ToolDescriptor
	for _, c := range commandTable {
		if c.Tool != "list_plugins" && c.Tool != "open_plugin_tab" {
			tools = append(tools, protocol.ToolDescriptor{Name: c.Tool})
		}
	}
	f := &fakeConn{tools: tools}
	r := run(f, "--socket", sock, "--help")
	if r.code != 0 || strings.Contains(r.out, "\n  plugins ") || strings.Contains(r.out, "\n  open-plugin ") || !strings.Contains(r.out, "\n  install-plugin ") ||
		!strings.Contains(r.out, `(2 commands whose tools this runtime lacks are not listed; "meith help --all" lists every command.)`) {
		t.Errorf("--help against a runtime without list_plugins and open_plugin_tab:\n%s", r)
	}
	r = run(f, "--socket", sock, "help", "--all")
	if r.code != 0 || !strings.Contains(r.out, "\n  plugins ") || strings.Contains(r.out, "not listed") {
		t.Errorf("help --all:\n%s", r)
	}
}

func TestEventsDuringCall(t *testing.T) {
	f := &fakeConn{respond: func(_ context.Context, _ string, _ json.RawMessage, o client.CallOptions) (protocol.ToolResult, error) {
		o.OnEvent(protocol.Progress("step", 0.5))
		o.OnEvent(protocol.Log(protocol.LevelDebug, "detail"))
		o.OnEvent(protocol.PartialText("hel"))
		o.OnEvent(protocol.PartialText("lo"))
		return protocol.OKResult(map[string]int{"n": 1}), nil
	}}
	expect(t, run(f, "--socket", sock, "call", "t"), 0, "hello\n{\n  \"n\": 1\n}\n", "… step 50%\n")
	expect(t, run(f, "--socket", sock, "call", "t", "-v"), 0, "hello\n{\n  \"n\": 1\n}\n", "… step 50%\n  [debug] detail\n")
	expect(t, run(f, "--socket", sock, "call", "t", "--quiet"), 0, "{\n  \"n\": 1\n}\n", "")
}

func TestInterrupt(t *testing.T) {
	started := make(chan struct{})
	f := &fakeConn{respond: func(ctx context.Context, tool string, _ json.RawMessage, _ client.CallOptions) (protocol.ToolResult, error) {
		close(started)
		<-ctx.Done()
		return protocol.ErrorResult(protocol.CodeCancelled, `Tool "`+tool+`" was cancelled`, nil), nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-started; cancel() }()
	expect(t, runWith(ctx, f, "", "--socket", sock, "call", "slow"), 130, "", "error (CANCELLED): Tool \"slow\" was cancelled\n")
}

func TestTools(t *testing.T) {
	f := &fakeConn{tools: []protocol.ToolDescriptor{
		{Name: "app_ping", Description: "Ping.", InputSchema: json.RawMessage(`{"type":"object"}`), Capabilities: []protocol.Capability{protocol.CapReadOnly}},
		{Name: "write_file", Description: "Write a file.", InputSchema: json.RawMessage(`{}`), Capabilities: []protocol.Capability{protocol.CapWritesFiles, protocol.CapDestructive}},
		{Name: "bare", Description: "No capabilities."},
	}}
	expect(t, run(f, "--socket", sock, "tools"), 0,
		"app_ping  [read-only]\n    Ping.\nwrite_file  [writes-files, destructive]\n    Write a file.\nbare\n    No capabilities.\n", "")
	expect(t, run(f, "--socket", sock, "tools", "FILE"), 0, "write_file  [writes-files, destructive]\n    Write a file.\n", "")
	r := run(f, "--socket", sock, "tools", "--json")
	var got []protocol.ToolDescriptor
	if r.code != 0 || json.Unmarshal([]byte(r.out), &got) != nil || len(got) != 3 || got[1].Name != "write_file" {
		t.Errorf("tools --json: %s", r)
	}
	expect(t, run(f, "--socket", sock, "tools", "--json", "nomatch"), 0, "[]\n", "")
	expect(t, run(f, "--socket", sock, "tools", "a", "b"), 1, "", "error: tools takes at most one filter word (got \"b\").\n")
}

func TestPing(t *testing.T) {
	f := &fakeConn{respond: func(_ context.Context, tool string, args json.RawMessage, _ client.CallOptions) (protocol.ToolResult, error) {
		return protocol.OKResult(map[string]any{"pong": true, "pid": 77}), nil
	}}
	r := run(f, "--socket", sock, "ping")
	re := regexp.MustCompile(`^(reply from pid 77: time=\d+\.\d\d ms\n){4}4 calls, min/avg/max = \d+\.\d\d/\d+\.\d\d/\d+\.\d\d ms\n$`)
	if r.code != 0 || !re.MatchString(r.out) || r.err != "" {
		t.Errorf("ping:\n%s", r)
	}
	if c := f.lastCall(t); c.Tool != "app_ping" || c.Args != `{}` || len(f.calls) != 4 {
		t.Errorf("ping made %d calls, last %s %s", len(f.calls), c.Tool, c.Args)
	}
	f.calls = nil
	r = run(f, "--socket", sock, "ping", "--count", "2", "--delay-ms", "5", "--json")
	var sum struct {
		PID     int       `json:"pid"`
		Calls   int       `json:"calls"`
		Failed  int       `json:"failed"`
		TimesMs []float64 `json:"timesMs"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.out), &sum) != nil || sum.PID != 77 || sum.Calls != 2 || len(sum.TimesMs) != 2 {
		t.Errorf("ping --json:\n%s", r)
	}
	if c := f.lastCall(t); c.Args != `{"delayMs":5}` || len(f.calls) != 2 {
		t.Errorf("ping --delay-ms: %d calls, args %s", len(f.calls), c.Args)
	}
	for _, bad := range []string{"0", "-1", "x"} {
		expect(t, run(f, "--socket", sock, "ping", "--count", bad), 1, "", "error: --count must be a positive integer.\n")
	}
	expect(t, run(f, "--socket", sock, "ping", "--delay-ms", "-1"), 1, "", "error: --delay-ms must be a non-negative integer (milliseconds).\n")

	n := 0
	f.respond = func(context.Context, string, json.RawMessage, client.CallOptions) (protocol.ToolResult, error) {
		n++
		if n == 2 {
			return protocol.ErrorResult(protocol.CodeTimeout, "late", nil), nil
		}
		return protocol.OKResult(map[string]any{"pid": 77}), nil
	}
	r = run(f, "--socket", sock, "ping", "--count", "3", "--quiet")
	if r.code != 1 || !regexp.MustCompile(`^2 calls, 1 failed, min/avg/max = `).MatchString(r.out) || r.err != "error (TIMEOUT): late\n" {
		t.Errorf("ping with a failure:\n%s", r)
	}
}

func TestHelp(t *testing.T) {
	top := run(nil, "--help")
	if top.code != 0 || !strings.HasPrefix(top.out, "meith — drive a running meith runtime") || top.err != "" {
		t.Errorf("--help:\n%s", top)
	}
	for _, args := range [][]string{{}, {"help"}, {"-h"}, {"--json"}} {
		if r := run(nil, args...); r.code != 0 || r.out != top.out {
			t.Errorf("%q does not print the top-level help:\n%s", args, r)
		}
	}

	// A mapped command offline: the static part and the note, exit 0.
	want := "meith health — Print runtime health\n\nUsage:\n  meith health [--key value ...]\n\nRuntime tool: app_health\n\n(Start the app to see this tool's parameters.)\n"
	expect(t, run(nil, "--socket", sock, "health", "--help"), 0, want, "")
	expect(t, run(nil, "--socket", sock, "help", "health"), 0, want, "")

	// Online: the live descriptor.
	f := &fakeConn{tools: []protocol.ToolDescriptor{{Name: "app_health", Description: "Health.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Capabilities: []protocol.Capability{protocol.CapReadOnly}}}}
	expect(t, run(f, "--socket", sock, "health", "--help"), 0,
		"meith health — Print runtime health\n\nUsage:\n  meith health [--key value ...]\n\nRuntime tool: app_health\n\nHealth.\n\nParameters: none\n\nCapabilities: read-only\n", "")
	expect(t, run(f, "--socket", sock, "call", "app_health", "--help"), 0,
		"meith call app_health\n\nUsage:\n  meith call app_health [--key value ...]\n  meith health [--key value ...]\n\nHealth.\n\nParameters: none\n\nCapabilities: read-only\n", "")
	if len(f.calls) != 0 {
		t.Errorf("help called a tool: %+v", f.calls)
	}
	// A tool name as a command shows its help too.
	if r := run(f, "--socket", sock, "help", "app_health"); r.code != 0 || !strings.HasPrefix(r.out, "meith call app_health\n") {
		t.Errorf("help app_health:\n%s", r)
	}
	expect(t, run(f, "--socket", sock, "call", "nope", "--help"), 1, "", "Cannot describe \"nope\": the runtime has no such tool. Run \"meith tools\" to list them.\n")

	// call <tool> --help offline fails.
	expect(t, run(nil, "--socket", sock, "call", "app_health", "--help"), 1, "",
		"Cannot describe \"app_health\": Could not connect to the meith runtime at /fake.sock. Is the desktop app (or \"meith serve\") running? (connection refused)\n")

	for _, cmd := range []string{"tools", "ping", "devlogs", "app", "call", "serve"} {
		if r := run(nil, cmd, "--help"); r.code != 0 || !strings.Contains(r.out, "Usage") || len(r.dialed) != 0 {
			t.Errorf("%s --help:\n%s", cmd, r)
		}
	}
	expect(t, run(nil, "--socket", sock, "help", "nonsense"), 1, "", "error: Unknown command \"nonsense\". Run \"meith --help\".\n")
}

func TestHelpLookupTimeout(t *testing.T) {
	f := &fakeConn{}
	var deadline time.Time
	r := &runner{s: &Streams{Out: new(bytes.Buffer), Err: new(bytes.Buffer)}, socket: sock,
		dial: func(ctx context.Context, path string) (conn, error) {
			deadline, _ = ctx.Deadline()
			return f, nil
		}}
	start := time.Now()
	r.describe(context.Background(), "x")
	if d := deadline.Sub(start); d <= 0 || d > helpTimeout+time.Second {
		t.Errorf("help lookup deadline in %v, want about %v", d, helpTimeout)
	}
}

func TestInstanceFlag(t *testing.T) {
	newFakeHome(t)
	expect(t, run(&fakeConn{}, "--instance", "nope", "health"), 1, "",
		"error: No live instance matches \"nope\". Run \"meith app list\" to see running instances.\n")
}

func TestApp(t *testing.T) {
	h := newFakeHome(t)
	expect(t, run(nil, "app", "list"), 0, "No running meith instances.\n", "")
	expect(t, run(nil, "app", "list", "--json"), 0, "[]\n", "")
	expect(t, run(nil, "app", "kill"), 0, "No running meith instances.\n", "")
	expect(t, run(nil, "app", "frob"), 1, "", "error: Unknown \"app\" subcommand \"frob\". Try: list, health, logs, kill, bug-report, screenshot.\n")
	if r := run(nil, "app"); r.code != 0 || !strings.HasPrefix(r.out, "meith app — ") {
		t.Errorf("app:\n%s", r)
	}

	// A child process stands in for a second runtime we may kill.
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	t.Cleanup(func() { child.Process.Kill() })

	h.record(discovery.Record{PID: os.Getpid(), SocketPath: h.listen(), StartedAt: 1000, AppVersion: "0.1.0", Label: "me"})
	victim := h.record(discovery.Record{PID: child.Process.Pid, SocketPath: h.listen(), StartedAt: 2000, AppVersion: "0.1.0", Label: "victim"})

	r := run(nil, "app", "list")
	lines := strings.Split(strings.TrimSuffix(r.out, "\n"), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], strconv.Itoa(victim.PID)) || !strings.HasSuffix(lines[2], "me") {
		t.Errorf("app list (newest first):\n%s", r)
	}
	r = run(nil, "app", "list", "--json")
	var recs []discovery.Record
	if json.Unmarshal([]byte(r.out), &recs) != nil || len(recs) != 2 || recs[0].Label != "victim" {
		t.Errorf("app list --json:\n%s", r)
	}

	expect(t, run(nil, "app", "kill"), 1, "", "error: Multiple instances running; pass a pid/label or --all. Run \"meith app list\" to see them.\n")
	expect(t, run(nil, "app", "kill", "nobody"), 1, "", "error: No live instance matches \"nobody\". Run \"meith app list\" to see running instances.\n")
	// A record whose socket does not answer app_ping as its pid (a stale
	// record, a reused pid) is not signalled.
	expect(t, run(nil, "app", "kill", "victim"), 1, "",
		"error: not signalling pid "+strconv.Itoa(victim.PID)+": no meith runtime answers on "+victim.SocketPath+" (a stale record?)\n")
	impostor := &fakeConn{respond: func(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error) {
		return protocol.OKResult(map[string]int{"pid": victim.PID + 1}), nil
	}}
	if r := run(impostor, "app", "kill", "victim"); r.code != 1 || !strings.Contains(r.err, "not "+strconv.Itoa(victim.PID)) {
		t.Errorf("app kill of a record answered by another pid:\n%s", r)
	}
	// The runtime answers as the record's pid: signalled.
	runtime := &fakeConn{respond: func(ctx context.Context, tool string, args json.RawMessage, opts client.CallOptions) (protocol.ToolResult, error) {
		return protocol.OKResult(map[string]int{"pid": victim.PID}), nil
	}}
	expect(t, run(runtime, "app", "kill", "victim"), 0, "Sent SIGTERM to: "+strconv.Itoa(victim.PID)+"\n", "")
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the child did not get SIGTERM")
	}
}

func TestAppTools(t *testing.T) {
	f := &fakeConn{}
	expect(t, run(f, "--socket", sock, "app", "logs", "--limit", "3", "--level", "warn", "--search", "boom"), 0, "ok\n", "")
	if c := f.lastCall(t); c.Tool != "app_get_logs" || c.Args != `{"level":"warn","limit":3,"search":"boom"}` {
		t.Errorf("app logs: %s %s", c.Tool, c.Args)
	}
	expect(t, run(f, "--socket", sock, "app", "health"), 0, "ok\n", "")
	expect(t, run(f, "--socket", sock, "app", "health", "x"), 1, "", "error: \"app health\" takes no positional arguments (got \"x\"); pass parameters as --key value\n")
	if c := f.lastCall(t); c.Tool != "app_health" || c.Args != `{}` {
		t.Errorf("app health: %s %s", c.Tool, c.Args)
	}
	f.respond = func(context.Context, string, json.RawMessage, client.CallOptions) (protocol.ToolResult, error) {
		return protocol.OKResult(map[string]any{"path": "/tmp/report.json", "bytes": 10}), nil
	}
	expect(t, run(f, "--socket", sock, "app", "bug-report", "--logs-limit", "50"), 0, "/tmp/report.json\n", "")
	if c := f.lastCall(t); c.Tool != "app_export_bug_report" || c.Args != `{"logsLimit":50}` {
		t.Errorf("app bug-report: %s %s", c.Tool, c.Args)
	}
	expect(t, run(f, "--socket", sock, "app", "screenshot"), 0, "/tmp/report.json\n", "")
	if c := f.lastCall(t); c.Tool != "app_screenshot" {
		t.Errorf("app screenshot: %s", c.Tool)
	}
}

func TestDevlogs(t *testing.T) {
	f := &fakeConn{respond: func(ctx context.Context, _ string, _ json.RawMessage, o client.CallOptions) (protocol.ToolResult, error) {
		o.OnEvent(protocol.Log(protocol.LevelInfo, "ready on :3000"))
		o.OnEvent(protocol.Progress("ignored", 0.5))
		o.OnEvent(protocol.Log(protocol.LevelError, "oops"))
		return protocol.ErrorResult(protocol.CodeToolFailed, "dev server exited", nil), nil
	}}
	expect(t, run(f, "--socket", sock, "devlogs", "--id", "dev_1", "--no-replay"), 1, "ready on :3000\noops\n",
		"attaching to dev server logs (id dev_1)… Ctrl+C to stop\nerror (TOOL_FAILED): dev server exited\n")
	if c := f.lastCall(t); c.Tool != "attach_process_logs" || c.Args != `{"devServerId":"dev_1","replay":false}` {
		t.Errorf("devlogs call: %s %s", c.Tool, c.Args)
	}

	wd, _ := os.Getwd()
	ctx, cancel := context.WithCancel(context.Background())
	f.respond = func(ctx context.Context, _ string, _ json.RawMessage, o client.CallOptions) (protocol.ToolResult, error) {
		o.OnEvent(protocol.Log(protocol.LevelInfo, "line"))
		cancel()
		<-ctx.Done()
		return protocol.ErrorResult(protocol.CodeCancelled, "cancelled", nil), nil
	}
	expect(t, runWith(ctx, f, "", "--socket", sock, "devlogs", "--quiet", "--json"), 0, `{"kind":"log","message":"line","level":"info"}`+"\n", "")
	if c := f.lastCall(t); c.Args != `{"cwd":`+strconv.Quote(wd)+`,"replay":true}` {
		t.Errorf("devlogs default cwd: %s", c.Args)
	}
}
