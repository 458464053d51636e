// Command scriptagent is a scripted Agent Client Protocol agent for tests.
// It speaks real ACP over stdio (coder/acp-go-sdk, agent side) and real MCP
// over streamable HTTP (modelcontextprotocol/go-sdk, client side) to the
// HTTP MCP servers it is given in session/new, so tests can drive meith's
// ACP client, MCP bridge and agent service end to end without a model.
//
// Build it with
//
//	go build -o scriptagent ./backend/agent/testdata/scriptagent
//
// # Flags
//
//	--no-http-mcp       advertise agentCapabilities.mcpCapabilities.http=false
//	--no-list           connect to the MCP servers in session/new but do not call
//	                    tools/list there (the `tools` and `call` directives list lazily)
//	--config-options    advertise session config options in session/new:
//	                    model (id and category "model": fast|smart, default fast),
//	                    thought_level (id and category "thought_level": low|high,
//	                    default low) and text.verbosity (low|medium|high, default medium)
//	--exit-on-start     write "scriptagent: told to exit" to stderr and exit 2 at once
//	--slow-init <dur>   wait this long (a Go duration) before answering initialize
//
// initialize answers agentInfo {name "scriptagent", version "1.0.0"}. Every
// http MCP server of session/new gets an MCP client session whose requests
// carry the server's headers (so "Authorization: Bearer <token>" reaches the
// server); a server that cannot be reached is reported on stderr and skipped.
// The process exits when stdin closes.
//
// # Script language
//
// A prompt's text blocks are joined. When the text has a line starting with
// "Current user request:", only what follows the last such line is used (the
// rest of that line, then the following lines), because meith sends its
// system prompt and the history before it. Each non-empty line of that text
// is one directive; a line that is not a directive is echoed back as message
// text. Every message output (say, echo and the directives that "say"
// something) after the first one in a turn starts with "\n", so the
// concatenated agent_message_chunk text of a turn is the outputs joined by
// newlines. Thoughts are joined the same way.
//
//	say <text>             stream <text> as 3 or more agent_message_chunk pieces, 5 ms apart
//	think <text>           stream <text> as agent_thought_chunk pieces
//	call <tool> <json>     tool_call {toolCallId "call_<n>", title "mcp__meith__<tool>",
//	                       kind (edit for names with write/edit/create/update/commit/set,
//	                       delete for delete/remove, execute for run/exec, fetch for
//	                       fetch/navigate, else read), status pending, rawInput <json>,
//	                       _meta.claudeCode.toolName "mcp__meith__<tool>"}; then the MCP
//	                       tools/call (arguments <json>, default {}); then tool_call_update
//	                       completed (failed on isError or an MCP error) with the result
//	                       text as content; then says "<tool>: ok" or "<tool>: <error text>"
//	ask <kind> <title>     session/request_permission for one of its own tools (toolCallId
//	                       "ask_<n>", the given ACP tool kind and title) with the options
//	                       allow_once, allow_always, reject_once, reject_always; then says
//	                       "permission <title>: allowed|denied|cancelled"
//	askmcp <server> <tool> a metadata-only MCP approval: session/request_permission with
//	                       _meta.is_mcp_tool_approval=true, title "<server>/<tool>" and
//	                       rawInput {server_name, tool_name}; says like ask
//	bench <tool> <n>       call the MCP tool n times one after another (arguments {}, no
//	                       tool_call reports) and say "bench <tool>: n=<n> median=<µs>us
//	                       p90=<µs>us errors=<k>" (the latency the agent sees, for bench/)
//	sleep <duration>       wait (a Go duration); session/cancel ends the turn at once
//	                       with stopReason cancelled
//	plan <a>|<b>|<c>       a plan update, every entry pending with priority medium
//	usage <in> <out>       usage_update {used in+out, size 200000, cost {amount
//	                       (3*in+15*out)/1e6, currency USD}}; the totals of a turn are
//	                       also returned as the session/prompt response's usage
//	tools                  say the comma-separated names of the MCP tools it listed
//	                       ("(none)" when there are none)
//	env <NAME>             say the value of the environment variable, or "unset"
//	argv                   say its os.Args joined by spaces
//	config                 say "model=<m> reasoning=<r>" (without --config-options: the
//	                       model is $ACP_MODEL or "default", the reasoning "default")
//	setconfig <id> <value> change a config option on the agent's side and send a
//	                       config_option_update notification with all options
//	cwd                    say its working directory
//	fail <message>         end session/prompt with a JSON-RPC internal error (-32603)
//	                       whose message is <message>
//	crash                  write "scriptagent: crash requested" to stderr and exit 3
//	stderr <text>          write <text> as a line to stderr
//
// The turn ends with stopReason end_turn, or cancelled when session/cancel
// arrived during it.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type options struct {
	noHTTPMCP     bool
	noList        bool
	configOptions bool
	exitOnStart   bool
	slowInit      time.Duration
}

