package mcpbridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// ---- the fake binding: a real registry with four kinds of tools ----

type noteIn struct {
	Name string `json:"name" jsonschema:"the note's name"`
}

type noteOut struct {
	Note    string `json:"note"`
	Session string `json:"session"`
}

type emptyIn struct{}

// fixture is a registry with a read-only tool (read_note), a destructive
// one (delete_note), a network one (fetch_page), a tool that reports
// progress and blocks until cancelled (slow_job) and a failing one
// (fail_job), plus the audit of every call.
type fixture struct {
	reg       *registry.Registry
	started   chan string // slow_job: the caller's session id, once running
	cancelled chan error  // slow_job: why its context ended

	mu    sync.Mutex
	audit []registry.Outcome
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{started: make(chan string, 16), cancelled: make(chan error, 16)}
	f.reg = registry.New(registry.Options{Audit: func(o registry.Outcome) {
		f.mu.Lock()
		f.audit = append(f.audit, o)
		f.mu.Unlock()
	}})
	registry.Register(f.reg, registry.Tool{
		Name: "read_note", Description: "Read a note.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(_ context.Context, call *registry.Call, in noteIn) (noteOut, error) {
		return noteOut{Note: "note " + in.Name, Session: call.Client.SessionID}, nil
	})
	registry.Register(f.reg, registry.Tool{
		Name: "delete_note", Description: "Delete a note.",
		Capabilities: []protocol.Capability{protocol.CapWritesFiles, protocol.CapDestructive},
	}, func(_ context.Context, _ *registry.Call, in noteIn) (string, error) {
		return "deleted " + in.Name, nil
	})
	registry.Register(f.reg, registry.Tool{
		Name: "fetch_page", Description: "Fetch a page.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly, protocol.CapAccessesNetwork},
	}, func(context.Context, *registry.Call, emptyIn) ([]string, error) {
		return []string{"a", "b"}, nil
	})
	registry.Register(f.reg, registry.Tool{
		Name: "slow_job", Description: "Report progress, then wait until cancelled.",
		Capabilities: []protocol.Capability{protocol.CapStartsProcess},
		Timeout:      time.Hour,
	}, func(ctx context.Context, call *registry.Call, _ emptyIn) (string, error) {
		call.Progress("warming up", 0.25)
		call.Log(protocol.LevelWarn, "still going")
		f.started <- call.Client.SessionID
		<-ctx.Done()
		f.cancelled <- context.Cause(ctx)
		return "", ctx.Err()
	})
	registry.Register(f.reg, registry.Tool{
		Name: "fail_job", Description: "Always fail.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(context.Context, *registry.Call, emptyIn) (any, error) {
		return nil, protocol.Errorf(protocol.CodeToolFailed, "disk on fire")
	})
	return f
}

// binding is session id's gated binding: the registry called as the agent.
func (f *fixture) binding(id string) mcpbridge.Binding {
	return mcpbridge.Binding{
		SessionID: id,
		List:      f.reg.List,
		Call: func(ctx context.Context, name string, args json.RawMessage, emit func(protocol.Event)) protocol.ToolResult {
			return f.reg.Call(ctx, registry.Request{
				ToolName: name, Args: args, Emit: emit,
				Client: protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: id},
			})
		},
	}
}

// outcome returns the last audited call of tool, waiting for it a while
// (the registry audits before Call returns, but the HTTP answer may race).
func (f *fixture) outcome(t *testing.T, tool string) registry.Outcome {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		f.mu.Lock()
		for i := len(f.audit) - 1; i >= 0; i-- {
			if f.audit[i].ToolName == tool {
				o := f.audit[i]
				f.mu.Unlock()
				return o
			}
		}
		f.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no audited call of %q", tool)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ---- bridge, clients and raw HTTP ----

// logs collects the bridge's log lines.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logs) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func newBridge(t testing.TB, ttl time.Duration) (*mcpbridge.Bridge, *logs) {
	t.Helper()
	l := &logs{}
	b := mcpbridge.New(mcpbridge.Options{Logf: l.logf, IdleTTL: ttl})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := b.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b, l
}

func register(t testing.TB, b *mcpbridge.Bridge, binding mcpbridge.Binding) mcpbridge.Endpoint {
	t.Helper()
	ep, err := b.Register(context.Background(), binding)
	if err != nil {
		t.Fatalf("Register(%s): %v", binding.SessionID, err)
	}
	return ep
}

