package pluginhost

import (
	"cmp"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

//go:embed preload.js
var preloadJS string

// MaxInFlight bounds the bridge calls one plugin tab has running.
const MaxInFlight = 32

// outboxSize bounds the answers waiting for delivery to one tab's page;
// events beyond it are dropped (results and errors wait).
const outboxSize = 256

// answerTimeout bounds one delivery into the page.
const answerTimeout = 10 * time.Second

// errDropped ends a dropped bridge's calls.
var errDropped = errors.New("the plugin bridge was dropped")

// pluginTab is one plugin tab's bridge as the host sees it.
type pluginTab struct {
	h        *Host
	tabID    string
	pluginID string
	name     string
	spaceID  string
	scope    scope
	binding  string // the binding's random name
	deliver  string // the preload's random delivery function
	preload  string

	ctx    context.Context // ends when the bridge drops
	cancel context.CancelCauseFunc
	out    chan delivery

	mu       sync.Mutex
	tab      *browser.Tab // the live page, once an event named it
	state    string
	reason   string
	inflight map[int64]context.CancelFunc
	last     *browser.BridgeCall // the latest call, where a revocation is told
}

// delivery is one message for the page.
type delivery struct {
	call  browser.BridgeCall
	msg   []byte
	event bool
}

func randomName(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func newPluginTab(h *Host, rec state.BrowserTab, info Info, sc scope) *pluginTab {
	ctx, cancel := context.WithCancelCause(h.ctx)
	pt := &pluginTab{h: h, tabID: rec.ID, pluginID: info.ID, name: cmp.Or(info.Name, info.ID), spaceID: rec.SpaceID,
		scope: sc, binding: randomName("__meithBridge_"), deliver: randomName("__meithDeliver_"),
		ctx: ctx, cancel: cancel, out: make(chan delivery, outboxSize),
		state: BridgeConnecting, inflight: map[int64]context.CancelFunc{}}
	pt.preload = pt.buildPreload(info)
	go pt.outbox()
	return pt
}

// buildPreload writes the tab's config into the preload: the random names,
// the scope, the identity and the approved API scopes.
func (pt *pluginTab) buildPreload(info Info) string {
	scopes := approvedScopes(info.Scopes)
	caps := make([]string, 0, len(info.Capabilities))
	for _, c := range info.Capabilities {
		caps = append(caps, string(c))
	}
	cfg := map[string]any{
		"binding": pt.binding, "deliver": pt.deliver,
		"origin": webOrigin(pt.scope.origin), "prefix": pt.scope.prefix,
		"scopes":   scopes,
		"identity": Identity{PluginID: info.ID, Name: info.Name, Version: info.Version, APIs: scopes, Capabilities: caps},
	}
	raw, _ := json.Marshal(cfg)
	return strings.Replace(preloadJS, "/*CONFIG*/ null", string(raw), 1)
}

// Identity is window.meithPlugin.identity: who the tab's page is, as meith
// knows it from the tab it opened.
type Identity struct {
	PluginID     string   `json:"pluginId"`
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	APIs         []string `json:"apis"`
	Capabilities []string `json:"capabilities"`
}

// approvedScopes are the known API scopes among scopes, sorted, once each.
func approvedScopes(scopes []string) []string {
	out := []string{}
	for _, s := range []string{ScopeAI, ScopeCDP, ScopeStorage, ScopeTools} {
		if slices.Contains(scopes, s) {
			out = append(out, s)
		}
	}
	return out
}

func (pt *pluginTab) bridgeSpec() *browser.Bridge {
	return &browser.Bridge{Name: pt.binding, Preload: pt.preload, OnNavigate: pt.navigated, OnCall: pt.called, OnEnd: pt.ended}
}

func (pt *pluginTab) status() TabStatus {
	pt.mu.Lock()
	defer pt.mu.Unlock()
	return TabStatus{TabID: pt.tabID, PluginID: pt.pluginID, Bridge: pt.state, Reason: pt.reason}
}

// liveTab is the tab's page: the one its events came from, else the
// engine's live tab of the id.
func (pt *pluginTab) liveTab() *browser.Tab {
	pt.mu.Lock()
	t := pt.tab
	pt.mu.Unlock()
	if t != nil {
		return t
	}
	return pt.h.opts.Browser.Peek(pt.tabID)
}

func (pt *pluginTab) seen(t *browser.Tab) {
	pt.mu.Lock()
	if pt.tab == nil {
		pt.tab = t
	}
	pt.mu.Unlock()
}

// navigated is the main frame's committed URL: the first one in scope
// makes the bridge live; any one out of scope drops it for good (the
// initial about:blank of a new target aside).
func (pt *pluginTab) navigated(t *browser.Tab, url string) {
	pt.seen(t)
	pt.mu.Lock()
	st := pt.state
	pt.mu.Unlock()
	switch {
	case st == BridgeDropped:
	case pt.scope.contains(url):
		if st == BridgeConnecting {
			pt.mu.Lock()
			pt.state = BridgeLive
			pt.mu.Unlock()
			pt.h.changed(pt.status())
		}
	case st == BridgeConnecting && url == "about:blank":
	default:
		pt.drop("the page left the plugin's scope ("+clipURL(url)+")", false)
	}
}

func clipURL(u string) string {
	if len(u) > 200 {
		return u[:200] + "…"
	}
	return u
}

// ended is the tab's end (closed, crashed): its calls stop.
func (pt *pluginTab) ended() {
	pt.mu.Lock()
	pt.tab = nil
	pt.mu.Unlock()
	pt.drop("the tab was closed", false)
	pt.h.forget(pt)
}

// drop takes the bridge away for good: calls in flight are cancelled, the
// page is told when tell is set (the document that called is still there:
// a revocation, not a navigation), the binding and preload are removed and
// the tab's console says why.
func (pt *pluginTab) drop(reason string, tell bool) {
	pt.mu.Lock()
	if pt.state == BridgeDropped {
		pt.mu.Unlock()
		return
	}
	pt.state, pt.reason = BridgeDropped, reason
	for _, cancel := range pt.inflight {
		cancel()
	}
	pt.inflight = map[int64]context.CancelFunc{}
	last := pt.last
	pt.mu.Unlock()
	pt.cancel(errDropped)
	if t := pt.liveTab(); t != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if last != nil && tell {
			msg, _ := json.Marshal(map[string]any{"type": "revoked", "reason": reason})
			_ = t.Answer(ctx, *last, pt.deliverExpr(msg))
		}
		if err := t.DropBridge(ctx); err != nil {
			level := "warn"
			if errors.Is(err, context.Canceled) {
				level = "debug" // the tab or the browser went meanwhile
			}
			pt.h.logf(level, "plugin tab %s: drop its bridge: %v", pt.tabID, err)
		}
		t.Note("warn", fmt.Sprintf("meith removed the plugin bridge of %s from this tab: %s", pt.name, reason))
	}
	pt.h.logf("info", "plugin tab %s (%s): bridge dropped: %s", pt.tabID, pt.pluginID, reason)
	pt.h.changed(pt.status())
}

func (pt *pluginTab) deliverExpr(msg []byte) string {
	name, _ := json.Marshal(pt.deliver)
	return "globalThis[" + string(name) + "](" + string(msg) + ")"
}

// outbox delivers answers to the page in order until the bridge drops.
func (pt *pluginTab) outbox() {
	for {
		select {
		case <-pt.ctx.Done():
			return
		case d := <-pt.out:
			t := pt.liveTab()
			if t == nil {
				continue
			}
			ctx, cancel := context.WithTimeout(pt.ctx, answerTimeout)
			if err := t.Answer(ctx, d.call, pt.deliverExpr(d.msg)); err != nil && !errors.Is(err, browser.ErrBridgeDropped) {
				pt.h.logf("debug", "plugin tab %s: deliver an answer: %v", pt.tabID, err)
			}
			cancel()
		}
	}
}

// send queues a message for the page; an event is dropped when the queue
// is full, anything else waits (until the bridge drops).
func (pt *pluginTab) send(call browser.BridgeCall, msg map[string]any, event bool) {
	raw, err := json.Marshal(msg)
	if err != nil {
		raw, _ = json.Marshal(map[string]any{"id": msg["id"], "type": "error", "code": protocol.CodeToolFailed,
			"message": "the answer cannot be encoded: " + err.Error()})
	}
	d := delivery{call: call, msg: raw, event: event}
	if event {
		select {
		case pt.out <- d:
		default:
		}
		return
	}
	select {
	case pt.out <- d:
	case <-pt.ctx.Done():
	}
}

func (pt *pluginTab) fail(call browser.BridgeCall, id int64, code protocol.ErrorCode, message string) {
	pt.send(call, map[string]any{"id": id, "type": "error", "code": code, "message": message}, false)
}

// request is one message of the page.
type request struct {
	ID   int64           `json:"id"`
	Op   string          `json:"op"`
	Args json.RawMessage `json:"args"`
}

// opScopes is the API scope each operation needs.
var opScopes = map[string]string{
	"tools.list": ScopeTools, "tools.call": ScopeTools,
	"storage.getBrowserTabs": ScopeStorage, "storage.getWorkspaceTabs": ScopeStorage,
	"cdp.send":      ScopeCDP,
	"ai.streamText": ScopeAI,
}

// called is one call of the page's bridge. Nothing is answered unless the
// bridge is live and the call came from the plugin's scope; the plugin's
// record is read again, so a disable or a scope taken back counts at once.
func (pt *pluginTab) called(t *browser.Tab, c browser.BridgeCall) {
	pt.seen(t)
	pt.mu.Lock()
	st := pt.state
	pt.mu.Unlock()
	if st != BridgeLive {
		return
	}
	if !pt.scope.contains(c.URL) || !pt.scope.sameOrigin(c.Origin) {
		pt.drop("a call came from outside the plugin's scope ("+clipURL(c.URL)+")", false)
		return
	}
	pt.mu.Lock()
	pt.last = &c
	pt.mu.Unlock()
	var req request
	if err := json.Unmarshal([]byte(c.Payload), &req); err != nil || req.ID <= 0 {
		pt.h.logf("debug", "plugin tab %s: a bridge message that is not a request was ignored", pt.tabID)
		return
	}
	if req.Op == "cancel" {
		pt.mu.Lock()
		cancel := pt.inflight[req.ID]
		pt.mu.Unlock()
		if cancel != nil {
			cancel()
		}
		return
	}
	info, ok := pt.h.opts.Directory.Plugin(pt.pluginID)
	if !ok || !info.Enabled {
		// Answered at once, before the revocation that rejects the rest.
		msg, _ := json.Marshal(map[string]any{"id": req.ID, "type": "error", "code": protocol.CodePermissionDenied,
			"message": fmt.Sprintf("Plugin %s is not installed and enabled", pt.pluginID)})
		ctx, cancel := context.WithTimeout(pt.ctx, answerTimeout)
		_ = t.Answer(ctx, c, pt.deliverExpr(msg))
		cancel()
		pt.drop("the plugin is no longer enabled", true)
		return
	}
	need, known := opScopes[req.Op]
	if !known {
		pt.fail(c, req.ID, protocol.CodeValidation, fmt.Sprintf("unknown bridge operation %q", req.Op))
		return
	}
	if !slices.Contains(info.Scopes, need) {
		pt.fail(c, req.ID, protocol.CodePermissionDenied,
			fmt.Sprintf("Plugin %s has no approved API scope %q (approve it in Settings → Plugins)", pt.pluginID, need))
		return
	}
	ctx, cancel := context.WithCancel(pt.ctx)
	pt.mu.Lock()
	_, dup := pt.inflight[req.ID]
	full := len(pt.inflight) >= MaxInFlight
	if !dup && !full && pt.state == BridgeLive {
		pt.inflight[req.ID] = cancel
	}
	pt.mu.Unlock()
	switch {
	case dup:
		cancel()
		pt.fail(c, req.ID, protocol.CodeValidation, fmt.Sprintf("bridge call %d is already running", req.ID))
		return
	case full:
		cancel()
		pt.fail(c, req.ID, protocol.CodeToolFailed, fmt.Sprintf("too many bridge calls in flight (at most %d)", MaxInFlight))
		return
	}
	go func() {
		defer func() {
			cancel()
			pt.mu.Lock()
			delete(pt.inflight, req.ID)
			pt.mu.Unlock()
		}()
		value, err := pt.run(ctx, c, req)
		if pt.ctx.Err() != nil {
			return
		}
		if err != nil {
			code := protocol.CodeOf(err)
			if code == "" {
				code = protocol.CodeToolFailed
			}
			pt.fail(c, req.ID, code, errMessage(err))
			return
		}
		pt.send(c, map[string]any{"id": req.ID, "type": "result", "value": value}, false)
	}()
}

// run runs one operation through the registry, as the plugin.
func (pt *pluginTab) run(ctx context.Context, c browser.BridgeCall, req request) (any, error) {
	emit := func(ev protocol.Event) {
		pt.send(c, map[string]any{"id": req.ID, "type": "event", "event": ev}, true)
	}
	switch req.Op {
	case "tools.list":
		return pt.h.opts.Registry.List(), nil
	case "tools.call":
		var in struct {
			Name      string          `json:"name"`
			Args      json.RawMessage `json:"args"`
			TimeoutMs int64           `json:"timeoutMs"`
		}
		if err := json.Unmarshal(req.Args, &in); err != nil || in.Name == "" {
			return nil, protocol.Errorf(protocol.CodeValidation, "tools.call needs a tool name and an arguments object")
		}
		return pt.call(ctx, in.Name, in.Args, time.Duration(in.TimeoutMs)*time.Millisecond, emit), nil
	case "storage.getBrowserTabs", "storage.getWorkspaceTabs":
		var tabs struct {
			BrowserTabs   []state.BrowserTab   `json:"browserTabs"`
			WorkspaceTabs []state.WorkspaceTab `json:"workspaceTabs"`
		}
		if err := pt.content(pt.call(ctx, "get_tabs", nil, 0, nil), &tabs); err != nil {
			return nil, err
		}
		if req.Op == "storage.getWorkspaceTabs" {
			return nonNil(tabs.WorkspaceTabs), nil
		}
		web := []state.BrowserTab{}
		for _, b := range tabs.BrowserTabs {
			if b.Mode != state.BrowserModePlugin {
				web = append(web, b)
			}
		}
		return web, nil
	case "cdp.send":
		var in struct {
			TabID  string          `json:"tabId"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(req.Args, &in); err != nil || in.TabID == "" || in.Method == "" {
			return nil, protocol.Errorf(protocol.CodeValidation, "cdp.send needs a tab id and a method")
		}
		// The tab is claimed for the plugin (its owner id is its session),
		// as any caller that must claim a tab before controlling it.
		claim, _ := json.Marshal(map[string]any{"tabId": in.TabID})
		if err := pt.content(pt.call(ctx, "browser_use_start", claim, 0, nil), nil); err != nil {
			return nil, err
		}
		args := map[string]any{"tabId": in.TabID, "method": in.Method}
		if len(in.Params) > 0 && string(in.Params) != "null" {
			args["params"] = in.Params
		}
		raw, _ := json.Marshal(args)
		var out struct {
			Result json.RawMessage `json:"result"`
		}
		if err := pt.content(pt.call(ctx, "cdp_command", raw, 0, nil), &out); err != nil {
			return nil, err
		}
		return out.Result, nil
	case "ai.streamText":
		var in struct {
			Prompt       string `json:"prompt"`
			SystemPrompt string `json:"systemPrompt,omitempty"`
			MaxChars     int    `json:"maxChars,omitempty"`
			TimeoutMs    int64  `json:"timeoutMs,omitempty"`
		}
		if err := json.Unmarshal(req.Args, &in); err != nil || in.Prompt == "" {
			return nil, protocol.Errorf(protocol.CodeValidation, "ai.streamText needs a prompt")
		}
		raw, _ := json.Marshal(in)
		var out struct {
			Text string `json:"text"`
		}
		if err := pt.content(pt.call(ctx, "ai_complete", raw, 0, emit), &out); err != nil {
			return nil, err
		}
		return map[string]any{"text": out.Text}, nil
	}
	return nil, protocol.Errorf(protocol.CodeValidation, "unknown bridge operation %q", req.Op)
}

// call runs a tool as the plugin: caller plugin, session "plugin:<id>"
// (the permission service decides by the plugin's approved capabilities,
// the audit names the plugin), in the tab's space.
func (pt *pluginTab) call(ctx context.Context, tool string, args json.RawMessage, timeout time.Duration, emit func(protocol.Event)) protocol.ToolResult {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	return pt.h.opts.Registry.Call(ctx, registry.Request{
		RequestID: protocol.NewID("req"), ToolName: tool, Args: args, Timeout: timeout, Emit: emit,
		Client: protocol.ClientInfo{Caller: protocol.CallerPlugin, SessionID: "plugin:" + pt.pluginID, SpaceID: pt.spaceID},
	})
}

// content decodes a successful result's content into out (nil: none), or
// returns its error.
func (pt *pluginTab) content(res protocol.ToolResult, out any) error {
	if !res.OK {
		return res.Err()
	}
	if out == nil || len(res.Content) == 0 {
		return nil
	}
	if err := json.Unmarshal(res.Content, out); err != nil {
		return protocol.Errorf(protocol.CodeToolFailed, "decode the result: %v", err)
	}
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