func main() {
	var opts options
	flag.BoolVar(&opts.noHTTPMCP, "no-http-mcp", false, "advertise no HTTP MCP support")
	flag.BoolVar(&opts.noList, "no-list", false, "do not list MCP tools in session/new")
	flag.BoolVar(&opts.configOptions, "config-options", false, "advertise session config options")
	flag.BoolVar(&opts.exitOnStart, "exit-on-start", false, "exit 2 at once")
	flag.DurationVar(&opts.slowInit, "slow-init", 0, "delay before answering initialize")
	flag.Parse()
	if opts.exitOnStart {
		fmt.Fprintln(os.Stderr, "scriptagent: told to exit")
		os.Exit(2)
	}
	a := &agent{opts: opts, sessions: map[acp.SessionId]*session{}}
	conn := acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	a.conn = conn
	<-conn.Done()
	a.closeAll()
}

// agent implements acp.Agent.
type agent struct {
	opts options
	conn *acp.AgentSideConnection

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	nextID   int
}

// mcpServer is one MCP server the agent connected to.
type mcpServer struct {
	name   string
	cs     *mcp.ClientSession
	listed bool
	tools  []string
}

type session struct {
	id      acp.SessionId
	mu      sync.Mutex
	servers []*mcpServer
	config  map[string]string // config option id -> current value
	calls   int
}

var _ acp.Agent = (*agent)(nil)

func (a *agent) Initialize(ctx context.Context, _ acp.InitializeRequest) (acp.InitializeResponse, error) {
	if a.opts.slowInit > 0 {
		select {
		case <-time.After(a.opts.slowInit):
		case <-ctx.Done():
			return acp.InitializeResponse{}, ctx.Err()
		}
	}
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "scriptagent", Version: "1.0.0"},
		AgentCapabilities: acp.AgentCapabilities{
			McpCapabilities: acp.McpCapabilities{Http: !a.opts.noHTTPMCP},
		},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	a.nextID++
	id := acp.SessionId(fmt.Sprintf("script-%d", a.nextID))
	a.mu.Unlock()
	s := &session{id: id, config: map[string]string{}}
	if a.opts.configOptions {
		s.config["model"] = "fast"
		s.config["thought_level"] = "low"
		s.config["text.verbosity"] = "medium"
	}
	for _, srv := range p.McpServers {
		if srv.Http == nil {
			fmt.Fprintln(os.Stderr, "scriptagent: skipping a non-http MCP server")
			continue
		}
		ms, err := connectMCP(ctx, srv.Http)
		if err != nil {
			fmt.Fprintf(os.Stderr, "scriptagent: MCP server %q: %v\n", srv.Http.Name, err)
			continue
		}
		if !a.opts.noList {
			if err := ms.list(ctx); err != nil {
				fmt.Fprintf(os.Stderr, "scriptagent: MCP server %q: tools/list: %v\n", srv.Http.Name, err)
			}
		}
		s.servers = append(s.servers, ms)
	}
	a.mu.Lock()
	a.sessions[id] = s
	a.mu.Unlock()
	return acp.NewSessionResponse{SessionId: id, ConfigOptions: s.configOptions()}, nil
}

