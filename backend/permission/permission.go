// Package permission is the PermissionService: the registry's [registry.Authorizer]
// that decides, before a tool runs, whether its caller may use the tool's
// privileged capabilities (writes-files, controls-browser, starts-process,
// destructive).
//
// The policy is the original's deny-by-default table: renderer and internal
// callers are trusted; plugins need approved capabilities covering the tool;
// cli and agent sessions need a grant. A cli session gets one from the
// operator (meith serve --grant-cli) or from the user through the
// [Approvals] broker that the desktop app's prompt serves.
package permission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact/summary"
	"github.com/meith-dev/meith/backend/registry"
)

// DefaultApprovalTimeout is how long a call waits for the user's decision
// when [Options.ApprovalTimeout] is zero.
const DefaultApprovalTimeout = 2 * time.Minute

// Options configures a [Service]. The zero value denies every privileged
// call of cli, agent and plugin callers.
type Options struct {
	// PluginGrants returns the capabilities approved for a plugin. ok false
	// (or a nil func) means the id is not an approved plugin identity.
	PluginGrants func(pluginID string) (caps []protocol.Capability, ok bool)
	// CLIGrants is the operator's policy for cli callers: every cli session
	// holds these capabilities (meith serve --grant-cli).
	CLIGrants []protocol.Capability
	// Approvals is the broker through which an attached UI approves a cli
	// call that has no grant; nil denies such calls at once.
	Approvals *Approvals
	// ApprovalTimeout bounds the wait for a decision; zero means
	// [DefaultApprovalTimeout].
	ApprovalTimeout time.Duration
	// AgentGate is the agent approval gate (the AgentService): an agent
	// call without a grant goes to it, and it returns nil once it has
	// written a one-use grant for the call (the user allowed it, or Full
	// access is on), or the PERMISSION_DENIED error to return. nil denies
	// such calls at once.
	AgentGate func(ctx context.Context, req registry.AuthRequest) error
	// Terminals lists the running terminals meith started (their shell
	// processes and labels): a cli call whose peer descends from one is
	// named "from Terminal · <label>" and can be allowed for that terminal.
	// nil: none.
	Terminals func() []TerminalShell
	// RulesFile is where the "always for this folder" rules are kept (0600,
	// written atomically); "" keeps them in memory only.
	RulesFile string
	// Now is the clock of the timed scope; nil means time.Now.
	Now func() time.Time
}

// Grant lets a session use capabilities.
type Grant struct {
	// Caller and SessionID are the session the grant belongs to.
	Caller    protocol.Caller
	SessionID string
	// Capabilities must include every privileged capability of a tool for
	// the grant to allow it.
	Capabilities []protocol.Capability
	// ToolName, when set, limits the grant to that tool.
	ToolName string
	// Uses is how many calls the grant allows; 0 means unlimited. As a
	// stored grant, the remaining uses.
	Uses int
	// DecidedBy, when set, says that a person approved the grant and
	// where ("connection" for a prompt's allow-for-this-connection): calls
	// it allows are audited as approved by it. Empty: granted by code or
	// the operator, audited as allow.
	DecidedBy string
}

// Service is the permission service. It is safe for concurrent use.
type Service struct {
	pluginGrants func(string) ([]protocol.Capability, bool)
	cliGrants    []protocol.Capability
	approvals    *Approvals
	timeout      time.Duration
	agentGate    func(context.Context, registry.AuthRequest) error
	terminals    func() []TerminalShell
	clock        func() time.Time
	rules        *ruleStore
	rulesErr     error

	mu         sync.Mutex
	grants     map[sessionKey][]*Grant // in the order granted
	termGrants []terminalGrant         // "this terminal"
	timed      []timedGrant            // "for 15 minutes"
}

// sessionKey is the original's "<caller>:<sessionId>".
type sessionKey struct {
	caller  protocol.Caller
	session string
}

var (
	_ registry.Authorizer      = (*Service)(nil)
	_ registry.QuickAuthorizer = (*Service)(nil)
)

// New returns a service with no session grants and the folder rules of
// [Options.RulesFile] (see [Service.RulesLoadError]).
func New(opts Options) *Service {
	if opts.ApprovalTimeout <= 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	rules, rulesErr := loadRules(opts.RulesFile)
	return &Service{
		terminals:    opts.Terminals,
		clock:        opts.Now,
		rules:        rules,
		rulesErr:     rulesErr,
		pluginGrants: opts.PluginGrants,
		cliGrants:    slices.Clone(opts.CLIGrants),
		approvals:    opts.Approvals,
		timeout:      opts.ApprovalTimeout,
		agentGate:    opts.AgentGate,
		grants:       make(map[sessionKey][]*Grant),
	}
}

