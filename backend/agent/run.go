package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/agent/acp"
	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// run is a session's run in progress. Its fields are guarded by
// Service.mu, except ctx, cancel and done.
type run struct {
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	emit   func(protocol.Event) // the agent_send_message call's stream (never nil)
	origin protocol.ClientInfo  // who started the run (bounds a cli or plugin run's permissions)

	msg     *Message // the assistant message being written
	textBuf *Part    // text applied to msg but not yet persisted
	// meithCalls are the ACP ids of the agent's reports of meith tool
	// calls: those calls are recorded by callTool, their reports dropped.
	meithCalls map[string]bool
	// A meith tool call arrives over MCP while the text the agent wrote
	// before it may still be on its way over ACP; the agent's report of the
	// call (ACP, in order with the text) says where it goes. unplaced are
	// calls waiting for their report, reports are reports (tool names)
	// waiting for their call.
	unplaced  []placement
	reports   []string
	lastFlush time.Time
	usage     *Usage
}

// placement is a meith tool call whose part is not in the message yet.
type placement struct {
	id, name string
}

// placeGrace is how long a meith tool call that ended waits for the
// agent's report of it before its part is put at the end of the text.
const placeGrace = 2 * time.Second

// SendInput is one user message to a session; an empty SessionID creates a
// session in Cwd (and SpaceID).
type SendInput struct {
	SessionID   string
	Text        string
	Attachments []Attachment
	SpaceID     string
	Cwd         string
	// Origin is who asked for the run. A run started by a cli or plugin
	// session acts with at most what that session holds (see
	// permission.Service.Holds); renderer and internal origins (and none)
	// are not bounded.
	Origin protocol.ClientInfo
}

// SendResult is how a run ended.
type SendResult struct {
	SessionID  string `json:"sessionId"`
	MessageID  string `json:"messageId"`
	Status     string `json:"status"` // done | cancelled | error
	StopReason string `json:"stopReason,omitempty"`
	Text       string `json:"text"`
	ToolCalls  int    `json:"toolCalls"`
	Usage      *Usage `json:"usage,omitempty"`
	// Error is why a run failed (Status error).
	Error *ErrorInfo `json:"error,omitempty"`
}

// Send runs one user message: it appends it, takes the pre-run checkpoint,
// starts (or reuses) the session's agent, prompts it and streams the run
// into the transcript until the turn ends. emit receives partial_text (the
// answer) and progress events. Cancelling ctx cancels the run, like
// [Service.Cancel]. A failed run is not an error: the result's Status says
// so and the transcript keeps the error.
func (s *Service) Send(ctx context.Context, in SendInput, emit func(protocol.Event)) (SendResult, error) {
	if emit == nil {
		emit = func(protocol.Event) {}
	}
	text := strings.TrimSpace(in.Text)
	if text == "" && len(in.Attachments) == 0 {
		return SendResult{}, protocol.Errorf(protocol.CodeValidation, "The message is empty.")
	}
	label, cmd, args, err := s.Config().Resolve()
	if err != nil {
		return SendResult{}, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
	}
	var sess Session
	if in.SessionID == "" {
		sess, err = s.Create(CreateInput{Cwd: in.Cwd, SpaceID: in.SpaceID})
	} else {
		sess, err = s.Session(in.SessionID)
	}
	if err != nil {
		return SendResult{}, err
	}
	for _, a := range in.Attachments {
		if err := checkAttachment(sess.Cwd, a); err != nil {
			return SendResult{}, err
		}
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return SendResult{}, protocol.Errorf(protocol.CodeRuntimeShuttingDown, "The runtime is shutting down.")
	}
	l := s.liveLocked(sess.ID)
	if l.run != nil {
		s.mu.Unlock()
		return SendResult{}, protocol.Errorf(protocol.CodeToolFailed, "Agent session is already running: %s", sess.ID)
	}
	rctx, cancel := context.WithCancel(s.ctx)
	r := &run{ctx: rctx, cancel: cancel, done: make(chan struct{}), emit: emit, origin: in.Origin}
	l.run = r
	s.runs.Add(1)
	s.mu.Unlock()
	stopTie := context.AfterFunc(ctx, cancel) // the caller's cancel cancels the run
	defer stopTie()

	res, err := s.execute(r, l, sess, text, in.Attachments, label, cmd, args)

	s.mu.Lock()
	l.run = nil
	l.lastUsed = time.Now()
	s.mu.Unlock()
	cancel()
	close(r.done)
	s.runs.Done()
	s.changed(sess.ID, ChangeSessions)
	s.changed(sess.ID, ChangeTranscript)
	return res, err
}