// bearer adds the token to every request of the go-sdk client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (a bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.token)
	return a.next.RoundTrip(r)
}

// connect opens a go-sdk client session on ep.
func connect(t testing.TB, ep mcpbridge.Endpoint, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{
		Endpoint:   ep.URL,
		HTTPClient: &http.Client{Transport: bearer{ep.Token, http.DefaultTransport}},
		MaxRetries: -1,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// post sends one raw JSON-RPC POST as curl would; edit may change the
// request before it goes.
func post(ctx context.Context, t *testing.T, endpoint, token, body string, edit func(*http.Request)) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", endpoint, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// rpcMessage is a JSON-RPC response or notification as the bridge sends it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// messages reads the JSON-RPC messages of a response: the data lines of an
// SSE stream, or a JSON body.
func messages(t *testing.T, resp *http.Response) []rpcMessage {
	t.Helper()
	var out []rpcMessage
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data:")
			if !ok || strings.TrimSpace(data) == "" {
				continue
			}
			var m rpcMessage
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("SSE data %q: %v", data, err)
			}
			out = append(out, m)
		}
		return out
	}
	body, _ := io.ReadAll(resp.Body)
	var m rpcMessage
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return append(out, m)
}

// result returns the result of the response to the request with id.
func result(t *testing.T, resp *http.Response, id int) json.RawMessage {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d, want 200: %s", resp.StatusCode, body)
	}
	for _, m := range messages(t, resp) {
		if string(m.ID) == fmt.Sprint(id) {
			if m.Error != nil {
				t.Fatalf("request %d: error %d %s", id, m.Error.Code, m.Error.Message)
			}
			return m.Result
		}
	}
	t.Fatalf("no response to request %d", id)
	return nil
}

const (
	initializeBody  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	toolsListBody   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

func callBody(id int, name, args string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, name, args)
}

func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatalf("result has no content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T, want text", res.Content[0])
	}
	return tc.Text
}

// ---- tests ----