// headerTransport adds the MCP server's headers to every request.
type headerTransport struct {
	headers []acp.HttpHeader
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for _, h := range t.headers {
		req.Header.Set(h.Name, h.Value)
	}
	return http.DefaultTransport.RoundTrip(req)
}

func connectMCP(ctx context.Context, srv *acp.McpServerHttpInline) (*mcpServer, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "scriptagent", Version: "1.0.0"}, nil)
	transport := &mcp.StreamableClientTransport{
		Endpoint:             srv.Url,
		HTTPClient:           &http.Client{Transport: headerTransport{headers: srv.Headers}},
		DisableStandaloneSSE: true,
		MaxRetries:           -1,
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cs, err := client.Connect(cctx, transport, nil)
	if err != nil {
		return nil, err
	}
	return &mcpServer{name: srv.Name, cs: cs}, nil
}

func (m *mcpServer) list(ctx context.Context) error {
	var names []string
	for tool, err := range m.cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		names = append(names, tool.Name)
	}
	m.tools, m.listed = names, true
	return nil
}

func (s *session) configOptions() []acp.SessionConfigOption {
	if len(s.config) == 0 {
		return nil
	}
	sel := func(id, name string, category acp.SessionConfigOptionCategory, values ...string) acp.SessionConfigOption {
		var opts acp.SessionConfigSelectOptionsUngrouped
		for _, v := range values {
			opts = append(opts, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueId(v), Name: strings.ToUpper(v[:1]) + v[1:]})
		}
		o := &acp.SessionConfigOptionSelect{
			Id:           acp.SessionConfigId(id),
			Name:         name,
			CurrentValue: acp.SessionConfigValueId(s.config[id]),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: &opts},
			Type:         "select",
		}
		if category != "" {
			o.Category = &category
		}
		return acp.SessionConfigOption{Select: o}
	}
	return []acp.SessionConfigOption{
		sel("model", "Model", acp.SessionConfigOptionCategoryModel, "fast", "smart"),
		sel("thought_level", "Reasoning", acp.SessionConfigOptionCategoryThoughtLevel, "low", "high"),
		sel("text.verbosity", "Verbosity", "", "low", "medium", "high"),
	}
}

var configValues = map[string][]string{
	"model":          {"fast", "smart"},
	"thought_level":  {"low", "high"},
	"text.verbosity": {"low", "medium", "high"},
}

func (s *session) setConfig(id, value string) error {
	values, ok := configValues[id]
	if _, have := s.config[id]; !ok || !have {
		return acp.NewInvalidParams(map[string]any{"error": "unknown config option " + id})
	}
	for _, v := range values {
		if v == value {
			s.config[id] = value
			return nil
		}
	}
	return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("config option %s has no value %q", id, value)})
}

func (a *agent) session(id acp.SessionId) (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[id]
	if s == nil {
		return nil, acp.NewInvalidParams(map[string]any{"error": "unknown session " + string(id)})
	}
	return s, nil
}

func (a *agent) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return acp.SetSessionConfigOptionResponse{}, acp.NewInvalidParams(map[string]any{"error": "only select options exist"})
	}
	s, err := a.session(p.ValueId.SessionId)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.setConfig(string(p.ValueId.ConfigId), string(p.ValueId.Value)); err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *agent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[p.SessionId]
	delete(a.sessions, p.SessionId)
	a.mu.Unlock()
	if s != nil {
		s.close()
	}
	return acp.CloseSessionResponse{}, nil
}

// Cancel needs no work of its own: the SDK cancels the running Prompt's
// context on session/cancel.
func (a *agent) Cancel(context.Context, acp.CancelNotification) error { return nil }

func (s *session) close() {
	for _, m := range s.servers {
		_ = m.cs.Close()
	}
}

func (a *agent) closeAll() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, s := range a.sessions {
		s.close()
	}
}

// turn is one session/prompt being run.
type turn struct {
	a        *agent
	s        *session
	said     bool
	thought  bool
	usage    acp.Usage
	hasUsage bool
}