// Grant stores g in memory. It is ignored without a SessionID or with
// negative Uses.
func (s *Service) Grant(g Grant) {
	if g.SessionID == "" || g.Uses < 0 {
		return
	}
	g.Capabilities = slices.Clone(g.Capabilities)
	k := sessionKey{g.Caller, g.SessionID}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.grants[k] = append(s.grants[k], &g)
}

// RevokeSession deletes every grant of the session at once; its next
// privileged call is denied. The socket server calls it when a connection
// closes, AgentService when a session is deleted.
func (s *Service) RevokeSession(caller protocol.Caller, sessionID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.grants, sessionKey{caller, sessionID})
}

// Grants returns copies of the session's grants, Uses being the remaining
// uses, in the order granted.
func (s *Service) Grants(caller protocol.Caller, sessionID string) []Grant {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Grant
	for _, g := range s.grants[sessionKey{caller, sessionID}] {
		c := *g
		c.Capabilities = slices.Clone(g.Capabilities)
		out = append(out, c)
	}
	return out
}

// Holds reports whether the session may use every capability in caps
// without asking anyone, and without spending a grant: through the
// operator's cli policy, an unlimited grant of the session (an "allow for
// this connection") or, for a plugin session ("plugin:<id>"), its approved
// capabilities. Trusted callers hold everything. One-use grants do not
// count. An agent run started by a cli or plugin session acts with at most
// what that session holds.
func (s *Service) Holds(caller protocol.Caller, sessionID string, caps []protocol.Capability) bool {
	privileged := protocol.PrivilegedOf(caps)
	switch {
	case len(privileged) == 0 || caller.Trusted():
		return true
	case caller == protocol.CallerPlugin:
		id, ok := strings.CutPrefix(sessionID, "plugin:")
		if !ok || id == "" || s.pluginGrants == nil {
			return false
		}
		approved, ok := s.pluginGrants(id)
		return ok && len(missingCaps(approved, privileged)) == 0
	case caller == protocol.CallerCLI && len(missingCaps(s.cliGrants, privileged)) == 0:
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.grants[sessionKey{caller, sessionID}] {
		if g.ToolName == "" && g.Uses == 0 && len(missingCaps(g.Capabilities, privileged)) == 0 {
			return true
		}
	}
	return false
}

// UserReachable reports whether a user can be asked right now: a UI (the
// desktop window) is attached to the approval broker. A headless runtime
// has none.
func (s *Service) UserReachable() bool {
	return s.approvals != nil && s.approvals.Attached() > 0
}

// Authorize implements [registry.Authorizer]. It returns nil to allow, a
// *protocol.ToolError with PERMISSION_DENIED (its Details a [DenyDetails])
// to deny, or ctx.Err() when ctx ends while the call waits for approval.
// It writes how it decided in req.Record: allow or deny for the policy's
// own answers, approved with the scope, rule or grant a person chose
// earlier, and for a question asked now its id, where the answer came from
// and the decision (approved, refused, cancelled, timeout).
func (s *Service) Authorize(ctx context.Context, req registry.AuthRequest) error {
	ask, err := s.decide(req)
	if ask && req.Client.Caller == protocol.CallerAgent {
		return s.askAgentGate(ctx, req)
	}
	if ask {
		return s.askUser(ctx, req, protocol.PrivilegedOf(req.Tool.Capabilities))
	}
	return err
}

// askAgentGate hands an agent call without a grant to the agent gate and,
// when it allows, spends the one-use grant it wrote.
func (s *Service) askAgentGate(ctx context.Context, req registry.AuthRequest) error {
	privileged := protocol.PrivilegedOf(req.Tool.Capabilities)
	if err := s.agentGate(ctx, req); err != nil {
		// The gate records its decision; one it did not record is the
		// context's end or a denial.
		if !protocol.IsPermissionDenied(err) && ctx.Err() != nil {
			req.Record.Decide(registry.AuthCancelled, "")
		} else {
			req.Record.Decide(registry.AuthDeny, "")
		}
		return err
	}
	if ok, by := s.consume(protocol.CallerAgent, req.Client.SessionID, req.Tool.Name, privileged); !ok {
		req.Record.Decide(registry.AuthDeny, "")
		return deny(req, ReasonNoGrant, privileged, nil, requiresMessage(req.Tool.Name, privileged))
	} else if by != "" {
		req.Record.Decide(registry.AuthApproved, by)
	}
	req.Record.Decide(registry.AuthAllow, "") // unless the gate recorded how it approved
	return nil
}

// AuthorizeNow implements [registry.QuickAuthorizer]: it decides every call
// that needs no user approval without waiting, and reports decided false
// for a cli call that must ask the user, which then goes to Authorize.
func (s *Service) AuthorizeNow(req registry.AuthRequest) (decided bool, err error) {
	ask, err := s.decide(req)
	if ask && req.Client.Caller == protocol.CallerAgent {
		return false, nil // the agent gate may wait for the user
	}
	if ask && (s.approvals == nil || (s.approvals.Attached() == 0 && !s.approvals.awaitingFirstUI())) {
		// Nobody could answer: askUser denies at once, without waiting.
		return true, s.askUser(context.Background(), req, protocol.PrivilegedOf(req.Tool.Capabilities))
	}
	return !ask, err
}

// decide applies the policy table; ask reports a cli call without a grant,
// which the approval broker must settle, or an agent call without one, which
// the agent gate settles. A call it settles is recorded in req.Record.
func (s *Service) decide(req registry.AuthRequest) (ask bool, err error) {
	ask, by, err := s.policy(req)
	switch {
	case ask:
	case err != nil:
		req.Record.Decide(registry.AuthDeny, "")
	case by != "":
		req.Record.Decide(registry.AuthApproved, by)
	default:
		req.Record.Decide(registry.AuthAllow, "")
	}
	return ask, err
}

// policy is [Service.decide]'s table; by names the scope, rule or grant a
// person chose earlier when one allows the call.
func (s *Service) policy(req registry.AuthRequest) (ask bool, by string, err error) {
	privileged := protocol.PrivilegedOf(req.Tool.Capabilities)
	if len(privileged) == 0 {
		return false, "", nil
	}
	ci := req.Client
	switch ci.Caller {
	case protocol.CallerRenderer, protocol.CallerInternal: // Caller.Trusted
		return false, "", nil
	case protocol.CallerPlugin:
		return false, "", s.authorizePlugin(req)
	case protocol.CallerCLI, protocol.CallerAgent:
	default:
		return false, "", deny(req, ReasonUnknownCaller, privileged, nil,
			fmt.Sprintf("Caller %q may not run %q.", ci.Caller, req.Tool.Name))
	}
	base := requiresMessage(req.Tool.Name, privileged)
	if ci.SessionID == "" {
		return false, "", deny(req, ReasonNoSession, privileged, nil, base)
	}
	if ok, by := s.consume(ci.Caller, ci.SessionID, req.Tool.Name, privileged); ok {
		return false, by, nil
	}
	if ci.Caller == protocol.CallerCLI && req.Peer != nil {
		// The scopes of the prompt: only what SO_PEERCRED and /proc say
		// about the peer counts, never the client's own cwd.
		live := s.liveTerminals()
		if scope := s.scopeAllows(s.resolveOrigin(req.Peer, live), live, privileged); scope != "" {
			return false, scope, nil
		}
	}
	if ci.Caller == protocol.CallerCLI || ci.Caller == protocol.CallerAgent && s.agentGate != nil {
		return true, "", nil
	}
	return false, "", deny(req, ReasonNoGrant, privileged, nil, base)
}

// authorizePlugin applies the plugin rule: the session id names the plugin,
// and its approved capabilities cover every capability the tool declares.
func (s *Service) authorizePlugin(req registry.AuthRequest) error {
	tool, declared := req.Tool.Name, req.Tool.Capabilities
	id, ok := strings.CutPrefix(req.Client.SessionID, "plugin:")
	var approved []protocol.Capability
	if ok && id != "" && s.pluginGrants != nil {
		approved, ok = s.pluginGrants(id)
	} else {
		ok = false
	}
	if !ok {
		return deny(req, ReasonPluginUnbound, declared, nil,
			fmt.Sprintf("Plugin caller is not bound to an approved plugin identity for %q.", tool))
	}
	if missing := missingCaps(approved, declared); len(missing) > 0 {
		return deny(req, ReasonPluginMissing, declared, missing,
			fmt.Sprintf("Plugin %s lacks capabilities [%s] required by %q.", id, protocol.JoinCapabilities(missing, ", "), tool))
	}
	return nil
}

// consume reports whether the session may use privileged for tool: through
// the operator's cli policy, or a matching grant, whose remaining uses it
// then decrements (removing it at 0). Unlimited grants are preferred so
// counted ones are not spent needlessly. by is the grant's DecidedBy.
func (s *Service) consume(caller protocol.Caller, session, tool string, privileged []protocol.Capability) (ok bool, by string) {
	if caller == protocol.CallerCLI && len(missingCaps(s.cliGrants, privileged)) == 0 {
		return true, ""
	}
	k := sessionKey{caller, session}
	s.mu.Lock()
	defer s.mu.Unlock()
	list := s.grants[k]
	best := -1
	for i, g := range list {
		if (g.ToolName == "" || g.ToolName == tool) && len(missingCaps(g.Capabilities, privileged)) == 0 {
			if g.Uses == 0 {
				return true, g.DecidedBy
			}
			if best < 0 {
				best = i
			}
		}
	}
	if best < 0 {
		return false, ""
	}
	by = list[best].DecidedBy
	if g := list[best]; g.Uses > 1 {
		g.Uses--
		return true, by
	}
	list = slices.Delete(list, best, best+1)
	if len(list) == 0 {
		delete(s.grants, k)
	} else {
		s.grants[k] = list
	}
	return true, by
}

// askUser asks an attached UI to approve a cli call that has no grant, and
// waits for the decision.
func (s *Service) askUser(ctx context.Context, req registry.AuthRequest, privileged []protocol.Capability) error {
	tool := req.Tool.Name
	base := requiresMessage(tool, privileged)
	hint := fmt.Sprintf(`"meith serve --grant-cli %s"`, protocol.JoinCapabilities(privileged, ","))
	rec := req.Record
	if s.approvals == nil {
		rec.Decide(registry.AuthDeny, "")
		return deny(req, ReasonNoApprovalUI, privileged, nil,
			base+" This runtime has no approval UI: start it with "+hint+" to allow such calls.")
	}
	gating, _ := GatingCapability(privileged)
	var peer *registry.Peer
	if req.Peer != nil {
		p := *req.Peer
		peer = &p
	}
	args := req.Args
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	if s.approvals.awaitingFirstUI() {
		if req.Emit != nil {
			req.Emit(protocol.Progress("waiting for the meith window…", -1))
		}
		s.approvals.waitFirstUI(ctx)
		if err := ctx.Err(); err != nil {
			rec.Decide(registry.AuthCancelled, "")
			return err
		}
	}
	now := time.Now()
	origin := s.resolveOrigin(peer, s.liveTerminals())
	p, err := s.approvals.open(ApprovalRequest{
		Origin:       origin,
		Scopes:       offeredScopes(origin, privileged),
		ToolName:     tool,
		Description:  req.Tool.Description,
		Capabilities: privileged,
		Capability:   gating,
		Caller:       req.Client.Caller,
		SessionID:    req.Client.SessionID,
		Peer:         peer,
		ArgsSummary:  summary.Of(args),
		CreatedAt:    now,
		ExpiresAt:    now.Add(s.timeout),
	}, func(id string) { rec.Ask(id, DecidedByWindow) })
	switch {
	case errors.Is(err, errNoUI):
		rec.Decide(registry.AuthDeny, "")
		return deny(req, ReasonNoApprovalUI, privileged, nil,
			base+" No approval UI is attached to this runtime: open the meith desktop app to approve CLI calls, or start the runtime with "+hint+".")
	case errors.Is(err, errTooMany):
		rec.Decide(registry.AuthDeny, "")
		return deny(req, ReasonTooManyPending, privileged, nil,
			base+" Too many approval requests are already waiting in the meith app; decide those first.")
	}
	if req.Emit != nil {
		req.Emit(protocol.Progress("waiting for approval in the meith app…", -1))
	}
	res, err := s.approvals.wait(ctx, p, s.timeout)
	rec.Decide(res.authDecision(), "")
	if ctx.Err() == nil {
		// Not after a cancel: the call's connection may be gone, and its
		// grants already revoked.
		s.remember(res, origin, req.Client.SessionID, privileged)
	}
	if err != nil {
		return err
	}
	switch res {
	case ResolvedAllowOnce, ResolvedAllowConnection, ResolvedAllowTerminal, ResolvedAllowTimed, ResolvedAllowFolder:
		return nil
	case ResolvedDeny:
		return deny(req, ReasonUserDenied, privileged, nil, fmt.Sprintf("User denied %q.", tool))
	case ResolvedTimeout:
		return deny(req, ReasonApprovalTimeout, privileged, nil,
			fmt.Sprintf("Approval for %q timed out after %s.", tool, s.timeout))
	default: // ResolvedDetached
		return deny(req, ReasonNoApprovalUI, privileged, nil,
			base+" The approval UI closed before a decision was made.")
	}
}

// remember keeps what an allowing decision grants beyond the call: the
// connection's session, the terminal, the executable in its folder for
// [TimedScope], or a folder rule per capability. A rule that cannot be
// written stays in memory for this run.
func (s *Service) remember(res Resolution, o Origin, session string, privileged []protocol.Capability) {
	caps := slices.Clone(privileged)
	switch res {
	case ResolvedAllowConnection:
		s.Grant(Grant{Caller: protocol.CallerCLI, SessionID: session, Capabilities: caps, DecidedBy: DecidedByConnection})
	case ResolvedAllowTerminal:
		if o.Kind == OriginTerminal {
			s.mu.Lock()
			s.termGrants = append(s.termGrants, terminalGrant{terminalID: o.TerminalID, caps: caps})
			s.mu.Unlock()
		}
	case ResolvedAllowTimed:
		if o.Exe != "" && o.Folder != "" {
			s.mu.Lock()
			s.timed = append(s.timed, timedGrant{exe: o.Exe, folder: o.Folder, caps: caps, expires: s.now().Add(TimedScope)})
			s.mu.Unlock()
		}
	case ResolvedAllowFolder:
		if filepath.IsAbs(o.Folder) {
			_ = s.rules.add(o.Folder, caps, s.now())
		}
	}
}

// Where an approval's answer came from, as [registry.Authorization]'s
// DecidedBy says it.
const (
	// DecidedByWindow: the window's approval prompt, answered now.
	DecidedByWindow = "window"
	// DecidedByConnection: an earlier "allow for this connection".
	DecidedByConnection = "connection"
	// DecidedByTerminal: an earlier "allow for this terminal".
	DecidedByTerminal = "terminal"
	// DecidedByTimedScope: an earlier "allow for 15 minutes".
	DecidedByTimedScope = "15-minutes"
	// DecidedByFolderRule: a persisted "always for this folder" rule.
	DecidedByFolderRule = "folder-rule"
)

// authDecision is the audit's decision for a resolution: an allow is
// approved, a deny refused; a request withdrawn (the call cancelled, the
// window closed) was cancelled before approval.
func (r Resolution) authDecision() registry.AuthDecision {
	switch r {
	case ResolvedAllowOnce, ResolvedAllowConnection, ResolvedAllowTerminal, ResolvedAllowTimed, ResolvedAllowFolder:
		return registry.AuthApproved
	case ResolvedDeny:
		return registry.AuthRefused
	case ResolvedTimeout:
		return registry.AuthTimeout
	default: // ResolvedCancelled, ResolvedDetached
		return registry.AuthCancelled
	}
}

// requiresMessage is the original's deny message.
func requiresMessage(tool string, privileged []protocol.Capability) string {
	return fmt.Sprintf("Tool %q requires %s permission.", tool, protocol.JoinCapabilities(privileged, ", "))
}

// Reason says why a call was denied, for clients that act on it (the CLI
// prints how to grant).
type Reason string

// The reasons of [DenyDetails].
const (
	ReasonUnknownCaller   Reason = "unknown_caller"
	ReasonNoSession       Reason = "no_session"
	ReasonNoGrant         Reason = "no_grant"
	ReasonNoApprovalUI    Reason = "no_approval_ui"
	ReasonTooManyPending  Reason = "too_many_pending"
	ReasonUserDenied      Reason = "user_denied"
	ReasonApprovalTimeout Reason = "approval_timeout"
	ReasonPluginUnbound   Reason = "plugin_unbound"
	ReasonPluginMissing   Reason = "plugin_missing_capabilities"
)

// DenyDetails is the Details of a PERMISSION_DENIED error from [Service].
type DenyDetails struct {
	Reason   Reason          `json:"reason"`
	ToolName string          `json:"toolName"`
	Caller   protocol.Caller `json:"caller"`
	// Required lists the capabilities the call needed: the tool's
	// privileged ones, or for a plugin all it declares.
	Required []protocol.Capability `json:"required"`
	// Missing lists the capabilities a plugin lacks.
	Missing []protocol.Capability `json:"missing,omitempty"`
}

// deny builds the PERMISSION_DENIED error.
func deny(req registry.AuthRequest, reason Reason, required, missing []protocol.Capability, msg string) error {
	return &protocol.ToolError{
		Code:    protocol.CodePermissionDenied,
		Message: msg,
		Details: DenyDetails{
			Reason:   reason,
			ToolName: req.Tool.Name,
			Caller:   req.Client.Caller,
			Required: required,
			Missing:  missing,
		},
	}
}