func TestRegisterEndpoint(t *testing.T) {
	b, _ := newBridge(t, 0)
	if got := b.URL(); got != "" {
		t.Errorf("URL before Register = %q, want empty", got)
	}
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/mcp$`).MatchString(ep.URL) || b.URL() != ep.URL {
		t.Errorf("endpoint URL %q (URL() %q), want http://127.0.0.1:<port>/mcp", ep.URL, b.URL())
	}
	if !regexp.MustCompile(`^[0-9a-f]{48}$`).MatchString(ep.Token) {
		t.Errorf("token %q is not 48 hex characters", ep.Token)
	}
	ep2 := register(t, b, f.binding("sess_b"))
	if ep2.URL != ep.URL || ep2.Token == ep.Token {
		t.Errorf("second session: URL %q token equal %v; want the same URL and a new token", ep2.URL, ep2.Token == ep.Token)
	}
	if got := b.Sessions(); !slices.Equal(got, []string{"sess_a", "sess_b"}) {
		t.Errorf("Sessions = %v", got)
	}
	if b.ToolsListed("nope") != nil {
		t.Errorf("ToolsListed of an unknown session is not nil")
	}
	for _, bad := range []mcpbridge.Binding{{}, {SessionID: "x"}} {
		if _, err := b.Register(context.Background(), bad); err == nil {
			t.Errorf("Register(%+v) succeeded", bad)
		}
	}
}

func TestGoSDKClient(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	listed := b.ToolsListed("sess_a")
	cs := connect(t, ep, nil)
	ctx := context.Background()

	if info := cs.InitializeResult().ServerInfo; info.Name != "meith" || info.Version != buildinfo.Version {
		t.Errorf("serverInfo = %+v, want meith %s", info, buildinfo.Version)
	}
	select {
	case <-listed:
		t.Fatal("ToolsListed closed before tools/list")
	default:
	}

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	wait(t, listed, "ToolsListed")
	tools := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		tools[tool.Name] = tool
	}
	if len(tools) != 5 {
		t.Fatalf("listed %d tools, want 5", len(list.Tools))
	}
	tests := []struct {
		name                             string
		readOnly, destructive, openWorld bool
		caps                             []any
	}{
		{"read_note", true, false, false, []any{"read-only"}},
		{"delete_note", false, true, false, []any{"writes-files", "destructive"}},
		{"fetch_page", true, false, true, []any{"read-only", "accesses-network"}},
		{"slow_job", false, false, false, []any{"starts-process"}},
	}
	for _, tt := range tests {
		tool := tools[tt.name]
		if tool == nil {
			t.Errorf("%s not listed", tt.name)
			continue
		}
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != tt.readOnly || a.DestructiveHint == nil || *a.DestructiveHint != tt.destructive ||
			a.OpenWorldHint == nil || *a.OpenWorldHint != tt.openWorld || a.IdempotentHint || a.Title != tt.name {
			t.Errorf("%s annotations = %+v, want readOnly %v destructive %v openWorld %v", tt.name, a, tt.readOnly, tt.destructive, tt.openWorld)
		}
		if tool.Title != tt.name || tool.Description == "" {
			t.Errorf("%s title %q description %q", tt.name, tool.Title, tool.Description)
		}
		if got, _ := tool.Meta["meith/capabilities"].([]any); !slices.Equal(got, tt.caps) {
			t.Errorf("%s _meta capabilities = %v, want %v", tt.name, tool.Meta["meith/capabilities"], tt.caps)
		}
	}
	schema, _ := tools["read_note"].InputSchema.(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	if schema["type"] != "object" || props["name"] == nil {
		t.Errorf("read_note input schema = %v, want an object with a name property", tools["read_note"].InputSchema)
	}

	t.Run("ok object", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"name": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || text(t, res) != `{"note":"note x","session":"sess_a"}` {
			t.Errorf("result = isError %v %q", res.IsError, text(t, res))
		}
		if sc, _ := res.StructuredContent.(map[string]any); sc["note"] != "note x" {
			t.Errorf("structuredContent = %v", res.StructuredContent)
		}
	})
	t.Run("ok string", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_note", Arguments: map[string]any{"name": "x"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || text(t, res) != "deleted x" || res.StructuredContent != nil {
			t.Errorf("result = isError %v %q structured %v", res.IsError, text(t, res), res.StructuredContent)
		}
	})
	t.Run("ok array", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fetch_page"})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || text(t, res) != `["a","b"]` || res.StructuredContent != nil {
			t.Errorf("result = isError %v %q structured %v", res.IsError, text(t, res), res.StructuredContent)
		}
	})
	errTests := []struct {
		name, tool string
		args       any
		want       string
	}{
		{"failure", "fail_job", nil, "TOOL_FAILED: disk on fire"},
		{"validation", "read_note", map[string]any{"name": 3}, "VALIDATION_ERROR: "},
		{"unknown tool", "nope", nil, `UNKNOWN_TOOL: `},
	}
	for _, tt := range errTests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError || !strings.HasPrefix(text(t, res), tt.want) {
				t.Errorf("result = isError %v %q, want isError and %q…", res.IsError, text(t, res), tt.want)
			}
			if e, _ := res.Meta["meith/error"].(map[string]any); e["code"] != strings.TrimSuffix(strings.Split(tt.want, ":")[0], ":") {
				t.Errorf("_meta meith/error = %v", res.Meta["meith/error"])
			}
			// The binding saw the call (the registry audited it) as the agent
			// of this session, unknown names included.
			if o := f.outcome(t, tt.tool); o.Client.SessionID != "sess_a" || o.Client.Caller != protocol.CallerAgent {
				t.Errorf("audited client = %+v", o.Client)
			}
		})
	}
}

// TestSchemaTypeAdded: schemas without a type get "type":"object".
func TestSchemaTypeAdded(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	binding := f.binding("sess_a")
	binding.List = func() []protocol.ToolDescriptor {
		return []protocol.ToolDescriptor{
			{Name: "no_schema", Description: "d", Capabilities: []protocol.Capability{protocol.CapReadOnly}},
			{Name: "untyped", Description: "d", Capabilities: []protocol.Capability{protocol.CapControlsBrowser},
				InputSchema: json.RawMessage(`{"properties":{"a":{"type":"string"}}}`)},
		}
	}
	cs := connect(t, register(t, b, binding), nil)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 2 {
		t.Fatalf("listed %d tools", len(list.Tools))
	}
	for _, tool := range list.Tools {
		if s, _ := tool.InputSchema.(map[string]any); s["type"] != "object" {
			t.Errorf("%s schema = %v, want type object", tool.Name, tool.InputSchema)
		}
	}
	if s, _ := list.Tools[1].InputSchema.(map[string]any); s["properties"] == nil {
		t.Errorf("untyped lost its properties: %v", list.Tools[1].InputSchema)
	}
	if a := list.Tools[1].Annotations; a.ReadOnlyHint || *a.DestructiveHint || !*a.OpenWorldHint {
		t.Errorf("controls-browser annotations = %+v, want open world, not read-only", a)
	}
}

func TestProgressAndClientCancel(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	progress := make(chan *mcp.ProgressNotificationParams, 16)
	cs := connect(t, ep, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params
		},
	})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: "slow_job"}
	params.SetProgressToken("tok-1")
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		callErr <- err
	}()
	if got := wait(t, f.started, "slow_job to start"); got != "sess_a" {
		t.Errorf("slow_job ran for session %q", got)
	}
	p1 := wait(t, progress, "the progress notification")
	if p1.ProgressToken != "tok-1" || p1.Message != "warming up" || p1.Progress != 25 || p1.Total != 100 {
		t.Errorf("first progress = %+v, want tok-1 warming up 25/100", p1)
	}
	p2 := wait(t, progress, "the log as progress")
	if p2.Message != "warn: still going" || p2.Progress <= p1.Progress {
		t.Errorf("second progress = %+v, want \"warn: still going\" above %v", p2, p1.Progress)
	}

	cancel()
	if err := wait(t, f.cancelled, "slow_job to be cancelled"); err == nil {
		t.Error("slow_job's context ended without a cause")
	}
	if err := wait(t, callErr, "CallTool to return"); err == nil {
		t.Error("CallTool after cancel returned no error")
	}
	if o := f.outcome(t, "slow_job"); protocol.CodeOf(o.Result.Err()) != protocol.CodeCancelled {
		t.Errorf("slow_job outcome = %+v, want CANCELLED", o.Result)
	}
	// The session still works after a cancelled call.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"name": "x"}}); err != nil {
		t.Errorf("call after cancel: %v", err)
	}
}

// TestCancelledNotification: notifications/cancelled alone (the HTTP
// request of the call still open) ends the call.
func TestCancelledNotification(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	bg := context.Background()

	resp := post(bg, t, ep.URL, ep.Token, initializeBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	result(t, resp, 1)
	if sid == "" {
		t.Fatal("initialize gave no Mcp-Session-Id")
	}
	withSession := func(r *http.Request) { r.Header.Set("Mcp-Session-Id", sid) }
	if resp := post(bg, t, ep.URL, ep.Token, initializedBody, withSession); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}

	// The call's request stays open (its context is only cancelled at the
	// end) while notifications/cancelled goes in another POST.
	callCtx, stopCall := context.WithCancel(bg)
	callDone := make(chan struct{})
	defer func() { stopCall(); <-callDone }()
	go func() {
		defer close(callDone)
		resp, err := rawDo(callCtx, ep, callBody(7, "slow_job", "{}"), withSession)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	wait(t, f.started, "slow_job to start")
	select {
	case <-callDone:
		t.Fatal("the call's request ended before notifications/cancelled")
	default:
	}
	cancelBody := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`
	if resp := post(bg, t, ep.URL, ep.Token, cancelBody, withSession); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d", resp.StatusCode)
	}
	if cause := wait(t, f.cancelled, "slow_job to be cancelled"); cause == nil || strings.Contains(cause.Error(), "HTTP request") {
		t.Errorf("slow_job ended by %v, want the client's cancellation", cause)
	}
}