// checkAttachment accepts only files staged for the session's folder.
func checkAttachment(cwd string, a Attachment) error {
	dir := filepath.Join(cwd, AttachmentsDir) + string(filepath.Separator)
	p := filepath.Clean(a.Path)
	if !strings.HasPrefix(p, dir) {
		return protocol.Errorf(protocol.CodeValidation, "Attachment %s is not in %s: stage files with agent_stage_attachment.", a.Path, dir)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		return protocol.Errorf(protocol.CodeValidation, "Attachment %s does not exist.", a.Path)
	}
	return nil
}

// execute is the run itself, after the session was marked as running.
func (s *Service) execute(r *run, l *liveSession, sess Session, text string, atts []Attachment, label, cmd string, args []string) (SendResult, error) {
	now := time.Now().UnixMilli()
	user := Message{ID: protocol.NewID("msg"), Role: RoleUser, CreatedAt: now, Parts: []Part{{Type: PartText, Text: text}},
		ToolCalls: []ToolCall{}, Attachments: atts}
	if err := s.store.appendMessage(sess.ID, user); err != nil {
		return SendResult{}, fmt.Errorf("agent: save the message: %w", err)
	}
	if sess.Title == DefaultTitle && text != "" {
		first, _, _ := strings.Cut(text, "\n") // the first line says what it is about
		sess.Title = autoTitle(first)
	}
	sess.Status, sess.UpdatedAt, sess.LastError = StatusRunning, now, ""
	if err := s.store.putSession(sess); err != nil {
		return SendResult{}, fmt.Errorf("agent: save the session: %w", err)
	}
	s.changed(sess.ID, ChangeSessions)
	s.changed(sess.ID, ChangeTranscript)

	s.checkpoint(r, sess)

	asst := &Message{ID: protocol.NewID("msg"), Role: RoleAssistant, CreatedAt: time.Now().UnixMilli(),
		Parts: []Part{}, ToolCalls: []ToolCall{}, Status: MessageStreaming}
	s.mu.Lock()
	r.msg = asst
	r.lastFlush = time.Now()
	err := s.store.appendMessage(sess.ID, cloneMessage(*asst))
	s.mu.Unlock()
	if err != nil {
		return SendResult{}, fmt.Errorf("agent: save the message: %w", err)
	}

	stop, runErr := s.prompt(r, l, sess, user, label, cmd, args)
	return s.finish(r, sess, stop, runErr), nil
}

// checkpoint takes the pre-run checkpoint as caller internal, unless the
// setting is off; a failure (not a git repository…) is only logged.
func (s *Service) checkpoint(r *run, sess Session) {
	if !s.opts.Settings().Git.CheckpointBeforeAgentRun {
		return
	}
	if _, ok := s.opts.Registry.Describe("git_checkpoint_create"); !ok {
		return
	}
	r.emit(protocol.Progress("taking a checkpoint before the run…", -1))
	args, _ := json.Marshal(map[string]string{
		"cwd": sess.Cwd, "label": "Before agent run: " + sess.Title, "source": "agent-run", "sessionId": sess.ID,
	})
	res := s.opts.Registry.Call(r.ctx, registry.Request{ToolName: "git_checkpoint_create", Args: args,
		Client: protocol.ClientInfo{Caller: protocol.CallerInternal, SessionID: sess.ID, Cwd: sess.Cwd}})
	if !res.OK && res.Error != nil {
		level := protocol.LevelWarn
		if strings.HasPrefix(res.Error.Message, "Not inside a git repository") {
			level = protocol.LevelDebug // nothing to checkpoint
		}
		s.opts.Logf(level, "failed to create pre-run checkpoint for %s: %s: %s", sess.ID, res.Error.Code, res.Error.Message)
	}
}

