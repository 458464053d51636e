package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// agentBin is the scripted ACP agent (../testdata/scriptagent), built once.
var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "acp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "scriptagent")
	build := exec.Command("go", "build", "-o", agentBin, "../testdata/scriptagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building scriptagent: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// mcpFixture is a real MCP server (go-sdk, streamable HTTP) with a bearer
// check and one tool, echo_text.
type mcpFixture struct {
	URL, Token string
	listed     chan struct{}
	mu         sync.Mutex
	denied     int // requests with a wrong bearer
}

func newMCP(t *testing.T) *mcpFixture {
	t.Helper()
	f := &mcpFixture{Token: "tok-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-secret", listed: make(chan struct{})}
	server := mcp.NewServer(&mcp.Implementation{Name: "meith", Version: "test"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "echo_text", Description: "Echoes text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			if in.Text == "boom" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom failed"}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	var once sync.Once
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/list" && err == nil {
				once.Do(func() { close(f.listed) })
			}
			return res, err
		}
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.Token {
			f.mu.Lock()
			f.denied++
			f.mu.Unlock()
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL + "/mcp"
	return f
}

func (f *mcpFixture) server() *MCPServer {
	return &MCPServer{Name: "meith", URL: f.URL, Token: f.Token, ToolsListed: f.listed, ToolsListedTimeout: 10 * time.Second}
}

// logs collects Logf lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

type fixture struct {
	s    *Session
	mcp  *mcpFixture
	logs *logs
	dir  string
}

// startAgent starts the scripted agent with meith's MCP server; edit
// adjusts the spec.
func startAgent(t *testing.T, edit func(*Spec), args ...string) *fixture {
	t.Helper()
	f, err := tryStart(t, edit, args...)
	if err != nil {
		t.Fatalf("Start: %v\nlogs:\n%s", err, f.logs)
	}
	return f
}

func tryStart(t *testing.T, edit func(*Spec), args ...string) (*fixture, error) {
	t.Helper()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	f := &fixture{mcp: newMCP(t), logs: &logs{}, dir: dir}
	spec := Spec{
		Command:      agentBin,
		Args:         args,
		Cwd:          dir,
		MCP:          f.mcp.server(),
		Logf:         f.logs.logf,
		StartTimeout: 20 * time.Second,
	}
	if edit != nil {
		edit(&spec)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Start(ctx, spec)
	if err != nil {
		return f, err
	}
	f.s = s
	t.Cleanup(func() { _ = s.Close() })
	return f, nil
}

// turnResult is what one Prompt produced.
type turnResult struct {
	stop    string
	err     error
	updates []Update
}

func (r turnResult) text(kind string) string {
	var b strings.Builder
	for _, u := range r.updates {
		if u.Kind == kind {
			b.WriteString(u.Text)
		}
	}
	return b.String()
}

func (r turnResult) kinds() []string {
	var out []string
	for _, u := range r.updates {
		if len(out) == 0 || out[len(out)-1] != u.Kind {
			out = append(out, u.Kind)
		}
	}
	return out
}

func (r turnResult) of(kind string) []Update {
	var out []Update
	for _, u := range r.updates {
		if u.Kind == kind {
			out = append(out, u)
		}
	}
	return out
}

func (f *fixture) prompt(t *testing.T, script string) turnResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var r turnResult
	// meith sends its system prompt and the history before the request.
	text := "Host system instructions from Meith.\nConversation so far:\nUSER: say old\nCurrent user request:\n" + script
	r.stop, r.err = f.s.Prompt(ctx, text, func(u Update) { r.updates = append(r.updates, u) })
	return r
}

func mustPrompt(t *testing.T, f *fixture, script string) turnResult {
	t.Helper()
	r := f.prompt(t, script)
	if r.err != nil || r.stop != StopEndTurn {
		t.Fatalf("Prompt(%q) = %q, %v\nlogs:\n%s", script, r.stop, r.err, f.logs)
	}
	return r
}

func TestStartAndStreaming(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	if name, version := f.s.AgentInfo(); name != "scriptagent" || version != "1.0.0" {
		t.Errorf("AgentInfo = %q %q", name, version)
	}
	if f.s.PID() <= 0 {
		t.Errorf("PID = %d", f.s.PID())
	}
	select {
	case <-f.mcp.listed:
	default:
		t.Errorf("the agent did not list the MCP tools in session/new")
	}

	r := mustPrompt(t, f, "say hello streaming world\nthink pondering deeply\nsay second line\nplain words are echoed")
	if got, want := r.text(UpdateMessage), "hello streaming world\nsecond line\nplain words are echoed"; got != want {
		t.Errorf("message text = %q, want %q", got, want)
	}
	if got, want := r.text(UpdateThought), "pondering deeply"; got != want {
		t.Errorf("thought text = %q, want %q", got, want)
	}
	if got, want := strings.Join(r.kinds(), ","), "message,thought,message"; got != want {
		t.Errorf("update order = %s, want %s", got, want)
	}
	if n := len(r.of(UpdateMessage)); n < 9 {
		t.Errorf("%d message chunks, want the text streamed in pieces (>= 9)", n)
	}

	// The MCP server of session/new reached the agent with its bearer.
	r = mustPrompt(t, f, "tools\ncwd")
	if got, want := r.text(UpdateMessage), "echo_text\n"+f.dir; got != want {
		t.Errorf("tools/cwd = %q, want %q", got, want)
	}
	f.mcp.mu.Lock()
	denied := f.mcp.denied
	f.mcp.mu.Unlock()
	if denied != 0 {
		t.Errorf("%d MCP requests had a wrong bearer", denied)
	}
}

func TestToolCalls(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	r := mustPrompt(t, f, `call echo_text {"text":"hi"}`+"\n"+`call echo_text {"text":"boom"}`)
	calls := r.of(UpdateToolCall)
	updates := r.of(UpdateToolCallUpdate)
	if len(calls) != 2 || len(updates) != 2 {
		t.Fatalf("got %d tool_call and %d tool_call_update, want 2 each: %+v", len(calls), len(updates), r.updates)
	}
	c := calls[0].ToolCall
	if c.ID != "call_1" || c.Title != "mcp__meith__echo_text" || c.Kind != "read" || c.Status != "pending" || c.Name != "mcp__meith__echo_text" {
		t.Errorf("tool_call = %+v", c)
	}
	var in map[string]string
	if err := json.Unmarshal(c.RawInput, &in); err != nil || in["text"] != "hi" {
		t.Errorf("RawInput = %s (%v)", c.RawInput, err)
	}
	if u := updates[0].ToolCall; u.ID != "call_1" || u.Status != "completed" || u.Output != "echo: hi" {
		t.Errorf("tool_call_update = %+v", u)
	}
	if u := updates[1].ToolCall; u.ID != "call_2" || u.Status != "failed" || u.Output != "boom failed" {
		t.Errorf("failed tool_call_update = %+v", u)
	}
	if got, want := r.text(UpdateMessage), "echo_text: ok\necho_text: boom failed"; got != want {
		t.Errorf("messages = %q, want %q", got, want)
	}
	if got, want := strings.Join(r.kinds(), ","), "tool_call,tool_call_update,message,tool_call,tool_call_update,message"; got != want {
		t.Errorf("order = %s, want %s", got, want)
	}
}

func TestPlanAndUsage(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	r := mustPrompt(t, f, "plan read the code|write a test|run it\nusage 1000 500")
	plans := r.of(UpdatePlan)
	if len(plans) != 1 || len(plans[0].Plan) != 3 {
		t.Fatalf("plan updates = %+v", plans)
	}
	if e := plans[0].Plan[1]; e.Content != "write a test" || e.Status != "pending" || e.Priority != "medium" {
		t.Errorf("plan entry = %+v", e)
	}
	usages := r.of(UpdateUsage)
	if len(usages) != 2 {
		t.Fatalf("usage updates = %+v", usages)
	}
	u := usages[0].Usage
	if u.Used != 1500 || u.Size != 200000 || u.CostCurrency != "USD" || u.CostAmount < 0.0104 || u.CostAmount > 0.0106 {
		t.Errorf("usage_update = %+v", u)
	}
	// The prompt response's usage comes last.
	if u := usages[1].Usage; u.InputTokens != 1000 || u.OutputTokens != 500 {
		t.Errorf("response usage = %+v", u)
	}
	if r.updates[len(r.updates)-1].Kind != UpdateUsage {
		t.Errorf("the response usage is not the last update")
	}
}

func TestPermissions(t *testing.T) {
	t.Parallel()
	type seen struct {
		mu   sync.Mutex
		reqs []PermissionRequest
	}
	cases := []struct {
		name   string
		policy func(PermissionRequest) *bool // nil policy func: Spec.Permission nil
		script string
		want   string
		check  func(t *testing.T, req PermissionRequest)
	}{
		{
			name:   "allow own tool",
			policy: func(PermissionRequest) *bool { b := true; return &b },
			script: "ask edit Edit main.go",
			want:   "permission Edit main.go: allowed",
			check: func(t *testing.T, req PermissionRequest) {
				if req.MeithTool != "" || req.Web || req.MCPApproval || req.ToolCall.Kind != "edit" || req.ToolCall.Title != "Edit main.go" {
					t.Errorf("request = %+v", req)
				}
				if got := strings.Join(req.Options, ","); got != "allow_once,allow_always,reject_once,reject_always" {
					t.Errorf("options = %s", got)
				}
			},
		},
		{
			name:   "deny web tool",
			policy: func(req PermissionRequest) *bool { b := !req.Web; return &b },
			script: "ask fetch WebFetch https://example.com",
			want:   "permission WebFetch https://example.com: denied",
			check: func(t *testing.T, req PermissionRequest) {
				if !req.Web || req.MeithTool != "" {
					t.Errorf("request = %+v", req)
				}
			},
		},
		{
			name:   "meith tool by prefix",
			policy: func(req PermissionRequest) *bool { b := req.MeithTool == "git_status"; return &b },
			script: "ask read mcp__meith__git_status",
			want:   "permission mcp__meith__git_status: allowed",
			check: func(t *testing.T, req PermissionRequest) {
				if req.MeithTool != "git_status" || req.Web {
					t.Errorf("request = %+v", req)
				}
			},
		},
		{
			name:   "metadata-only MCP approval",
			policy: func(req PermissionRequest) *bool { b := req.MCPApproval; return &b },
			script: "askmcp meith browser_navigate",
			want:   "permission meith/browser_navigate: allowed",
			check: func(t *testing.T, req PermissionRequest) {
				if !req.MCPApproval || req.MeithTool != "browser_navigate" || req.Web {
					t.Errorf("request = %+v", req)
				}
			},
		},
		{
			name:   "nil policy denies",
			script: "ask execute Run rm -rf /",
			want:   "permission Run rm -rf /: denied",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got seen
			f := startAgent(t, func(s *Spec) {
				if tc.policy == nil {
					return
				}
				s.Permission = func(_ context.Context, req PermissionRequest) PermissionDecision {
					got.mu.Lock()
					got.reqs = append(got.reqs, req)
					got.mu.Unlock()
					return PermissionDecision{Allow: *tc.policy(req)}
				}
			})
			r := mustPrompt(t, f, tc.script)
			if msg := r.text(UpdateMessage); msg != tc.want {
				t.Errorf("agent said %q, want %q", msg, tc.want)
			}
			if tc.check != nil {
				got.mu.Lock()
				defer got.mu.Unlock()
				if len(got.reqs) != 1 {
					t.Fatalf("%d permission requests", len(got.reqs))
				}
				tc.check(t, got.reqs[0])
			}
		})
	}
}