// rawDo sends a JSON-RPC POST with ep's token from a goroutine other than
// the test's (no t.Fatal).
func rawDo(ctx context.Context, ep mcpbridge.Endpoint, body string, edit func(*http.Request)) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.URL, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+ep.Token)
	if edit != nil {
		edit(req)
	}
	return http.DefaultClient.Do(req)
}

// TestRequestEndCancels: the call ends with its HTTP request (a sessionless
// POST, so no notifications/cancelled is involved).
func TestRequestEndCancels(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := rawDo(ctx, ep, callBody(3, "slow_job", "{}"), nil); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	wait(t, f.started, "slow_job to start")
	cancel()
	if cause := wait(t, f.cancelled, "slow_job to be cancelled"); cause == nil || !strings.Contains(cause.Error(), "HTTP request ended") {
		t.Errorf("slow_job ended by %v, want the end of the HTTP request", cause)
	}
	wait(t, done, "the request to end")
}

func TestUnregisterCancelsAndRevokes(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	cs := connect(t, ep, nil)
	callErr := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow_job"})
		if err == nil && !res.IsError {
			err = errors.New("slow_job succeeded")
		}
		callErr <- err
	}()
	wait(t, f.started, "slow_job to start")
	b.Unregister("sess_a")
	if cause := wait(t, f.cancelled, "slow_job to be cancelled"); cause == nil || !strings.Contains(cause.Error(), "revoked") {
		t.Errorf("slow_job ended by %v, want the revoked token", cause)
	}
	wait(t, callErr, "CallTool to return")
	if got := b.Sessions(); len(got) != 0 {
		t.Errorf("Sessions after Unregister = %v", got)
	}
	if resp := post(context.Background(), t, ep.URL, ep.Token, toolsListBody, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("revoked token: status %d, want 401", resp.StatusCode)
	}
}