// errCancelled ends a turn with stopReason cancelled.
var errCancelled = errors.New("cancelled")

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	var text strings.Builder
	for _, b := range p.Prompt {
		if b.Text != nil {
			text.WriteString(b.Text.Text)
		}
	}
	t := &turn{a: a, s: s}
	for _, line := range strings.Split(requestText(text.String()), "\n") {
		line = strings.TrimRight(line, "\r \t")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		if err := t.run(ctx, line); err != nil {
			if errors.Is(err, errCancelled) || ctx.Err() != nil {
				return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
			}
			return acp.PromptResponse{}, err
		}
	}
	resp := acp.PromptResponse{StopReason: acp.StopReasonEndTurn}
	if t.hasUsage {
		u := t.usage
		resp.Usage = &u
	}
	return resp, nil
}

// requestText returns what follows the last "Current user request:" line,
// or all of text when there is none.
func requestText(text string) string {
	const marker = "Current user request:"
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		trimmed := strings.TrimSpace(lines[i])
		if strings.HasPrefix(trimmed, marker) {
			rest := strings.TrimSpace(strings.TrimPrefix(trimmed, marker))
			tail := lines[i+1:]
			if rest != "" {
				tail = append([]string{rest}, tail...)
			}
			return strings.Join(tail, "\n")
		}
	}
	return text
}

func (t *turn) update(u acp.SessionUpdate) {
	_ = t.a.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: t.s.id, Update: u})
}

// pieces splits text into at least 3 pieces (fewer only when it has fewer
// than 3 runes).
func pieces(text string) []string {
	r := []rune(text)
	n := 3
	if len(r) > 48 {
		n = len(r) / 16
	}
	if len(r) < n {
		n = len(r)
	}
	if n == 0 {
		return []string{""}
	}
	out := make([]string, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, string(r[i*len(r)/n:(i+1)*len(r)/n]))
	}
	return out
}

func (t *turn) say(text string) {
	if t.said {
		text = "\n" + text
	}
	t.said = true
	for i, p := range pieces(text) {
		if i > 0 {
			time.Sleep(5 * time.Millisecond)
		}
		t.update(acp.UpdateAgentMessageText(p))
	}
}

func (t *turn) think(text string) {
	if t.thought {
		text = "\n" + text
	}
	t.thought = true
	for i, p := range pieces(text) {
		if i > 0 {
			time.Sleep(5 * time.Millisecond)
		}
		t.update(acp.UpdateAgentThoughtText(p))
	}
}