func TestPermissionCancelledWithPrompt(t *testing.T) {
	t.Parallel()
	asked := make(chan struct{})
	ctxEnded := make(chan struct{})
	f := startAgent(t, func(s *Spec) {
		s.Permission = func(ctx context.Context, _ PermissionRequest) PermissionDecision {
			close(asked)
			<-ctx.Done()
			close(ctxEnded)
			return PermissionDecision{Allow: true}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-asked
		cancel()
	}()
	start := time.Now()
	stop, err := f.s.Prompt(ctx, "ask edit Edit x\nsay after", func(Update) {})
	if stop != StopCancelled || !errors.Is(err, context.Canceled) {
		t.Fatalf("Prompt = %q, %v", stop, err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("cancel took %s", d)
	}
	select {
	case <-ctxEnded:
	case <-time.After(2 * time.Second):
		t.Errorf("the permission callback's ctx did not end")
	}
}

func TestCancelMidSleep(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var r turnResult
	start := time.Now()
	r.stop, r.err = f.s.Prompt(ctx, "say started\nsleep 30s\nsay never", func(u Update) {
		r.updates = append(r.updates, u)
		if strings.Contains(r.text(UpdateMessage), "started") {
			cancel()
		}
	})
	if r.stop != StopCancelled || !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Prompt = %q, %v", r.stop, r.err)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("cancel took %s; the agent answers cancelled at once", d)
	}
	if got := r.text(UpdateMessage); got != "started" {
		t.Errorf("messages = %q", got)
	}
	// The session stays usable.
	r = mustPrompt(t, f, "say again")
	if got := r.text(UpdateMessage); got != "again" {
		t.Errorf("after cancel: %q", got)
	}
}

func TestOnePromptAtATime(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := f.s.Prompt(ctx, "say go\nsleep 30s", func(Update) { once.Do(func() { close(running) }) })
		done <- err
	}()
	<-running
	if _, err := f.s.Prompt(context.Background(), "say second", nil); !errors.Is(err, errBusy) {
		t.Errorf("second prompt: %v, want errBusy", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("first prompt: %v", err)
	}
}

func TestRefusesAgentWithoutHTTPMCP(t *testing.T) {
	t.Parallel()
	f, err := tryStart(t, nil, "--no-http-mcp")
	if !errors.Is(err, ErrNoHTTPMCP) {
		t.Fatalf("Start = %v, want ErrNoHTTPMCP", err)
	}
	if !strings.Contains(err.Error(), "scriptagent does not advertise HTTP MCP servers") || !strings.Contains(err.Error(), "refuses to run it") {
		t.Errorf("message: %v", err)
	}
	select {
	case <-f.mcp.listed:
		t.Errorf("the agent was given the MCP server")
	default:
	}
	// Without meith's MCP server (ai.complete) it may run.
	f = startAgent(t, func(s *Spec) { s.MCP = nil }, "--no-http-mcp")
	if got := mustPrompt(t, f, "tools").text(UpdateMessage); got != "(none)" {
		t.Errorf("tools without MCP = %q", got)
	}
}

func TestToolsNotListed(t *testing.T) {
	t.Parallel()
	f := startAgent(t, func(s *Spec) { s.MCP.ToolsListedTimeout = 300 * time.Millisecond }, "--no-list")
	r := f.prompt(t, "say hi")
	if !errors.Is(r.err, ErrToolsNotListed) {
		t.Fatalf("Prompt = %q, %v; want ErrToolsNotListed", r.stop, r.err)
	}
	if !strings.Contains(r.err.Error(), "scriptagent never listed Meith's MCP tools") {
		t.Errorf("message: %v", r.err)
	}
	if len(r.updates) != 0 {
		t.Errorf("updates without a prompt: %+v", r.updates)
	}
}

func optionByID(opts []ConfigOption, id string) ConfigOption {
	for _, o := range opts {
		if o.ID == id {
			return o
		}
	}
	return ConfigOption{}
}

func TestConfigOptions(t *testing.T) {
	t.Parallel()
	t.Run("applied at start", func(t *testing.T) {
		t.Parallel()
		f := startAgent(t, func(s *Spec) { s.Model, s.Reasoning = "smart", "High" }, "--config-options")
		if got := mustPrompt(t, f, "config").text(UpdateMessage); got != "model=smart reasoning=high" {
			t.Errorf("config = %q", got)
		}
		opts := f.s.ConfigOptions()
		if o := optionByID(opts, "model"); o.Current != "smart" || o.Category != "model" || len(o.Values) != 2 {
			t.Errorf("model option = %+v", o)
		}
		if o := optionByID(opts, "text.verbosity"); o.Current != "low" {
			t.Errorf("verbosity = %+v, want low", o)
		}
		// SetConfig later.
		if err := f.s.SetConfig(context.Background(), "fast", "low"); err != nil {
			t.Fatal(err)
		}
		if got := mustPrompt(t, f, "config").text(UpdateMessage); got != "model=fast reasoning=low" {
			t.Errorf("after SetConfig: %q", got)
		}
		// config_option_update notifications are tracked.
		mustPrompt(t, f, "setconfig model smart")
		if o := optionByID(f.s.ConfigOptions(), "model"); o.Current != "smart" {
			t.Errorf("after config_option_update: %+v", o)
		}
	})
	t.Run("unknown value skipped", func(t *testing.T) {
		t.Parallel()
		f := startAgent(t, func(s *Spec) { s.Model = "gigantic" }, "--config-options")
		if got := mustPrompt(t, f, "config").text(UpdateMessage); got != "model=fast reasoning=low" {
			t.Errorf("config = %q", got)
		}
		if !strings.Contains(f.logs.String(), `no model "gigantic"`) {
			t.Errorf("no log line about the skipped model:\n%s", f.logs)
		}
	})
	t.Run("no options: ACP_MODEL", func(t *testing.T) {
		t.Parallel()
		f := startAgent(t, func(s *Spec) { s.Model = "opus" })
		if got := mustPrompt(t, f, "config\nenv ACP_MODEL").text(UpdateMessage); got != "model=opus reasoning=default\nopus" {
			t.Errorf("config = %q", got)
		}
		if len(f.s.ConfigOptions()) != 0 {
			t.Errorf("options = %+v", f.s.ConfigOptions())
		}
	})
}

func TestAgentCrashMidPrompt(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	r := f.prompt(t, "say before\nstderr about to go down\ncrash")
	if !errors.Is(r.err, ErrExited) {
		t.Fatalf("Prompt = %q, %v; want ErrExited", r.stop, r.err)
	}
	for _, want := range []string{"exit status 3", "scriptagent: crash requested", "about to go down"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("error %q lacks %q", r.err, want)
		}
	}
	if got := r.text(UpdateMessage); got != "before" {
		t.Errorf("messages before the crash = %q", got)
	}
	select {
	case <-f.s.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed")
	}
	if !strings.Contains(f.logs.String(), "about to go down") {
		t.Errorf("stderr not logged:\n%s", f.logs)
	}
	if _, err := f.s.Prompt(context.Background(), "say hi", nil); !errors.Is(err, ErrExited) {
		t.Errorf("prompt after exit: %v", err)
	}
}

func TestPromptError(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	r := f.prompt(t, "say partial\nfail the model is overloaded")
	if r.err == nil || !strings.Contains(r.err.Error(), "the model is overloaded") || errors.Is(r.err, ErrExited) {
		t.Fatalf("Prompt = %q, %v", r.stop, r.err)
	}
	if got := r.text(UpdateMessage); got != "partial" {
		t.Errorf("messages = %q", got)
	}
	mustPrompt(t, f, "say still alive")
}

func TestStartFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		edit   func(*Spec)
		args   []string
		is     error
		expect []string
	}{
		{name: "not found", edit: func(s *Spec) { s.Command = "meith-no-such-agent" }, is: ErrNotInstalled, expect: []string{"`meith-no-such-agent` was not found"}},
		{name: "exits at once", args: []string{"--exit-on-start"}, is: ErrExited, expect: []string{"before answering initialize", "scriptagent: told to exit", "exit status 2"}},
		{name: "initialize too slow", edit: func(s *Spec) { s.StartTimeout = 300 * time.Millisecond }, args: []string{"--slow-init", "10s"}, is: context.DeadlineExceeded, expect: []string{"did not answer initialize in time"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := tryStart(t, tc.edit, tc.args...)
			if !errors.Is(err, tc.is) {
				t.Fatalf("Start = %v, want %v", err, tc.is)
			}
			for _, want := range tc.expect {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
		})
	}
}

