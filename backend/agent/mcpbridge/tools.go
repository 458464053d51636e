package mcpbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/meith-dev/meith/backend/protocol"
)

// MCP method names answered by the bridge itself.
const (
	methodListTools = "tools/list"
	methodCallTool  = "tools/call"
)

// Keys of the _meta objects the bridge adds.
const (
	metaCapabilities = "meith/capabilities"
	metaError        = "meith/error"
	metaResult       = "meith/meta"
)

// toolsMiddleware answers tools/list from reg's binding and sends every
// tools/call to binding.Call; other methods go to the SDK.
func (b *bridge) toolsMiddleware(reg *registration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case methodListTools:
				res := &mcp.ListToolsResult{Tools: toolsOf(reg.binding.List())}
				reg.listedOnce.Do(func() { close(reg.listed) })
				return res, nil
			case methodCallTool:
				if creq, ok := req.(*mcp.CallToolRequest); ok {
					return b.callTool(ctx, reg, creq)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// toolsOf maps registry descriptors to MCP tools.
func toolsOf(descs []protocol.ToolDescriptor) []*mcp.Tool {
	tools := make([]*mcp.Tool, 0, len(descs))
	for _, d := range descs {
		caps := make([]string, len(d.Capabilities))
		for i, c := range d.Capabilities {
			caps[i] = string(c)
		}
		tools = append(tools, &mcp.Tool{
			Name:         d.Name,
			Title:        d.Name,
			Description:  d.Description,
			InputSchema:  objectSchema(d.InputSchema),
			OutputSchema: outputSchemaOf(d.OutputSchema),
			Annotations:  annotationsOf(d.Name, d.Capabilities),
			Meta:         mcp.Meta{metaCapabilities: caps},
		})
	}
	return tools
}

// objectSchema decodes a tool's input schema, adding "type":"object" when
// it has no type (MCP requires an object schema). A missing or unreadable
// schema becomes {"type":"object"}.
func objectSchema(raw json.RawMessage) map[string]any {
	var schema map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &schema)
	}
	if schema == nil {
		schema = map[string]any{}
	}
	if _, ok := schema["type"]; !ok {
		schema["type"] = "object"
	}
	return schema
}

// outputSchemaOf decodes a tool's output schema for MCP's outputSchema, or
// returns nil (none advertised) unless the schema's type is exactly
// "object". A client may check every result of a tool with an output
// schema: its structuredContent must be there and match. [resultOf] gives
// structuredContent for object content only, and agents speaking MCP
// versions before 2026-07-28 accept only object output schemas; a tool
// whose content may be null (a pointer), an array or a scalar advertises
// none and its result stays text. The result is an untyped nil then, so
// the key is left out of the tool.
func outputSchemaOf(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	var schema map[string]any
	if json.Unmarshal(raw, &schema) != nil || schema["type"] != "object" {
		return nil
	}
	return schema
}

// annotationsOf derives MCP hints from capabilities: read-only when the
// tool has no capability beyond read-only and accesses-network; destructive
// when it declares destructive; open-world when it reaches the network or
// drives the browser. idempotentHint is left at its default (false).
func annotationsOf(name string, caps []protocol.Capability) *mcp.ToolAnnotations {
	has := func(c protocol.Capability) bool {
		for _, k := range caps {
			if k == c {
				return true
			}
		}
		return false
	}
	readOnly := len(caps) > 0
	for _, c := range caps {
		if c != protocol.CapReadOnly && c != protocol.CapAccessesNetwork {
			readOnly = false
		}
	}
	destructive := has(protocol.CapDestructive)
	openWorld := has(protocol.CapAccessesNetwork) || has(protocol.CapControlsBrowser)
	return &mcp.ToolAnnotations{
		Title:           name,
		ReadOnlyHint:    readOnly,
		DestructiveHint: &destructive,
		OpenWorldHint:   &openWorld,
	}
}