func (t *turn) run(ctx context.Context, line string) error {
	word, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	arg = strings.TrimSpace(arg)
	switch word {
	case "say":
		t.say(arg)
	case "think":
		t.think(arg)
	case "bench":
		return t.bench(ctx, arg)
	case "call":
		return t.call(ctx, arg)
	case "ask":
		kind, title, _ := strings.Cut(arg, " ")
		return t.ask(ctx, acp.ToolKind(kind), strings.TrimSpace(title), nil, nil)
	case "askmcp":
		server, tool, _ := strings.Cut(arg, " ")
		tool = strings.TrimSpace(tool)
		return t.ask(ctx, acp.ToolKindOther, server+"/"+tool,
			map[string]any{"is_mcp_tool_approval": true},
			map[string]any{"server_name": server, "tool_name": tool})
	case "sleep":
		d, err := time.ParseDuration(arg)
		if err != nil {
			t.say("sleep: " + err.Error())
			return nil
		}
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return errCancelled
		}
	case "plan":
		var entries []acp.PlanEntry
		for _, e := range strings.Split(arg, "|") {
			entries = append(entries, acp.PlanEntry{Content: strings.TrimSpace(e), Status: acp.PlanEntryStatusPending, Priority: acp.PlanEntryPriorityMedium})
		}
		t.update(acp.UpdatePlan(entries...))
	case "usage":
		t.usageDirective(arg)
	case "tools":
		names, err := t.tools(ctx)
		if err != nil {
			t.say("tools: " + err.Error())
			return nil
		}
		if len(names) == 0 {
			t.say("(none)")
		} else {
			t.say(strings.Join(names, ","))
		}
	case "env":
		if v, ok := os.LookupEnv(arg); ok {
			t.say(v)
		} else {
			t.say("unset")
		}
	case "argv":
		t.say(strings.Join(os.Args, " "))
	case "config":
		t.s.mu.Lock()
		model, reasoning := t.s.config["model"], t.s.config["thought_level"]
		t.s.mu.Unlock()
		if model == "" {
			model = os.Getenv("ACP_MODEL")
			if model == "" {
				model = "default"
			}
		}
		if reasoning == "" {
			reasoning = "default"
		}
		t.say(fmt.Sprintf("model=%s reasoning=%s", model, reasoning))
	case "setconfig":
		id, value, _ := strings.Cut(arg, " ")
		t.s.mu.Lock()
		err := t.s.setConfig(id, strings.TrimSpace(value))
		opts := t.s.configOptions()
		t.s.mu.Unlock()
		if err != nil {
			t.say("setconfig: " + err.Error())
			return nil
		}
		t.update(acp.SessionUpdate{ConfigOptionUpdate: &acp.SessionConfigOptionUpdate{ConfigOptions: opts}})
	case "cwd":
		wd, err := os.Getwd()
		if err != nil {
			wd = "error: " + err.Error()
		}
		t.say(wd)
	case "fail":
		return &acp.RequestError{Code: -32603, Message: arg}
	case "crash":
		fmt.Fprintln(os.Stderr, "scriptagent: crash requested")
		os.Exit(3)
	case "stderr":
		fmt.Fprintln(os.Stderr, arg)
	default:
		t.say(line)
	}
	return nil
}

func (t *turn) usageDirective(arg string) {
	in, out, _ := strings.Cut(arg, " ")
	nIn, err1 := strconv.Atoi(strings.TrimSpace(in))
	nOut, err2 := strconv.Atoi(strings.TrimSpace(out))
	if err1 != nil || err2 != nil {
		t.say("usage: want two integers")
		return
	}
	t.update(acp.SessionUpdate{UsageUpdate: &acp.SessionUsageUpdate{
		Used: nIn + nOut,
		Size: 200000,
		Cost: &acp.Cost{Amount: float64(3*nIn+15*nOut) / 1e6, Currency: "USD"},
	}})
	t.usage.InputTokens += nIn
	t.usage.OutputTokens += nOut
	t.usage.TotalTokens += nIn + nOut
	t.hasUsage = true
}

func (t *turn) tools(ctx context.Context) ([]string, error) {
	var names []string
	for _, m := range t.s.servers {
		if !m.listed {
			if err := m.list(ctx); err != nil {
				return nil, err
			}
		}
		names = append(names, m.tools...)
	}
	return names, nil
}

func toolKind(tool string) acp.ToolKind {
	lower := strings.ToLower(tool)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(lower, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("delete", "remove"):
		return acp.ToolKindDelete
	case has("write", "edit", "create", "update", "commit", "set"):
		return acp.ToolKindEdit
	case has("run", "exec"):
		return acp.ToolKindExecute
	case has("fetch", "navigate"):
		return acp.ToolKindFetch
	}
	return acp.ToolKindRead
}

func (t *turn) call(ctx context.Context, arg string) error {
	tool, rawArgs, _ := strings.Cut(arg, " ")
	rawArgs = strings.TrimSpace(rawArgs)
	args := map[string]any{}
	if rawArgs != "" {
		if err := json.Unmarshal([]byte(rawArgs), &args); err != nil {
			t.say(tool + ": bad JSON arguments: " + err.Error())
			return nil
		}
	}
	t.s.mu.Lock()
	t.s.calls++
	id := acp.ToolCallId(fmt.Sprintf("call_%d", t.s.calls))
	t.s.mu.Unlock()
	title := "mcp__meith__" + tool
	t.update(acp.SessionUpdate{ToolCall: &acp.SessionUpdateToolCall{
		Meta:       map[string]any{"claudeCode": map[string]any{"toolName": title}},
		ToolCallId: id,
		Title:      title,
		Kind:       toolKind(tool),
		Status:     acp.ToolCallStatusPending,
		RawInput:   args,
	}})
	text, isError, err := t.callMCP(ctx, tool, args)
	if err != nil {
		if ctx.Err() != nil {
			t.update(acp.UpdateToolCall(id, acp.WithUpdateStatus(acp.ToolCallStatusFailed)))
			return errCancelled
		}
		text, isError = err.Error(), true
	}
	status := acp.ToolCallStatusCompleted
	if isError {
		status = acp.ToolCallStatusFailed
	}
	t.update(acp.UpdateToolCall(id,
		acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(text))}),
	))
	if isError {
		t.say(tool + ": " + text)
	} else {
		t.say(tool + ": ok")
	}
	return nil
}