// TestNpxNotFound runs with a PATH that has no npx (not parallel: Setenv).
func TestNpxNotFound(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Start(context.Background(), Spec{Command: "npx", Args: []string{"-y", "@agentclientprotocol/claude-agent-acp"}, Cwd: t.TempDir()})
	if !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), "`npx` was not found: install Node.js (apt-get install nodejs npm)") {
		t.Errorf("Start = %v", err)
	}
	res := Probe(context.Background(), "npx", nil, "")
	if res.OK || res.Message != "`npx` was not found: install Node.js (apt-get install nodejs npm)" {
		t.Errorf("Probe = %+v", res)
	}
}

func TestProbe(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := Probe(ctx, agentBin, []string{"--config-options"}, t.TempDir())
	if !res.OK || res.Name != "scriptagent" || res.Version != "1.0.0" || !res.HTTPMCP || res.Message != "scriptagent is installed and ready." {
		t.Errorf("Probe = %+v", res)
	}
	if o := optionByID(res.Options, "thought_level"); o.Category != "thought_level" || len(o.Values) != 2 {
		t.Errorf("probe options = %+v", res.Options)
	}

	res = Probe(ctx, agentBin, []string{"--no-http-mcp"}, "")
	if !res.OK || res.HTTPMCP || !strings.Contains(res.Message, "does not advertise HTTP MCP") || len(res.Options) != 0 {
		t.Errorf("Probe --no-http-mcp = %+v", res)
	}

	res = Probe(ctx, agentBin, []string{"--exit-on-start"}, "")
	if res.OK || res.Message != agentBin+" exited before answering initialize: scriptagent: told to exit" || res.Stderr != "scriptagent: told to exit" {
		t.Errorf("Probe --exit-on-start = %+v", res)
	}

	res = Probe(ctx, "meith-no-such-agent", nil, "")
	if res.OK || !strings.Contains(res.Message, "`meith-no-such-agent` was not found") {
		t.Errorf("Probe not found = %+v", res)
	}
}