// prompt starts or reuses the agent and runs the turn.
func (s *Service) prompt(r *run, l *liveSession, sess Session, user Message, label, cmd string, args []string) (string, error) {
	proc, err := s.ensureAgent(r, l, sess, label, cmd, args)
	if err != nil {
		return "", err
	}
	pc := s.opts.Surroundings.gather(r.ctx, sess.Cwd, deref(sess.SpaceID))
	pc.Cwd, pc.AutoAccept = sess.Cwd, sess.AutoAccept
	pc.Instructions = findInstructionFiles(pc.RepoRoot, sess.Cwd)
	system := buildSystemPrompt(s.agentTools(), pc)
	var history []Message
	if tr, err := s.store.transcript(sess.ID, readLimits{}); err == nil {
		for _, m := range tr.Messages {
			if m.ID == user.ID || m.ID == r.msg.ID {
				continue
			}
			history = append(history, m)
		}
	}
	request := user.Text()
	if len(user.Attachments) > 0 {
		var b strings.Builder
		b.WriteString(request)
		b.WriteString("\n\nAttached files (read them from disk):\n")
		for _, a := range user.Attachments {
			fmt.Fprintf(&b, "- %s (%d bytes)\n", a.Path, a.Size)
		}
		request = b.String()
	}
	r.emit(protocol.Progress(label+" is working…", -1))
	return proc.Prompt(r.ctx, formatPrompt(system, history, request), func(u acp.Update) { s.onUpdate(r, sess.ID, u) })
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// ensureAgent returns the session's agent process, starting it (with a
// fresh MCP token) when there is none, it exited, or the command changed.
func (s *Service) ensureAgent(r *run, l *liveSession, sess Session, label, cmd string, args []string) (*acp.Session, error) {
	key := commandKey(cmd, args) + "\x00" + sess.Cwd
	s.mu.Lock()
	proc, pkey := l.proc, l.procKey
	s.mu.Unlock()
	if proc != nil {
		select {
		case <-proc.Done():
			proc = nil
		default:
			// A changed command, or a token the bridge let expire (idle
			// past its TTL): a fresh agent with a fresh token.
			if pkey != key || !slices.Contains(s.opts.Bridge.Sessions(), sess.ID) {
				_ = proc.Close()
				proc = nil
			}
		}
	}
	if proc != nil {
		s.opts.Bridge.Touch(sess.ID)
		return proc, nil
	}
	id := sess.ID
	ep, err := s.opts.Bridge.Register(r.ctx, mcpbridge.Binding{
		SessionID: id,
		List:      s.agentTools,
		Call: func(ctx context.Context, name string, args json.RawMessage, emit func(protocol.Event)) protocol.ToolResult {
			return s.callTool(ctx, id, name, args, emit)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("start meith's MCP server for the agent: %w", err)
	}
	r.emit(protocol.Progress("starting "+label+"…", -1))
	proc, err = acp.Start(r.ctx, acp.Spec{
		Command: cmd, Args: args, Cwd: sess.Cwd, Env: s.opts.Env,
		MCP:   &acp.MCPServer{Name: "meith", URL: ep.URL, Token: ep.Token, ToolsListed: s.opts.Bridge.ToolsListed(id)},
		Model: sess.Model, Reasoning: sess.Reasoning,
		Permission: func(ctx context.Context, req acp.PermissionRequest) acp.PermissionDecision {
			return s.agentPermission(ctx, id, req)
		},
		Logf: func(format string, a ...any) {
			s.opts.Logf(protocol.LevelDebug, "agent %s: "+format, append([]any{id}, a...)...)
		},
		StartTimeout: s.opts.StartTimeout,
	})
	if err != nil {
		s.opts.Bridge.Unregister(id)
		if p, ok := PresetByID(sess.Adapter); ok && p.InstallHint != "" {
			err = fmt.Errorf("%w (%s)", err, p.InstallHint)
		}
		return nil, err
	}
	opts := proc.ConfigOptions()
	s.mu.Lock()
	l.proc, l.procKey, l.options = proc, key, opts
	if len(opts) > 0 {
		s.options[commandKey(cmd, args)] = opts
	}
	s.mu.Unlock()
	return proc, nil
}

// agentHidden are the tools an agent may not see or call: they would let it
// answer its own permission requests, give itself Full access or change
// which agent runs.
var agentHidden = []string{"agent_decide_permission", "agent_update_session", "agent_set_config", "agent_delete_session"}

// agentTools is the catalog an agent sees.
func (s *Service) agentTools() []protocol.ToolDescriptor {
	all := s.opts.Registry.List()
	return slices.DeleteFunc(all, func(d protocol.ToolDescriptor) bool { return slices.Contains(agentHidden, d.Name) })
}

// callTool is the MCP bridge's call: meith's tool as caller agent with the
// session id, through the registry and so through the approval gate. It is
// recorded in the transcript and cancelled with the run.
func (s *Service) callTool(ctx context.Context, sessionID, name string, args json.RawMessage, emit func(protocol.Event)) protocol.ToolResult {
	if slices.Contains(agentHidden, name) {
		return protocol.ErrorResult(protocol.CodePermissionDenied, fmt.Sprintf("Agents cannot call %q.", name), nil)
	}
	s.mu.Lock()
	var r *run
	if l := s.live[sessionID]; l != nil {
		r = l.run
	}
	s.mu.Unlock()
	if r == nil {
		return protocol.ErrorResult(protocol.CodePermissionDenied,
			"The agent session has no run in progress: meith's tools can only be called while a request of the user runs.", nil)
	}
	sess, ok := s.store.session(sessionID)
	if !ok {
		return protocol.ErrorResult(protocol.CodePermissionDenied, "The agent session was deleted.", nil)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(r.ctx, cancel)
	defer stop()

	id := protocol.NewID("call")
	tc := ToolCall{ID: id, Name: name, Source: SourceMeith, Args: boundJSON(args, maxArgsBytes), Status: ToolRunning,
		StartedAt: time.Now().UnixMilli()}
	if d, ok := s.opts.Registry.Describe(name); ok {
		tc.Capabilities = d.Capabilities
	}
	s.mu.Lock()
	reported := false
	if i := slices.Index(r.reports, name); i >= 0 {
		r.reports = slices.Delete(r.reports, i, i+1)
		reported = true // the text before it is in already
	} else {
		r.unplaced = append(r.unplaced, placement{id: id, name: name})
	}
	s.mu.Unlock()
	s.record(r, sessionID, Patch{ToolCall: &tc, Unplaced: !reported})
	// An agent that does not report the call: its part goes after the text
	// so far, a moment after the call (the report may still be in flight).
	defer time.AfterFunc(placeGrace, func() { s.place(r, sessionID, id) })
	r.emit(protocol.Progress("calling "+name+"…", -1))
	fwd := func(ev protocol.Event) {
		if emit != nil {
			emit(ev)
		}
	}
	res := s.opts.Registry.Call(ctx, registry.Request{RequestID: id, ToolName: name, Args: args,
		Client: protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: sessionID, Cwd: sess.Cwd, SpaceID: deref(sess.SpaceID)},
		Emit:   fwd})
	s.mu.Lock()
	cur := tc
	if r.msg != nil {
		if p := r.msg.ToolCall(id); p != nil {
			cur = *p
		}
	}
	s.mu.Unlock()
	cur.EndedAt = time.Now().UnixMilli()
	cur.Result = boundResult(res)
	switch {
	case res.OK:
		cur.Status = ToolCompleted
	case res.Error != nil && res.Error.Code == protocol.CodePermissionDenied:
		cur.Status = ToolDenied
	case res.Error != nil && res.Error.Code == protocol.CodeCancelled:
		cur.Status = ToolCancelled
	default:
		cur.Status = ToolFailed
	}
	s.putToolCall(r, sessionID, cur)
	return res
}

// putToolCall records a tool call in the run's message and the transcript.
func (s *Service) putToolCall(r *run, sessionID string, tc ToolCall) {
	s.record(r, sessionID, Patch{ToolCall: &tc})
}

// place puts a meith tool call's part at the end of the message, if it is
// not placed yet.
func (s *Service) place(r *run, sessionID, id string) {
	s.mu.Lock()
	i := slices.IndexFunc(r.unplaced, func(p placement) bool { return p.id == id })
	if i >= 0 {
		r.unplaced = slices.Delete(r.unplaced, i, i+1)
	}
	s.mu.Unlock()
	if i >= 0 {
		s.record(r, sessionID, Patch{Place: id})
	}
}

// record applies a patch to the run's message and persists it (after the
// buffered text, so the file keeps the order).
func (s *Service) record(r *run, sessionID string, p Patch) {
	s.mu.Lock()
	if r.msg == nil {
		s.mu.Unlock()
		return
	}
	s.flushTextLocked(r, sessionID)
	p.MessageID = r.msg.ID
	p.Apply(r.msg)
	err := s.store.appendPatch(sessionID, p)
	s.mu.Unlock()
	if err != nil {
		s.opts.Logf(protocol.LevelWarn, "save the transcript of %s: %v", sessionID, err)
	}
	s.changed(sessionID, ChangeTranscript)
}

// flushTextLocked persists buffered text.
func (s *Service) flushTextLocked(r *run, sessionID string) {
	if r.textBuf == nil || r.msg == nil {
		return
	}
	p := Patch{MessageID: r.msg.ID, AppendText: r.textBuf}
	r.textBuf = nil
	r.lastFlush = time.Now()
	if err := s.store.appendPatch(sessionID, p); err != nil {
		s.opts.Logf(protocol.LevelWarn, "save the text of %s: %v", sessionID, err)
	}
}

// finish ends the run: buffered text is saved, unfinished tool calls are
// closed, and the message and session get their final status.
func (s *Service) finish(r *run, sess Session, stop string, runErr error) SendResult {
	cancelled := errors.Is(runErr, context.Canceled) || stop == acp.StopCancelled || r.ctx.Err() != nil
	status, msgStatus := StatusIdle, MessageDone
	var info *ErrorInfo
	switch {
	case cancelled:
		status, msgStatus = StatusCancelled, MessageCancelled
	case runErr != nil:
		status, msgStatus = StatusError, MessageError
		info = &ErrorInfo{Code: protocol.CodeToolFailed, Message: runErr.Error()}
		if te := (*protocol.ToolError)(nil); errors.As(runErr, &te) {
			info = &ErrorInfo{Code: te.Code, Message: te.Message}
		}
	}
	s.mu.Lock()
	left := slices.Clone(r.unplaced)
	s.mu.Unlock()
	for _, p := range left {
		s.place(r, sess.ID, p.id)
	}
	s.mu.Lock()
	s.flushTextLocked(r, sess.ID)
	var open []ToolCall
	for _, tc := range r.msg.ToolCalls {
		if tc.Status == ToolPending || tc.Status == ToolRunning || tc.Status == ToolAwaitingPermission {
			open = append(open, tc)
		}
	}
	s.mu.Unlock()
	for _, tc := range open {
		what := "cancelled"
		tc.Status = ToolCancelled
		if !cancelled {
			what, tc.Status = "ended", ToolFailed
		}
		tc.EndedAt = time.Now().UnixMilli()
		if tc.Source == SourceMeith {
			res := protocol.ErrorResult(protocol.CodeToolFailed, fmt.Sprintf("%s was %s before a result was received.", tc.Name, what), nil)
			tc.Result = &res
		}
		s.putToolCall(r, sess.ID, tc)
	}
	s.record(r, sess.ID, Patch{Status: msgStatus, StopReason: stop, Error: info})

	s.mu.Lock()
	msg := cloneMessage(*r.msg)
	usage := r.usage
	r.msg = nil
	s.mu.Unlock()
	if cur, ok := s.store.session(sess.ID); ok {
		sess = cur
	}
	sess.Status, sess.UpdatedAt = status, time.Now().UnixMilli()
	if info != nil {
		sess.LastError = info.Message
	}
	if usage != nil {
		sess.Usage = usage
	}
	if err := s.store.putSession(sess); err != nil {
		s.opts.Logf(protocol.LevelWarn, "save session %s: %v", sess.ID, err)
	}
	if info != nil {
		s.opts.Logf(protocol.LevelWarn, "agent run of %s failed: %s", sess.ID, info.Message)
	}
	return SendResult{SessionID: sess.ID, MessageID: msg.ID, Status: msgStatus, StopReason: stop, Text: msg.Text(),
		ToolCalls: len(msg.ToolCalls), Usage: usage, Error: info}
}

// Cancel cancels the session's run; false when none runs.
func (s *Service) Cancel(id string) (bool, error) {
	if _, err := s.Session(id); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l := s.live[id]; l != nil && l.run != nil {
		l.run.cancel()
		return true, nil
	}
	return false, nil
}

// Clip bounds of tool calls kept in transcripts.
const (
	maxArgsBytes   = 16 << 10
	maxResultBytes = 16 << 10
)

// boundJSON keeps raw when it is small valid JSON, else clips it (clipJSON:
// an object keeps its small fields, anything else becomes a JSON string
// saying what was left out).
func boundJSON(raw json.RawMessage, limit int) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	if len(raw) <= limit && json.Valid(raw) {
		return slices.Clone(raw)
	}
	return clipJSON(raw, limit)
}

// boundResult bounds a result's content for the transcript.
func boundResult(res protocol.ToolResult) *protocol.ToolResult {
	c := res
	c.Content = boundJSON(res.Content, maxResultBytes)
	c.Meta = nil
	return &c
}

// idleLoop ends the agent processes and MCP tokens of sessions idle for
// IdleTTL.
func (s *Service) idleLoop() {
	every := min(5*time.Minute, s.opts.IdleTTL/2)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.collectIdle(time.Now())
		}
	}
}

// collectIdle disposes of idle sessions' agents.
func (s *Service) collectIdle(now time.Time) {
	var procs []*acp.Session
	var ids []string
	s.mu.Lock()
	for id, l := range s.live {
		if l.run == nil && l.proc != nil && now.Sub(l.lastUsed) >= s.opts.IdleTTL {
			procs = append(procs, l.proc)
			ids = append(ids, id)
			l.proc = nil
		}
	}
	s.mu.Unlock()
	for i, p := range procs {
		_ = p.Close()
		s.opts.Bridge.Unregister(ids[i])
		s.opts.Logf(protocol.LevelInfo, "agent session %s was idle for %s: its agent process ended", ids[i], s.opts.IdleTTL)
	}
}
