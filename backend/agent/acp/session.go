package acp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/meith-dev/meith/backend/internal/buildinfo"
)

// Defaults of Spec and MCPServer.
const (
	defaultStartTimeout       = 60 * time.Second
	defaultToolsListedTimeout = 20 * time.Second
	cancelGrace               = 5 * time.Second
	// errTailMax bounds the stderr tail quoted in error messages.
	errTailMax = 4 << 10
)

// session is the implementation behind Session.
type session struct {
	spec    Spec
	proc    *proc
	conn    *sdk.ClientSideConnection
	logf    func(format string, args ...any)
	sid     sdk.SessionId
	name    string // agentInfo.name
	version string // agentInfo.version
	display string // agentInfo.title, name, or the command's base name
	httpMCP bool

	// inbound is the context the connection hands its notification
	// handlers (set at the first session/update); the SDK cancels it once
	// the notifications read before a disconnect are all handled.
	inbound atomic.Value // context.Context

	promptMu sync.Mutex // held by the running Prompt (TryLock)
	toolsOK  bool       // ToolsListed was seen; guarded by promptMu

	mu       sync.Mutex
	options  []ConfigOption
	boolOpts map[string]bool      // ids of boolean config options
	cur      *turn                // the running prompt's turn
	calls    map[string]*ToolCall // tool calls reported in the current turn

	closeOnce sync.Once
	closed    chan struct{}
}

// logWriter sends the SDK's log records to Logf.
type logWriter func(format string, args ...any)

func (w logWriter) Write(b []byte) (int, error) {
	w("acp connection: %s", strings.TrimSpace(string(b)))
	return len(b), nil
}

// launch spawns the agent, connects and initializes. When the process was
// started the session is returned even with an error, and the caller must
// close it.
func launch(ctx context.Context, spec Spec) (*session, error) {
	outer := spec.Logf
	if outer == nil {
		outer = func(string, ...any) {}
	}
	token := ""
	if spec.MCP != nil {
		token = spec.MCP.Token
	}
	redact := func(s string) string {
		if token == "" {
			return s
		}
		return strings.ReplaceAll(s, token, "[redacted]")
	}
	logf := func(format string, args ...any) { outer("%s", redact(fmt.Sprintf(format, args...))) }
	spec.Logf = logf

	p, err := startProcess(spec, redact)
	if err != nil {
		return nil, err
	}
	s := &session{
		spec:     spec,
		proc:     p,
		logf:     logf,
		display:  filepath.Base(spec.Command),
		boolOpts: map[string]bool{},
		calls:    map[string]*ToolCall{},
		closed:   make(chan struct{}),
	}
	s.conn = sdk.NewClientSideConnection(&client{s: s}, p.stdin, p.stdout)
	s.conn.SetLogger(slog.New(slog.NewTextHandler(logWriter(logf), &slog.HandlerOptions{Level: slog.LevelWarn})))

	init, err := s.conn.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		ClientCapabilities: sdk.ClientCapabilities{
			Fs:       sdk.FileSystemCapabilities{ReadTextFile: false, WriteTextFile: false},
			Terminal: false,
		},
		ClientInfo: &sdk.Implementation{Name: "meith", Version: buildinfo.Version},
	})
	if err != nil {
		return s, s.callErr(ctx, "initialize", err)
	}
	if info := init.AgentInfo; info != nil {
		s.name, s.version = info.Name, info.Version
		switch {
		case info.Title != nil && strings.TrimSpace(*info.Title) != "":
			s.display = strings.TrimSpace(*info.Title)
		case strings.TrimSpace(info.Name) != "":
			s.display = strings.TrimSpace(info.Name)
		}
	}
	s.httpMCP = init.AgentCapabilities.McpCapabilities.Http
	if init.ProtocolVersion != sdk.ProtocolVersionNumber {
		return s, fmt.Errorf("%w: %s speaks ACP protocol version %d, meith speaks %d",
			ErrProtocol, s.display, init.ProtocolVersion, sdk.ProtocolVersionNumber)
	}
	return s, nil
}

func start(ctx context.Context, spec Spec) (*Session, error) {
	timeout := spec.StartTimeout
	if timeout <= 0 {
		timeout = defaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	s, err := launch(ctx, spec)
	ok := false
	defer func() {
		if !ok && s != nil {
			_ = s.close()
		}
	}()
	if err != nil {
		return nil, err
	}
	if spec.MCP != nil && !s.httpMCP {
		return nil, fmt.Errorf("%w: %s does not advertise HTTP MCP servers, so it cannot use meith's tools; meith refuses to run it without them",
			ErrNoHTTPMCP, s.display)
	}
	if err := s.newSession(ctx, spec.MCP); err != nil {
		return nil, err
	}
	if err := s.applyConfig(ctx, spec.Model, spec.Reasoning); err != nil {
		s.logf("acp: %s: %v", s.display, err)
	}
	s.applyVerbosity(ctx)
	ok = true
	return &Session{impl: s}, nil
}

// newSession sends session/new with meith's MCP server (if any) and keeps
// the advertised config options.
func (s *session) newSession(ctx context.Context, server *MCPServer) error {
	cwd := s.spec.Cwd
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	servers := []sdk.McpServer{}
	if server != nil {
		servers = append(servers, sdk.McpServer{Http: &sdk.McpServerHttpInline{
			Type:    "http",
			Name:    server.Name,
			Url:     server.URL,
			Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer " + server.Token}},
		}})
	}
	resp, err := s.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: servers})
	if err != nil {
		return s.callErr(ctx, "session/new", err)
	}
	if resp.SessionId == "" {
		return fmt.Errorf("%w: %s answered session/new without a sessionId", ErrProtocol, s.display)
	}
	s.sid = resp.SessionId
	s.setOptions(resp.ConfigOptions)
	return nil
}