// TestTokenStaysOutOfArgvEnvAndLogs reads the agent's real argv and
// environment from /proc and asks the agent for them too.
func TestTokenStaysOutOfArgvEnvAndLogs(t *testing.T) {
	t.Parallel()
	f := startAgent(t, func(s *Spec) { s.Env = []string{"MEITH_SESSION=abc"} })
	token := f.mcp.Token
	for _, file := range []string{"cmdline", "environ"} {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", f.s.PID(), file))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) {
			t.Errorf("the token is in the agent's %s", file)
		}
		if file == "environ" && !strings.Contains(string(b), "MEITH_SESSION=abc") {
			t.Errorf("Spec.Env missing from the agent's environment")
		}
	}
	r := mustPrompt(t, f, "argv\nenv MEITH_SESSION\nenv ACP_MODEL")
	msg := r.text(UpdateMessage)
	if msg != agentBin+"\nabc\nunset" {
		t.Errorf("argv/env = %q", msg)
	}
	// Even when the agent prints it, the token does not reach the logs.
	mustPrompt(t, f, "stderr leaked "+token)
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(f.logs.String(), "leaked [redacted]") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if logs := f.logs.String(); strings.Contains(logs, token) || !strings.Contains(logs, "leaked [redacted]") {
		t.Errorf("logs:\n%s", logs)
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	t.Parallel()
	f := startAgent(t, nil)
	pid := f.s.PID()
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.s.Done():
	default:
		t.Fatal("Done not closed after Close")
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
		t.Errorf("process %d still exists", pid)
	}
	if _, err := f.s.Prompt(context.Background(), "say hi", nil); !errors.Is(err, ErrExited) {
		t.Errorf("prompt after Close: %v", err)
	}
}

