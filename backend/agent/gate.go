package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/agent/acp"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Decisions of a permission request.
const (
	DecisionAllow = "allow"
	DecisionDeny  = "deny"
)

// Gate is the agent approval gate, the permission service's AgentGate: an
// agent call of a privileged tool without a grant. It is settled by
// [Service.settle]; an allow writes a one-use grant for exactly this tool,
// which the permission service then spends on this call. How it decided
// goes to req.Record: the card's id (the tool call id), DecidedBy
// "agent-card" (or "agent-remembered", "full-access") and the decision.
func (s *Service) Gate(ctx context.Context, req registry.AuthRequest) error {
	sid, name := req.Client.SessionID, req.Tool.Name
	privileged := protocol.PrivilegedOf(req.Tool.Capabilities)
	gating, _ := permission.GatingCapability(privileged)
	v, origin := s.settle(ctx, sid, PermissionRequest{SessionID: sid, ToolCallID: req.RequestID, ToolName: name,
		Source: SourceMeith, Capability: gating, Args: req.Args}, privileged, nil, req.Record)
	switch v {
	case verdictAllow:
		s.opts.Permissions.Grant(permission.Grant{Caller: protocol.CallerAgent, SessionID: sid,
			Capabilities: req.Tool.Capabilities, ToolName: name, Uses: 1})
		return nil
	case verdictRemembered:
		return gateDeny(req, privileged, fmt.Sprintf("Tool %q was denied for this session.", name))
	case verdictNoRun:
		return gateDeny(req, privileged, fmt.Sprintf("Tool %q needs the user's approval, and the session has no run in progress.", name))
	case verdictUnknown:
		return gateDeny(req, privileged, fmt.Sprintf("Unknown agent session %s.", sid))
	case verdictBeyondOrigin:
		return &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: beyondOriginMessage(name, privileged, origin),
			Details: permission.DenyDetails{Reason: permission.ReasonNoGrant, ToolName: name, Caller: req.Client.Caller, Required: privileged}}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if v == verdictWithdrawn {
		return gateDeny(req, privileged, fmt.Sprintf("The agent run ended before %q was approved.", name))
	}
	return gateDeny(req, privileged, fmt.Sprintf("User denied %q.", name))
}

// verdict is how [Service.settle] decided.
type verdict int

const (
	verdictAllow        verdict = iota // Full access, a remembered allow, or the user allowed
	verdictDenied                      // the user denied
	verdictWithdrawn                   // the run ended (or the call was cancelled) while asking
	verdictRemembered                  // a remembered deny
	verdictNoRun                       // it would have to ask, but no run is in progress
	verdictUnknown                     // no such session
	verdictBeyondOrigin                // beyond what the run's cli/plugin origin holds, and nobody to ask
)

// beyondOriginMessage says why a call of a run started from the CLI (or a
// plugin) on a runtime without a window was denied, and how to grant it.
func beyondOriginMessage(tool string, caps []protocol.Capability, origin protocol.ClientInfo) string {
	need := protocol.JoinCapabilities(caps, ", ")
	how := fmt.Sprintf(`start the runtime with "meith serve --grant-cli %s", or run the agent from the meith app`,
		protocol.JoinCapabilities(caps, ","))
	if origin.Caller == protocol.CallerPlugin {
		how = "approve these capabilities for the plugin, or run the agent from the meith app"
	}
	return fmt.Sprintf("Tool %q needs %s permission. This agent run was started by a %s connection that does not hold it, and no meith window is open to ask: %s.",
		tool, need, origin.Caller, how)
}