// bench times n sequential MCP calls of tool.
func (t *turn) bench(ctx context.Context, arg string) error {
	tool, nStr, _ := strings.Cut(strings.TrimSpace(arg), " ")
	n, err := strconv.Atoi(strings.TrimSpace(nStr))
	if err != nil || n <= 0 || n > 1_000_000 {
		t.say("bench: want <tool> <n>")
		return nil
	}
	lat := make([]time.Duration, 0, n)
	errs := 0
	for range n {
		start := time.Now()
		_, isError, err := t.callMCP(ctx, tool, map[string]any{})
		lat = append(lat, time.Since(start))
		if ctx.Err() != nil {
			return errCancelled
		}
		if err != nil || isError {
			errs++
		}
	}
	slices.Sort(lat)
	t.say(fmt.Sprintf("bench %s: n=%d median=%dus p90=%dus errors=%d", tool, n,
		lat[n/2].Microseconds(), lat[n*9/10].Microseconds(), errs))
	return nil
}

func (t *turn) callMCP(ctx context.Context, tool string, args map[string]any) (text string, isError bool, err error) {
	if len(t.s.servers) == 0 {
		return "", false, errors.New("no MCP server is connected")
	}
	server := t.s.servers[0]
	for _, m := range t.s.servers {
		for _, name := range m.tools {
			if name == tool {
				server = m
			}
		}
	}
	res, err := server.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", false, err
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError, nil
}

func (t *turn) ask(ctx context.Context, kind acp.ToolKind, title string, meta, rawInput map[string]any) error {
	t.s.mu.Lock()
	t.s.calls++
	id := acp.ToolCallId(fmt.Sprintf("ask_%d", t.s.calls))
	t.s.mu.Unlock()
	req := acp.RequestPermissionRequest{
		SessionId: t.s.id,
		ToolCall: acp.ToolCallUpdate{
			Meta:       meta,
			ToolCallId: id,
			Title:      acp.Ptr(title),
			Kind:       acp.Ptr(kind),
			Status:     acp.Ptr(acp.ToolCallStatusPending),
		},
		Options: []acp.PermissionOption{
			{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: "allow-once"},
			{Kind: acp.PermissionOptionKindAllowAlways, Name: "Always allow", OptionId: "allow-always"},
			{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "reject-once"},
			{Kind: acp.PermissionOptionKindRejectAlways, Name: "Always reject", OptionId: "reject-always"},
		},
	}
	if meta != nil {
		req.Meta = meta
	}
	if rawInput != nil {
		req.ToolCall.RawInput = rawInput
	}
	resp, err := t.a.conn.RequestPermission(ctx, req)
	if err != nil {
		if ctx.Err() != nil {
			return errCancelled
		}
		t.say(fmt.Sprintf("permission %s: error %v", title, err))
		return nil
	}
	answer := "cancelled"
	if sel := resp.Outcome.Selected; sel != nil {
		switch sel.OptionId {
		case "allow-once", "allow-always":
			answer = "allowed"
		case "reject-once", "reject-always":
			answer = "denied"
		default:
			answer = "unknown option " + string(sel.OptionId)
		}
	}
	t.say(fmt.Sprintf("permission %s: %s", title, answer))
	return nil
}