func TestMapPermission(t *testing.T) {
	t.Parallel()
	title := func(s string) *string { return &s }
	kind := func(k sdk.ToolKind) *sdk.ToolKind { return &k }
	cases := []struct {
		name      string
		req       sdk.RequestPermissionRequest
		meithTool string
		web, mcp  bool
	}{
		{name: "meith. prefix", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("meith.git_status")}}, meithTool: "git_status"},
		{name: "meith/ prefix", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("meith/fs_read")}}, meithTool: "fs_read"},
		{name: "mcp__meith. prefix", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("mcp__meith.tabs_list")}}, meithTool: "tabs_list"},
		{name: "claude meta", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("Meith: browser navigate"), Meta: map[string]any{"claudeCode": map[string]any{"toolName": "mcp__meith__browser_navigate"}}}}, meithTool: "browser_navigate"},
		{name: "serverName in rawInput", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("Approve"), RawInput: map[string]any{"serverName": "meith", "toolName": "git_commit"}}}, meithTool: "git_commit"},
		{name: "other MCP server browser", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("mcp__playwright__browser_click")}}, web: true},
		{name: "WebSearch", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("WebSearch: go acp")}}, web: true},
		{name: "fetch kind", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("Get page"), Kind: kind(sdk.ToolKindFetch)}}, web: true},
		{name: "own edit", req: sdk.RequestPermissionRequest{ToolCall: sdk.ToolCallUpdate{Title: title("Edit a.go"), Kind: kind(sdk.ToolKindEdit)}}},
		{name: "approval meta", req: sdk.RequestPermissionRequest{Meta: map[string]any{"is_mcp_tool_approval": true}, ToolCall: sdk.ToolCallUpdate{Title: title("Allow tool?")}}, mcp: true},
	}
	for _, tc := range cases {
		got := mapPermission(tc.req, nil)
		if got.MeithTool != tc.meithTool || got.Web != tc.web || got.MCPApproval != tc.mcp {
			t.Errorf("%s: got MeithTool=%q Web=%v MCPApproval=%v", tc.name, got.MeithTool, got.Web, got.MCPApproval)
		}
	}
}