// TestPlainJSONRPC: curl-style POSTs, with the session id the initialize
// gave and without any.
func TestPlainJSONRPC(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	bg := context.Background()

	resp := post(bg, t, ep.URL, ep.Token, initializeBody, nil)
	sid := resp.Header.Get("Mcp-Session-Id")
	var init struct {
		ServerInfo   struct{ Name, Version string }
		Capabilities struct{ Tools *struct{} }
	}
	if err := json.Unmarshal(result(t, resp, 1), &init); err != nil {
		t.Fatal(err)
	}
	if init.ServerInfo.Name != "meith" || init.ServerInfo.Version != buildinfo.Version || init.Capabilities.Tools == nil {
		t.Errorf("initialize result = %+v", init)
	}

	for _, mode := range []struct {
		name string
		edit func(*http.Request)
	}{
		{"with session", func(r *http.Request) { r.Header.Set("Mcp-Session-Id", sid) }},
		{"sessionless", nil},
	} {
		t.Run(mode.name, func(t *testing.T) {
			if resp := post(bg, t, ep.URL, ep.Token, initializedBody, mode.edit); resp.StatusCode != http.StatusAccepted {
				t.Errorf("notifications/initialized: %d, want 202", resp.StatusCode)
			}
			var list struct {
				Tools []struct {
					Name        string
					InputSchema map[string]any
				}
			}
			if err := json.Unmarshal(result(t, post(bg, t, ep.URL, ep.Token, toolsListBody, mode.edit), 2), &list); err != nil {
				t.Fatal(err)
			}
			if len(list.Tools) != 5 || list.Tools[0].Name != "read_note" || list.Tools[0].InputSchema["type"] != "object" {
				t.Errorf("tools/list = %+v", list)
			}
			var call struct {
				Content []struct{ Type, Text string }
				IsError bool
			}
			if err := json.Unmarshal(result(t, post(bg, t, ep.URL, ep.Token, callBody(3, "read_note", `{"name":"y"}`), mode.edit), 3), &call); err != nil {
				t.Fatal(err)
			}
			if call.IsError || len(call.Content) != 1 || call.Content[0].Type != "text" || call.Content[0].Text != `{"note":"note y","session":"sess_a"}` {
				t.Errorf("tools/call = %+v", call)
			}
			if err := json.Unmarshal(result(t, post(bg, t, ep.URL, ep.Token, callBody(4, "nope", `{}`), mode.edit), 4), &call); err != nil {
				t.Fatal(err)
			}
			if !call.IsError || !strings.HasPrefix(call.Content[0].Text, "UNKNOWN_TOOL: ") {
				t.Errorf("tools/call nope = %+v", call)
			}
		})
	}
	wait(t, b.ToolsListed("sess_a"), "ToolsListed")
}

