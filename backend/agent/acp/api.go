// Package acp runs an external agent that speaks the Agent Client Protocol
// (JSON-RPC over stdio, coder/acp-go-sdk) as meith's client side: it spawns
// the agent's command in the session folder, initializes, opens an ACP
// session that carries meith's MCP server (HTTP, bearer token in a header),
// sends prompts, turns session/update notifications into [Update]s, answers
// session/request_permission through the caller's policy, and cancels.
package acp

import (
	"context"
	"encoding/json"
	"time"
)

// Spec says what to run and how.
type Spec struct {
	// Command and Args start the agent (e.g. npx -y @agentclientprotocol/claude-agent-acp).
	Command string
	Args    []string
	// Cwd is the session folder: the process's working directory and the
	// cwd of session/new.
	Cwd string
	// Env is added to the runtime's environment (ACP_MODEL is set from
	// Model when non-empty).
	Env []string
	// MCP is meith's MCP server for session/new; nil sends no MCP server
	// (ai.complete).
	MCP *MCPServer
	// Model and Reasoning are applied with session/set_config_option when
	// the agent advertises a matching option (model; reasoning by the ids
	// or categories thought_level, reasoning, reasoning_effort, effort,
	// thinking). Empty leaves the agent's default.
	Model     string
	Reasoning string
	// Permission answers session/request_permission; nil denies every
	// request (picks a reject option).
	Permission func(ctx context.Context, req PermissionRequest) PermissionDecision
	// Logf receives the agent's stderr lines and the adapter's diagnostics
	// (the last 16 KiB of stderr are also kept for error messages); nil
	// discards.
	Logf func(format string, args ...any)
	// StartTimeout bounds spawn + initialize + session/new (default 60 s:
	// npx may download the adapter).
	StartTimeout time.Duration
}

// MCPServer is the HTTP MCP server given to the agent in session/new.
type MCPServer struct {
	Name  string // "meith"
	URL   string // http://127.0.0.1:<port>/mcp
	Token string // sent as the header Authorization: Bearer <token>
	// ToolsListed, when non-nil, is closed by the bridge once the agent has
	// listed the server's tools; Prompt waits for it (up to
	// ToolsListedTimeout) before the first prompt and fails with
	// ErrToolsNotListed if it stays open.
	ToolsListed        <-chan struct{}
	ToolsListedTimeout time.Duration // default 20 s
}

// Update kinds.
const (
	UpdateMessage        = "message"          // Text: a chunk of the agent's answer
	UpdateThought        = "thought"          // Text: a chunk of its reasoning
	UpdateToolCall       = "tool_call"        // ToolCall: a tool call starts
	UpdateToolCallUpdate = "tool_call_update" // ToolCall: fields that changed
	UpdatePlan           = "plan"             // Plan
	UpdateUsage          = "usage"            // Usage
)

// Update is one session/update notification, mapped.
type Update struct {
	Kind     string
	Text     string
	ToolCall *ToolCall
	Plan     []PlanEntry
	Usage    *Usage
}

// ToolCall is an ACP tool call as the agent reports it. For a
// tool_call_update only ID and the fields reported are set.
type ToolCall struct {
	ID     string
	Title  string
	Kind   string // read, edit, delete, move, search, execute, think, fetch, switch_mode, other
	Status string // pending, in_progress, completed, failed
	// Name is the tool's name when the agent gives one (in _meta, rawInput
	// or the title), with MCP prefixes kept (mcp__meith__git_status).
	Name     string
	RawInput json.RawMessage
	// Output is the text of the reported content and rawOutput, clipped to
	// 8 KiB.
	Output string
}

// PlanEntry is one entry of a plan update.
type PlanEntry struct {
	Content, Status, Priority string
}

// Usage is a usage_update (or the prompt response's usage).
type Usage struct {
	InputTokens, OutputTokens int64
	Used, Size                int64
	CostAmount                float64
	CostCurrency              string
}

// PermissionRequest is a session/request_permission, mapped.
type PermissionRequest struct {
	ToolCall ToolCall
	// MeithTool is the meith tool the request is about (bare name, with
	// the prefixes meith. meith/ mcp__meith__ mcp__meith. stripped, or
	// serverName "meith"), "" when it is about one of the agent's own tools.
	MeithTool string
	// MCPApproval is set for a metadata-only MCP approval
	// (_meta.is_mcp_tool_approval).
	MCPApproval bool
	// Web is set when the tool is a web or browser tool of the agent
	// (kind fetch, or a name/title like WebFetch, WebSearch, browser_*).
	Web bool
	// Options are the option kinds offered (allow_once, allow_always,
	// reject_once, reject_always).
	Options []string
}