// callErr explains a failed request: the agent exited (ErrExited with the
// stderr tail), ctx ended, or the agent answered with an error.
func (s *session) callErr(ctx context.Context, what string, err error) error {
	exited := false
	select {
	case <-s.conn.Done():
		exited = true
	case <-s.proc.exited:
		exited = true
	case <-time.After(300 * time.Millisecond):
	}
	if exited {
		s.proc.waitExited(time.Second)
		status := "exited"
		if st := s.proc.exitStatus(); st != "" {
			status = "exited (" + st + ")"
		}
		return fmt.Errorf("%w: %s %s before answering %s%s", ErrExited, s.display, status, what, s.tailSuffix())
	}
	if ctx.Err() != nil {
		return fmt.Errorf("acp: %s did not answer %s in time: %w%s", s.display, what, ctx.Err(), s.tailSuffix())
	}
	var re *sdk.RequestError
	if errors.As(err, &re) {
		msg := re.Message
		if m, ok := re.Data.(map[string]any); ok {
			for _, k := range []string{"details", "error", "message"} {
				if d, ok := m[k].(string); ok && d != "" && d != msg {
					msg += ": " + d
					break
				}
			}
		}
		if re.Code == -32000 {
			return fmt.Errorf("acp: %s needs you to log in first (run it once in a terminal and sign in): %s", s.display, msg)
		}
		return fmt.Errorf("acp: %s answered %s with an error (code %d): %s", s.display, what, re.Code, msg)
	}
	return fmt.Errorf("acp: %s: %s: %w", s.display, what, err)
}

// tailSuffix is ": stderr: <tail>" (at most errTailMax bytes) or "".
func (s *session) tailSuffix() string {
	tail := s.proc.stderrTail()
	if tail == "" {
		return ""
	}
	if len(tail) > errTailMax {
		tail = tail[len(tail)-errTailMax:]
		if i := strings.IndexByte(tail, '\n'); i >= 0 {
			tail = tail[i+1:]
		}
	}
	return ": stderr: " + tail
}

func (s *session) setOptions(opts []sdk.SessionConfigOption) {
	mapped := mapConfigOptions(opts)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.options = mapped
	for _, o := range opts {
		if o.Boolean != nil {
			s.boolOpts[string(o.Boolean.Id)] = true
		}
	}
}

func (s *session) configOptions() []ConfigOption {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ConfigOption, len(s.options))
	for i, o := range s.options {
		o.Values = append([]ConfigValue(nil), o.Values...)
		out[i] = o
	}
	return out
}

func (s *session) setConfig(ctx context.Context, model, reasoning string) error {
	return s.applyConfig(ctx, model, reasoning)
}

// applyConfig sets the model and reasoning options; values the agent does
// not offer are skipped with a log line.
func (s *session) applyConfig(ctx context.Context, model, reasoning string) error {
	var errs []error
	if model != "" {
		errs = append(errs, s.applyOption(ctx, "model", model, "model"))
	}
	if reasoning != "" {
		errs = append(errs, s.applyOption(ctx, "reasoning", reasoning, reasoningKeys...))
	}
	return errors.Join(errs...)
}

// applyVerbosity sets text.verbosity (or verbosity) to low when offered.
func (s *session) applyVerbosity(ctx context.Context) {
	for _, o := range s.configOptions() {
		if o.ID != "text.verbosity" && o.ID != "verbosity" {
			continue
		}
		if _, ok := matchValue(o, "low"); ok && o.Current != "low" {
			if err := s.setOption(ctx, o, "low"); err != nil {
				s.logf("acp: %s: %v", s.display, err)
			}
		}
		return
	}
}

func (s *session) applyOption(ctx context.Context, label, want string, keys ...string) error {
	opt, ok := findOption(s.configOptions(), keys...)
	if !ok {
		s.logf("acp: %s advertises no %s option; %s %q is not applied", s.display, label, label, want)
		return nil
	}
	value, ok := matchValue(opt, want)
	if !ok {
		var offered []string
		for _, v := range opt.Values {
			offered = append(offered, v.Value)
		}
		s.logf("acp: %s has no %s %q (it offers %s); keeping %q", s.display, label, want, strings.Join(offered, ", "), opt.Current)
		return nil
	}
	if value == opt.Current {
		return nil
	}
	return s.setOption(ctx, opt, value)
}

