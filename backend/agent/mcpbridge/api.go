// Package mcpbridge is the per-session MCP server through which an external
// agent calls meith's tools: streamable HTTP (MCP go-sdk) on 127.0.0.1 at a
// random port, one bearer token per agent session mapped to that session's
// gated binding.
package mcpbridge

import (
	"context"
	"encoding/json"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// Binding is what one session exposes: the tools it lists and the gated call
// that runs them (as caller "agent" with the session id).
type Binding struct {
	SessionID string
	// List returns the tools to expose (registry descriptors).
	List func() []protocol.ToolDescriptor
	// Call runs a tool; emit receives its events (progress events are
	// forwarded as MCP progress notifications when the client asked for
	// them). ctx ends when the HTTP request ends or the client sends
	// notifications/cancelled.
	Call func(ctx context.Context, name string, args json.RawMessage, emit func(protocol.Event)) protocol.ToolResult
}

// Endpoint is what the agent needs to reach its session's server.
type Endpoint struct {
	URL   string // http://127.0.0.1:<port>/mcp
	Token string // 48 hex characters (24 random bytes)
}

// DefaultIdleTTL is how long a token lives without a request or Touch.
const DefaultIdleTTL = 30 * time.Minute

// MaxBodyBytes is the largest request body accepted (413 beyond).
const MaxBodyBytes = 8 << 20

// Options configures a [Bridge].
type Options struct {
	Logf func(format string, args ...any)
	// IdleTTL is how long a token lives without use; 0 means DefaultIdleTTL.
	IdleTTL time.Duration
}

// Bridge is the MCP HTTP server shared by all sessions. Its listener starts
// with the first Register. Safe for concurrent use.
type Bridge struct{ impl *bridge }

// New returns a bridge; nothing listens until the first Register.
func New(opts Options) *Bridge { return &Bridge{newBridge(opts)} }

// Register starts the listener if needed and gives the session a fresh
// token (a session registered again gets a new token; the old one dies).
func (b *Bridge) Register(ctx context.Context, binding Binding) (Endpoint, error) {
	return b.impl.register(ctx, binding)
}

// Unregister kills the session's token at once (later requests get 401)
// and cancels its in-flight calls.
func (b *Bridge) Unregister(sessionID string) { b.impl.unregister(sessionID) }

// ToolsListed returns a channel closed once the session's agent has called
// tools/list (nil for an unknown session).
func (b *Bridge) ToolsListed(sessionID string) <-chan struct{} { return b.impl.toolsListed(sessionID) }

// Touch marks the session's token as used now (a run in progress keeps it
// alive).
func (b *Bridge) Touch(sessionID string) { b.impl.touch(sessionID) }

// Sessions returns the ids of the sessions with a live token.
func (b *Bridge) Sessions() []string { return b.impl.sessions() }

// URL is the MCP endpoint URL, "" before the first Register.
func (b *Bridge) URL() string { return b.impl.url() }

// Close stops the listener and kills every token.
func (b *Bridge) Close(ctx context.Context) error { return b.impl.close(ctx) }
