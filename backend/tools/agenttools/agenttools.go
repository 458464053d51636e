// Package agenttools registers the agent tools, so that everything about
// agents stays a tool call (beyond the original, which kept agents behind a
// private IPC): agent_list_sessions, agent_create_session,
// agent_send_message (streams the run), agent_cancel, agent_delete_session,
// agent_get_transcript, agent_update_session, agent_decide_permission,
// agent_get_config, agent_set_config, agent_probe, agent_stage_attachment
// and ai_complete.
package agenttools

import (
	"cmp"
	"context"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Deps is what the agent tools need.
type Deps struct {
	Service *agent.Service
	// DefaultCwd returns the folder of a new session when the call names
	// none: the space's folder, else the caller's cwd.
	DefaultCwd func(spaceID, callerCwd string) string
}

// RunTimeout is agent_send_message's timeout: a run lasts until it ends or
// is cancelled.
const RunTimeout = 2_147_483_647 * time.Millisecond

// ListInput is the input of agent_list_sessions.
type ListInput struct {
	SpaceID string `json:"spaceId,omitempty" jsonschema:"only the sessions of this space"`
	Cwd     string `json:"cwd,omitempty" jsonschema:"only the sessions working in this folder"`
}

// ListOutput is the result of agent_list_sessions.
type ListOutput struct {
	Sessions []agent.SessionInfo `json:"sessions"`
}

// CreateInput is the input of agent_create_session.
type CreateInput struct {
	Cwd       string `json:"cwd,omitempty" jsonschema:"the folder the agent works in; ~ is the home folder, a relative path is relative to the caller's (default: the space's folder, else the caller's working directory)"`
	SpaceID   string `json:"spaceId,omitempty" jsonschema:"the space the session belongs to"`
	Title     string `json:"title,omitempty" jsonschema:"a title (default: derived from the first message)"`
	Model     string `json:"model,omitempty" jsonschema:"the model, when the agent offers a choice"`
	Reasoning string `json:"reasoning,omitempty" jsonschema:"the reasoning level, when the agent offers a choice"`
}

// SessionOutput is a result that carries one session.
type SessionOutput struct {
	Session agent.Session `json:"session"`
}

// SendInput is the input of agent_send_message.
type SendInput struct {
	SessionID   string             `json:"sessionId,omitempty" jsonschema:"the session (sess_…); without it a new session is created"`
	Text        string             `json:"text" jsonschema:"the message for the agent"`
	Attachments []agent.Attachment `json:"attachments,omitempty" jsonschema:"files staged with agent_stage_attachment"`
	SpaceID     string             `json:"spaceId,omitempty" jsonschema:"the space of a new session"`
	Cwd         string             `json:"cwd,omitempty" jsonschema:"the folder of a new session"`
}

// SessionInput is the input of the tools that take only a session.
type SessionInput struct {
	SessionID string `json:"sessionId" jsonschema:"the agent session (sess_…)"`
}

// CancelOutput is the result of agent_cancel.
type CancelOutput struct {
	Cancelled bool `json:"cancelled"`
}

// DeleteOutput is the result of agent_delete_session.
type DeleteOutput struct {
	Deleted bool `json:"deleted"`
}

// TranscriptInput is the input of agent_get_transcript.
type TranscriptInput struct {
	SessionID   string `json:"sessionId" jsonschema:"the agent session (sess_…)"`
	MaxMessages int    `json:"maxMessages,omitempty" jsonschema:"the newest messages to return" minimum:"1" maximum:"200" default:"20"`
}

// UpdateInput is the input of agent_update_session.
type UpdateInput struct {
	SessionID  string  `json:"sessionId" jsonschema:"the agent session (sess_…)"`
	Title      *string `json:"title,omitempty" jsonschema:"a new title"`
	Model      *string `json:"model,omitempty" jsonschema:"the model (also the default of new sessions)"`
	Reasoning  *string `json:"reasoning,omitempty" jsonschema:"the reasoning level (also the default of new sessions)"`
	AutoAccept *bool   `json:"autoAccept,omitempty" jsonschema:"Full access: privileged tools run without asking (only the meith window may turn it on)"`
	Viewed     bool    `json:"viewed,omitempty" jsonschema:"mark the session as seen now"`
}

// DecideInput is the input of agent_decide_permission.
type DecideInput struct {
	SessionID  string `json:"sessionId" jsonschema:"the agent session (sess_…)"`
	ToolCallID string `json:"toolCallId" jsonschema:"the tool call waiting for approval"`
	Decision   string `json:"decision" jsonschema:"allow or deny" enum:"allow,deny"`
	Remember   bool   `json:"remember,omitempty" jsonschema:"remember the decision for this tool in this session"`
}

// DecideOutput is the result of agent_decide_permission.
type DecideOutput struct {
	Decided bool `json:"decided"`
}

// ConfigOutput is the result of agent_get_config and agent_set_config.
type ConfigOutput struct {
	Config  agent.Config   `json:"config"`
	Presets []agent.Preset `json:"presets"`
	// Options are the config options (models, reasoning) the configured
	// agent advertised last.
	Options any `json:"options"`
}

// ProbeInput is the input of agent_probe.
type ProbeInput struct {
	Preset  *string  `json:"preset,omitempty" jsonschema:"the preset to check: claude, codex, gemini, custom (default: the configured agent)"`
	Command string   `json:"command,omitempty" jsonschema:"the custom preset's command"`
	Args    []string `json:"args,omitempty" jsonschema:"the custom preset's arguments"`
}

// StageInput is the input of agent_stage_attachment.
type StageInput struct {
	SessionID string `json:"sessionId" jsonschema:"the agent session (sess_…)"`
	Name      string `json:"name" jsonschema:"the file name"`
	Data      string `json:"data" jsonschema:"the file's content, base64 (at most 10 MiB decoded)"`
}

// CompleteInput is the input of ai_complete.
type CompleteInput struct {
	Prompt       string `json:"prompt" jsonschema:"what to complete"`
	SystemPrompt string `json:"systemPrompt,omitempty" jsonschema:"instructions placed before the prompt"`
	MaxChars     int    `json:"maxChars,omitempty" jsonschema:"the longest answer kept" minimum:"1" maximum:"100000" default:"2000"`
	TimeoutMs    int64  `json:"timeoutMs,omitempty" jsonschema:"how long to wait for the answer" minimum:"1000" maximum:"600000" default:"60000"`
}

// CompleteOutput is the result of ai_complete.
type CompleteOutput struct {
	Text      string `json:"text"`
	Truncated bool   `json:"truncated"`
}

// Register adds the agent tools to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{svc: d.Service, defaultCwd: d.DefaultCwd}
	writesFiles, startsProc := protocol.WritesFiles(), protocol.StartsProcess()
	registry.RegisterAll(r, []registry.Def{
		{Name: "agent_list_sessions", Description: "List agent sessions, newest first, with unseen-update and pending-permission counts.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listSessions)},
		{Name: "agent_create_session", Description: "Create an agent session that works in a folder of a space.",
			Capabilities: writesFiles, Handler: registry.Handle(t.createSession)},
		{Name: "agent_send_message", Description: "Send a message to an agent session (a new one without sessionId) and follow the run: the answer streams as partial_text events, steps as progress events, until the turn ends. Cancelling the call cancels the run.",
			Capabilities: startsProc, Timeout: RunTimeout, Handler: registry.Handle(t.sendMessage)},
		{Name: "agent_cancel", Description: "Cancel an agent session's run; its in-flight tool calls end as CANCELLED and a pending permission request as denied.",
			Capabilities: startsProc, Handler: registry.Handle(t.cancel)},
		{Name: "agent_delete_session", Description: "Delete an agent session: cancel its run, end its agent, revoke its grants and MCP token, and delete its transcript.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(t.deleteSession)},
		{Name: "agent_get_transcript", Description: "Read an agent session's transcript (bounded: the newest messages, long content clipped) with its pending permission requests and the agent's model/reasoning options.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.transcript)},
		{Name: "agent_update_session", Description: "Change an agent session's title, model, reasoning or Full access, or mark it as seen.",
			Capabilities: writesFiles, Handler: registry.Handle(t.updateSession)},
		{Name: "agent_decide_permission", Description: "Answer an agent's permission request (Allow or Deny, optionally remembered for this tool in this session). Only the meith window may answer.",
			Capabilities: writesFiles, Handler: registry.Handle(t.decidePermission)},
		{Name: "agent_get_config", Description: "Read the agent configuration (preset, command, model, reasoning, Full access default) and the presets.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.getConfig)},
		{Name: "agent_set_config", Description: "Change the agent configuration (a partial patch). Only the meith window may turn Full access on by default.",
			Capabilities: writesFiles, Handler: registry.Handle(t.setConfig)},
		{Name: "agent_probe", Description: "Check that an agent can start: run its command, initialize ACP, and say whether it is ready or how to install it.",
			Capabilities: startsProc, Timeout: 2 * time.Minute, Handler: registry.Handle(t.probe)},
		{Name: "agent_stage_attachment", Description: "Stage a file for an agent session's next message in <cwd>/.meith/attachments.",
			Capabilities: writesFiles, Handler: registry.Handle(t.stageAttachment)},
		{Name: "ai_complete", Description: "One-shot completion by the configured agent, with no tool access; nothing is kept.",
			Capabilities: protocol.StartsProcess().Plus(protocol.CapAccessesNetwork), Timeout: 11 * time.Minute, Handler: registry.Handle(t.complete)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct {
	svc        *agent.Service
	defaultCwd func(spaceID, callerCwd string) string
}

// listSessions is agent_list_sessions.
func (t *tools) listSessions(_ context.Context, _ *registry.Call, in ListInput) (ListOutput, error) {
	return ListOutput{Sessions: t.svc.Sessions(in.SpaceID, in.Cwd)}, nil
}

// createSession is agent_create_session.
func (t *tools) createSession(_ context.Context, call *registry.Call, in CreateInput) (SessionOutput, error) {
	in.SpaceID = cmp.Or(in.SpaceID, call.Client.SpaceID)
	in.Cwd = call.Path(in.Cwd)
	if in.Cwd == "" && t.defaultCwd != nil {
		in.Cwd = t.defaultCwd(in.SpaceID, call.Client.Cwd)
	}
	s, err := t.svc.Create(agent.CreateInput{Cwd: in.Cwd, SpaceID: in.SpaceID, Title: in.Title, Model: in.Model, Reasoning: in.Reasoning})
	return SessionOutput{Session: s}, err
}

// sendMessage is agent_send_message.
func (t *tools) sendMessage(ctx context.Context, call *registry.Call, in SendInput) (agent.SendResult, error) {
	in.SpaceID = cmp.Or(in.SpaceID, call.Client.SpaceID)
	in.Cwd = call.Path(in.Cwd)
	if in.SessionID == "" && in.Cwd == "" && t.defaultCwd != nil {
		in.Cwd = t.defaultCwd(in.SpaceID, call.Client.Cwd)
	}
	return t.svc.Send(ctx, agent.SendInput{SessionID: in.SessionID, Text: in.Text, Attachments: in.Attachments,
		SpaceID: in.SpaceID, Cwd: in.Cwd, Origin: call.Client}, call.Emit)
}

// cancel is agent_cancel.
func (t *tools) cancel(_ context.Context, _ *registry.Call, in SessionInput) (CancelOutput, error) {
	ok, err := t.svc.Cancel(in.SessionID)
	return CancelOutput{Cancelled: ok}, err
}

// deleteSession is agent_delete_session.
func (t *tools) deleteSession(ctx context.Context, _ *registry.Call, in SessionInput) (DeleteOutput, error) {
	if err := t.svc.Delete(ctx, in.SessionID); err != nil {
		return DeleteOutput{}, err
	}
	return DeleteOutput{Deleted: true}, nil
}

// transcript is agent_get_transcript.
func (t *tools) transcript(_ context.Context, _ *registry.Call, in TranscriptInput) (agent.TranscriptView, error) {
	return t.svc.Transcript(in.SessionID, in.MaxMessages)
}

// updateSession is agent_update_session.
func (t *tools) updateSession(ctx context.Context, call *registry.Call, in UpdateInput) (SessionOutput, error) {
	s, err := t.svc.Update(ctx, in.SessionID, agent.UpdateInput{Title: in.Title, Model: in.Model, Reasoning: in.Reasoning,
		AutoAccept: in.AutoAccept, Viewed: in.Viewed}, call.Client.Caller.Trusted())
	return SessionOutput{Session: s}, err
}

// decidePermission is agent_decide_permission.
func (t *tools) decidePermission(_ context.Context, call *registry.Call, in DecideInput) (DecideOutput, error) {
	if !call.Client.Caller.Trusted() {
		return DecideOutput{}, protocol.Errorf(protocol.CodePermissionDenied,
			"Only the meith window can answer an agent's permission request (caller %q may not).", call.Client.Caller)
	}
	if err := t.svc.Decide(in.SessionID, in.ToolCallID, in.Decision, in.Remember); err != nil {
		return DecideOutput{}, err
	}
	return DecideOutput{Decided: true}, nil
}

// getConfig is agent_get_config.
func (t *tools) getConfig(context.Context, *registry.Call, registry.NoArgs) (ConfigOutput, error) {
	return t.configOutput(t.svc.Config()), nil
}

// setConfig is agent_set_config.
func (t *tools) setConfig(_ context.Context, call *registry.Call, in agent.ConfigPatch) (ConfigOutput, error) {
	c, err := t.svc.SetConfig(in, call.Client.Caller.Trusted())
	if err != nil {
		return ConfigOutput{}, err
	}
	return t.configOutput(c), nil
}

// probe is agent_probe.
func (t *tools) probe(ctx context.Context, _ *registry.Call, in ProbeInput) (agent.ProbeOutput, error) {
	pctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	out := t.svc.Probe(pctx, in.Preset, in.Command, in.Args)
	if out.Args == nil {
		out.Args = []string{}
	}
	return out, nil
}

// stageAttachment is agent_stage_attachment.
func (t *tools) stageAttachment(_ context.Context, _ *registry.Call, in StageInput) (agent.Attachment, error) {
	return t.svc.StageAttachment(in.SessionID, in.Name, in.Data)
}

// complete is ai_complete.
func (t *tools) complete(ctx context.Context, _ *registry.Call, in CompleteInput) (CompleteOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Duration(in.TimeoutMs)*time.Millisecond)
	defer cancel()
	text, trunc, err := t.svc.Complete(ctx, agent.CompleteInput{Prompt: in.Prompt, SystemPrompt: in.SystemPrompt, MaxChars: in.MaxChars})
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return CompleteOutput{}, protocol.Errorf(protocol.CodeTimeout, "The agent did not answer within %d ms.", in.TimeoutMs)
	}
	return CompleteOutput{Text: text, Truncated: trunc}, err
}

// configOutput is the result of agent_get_config and agent_set_config.
func (t *tools) configOutput(c agent.Config) ConfigOutput {
	opts := t.svc.Options()
	var o any = opts
	if opts == nil {
		o = []any{}
	}
	return ConfigOutput{Config: c, Presets: agent.Presets, Options: o}
}