// setOption sends session/set_config_option and records the result.
func (s *session) setOption(ctx context.Context, opt ConfigOption, value string) error {
	s.mu.Lock()
	isBool := s.boolOpts[opt.ID]
	s.mu.Unlock()
	req := sdk.SetSessionConfigOptionRequest{}
	if isBool {
		req.Boolean = &sdk.SetSessionConfigOptionBoolean{SessionId: s.sid, ConfigId: sdk.SessionConfigId(opt.ID), Type: "boolean", Value: value == "true"}
	} else {
		req.ValueId = &sdk.SetSessionConfigOptionValueId{SessionId: s.sid, ConfigId: sdk.SessionConfigId(opt.ID), Value: sdk.SessionConfigValueId(value)}
	}
	resp, err := s.conn.SetSessionConfigOption(ctx, req)
	if err != nil {
		return s.callErr(ctx, "session/set_config_option "+opt.ID, err)
	}
	if len(resp.ConfigOptions) > 0 {
		s.setOptions(resp.ConfigOptions)
		return nil
	}
	s.mu.Lock()
	for i := range s.options {
		if s.options[i].ID == opt.ID {
			s.options[i].Current = value
		}
	}
	s.mu.Unlock()
	return nil
}

func (s *session) agentInfo() (string, string) { return s.name, s.version }

func (s *session) pid() int { return s.proc.cmd.Process.Pid }

func (s *session) done() <-chan struct{} { return s.proc.exited }

func (s *session) close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.proc.close()
	})
	return nil
}

// exitedErr is the error of a prompt whose agent is gone.
// drained waits (at most max) after the agent's connection has ended until
// the updates it sent before the end are all handled, so that a turn the
// agent ended by exiting keeps everything it said.
func (s *session) drained(max time.Duration) {
	select {
	case <-s.conn.Done():
	default:
		return
	}
	ctx, _ := s.inbound.Load().(context.Context)
	if ctx == nil {
		return
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (s *session) exitedErr(what string) error {
	s.proc.waitExited(time.Second)
	status := "exited"
	if st := s.proc.exitStatus(); st != "" {
		status = "exited (" + st + ")"
	}
	select {
	case <-s.closed:
		status = "was closed"
	default:
	}
	return fmt.Errorf("%w: %s %s %s%s", ErrExited, s.display, status, what, s.tailSuffix())
}

// client answers the agent's requests and notifications.
type client struct{ s *session }

var _ sdk.Client = (*client)(nil)

func (c *client) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	s := c.s
	s.inbound.CompareAndSwap(nil, ctx)
	if cu := n.Update.ConfigOptionUpdate; cu != nil {
		s.setOptions(cu.ConfigOptions)
		return nil
	}
	u, ok := mapUpdate(n.Update)
	if !ok {
		return nil
	}
	s.mu.Lock()
	switch u.Kind {
	case UpdateToolCall:
		known := *u.ToolCall
		s.calls[known.ID] = &known
	case UpdateToolCallUpdate:
		if known := s.calls[u.ToolCall.ID]; known != nil {
			mergeToolCall(known, u.ToolCall)
		}
	}
	t := s.cur
	s.mu.Unlock()
	if t == nil {
		s.logf("acp: %s sent a %s update outside a prompt; dropped", s.display, u.Kind)
		return nil
	}
	t.push(u)
	return nil
}

// mergeToolCall applies the fields an update reports to known.
func mergeToolCall(known, u *ToolCall) {
	if u.Title != "" {
		known.Title = u.Title
	}
	if u.Kind != "" {
		known.Kind = u.Kind
	}
	if u.Status != "" {
		known.Status = u.Status
	}
	if u.Name != "" && u.Name != u.Title {
		known.Name = u.Name
	}
	if len(u.RawInput) > 0 {
		known.RawInput = u.RawInput
	}
	if u.Output != "" {
		known.Output = u.Output
	}
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	s := c.s
	s.mu.Lock()
	var known *ToolCall
	if k := s.calls[string(p.ToolCall.ToolCallId)]; k != nil {
		cp := *k
		known = &cp
	}
	t := s.cur
	s.mu.Unlock()
	req := mapPermission(p, known)
	cancelled := sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var turnCancelled <-chan struct{}
	if t != nil {
		turnCancelled = t.cancelled
	}
	go func() {
		select {
		case <-turnCancelled:
		case <-s.closed:
		case <-ctx.Done():
		}
		cancel()
	}()

	decision := PermissionDecision{Allow: false}
	if s.spec.Permission != nil {
		ch := make(chan PermissionDecision, 1)
		go func() { ch <- s.spec.Permission(ctx, req) }()
		select {
		case decision = <-ch:
		case <-ctx.Done():
		}
	}
	if ctx.Err() != nil {
		return cancelled, nil
	}
	id, ok := chooseOption(p.Options, decision)
	if !ok {
		s.logf("acp: %s offered no option for allow=%v on %q; answering cancelled", s.display, decision.Allow, req.ToolCall.Title)
		return cancelled, nil
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(id)}, nil
}

// meith advertises neither fs nor terminal: those requests are refused.

func (c *client) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (c *client) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}

// cwdOrDot is the directory Probe runs in.
func cwdOrDot(cwd string) string {
	if cwd != "" {
		return cwd
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}