// settle decides a privileged call of a session, meith's or the agent's
// own, that needs caps: Full access allows; a decision remembered for the
// tool in this session applies; otherwise, while a run is in progress, a
// permission card asks the user (a cancelled run answers deny). pr names the
// call; before, when not nil, runs before the card opens.
//
// A run started by a cli or plugin session acts with at most what that
// session holds (its origin, returned with the verdict): what the origin
// holds is allowed, the rest needs the user's answer on a card — Full
// access and remembered allows do not reach beyond the origin — and is
// denied at once when no window is open to ask (a headless runtime).
//
// rec (nil for the agent's own tools) gets how it was decided.
func (s *Service) settle(ctx context.Context, sid string, pr PermissionRequest, caps []protocol.Capability,
	before func(*run), rec *registry.AuthRecord) (verdict, protocol.ClientInfo) {
	sess, ok := s.store.session(sid)
	if !ok {
		rec.Decide(registry.AuthDeny, "")
		return verdictUnknown, protocol.ClientInfo{}
	}
	s.mu.Lock()
	l := s.liveLocked(sid)
	remembered, r := l.remembered[pr.ToolName], l.run
	s.mu.Unlock()
	var origin protocol.ClientInfo
	if r != nil {
		origin = r.origin
	}
	bounded := origin.Caller != "" && !origin.Caller.Trusted()
	switch {
	case bounded && s.opts.Permissions.Holds(origin.Caller, origin.SessionID, caps):
		rec.Decide(registry.AuthAllow, "")
		return verdictAllow, origin
	case remembered == DecisionDeny:
		rec.Decide(registry.AuthRefused, DecidedByRemembered)
		s.markDecision(r, sid, pr.ToolCallID, DecisionDeny, pr.Capability)
		return verdictRemembered, origin
	case bounded && !s.opts.Permissions.UserReachable():
		rec.Decide(registry.AuthDeny, "")
		s.markDecision(r, sid, pr.ToolCallID, DecisionDeny, pr.Capability)
		r.emit(protocol.Progress("denied: "+beyondOriginMessage(pr.ToolName, caps, origin), -1))
		return verdictBeyondOrigin, origin
	case bounded:
		// Only the user's answer on the card reaches beyond the origin.
	case sess.AutoAccept:
		rec.Decide(registry.AuthAllow, DecidedByFullAccess)
		return verdictAllow, origin
	case remembered == DecisionAllow:
		rec.Decide(registry.AuthApproved, DecidedByRemembered)
		return verdictAllow, origin
	case r == nil:
		rec.Decide(registry.AuthDeny, "")
		return verdictNoRun, origin
	}
	if before != nil {
		before(r)
	}
	if len(pr.Args) == 0 {
		pr.Args = json.RawMessage(`{}`)
	}
	pr.Args = boundJSON(pr.Args, maxArgsBytes)
	pr.Action = permission.ActionLabel(pr.Capability)
	pr.CreatedAt = time.Now().UnixMilli()
	rec.Ask(pr.ToolCallID, DecidedByCard)
	allow, answered := s.ask(ctx, r, l, pr)
	switch {
	case allow:
		rec.Decide(registry.AuthApproved, "")
		return verdictAllow, origin
	case answered:
		rec.Decide(registry.AuthRefused, "")
		return verdictDenied, origin
	}
	rec.Decide(registry.AuthCancelled, "")
	return verdictWithdrawn, origin
}

// Where the gate's answer came from, as [registry.Authorization]'s
// DecidedBy says it.
const (
	// DecidedByCard: the user answered the permission card now.
	DecidedByCard = "agent-card"
	// DecidedByRemembered: an answer on a card with "remember for this
	// tool in this session" ticked.
	DecidedByRemembered = "agent-remembered"
	// DecidedByFullAccess: the session's Full access (no card shown).
	DecidedByFullAccess = "full-access"
)

// gateDeny is the gate's PERMISSION_DENIED.
func gateDeny(req registry.AuthRequest, required []protocol.Capability, msg string) error {
	return &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: msg, Details: permission.DenyDetails{
		Reason: permission.ReasonUserDenied, ToolName: req.Tool.Name, Caller: req.Client.Caller, Required: required,
	}}
}