func TestChooseOption(t *testing.T) {
	t.Parallel()
	opt := func(id string, k sdk.PermissionOptionKind) sdk.PermissionOption {
		return sdk.PermissionOption{OptionId: sdk.PermissionOptionId(id), Kind: k}
	}
	all := []sdk.PermissionOption{opt("aa", sdk.PermissionOptionKindAllowAlways), opt("ao", sdk.PermissionOptionKindAllowOnce), opt("ra", sdk.PermissionOptionKindRejectAlways), opt("ro", sdk.PermissionOptionKindRejectOnce)}
	cases := []struct {
		options []sdk.PermissionOption
		allow   bool
		want    string
		ok      bool
	}{
		{all, true, "ao", true},
		{all, false, "ro", true},
		{all[:1], true, "aa", true},
		{all[2:3], false, "ra", true},
		{all[:2], false, "", false},
		{all[2:], true, "", false},
	}
	for i, tc := range cases {
		id, ok := chooseOption(tc.options, PermissionDecision{Allow: tc.allow})
		if string(id) != tc.want || ok != tc.ok {
			t.Errorf("case %d: got %q %v, want %q %v", i, id, ok, tc.want, tc.ok)
		}
	}
}

func TestClipKeepsRunes(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", outputClip) // 2 bytes each
	got := clip(s, outputClip+1)
	if len(got) != outputClip || !strings.HasSuffix(got, "é") {
		t.Errorf("clip: len %d", len(got))
	}
}