func TestRefused(t *testing.T) {
	b, logs := newBridge(t, 0)
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	epB := register(t, b, f.binding("sess_b"))
	u, _ := url.Parse(ep.URL)
	port := u.Port()
	bg := context.Background()

	// Session A's go-sdk session id, to try with B's token.
	resp := post(bg, t, ep.URL, ep.Token, initializeBody, nil)
	sidA := resp.Header.Get("Mcp-Session-Id")
	result(t, resp, 1)

	big := strings.Repeat(" ", 9<<20) + toolsListBody
	tests := []struct {
		name       string
		token      string
		method     string
		body       io.Reader
		edit       func(*http.Request)
		wantStatus int
		wantError  string // the JSON body's error; "" to skip
	}{
		{"missing token", "", "POST", nil, nil, 401, "unauthorized"},
		{"wrong token", strings.Repeat("ab", 24), "POST", nil, nil, 401, "unauthorized"},
		{"not bearer", "", "POST", nil, func(r *http.Request) { r.Header.Set("Authorization", "Basic "+ep.Token) }, 401, "unauthorized"},
		{"foreign host", ep.Token, "POST", nil, func(r *http.Request) { r.Host = "evil.example:" + port }, 403, "forbidden host"},
		{"other port", ep.Token, "POST", nil, func(r *http.Request) { r.Host = "127.0.0.1:1" }, 403, "forbidden host"},
		{"foreign host before auth", "", "POST", nil, func(r *http.Request) { r.Host = "evil.example:" + port }, 403, "forbidden host"},
		{"origin", ep.Token, "POST", nil, func(r *http.Request) { r.Header.Set("Origin", "http://127.0.0.1:"+port) }, 403, "browser origin refused"},
		{"empty origin", ep.Token, "POST", nil, func(r *http.Request) { r.Header["Origin"] = []string{""} }, 403, "browser origin refused"},
		{"origin before auth", "", "POST", nil, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, 403, "browser origin refused"},
		{"9 MiB body", ep.Token, "POST", strings.NewReader(big), nil, 413, "request body too large"},
		{"9 MiB chunked body", ep.Token, "POST", io.MultiReader(strings.NewReader(big)), nil, 413, "request body too large"},
		{"9 MiB chunked body in a session", ep.Token, "POST", io.MultiReader(strings.NewReader(big)), func(r *http.Request) { r.Header.Set("Mcp-Session-Id", sidA) }, 413, "request body too large"},
		{"PUT", ep.Token, "PUT", nil, nil, 405, "method not allowed"},
		{"other session's go-sdk session", epB.Token, "POST", nil, func(r *http.Request) { r.Header.Set("Mcp-Session-Id", sidA) }, 403, ""},
		{"localhost host", ep.Token, "POST", nil, func(r *http.Request) { r.Host = "localhost:" + port }, 200, ""},
		{"token of session B", epB.Token, "POST", nil, nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.body
			if body == nil {
				body = strings.NewReader(toolsListBody)
			}
			req, _ := http.NewRequestWithContext(bg, tt.method, ep.URL, body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			if tt.edit != nil {
				tt.edit(req)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.wantStatus, data)
			}
			if tt.wantError != "" {
				var got struct{ Error string }
				if err := json.Unmarshal(data, &got); err != nil || got.Error != tt.wantError {
					t.Errorf("body %s, want {\"error\":%q}", data, tt.wantError)
				}
			}
			if tt.wantStatus == 401 && resp.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("WWW-Authenticate = %q, want Bearer", resp.Header.Get("WWW-Authenticate"))
			}
			if tt.wantStatus == 405 && resp.Header.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
		})
	}
	all := logs.all()
	if strings.Contains(all, ep.Token) || strings.Contains(all, epB.Token) {
		t.Errorf("a token was logged:\n%s", all)
	}
	for _, want := range []string{"401 unauthorized", "403 forbidden host", "403 browser origin refused", "413 request body too large", "405 method not allowed"} {
		if !strings.Contains(all, want) {
			t.Errorf("no log line with %q in:\n%s", want, all)
		}
	}
}