// ask opens a permission card and waits for the user's answer; a run
// cancelled meanwhile (or ctx ending) answers deny, with answered false.
func (s *Service) ask(ctx context.Context, r *run, l *liveSession, pr PermissionRequest) (allow, answered bool) {
	p := &pendingPermission{req: pr, ch: make(chan permissionAnswer, 1)}
	s.mu.Lock()
	l.pending[pr.ToolCallID] = p
	var tc *ToolCall
	if r.msg != nil {
		if c := r.msg.ToolCall(pr.ToolCallID); c != nil {
			cp := *c
			tc = &cp
		}
	}
	s.mu.Unlock()
	if tc != nil {
		tc.Status, tc.Capability = ToolAwaitingPermission, pr.Capability
		s.putToolCall(r, pr.SessionID, *tc)
	}
	s.changed(pr.SessionID, ChangePermission)
	r.emit(protocol.Progress(fmt.Sprintf("waiting for your approval in the meith app: %s wants to %s", pr.ToolName, pr.Action), -1))
	var a permissionAnswer
	select {
	case a = <-p.ch:
		answered = true
	case <-ctx.Done():
	case <-r.ctx.Done():
	}
	s.mu.Lock()
	delete(l.pending, pr.ToolCallID)
	if a.remember {
		d := DecisionDeny
		if a.allow {
			d = DecisionAllow
		}
		l.remembered[pr.ToolName] = d
	}
	s.mu.Unlock()
	d := DecisionDeny
	if a.allow {
		d = DecisionAllow
	}
	s.markDecision(r, pr.SessionID, pr.ToolCallID, d, pr.Capability)
	s.changed(pr.SessionID, ChangePermission)
	return a.allow, answered
}

// markDecision records the user's decision on the tool call.
func (s *Service) markDecision(r *run, sid, callID, decision string, gating protocol.Capability) {
	if r == nil {
		return
	}
	s.mu.Lock()
	var tc *ToolCall
	if r.msg != nil {
		if c := r.msg.ToolCall(callID); c != nil {
			cp := *c
			tc = &cp
		}
	}
	s.mu.Unlock()
	if tc == nil {
		return
	}
	tc.Decision, tc.Capability = decision, gating
	if decision == DecisionDeny {
		tc.Status = ToolDenied
	} else if tc.Status == ToolAwaitingPermission {
		tc.Status = ToolRunning
	}
	s.putToolCall(r, sid, *tc)
}

// Decide answers a pending permission request.
func (s *Service) Decide(sessionID, toolCallID, decision string, remember bool) error {
	if decision != DecisionAllow && decision != DecisionDeny {
		return protocol.Errorf(protocol.CodeValidation, "decision must be allow or deny")
	}
	s.mu.Lock()
	var p *pendingPermission
	if l := s.live[sessionID]; l != nil {
		p = l.pending[toolCallID]
	}
	s.mu.Unlock()
	if p == nil {
		return protocol.Errorf(protocol.CodeValidation,
			"No permission request %s is waiting in agent session %s (it was answered, or its run ended).", toolCallID, sessionID)
	}
	select {
	case p.ch <- permissionAnswer{allow: decision == DecisionAllow, remember: remember}:
	default: // already answered
	}
	return nil
}