// callTool runs one tools/call through the binding. Its context ends when
// the client cancels it (notifications/cancelled: ctx), when the HTTP
// request that carried it ends, or when the token dies.
func (b *bridge) callTool(ctx context.Context, reg *registration, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Params == nil || req.Params.Name == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing tool name"}
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(reg.ctx, func() { cancel(context.Cause(reg.ctx)) })()
	if req.Extra != nil && req.Extra.Header != nil {
		if key := req.Extra.Header.Get(requestKeyHeader); key != "" {
			v, ok := b.inflight.Load(key)
			switch {
			case !ok:
				// The HTTP request ended before the handler started.
				cancel(errRequestEnded)
			case v.(*httpCall).reg != reg:
				// Unreachable through the SDK (its sessions are bound to
				// the token's user id); refused all the same.
				return errorResult(protocol.ErrorResult(protocol.CodePermissionDenied,
					"this token does not belong to the session", nil)), nil
			default:
				defer context.AfterFunc(v.(*httpCall).ctx, func() { cancel(errRequestEnded) })()
			}
		}
	}

	reg.calls.Add(1)
	defer func() { reg.touch(); reg.calls.Add(-1) }()
	p := &progress{ctx: ctx, session: req.Session, token: req.Params.GetProgressToken(), last: -1}
	res := reg.binding.Call(callCtx, req.Params.Name, req.Params.Arguments, p.emit)
	p.stop()
	return resultOf(res), nil
}

// resultOf maps a tool result to MCP. Success: one text item with the
// content as JSON (a JSON string is given as the string itself), plus
// structuredContent when the content is an object; diagnostics follow as
// text items "level: message". Failure: isError with "CODE: message", the
// whole error (with details) under _meta "meith/error".
func resultOf(res protocol.ToolResult) *mcp.CallToolResult {
	if !res.OK {
		return errorResult(res)
	}
	text := "null"
	var structured any
	if c := bytes.TrimSpace(res.Content); len(c) > 0 {
		text = string(c)
		switch c[0] {
		case '"':
			var s string
			if json.Unmarshal(c, &s) == nil {
				text = s
			}
		case '{':
			structured = json.RawMessage(c)
		}
	}
	out := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: structured,
	}
	for _, d := range res.Diagnostics {
		out.Content = append(out.Content, &mcp.TextContent{Text: d.Level + ": " + d.Message})
	}
	if len(res.Meta) > 0 {
		out.Meta = mcp.Meta{metaResult: res.Meta}
	}
	return out
}

// errorResult maps a failed tool result to an isError MCP result.
func errorResult(res protocol.ToolResult) *mcp.CallToolResult {
	info := res.Error
	if info == nil {
		info = &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Message: "tool failed without an error"}
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: string(info.Code) + ": " + info.Message}},
		Meta:    mcp.Meta{metaError: info},
	}
}

// progress forwards a call's events as MCP progress notifications when the
// client gave a progressToken:
//
//   - progress: its message, and progress = fraction×100 of total 100 when
//     the fraction is known;
//   - log (info, warn, error): "level: message" as the message; debug is
//     dropped;
//   - partial_text and artifact are dropped (the result carries the output).
//
// MCP wants progress to increase with each notification, so a value that
// does not (no fraction, or a fraction that went back) is nudged just above
// the previous one.
type progress struct {
	ctx     context.Context
	session *mcp.ServerSession
	token   any

	mu      sync.Mutex
	last    float64
	stopped bool
}

func (p *progress) emit(ev protocol.Event) {
	if p.token == nil || p.session == nil {
		return
	}
	params := &mcp.ProgressNotificationParams{ProgressToken: p.token}
	switch ev.Kind {
	case protocol.EventProgress:
		params.Message = ev.Message
	case protocol.EventLog:
		if ev.Level == protocol.LevelDebug || ev.Message == "" {
			return
		}
		level := ev.Level
		if level == "" {
			level = protocol.LevelInfo
		}
		params.Message = string(level) + ": " + ev.Message
	default:
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	value := max(p.last, 0)
	if ev.Kind == protocol.EventProgress && ev.Fraction != nil {
		value = *ev.Fraction * 100
	}
	if value <= p.last {
		value = p.last + 0.001
	}
	if ev.Kind == protocol.EventProgress && ev.Fraction != nil && value <= 100 {
		params.Total = 100
	}
	p.last = value
	params.Progress = value
	// Best effort: a client gone away just misses the notification.
	_ = p.session.NotifyProgress(p.ctx, params)
}

// stop ends forwarding (the result is on its way).
func (p *progress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
}