// PermissionDecision answers a [PermissionRequest]: Allow picks an
// allow_once (else allow_always) option, deny a reject_once (else
// reject_always) option; when the wanted kind is missing the request is
// answered cancelled.
type PermissionDecision struct {
	Allow bool
}

// ConfigOption is a session config option the agent advertises.
type ConfigOption struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Category string        `json:"category,omitempty"`
	Current  string        `json:"current"`
	Values   []ConfigValue `json:"values"`
}

// ConfigValue is one value of a select option.
type ConfigValue struct {
	Value string `json:"value"`
	Name  string `json:"name"`
}

// Stop reasons of [Session.Prompt].
const (
	StopEndTurn   = "end_turn"
	StopMaxTokens = "max_tokens"
	StopRefusal   = "refusal"
	StopCancelled = "cancelled"
)

// Errors (match with errors.Is).
var (
	// ErrNotInstalled: the command was not found or could not start.
	ErrNotInstalled error = errorString("acp: agent command not available")
	// ErrNoHTTPMCP: the agent does not advertise HTTP MCP servers
	// (agentCapabilities.mcpCapabilities.http), so meith's tools cannot be
	// given to it.
	ErrNoHTTPMCP error = errorString("acp: agent does not support HTTP MCP servers")
	// ErrToolsNotListed: the agent never listed meith's MCP tools.
	ErrToolsNotListed error = errorString("acp: Meith MCP tools were not exposed")
	// ErrExited: the agent process ended.
	ErrExited error = errorString("acp: agent process exited")
	// ErrProtocol: the agent broke the protocol (bad initialize, …).
	ErrProtocol error = errorString("acp: protocol error")
)

type errorString string

func (e errorString) Error() string { return string(e) }

// Session is a running agent with one open ACP session. Its methods are
// safe for concurrent use; one Prompt runs at a time.
type Session struct{ impl *session }

// Start spawns the agent (own process group), initializes
// ({protocolVersion:1, clientCapabilities fs read/write false}), checks
// HTTP MCP support when spec.MCP is set, opens the session (session/new
// {cwd, mcpServers}) and applies Model/Reasoning. The process lives until
// Close, independent of ctx (which bounds only the start). Errors wrap the
// Err values above and carry the tail of the agent's stderr.
func Start(ctx context.Context, spec Spec) (*Session, error) { return start(ctx, spec) }

// Prompt sends session/prompt with text and calls onUpdate (in order, from
// one goroutine) for each update until the turn ends; it returns the stop
// reason. When ctx is cancelled it sends session/cancel and waits (up to
// 5 s) for the agent to end the turn, then returns StopCancelled and
// ctx.Err().
func (s *Session) Prompt(ctx context.Context, text string, onUpdate func(Update)) (stopReason string, err error) {
	return s.impl.prompt(ctx, text, onUpdate)
}

// ConfigOptions returns the session config options the agent advertised
// (after Start, updated by config_option_update notifications).
func (s *Session) ConfigOptions() []ConfigOption { return s.impl.configOptions() }

// SetConfig applies model and reasoning (as in Spec) to the open session.
func (s *Session) SetConfig(ctx context.Context, model, reasoning string) error {
	return s.impl.setConfig(ctx, model, reasoning)
}

// AgentInfo is the agent's name and version from initialize.
func (s *Session) AgentInfo() (name, version string) { return s.impl.agentInfo() }

// PID is the agent process id.
func (s *Session) PID() int { return s.impl.pid() }

// Done is closed when the agent process has exited.
func (s *Session) Done() <-chan struct{} { return s.impl.done() }

// Close ends the agent: SIGTERM to its process group, SIGKILL after 3 s.
// It is idempotent.
func (s *Session) Close() error { return s.impl.close() }

// ProbeResult is what [Probe] found.
type ProbeResult struct {
	OK      bool   `json:"ok"`
	Name    string `json:"name,omitempty"`    // agentInfo.name
	Version string `json:"version,omitempty"` // agentInfo.version
	// HTTPMCP reports agentCapabilities.mcpCapabilities.http.
	HTTPMCP bool `json:"httpMcp"`
	// Message is a sentence for the user ("Claude Code is installed and
	// ready." or why not, with how to install).
	Message string `json:"message"`
	Stderr  string `json:"stderr,omitempty"` // the tail of stderr on failure
	// Options are the session config options the agent advertised in a
	// trial session/new without MCP servers (empty when that failed).
	Options []ConfigOption `json:"options,omitempty"`
}

// Probe starts the command, initializes and ends it, within ctx (the caller
// sets a timeout). It never returns an error: failures are in the result.
func Probe(ctx context.Context, command string, args []string, cwd string) ProbeResult {
	return probe(ctx, command, args, cwd)
}