// agentPermission is the policy for the agent's session/request_permission
// (reference §7.3, refined): a request about one of meith's tools is allowed
// (meith gates the call itself when it arrives over MCP), as is a
// metadata-only MCP approval; the agent's own web and browser tools are
// denied (browsing goes through meith's owned, audited tabs); any other tool
// of the agent's own (edit, execute…) is settled like meith's tools: the
// same card, Full access and remembered decisions.
func (s *Service) agentPermission(ctx context.Context, sid string, req acp.PermissionRequest) acp.PermissionDecision {
	switch {
	case req.MeithTool != "" || req.MCPApproval:
		return acp.PermissionDecision{Allow: true}
	case req.Web:
		s.opts.Logf(protocol.LevelInfo, "agent session %s: denied the agent's own web tool %q (agents browse through meith's tabs)",
			sid, cmp.Or(req.ToolCall.Name, req.ToolCall.Title))
		return acp.PermissionDecision{Allow: false}
	}
	u := req.ToolCall
	u.ID = cmp.Or(u.ID, protocol.NewID("call"))
	pr := PermissionRequest{SessionID: sid, ToolCallID: u.ID, ToolName: cmp.Or(u.Name, u.Title, u.Kind, "tool"),
		Title: u.Title, Source: SourceAgent, Capability: agentToolCapability(u.Kind), Args: u.RawInput}
	// The card sits on the agent's tool call, which may not be reported yet.
	placeCall := func(r *run) {
		s.mu.Lock()
		known := r.msg != nil && r.msg.ToolCall(u.ID) != nil
		s.mu.Unlock()
		if !known {
			var tc ToolCall
			mergeAgentToolCall(&tc, u)
			s.putToolCall(r, sid, tc)
		}
	}
	v, _ := s.settle(ctx, sid, pr, []protocol.Capability{pr.Capability}, placeCall, nil)
	return acp.PermissionDecision{Allow: v == verdictAllow}
}

// agentToolCapability maps an ACP tool kind to the capability its card
// names.
func agentToolCapability(kind string) protocol.Capability {
	switch kind {
	case "delete":
		return protocol.CapDestructive
	case "execute":
		return protocol.CapStartsProcess
	case "fetch":
		return protocol.CapAccessesNetwork
	case "read", "search", "think":
		return protocol.CapReadOnly
	default: // edit, move, switch_mode, other
		return protocol.CapWritesFiles
	}
}

// CompleteInput is a one-shot completion.
type CompleteInput struct {
	Prompt       string
	SystemPrompt string
	MaxChars     int
}

// Complete runs a one-shot session of the configured agent with no tool
// access (no MCP server; every permission request of the agent is denied)
// and returns its answer, cut at MaxChars. Nothing is persisted.
func (s *Service) Complete(ctx context.Context, in CompleteInput) (text string, truncated bool, err error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return "", false, protocol.Errorf(protocol.CodeValidation, "The prompt is empty.")
	}
	if in.MaxChars <= 0 {
		in.MaxChars = 2000
	}
	cfg := s.Config()
	_, cmd, args, err := cfg.Resolve()
	if err != nil {
		return "", false, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
	}
	home, _ := os.UserHomeDir()
	if home == "" {
		home = os.TempDir()
	}
	proc, err := acp.Start(ctx, acp.Spec{
		Command: cmd, Args: args, Cwd: home, Env: s.opts.Env, Model: cfg.Model, Reasoning: cfg.Reasoning,
		Permission:   func(context.Context, acp.PermissionRequest) acp.PermissionDecision { return acp.PermissionDecision{} },
		Logf:         func(format string, a ...any) { s.opts.Logf(protocol.LevelDebug, "ai.complete: "+format, a...) },
		StartTimeout: s.opts.StartTimeout,
	})
	if err != nil {
		return "", false, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
	}
	defer proc.Close()
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var b strings.Builder
	full := in.Prompt
	if sp := strings.TrimSpace(in.SystemPrompt); sp != "" {
		full = sp + "\n\n" + in.Prompt
	}
	full = "You have no tools in this conversation: answer with text only.\n\n" + full
	_, err = proc.Prompt(pctx, full, func(u acp.Update) {
		if u.Kind != acp.UpdateMessage || truncated {
			return
		}
		b.WriteString(u.Text)
		if b.Len() >= in.MaxChars {
			truncated = true
			cancel()
		}
	})
	out := b.String()
	if truncated {
		out = cutAnswer(out, in.MaxChars)
		return out, true, nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		return "", false, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
	}
	return strings.TrimSpace(out), false, nil
}

// cutAnswer cuts s to at most n bytes without splitting a character.
func cutAnswer(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