// TestTokenPerSession: each token reaches exactly its own binding, under
// concurrent use of two sessions.
func TestTokenPerSession(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	sessions := []string{"sess_a", "sess_b"}
	clients := map[string]*mcp.ClientSession{}
	for _, id := range sessions {
		clients[id] = connect(t, register(t, b, f.binding(id)), nil)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 10 {
		for _, id := range sessions {
			wg.Go(func() {
				res, err := clients[id].CallTool(context.Background(), &mcp.CallToolParams{
					Name: "read_note", Arguments: map[string]any{"name": fmt.Sprint(i)},
				})
				if err != nil {
					errs <- err
					return
				}
				sc, _ := res.StructuredContent.(map[string]any)
				if sc["session"] != id || sc["note"] != fmt.Sprint("note ", i) {
					errs <- fmt.Errorf("session %s call %d answered %v", id, i, res.StructuredContent)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestReRegisterKillsOldToken(t *testing.T) {
	b, _ := newBridge(t, 0)
	f := newFixture(t)
	old := register(t, b, f.binding("sess_a"))
	cur := register(t, b, f.binding("sess_a"))
	if old.Token == cur.Token {
		t.Fatal("re-Register kept the token")
	}
	bg := context.Background()
	if resp := post(bg, t, old.URL, old.Token, toolsListBody, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("old token: %d, want 401", resp.StatusCode)
	}
	result(t, post(bg, t, cur.URL, cur.Token, toolsListBody, nil), 2)
	if got := b.Sessions(); !slices.Equal(got, []string{"sess_a"}) {
		t.Errorf("Sessions = %v", got)
	}
}

func TestIdleTTL(t *testing.T) {
	const ttl = 300 * time.Millisecond
	b, logs := newBridge(t, ttl)
	f := newFixture(t)
	idle := register(t, b, f.binding("idle"))
	busy := register(t, b, f.binding("busy"))
	bg := context.Background()

	for range 8 {
		time.Sleep(ttl / 3)
		b.Touch("busy")
	}
	if resp := post(bg, t, idle.URL, idle.Token, toolsListBody, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("idle token after %s: %d, want 401", 8*ttl/3, resp.StatusCode)
	}
	result(t, post(bg, t, busy.URL, busy.Token, toolsListBody, nil), 2)
	if got := b.Sessions(); !slices.Equal(got, []string{"busy"}) {
		t.Errorf("Sessions = %v, want [busy]", got)
	}
	if b.ToolsListed("idle") != nil {
		t.Error("ToolsListed of an expired session is not nil")
	}
	// Requests keep a token alive too.
	for range 4 {
		time.Sleep(ttl / 3)
		result(t, post(bg, t, busy.URL, busy.Token, toolsListBody, nil), 2)
	}
	if !strings.Contains(logs.all(), "idle: token expired") {
		t.Errorf("no expiry log line in:\n%s", logs.all())
	}
}

func TestClose(t *testing.T) {
	l := &logs{}
	b := mcpbridge.New(mcpbridge.Options{Logf: l.logf})
	if err := b.Close(context.Background()); err != nil {
		t.Fatalf("Close before Register: %v", err)
	}
	b = mcpbridge.New(mcpbridge.Options{Logf: l.logf})
	f := newFixture(t)
	ep := register(t, b, f.binding("sess_a"))
	cs := connect(t, ep, nil)
	callDone := make(chan struct{})
	go func() {
		defer close(callDone)
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow_job"})
	}()
	wait(t, f.started, "slow_job to start")

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Close cancelled the in-flight call. (Its handler may return a moment
	// after: the registry answers a cancelled call without waiting for it;
	// the instance waits for the handlers with Registry.WaitIdle.)
	select {
	case err := <-f.cancelled:
		if err == nil || !strings.Contains(err.Error(), "revoked") {
			t.Errorf("slow_job ended with %v, want the revoked token as the cause", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("Close did not cancel the in-flight call")
	}
	wait(t, callDone, "CallTool to return")
	if got := b.Sessions(); len(got) != 0 {
		t.Errorf("Sessions after Close = %v", got)
	}
	if _, err := b.Register(context.Background(), f.binding("sess_b")); !mcpbridge.IsClosed(err) {
		t.Errorf("Register after Close: %v, want ErrClosed", err)
	}
	req, _ := http.NewRequest(http.MethodPost, ep.URL, strings.NewReader(toolsListBody))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Errorf("POST after Close answered %d, want a refused connection", resp.StatusCode)
	}
}

// BenchmarkBridgeCall: one read-only tool call through the go-sdk client.
func BenchmarkBridgeCall(b *testing.B) {
	br, _ := newBridge(b, 0)
	f := newFixture(b)
	cs := connect(b, register(b, br, f.binding("sess_a")), nil)
	params := &mcp.CallToolParams{Name: "read_note", Arguments: map[string]any{"name": "x"}}
	ctx := context.Background()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("CallTool: %v %+v", err, res)
		}
	}
}
