package pluginhost_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/pluginhost"
	"github.com/meith-dev/meith/backend/project/template"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/tools/apptools"
	"github.com/meith-dev/meith/backend/tools/browsertools"
	"github.com/meith-dev/meith/backend/tools/spacetools"
)

// The host tests run real plugin pages in one real Chromium (Debian's
// chromium): a local plugin served by the host's file server, pages of
// other origins on 127.0.0.1, and the registry with the real permission
// service deciding by the test directory's approved capabilities.

// directory is the test's plugin records.
type directory struct {
	mu      sync.Mutex
	plugins map[string]pluginhost.Info
}

func (d *directory) Plugin(id string) (pluginhost.Info, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.plugins[id]
	return p, ok
}

func (d *directory) set(p pluginhost.Info) {
	d.mu.Lock()
	d.plugins[p.ID] = p
	d.mu.Unlock()
}

func (d *directory) update(id string, f func(*pluginhost.Info)) {
	d.mu.Lock()
	p := d.plugins[id]
	f(&p)
	d.plugins[id] = p
	d.mu.Unlock()
}

// grants is the permission service's PluginGrants over the directory.
func (d *directory) grants(id string) ([]protocol.Capability, bool) {
	p, ok := d.Plugin(id)
	if !ok || !p.Enabled {
		return nil, false
	}
	return p.Capabilities, true
}

// env is one host with its engine, store, registry and audit.
type env struct {
	t       *testing.T
	dir     *directory
	host    *pluginhost.Host
	browser *browser.Manager
	store   *state.Store
	reg     *registry.Registry
	other   *httptest.Server // another origin
	reports chan string      // what the other origin's pages report

	auditMu sync.Mutex
	audit   []registry.Outcome

	waitMu  sync.Mutex
	waiting map[string]chan struct{} // test_wait calls by tag: closed when cancelled
}

func needChromium(t *testing.T) {
	t.Helper()
	if _, err := browser.FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
}

const pluginPage = `<!doctype html><html><head><meta charset="utf-8"><title>Board</title>
<style>body { font-family: sans-serif }</style></head>
<body><h1>Board</h1><script src="main.js" type="module"></script></body></html>`

func newEnv(t *testing.T) *env {
	t.Helper()
	needChromium(t)
	tmp := t.TempDir()
	e := &env{t: t, dir: &directory{plugins: map[string]pluginhost.Info{}}, reports: make(chan string, 16),
		waiting: map[string]chan struct{}{}}

	// Two local plugins: "dev.meith.board" (tools approved, read-only and
	// accesses-network) and "dev.meith.tabs" (storage approved).
	board := filepath.Join(tmp, "board")
	writeFiles(t, board, map[string]string{
		"index.html": pluginPage,
		"main.js":    `document.body.dataset.bridge = typeof window.meithPlugin;`,
		".env":       "SECRET=1",
	})
	e.dir.set(pluginhost.Info{ID: "dev.meith.board", Name: "Board", Version: "1.2.3", Root: board, Entry: "index.html",
		Scopes: []string{"tools"}, Capabilities: []protocol.Capability{protocol.CapReadOnly, protocol.CapAccessesNetwork}, Enabled: true})
	tabsDir := filepath.Join(tmp, "tabs")
	writeFiles(t, tabsDir, map[string]string{"web/index.html": pluginPage, "web/main.js": ``, "secret.txt": "s"})
	e.dir.set(pluginhost.Info{ID: "dev.meith.tabs", Name: "Tabs", Version: "0.1.0", Root: tabsDir, Entry: "web/index.html",
		Scopes: []string{"storage"}, Capabilities: []protocol.Capability{protocol.CapReadOnly}, Enabled: true})

	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Other</title><p>another origin</p>`)
	})
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		// A subframe of another origin inside a plugin page reports what
		// it can reach.
		fmt.Fprint(w, `<!doctype html><title>frame</title><script>
			let parentBridge;
			try { parentBridge = typeof parent.meithPlugin; } catch (e) { parentBridge = e.name; }
			const globals = Object.getOwnPropertyNames(window).filter(k => k.startsWith("__meith")).join(",");
			fetch("/report?v=" + encodeURIComponent([typeof window.meithPlugin, parentBridge, globals].join("|")));
		</script>`)
	})
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		e.reports <- r.URL.Query().Get("v")
	})
	e.other = httptest.NewServer(mux)
	t.Cleanup(e.other.Close)

	var err error
	e.store, err = state.Open(filepath.Join(tmp, "state.json"), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.store.Close() })
	perms := permission.New(permission.Options{PluginGrants: e.dir.grants})
	e.reg = registry.New(registry.Options{Authorizer: perms, Audit: func(o registry.Outcome) {
		e.auditMu.Lock()
		e.audit = append(e.audit, o)
		e.auditMu.Unlock()
	}})
	var host *pluginhost.Host
	opts := browsertools.StateHooks(e.store, browser.Options{DataDir: filepath.Join(tmp, "browser")}, nil)
	opts.Lookup = pluginhost.WrapLookup(opts.Lookup, func() *pluginhost.Host { return host })
	e.browser = browser.New(opts)
	t.Cleanup(func() { e.browser.Shutdown(context.Background()) })
	spacetools.Register(e.reg, spacetools.Deps{Store: e.store})
	apptools.Register(e.reg, apptools.Deps{Version: "test", StartedAt: time.Now(), UserData: tmp, Registry: e.reg})
	browsertools.Register(e.reg, browsertools.Deps{Store: e.store, Browser: e.browser, ArtifactsDir: filepath.Join(tmp, "artifacts")})
	e.registerTestTools()
	host = pluginhost.New(pluginhost.Options{Directory: e.dir, Browser: e.browser, Store: e.store, Registry: e.reg,
		Logf: func(level, format string, args ...any) { t.Logf("host %s: "+format, append([]any{level}, args...)...) }})
	e.host = host
	t.Cleanup(func() { host.Shutdown(context.Background()) })
	return e
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// registerTestTools adds a tool that reports progress and one that waits
// until it is cancelled.
func (e *env) registerTestTools() {
	type noArgs struct{}
	registry.Register(e.reg, registry.Tool{Name: "test_progress", Description: "Reports progress twice.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly}},
		func(ctx context.Context, call *registry.Call, _ noArgs) (map[string]any, error) {
			call.Progress("half", 0.5)
			call.Progress("done", 1)
			return map[string]any{"steps": 2}, nil
		})
	type waitArgs struct {
		Tag string `json:"tag"`
	}
	registry.Register(e.reg, registry.Tool{Name: "test_wait", Description: "Waits until cancelled.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly}, Timeout: time.Minute},
		func(ctx context.Context, call *registry.Call, in waitArgs) (map[string]any, error) {
			call.Progress("waiting", -1)
			<-ctx.Done()
			e.waitMu.Lock()
			if ch, ok := e.waiting[in.Tag]; ok {
				close(ch)
				delete(e.waiting, in.Tag)
			}
			e.waitMu.Unlock()
			return nil, ctx.Err()
		})
}

// cancelled returns a channel closed when the test_wait call tagged tag
// ends.
func (e *env) cancelled(tag string) chan struct{} {
	ch := make(chan struct{})
	e.waitMu.Lock()
	e.waiting[tag] = ch
	e.waitMu.Unlock()
	return ch
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// open opens a plugin tab and returns its record and live page.
func (e *env) open(id string) (state.BrowserTab, *browser.Tab) {
	e.t.Helper()
	rec, err := e.host.Open(ctxT(e.t), pluginhost.OpenRequest{PluginID: id})
	if err != nil {
		e.t.Fatalf("Open(%s): %v", id, err)
	}
	tab := e.browser.Peek(rec.ID)
	if tab == nil {
		e.t.Fatalf("plugin tab %s is not live", rec.ID)
	}
	e.waitBridge(rec.ID, pluginhost.BridgeLive)
	return rec, tab
}

func (e *env) waitBridge(tabID, want string) pluginhost.TabStatus {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, ok := e.host.Status(tabID)
		if ok && st.Bridge == want || !ok && want == "" {
			return st
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("tab %s bridge = %+v (known %v), want %q", tabID, st, ok, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// eval evaluates expr in the page's own world (awaiting a promise) and
// returns its value as JSON.
func eval(t *testing.T, tab *browser.Tab, expr string) string {
	t.Helper()
	params, _ := json.Marshal(map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true})
	raw, err := tab.CDP(ctxT(t), "Runtime.evaluate", params)
	if err != nil {
		t.Fatalf("eval %s: %v", expr, err)
	}
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if res.ExceptionDetails != nil {
		return "throws: " + res.ExceptionDetails.Exception.Description
	}
	// Re-encoded, so that "\u2014" and "—" compare equal.
	var v any
	if err := json.Unmarshal(res.Result.Value, &v); err != nil {
		return string(res.Result.Value)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// waitEval polls expr until it gives want.
func waitEval(t *testing.T, tab *browser.Tab, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = eval(t, tab, expr); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s = %s, want %s", expr, got, want)
}

func (e *env) audited(tool string) []registry.Outcome {
	e.auditMu.Lock()
	defer e.auditMu.Unlock()
	var out []registry.Outcome
	for _, o := range e.audit {
		if o.ToolName == tool {
			out = append(out, o)
		}
	}
	return out
}

// TestPluginBridge: a real plugin page lists tools, makes an approved call
// (results and progress like any caller), is refused an unapproved one
// naming the capability, cancels a call; every call is audited as caller
// plugin with its id; namespaces exist only when approved; an iframe of
// another origin gets nothing.
func TestPluginBridge(t *testing.T) {
	e := newEnv(t)
	rec, tab := e.open("dev.meith.board")
	if rec.Mode != state.BrowserModePlugin || rec.PluginID != "dev.meith.board" || rec.ContextKey != "plugin:dev.meith.board" ||
		rec.Title != "Board" || !strings.Contains(rec.URL, ".plugins.localhost:") || !strings.HasSuffix(rec.URL, "/index.html") {
		t.Fatalf("plugin tab record: %+v", rec)
	}
	// The page's own module script saw the bridge.
	waitEval(t, tab, `document.body.dataset.bridge`, `"object"`)
	if got := eval(t, tab, `JSON.stringify(meithPlugin.identity)`); got != `"{\"pluginId\":\"dev.meith.board\",\"name\":\"Board\",\"version\":\"1.2.3\",\"apis\":[\"tools\"],\"capabilities\":[\"read-only\",\"accesses-network\"]}"` {
		t.Errorf("identity = %s", got)
	}
	if got := eval(t, tab, `Object.keys(meithPlugin).sort().join(",")`); got != `"identity,tools"` {
		t.Errorf("namespaces = %s, want identity and tools only", got)
	}
	if got := eval(t, tab, `Object.getOwnPropertyNames(window).filter(k => k.startsWith("__meithBridge")).length`); got != "0" {
		t.Errorf("the binding is still reachable by name: %s", got)
	}

	// tools.list
	if got := eval(t, tab, `meithPlugin.tools.list().then(l => l.some(d => d.name === "list_spaces") && l.every(d => d.capabilities.length > 0))`); got != "true" {
		t.Errorf("tools.list: %s", got)
	}
	// An approved call.
	got := eval(t, tab, `meithPlugin.tools.call("list_spaces", {}).then(r => JSON.stringify({ok: r.ok, n: r.content.spaces.length}))`)
	if got != `"{\"ok\":true,\"n\":1}"` {
		t.Errorf("list_spaces through the bridge: %s", got)
	}
	// An unapproved one: create_space writes files.
	got = eval(t, tab, `meithPlugin.tools.call("create_space", {name: "x"}).then(r => JSON.stringify(r.error))`)
	if !strings.Contains(got, `PERMISSION_DENIED`) || !strings.Contains(got, `lacks capabilities [writes-files]`) || !strings.Contains(got, "dev.meith.board") {
		t.Errorf("create_space through the bridge: %s, want PERMISSION_DENIED naming writes-files", got)
	}
	if n := len(e.store.Get().Spaces); n != 1 {
		t.Fatalf("a denied call created a space: %d spaces", n)
	}
	// Progress events arrive before the result.
	got = eval(t, tab, `(async () => { const ev = []; const r = await meithPlugin.tools.call("test_progress", {}, {onEvent: e => ev.push(e.kind + ":" + e.message)}); return JSON.stringify({ev, content: r.content}); })()`)
	if got != `"{\"ev\":[\"progress:half\",\"progress:done\"],\"content\":{\"steps\":2}}"` {
		t.Errorf("progress: %s", got)
	}
	// Cancel with an AbortSignal.
	done := e.cancelled("abort")
	got = eval(t, tab, `(async () => { const c = new AbortController(); const p = meithPlugin.tools.call("test_wait", {tag: "abort"}, {signal: c.signal, onEvent: () => c.abort()}); const r = await p; return r.error.code; })()`)
	if got != `"CANCELLED"` {
		t.Errorf("cancelled call: %s", got)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled tool never saw its context end")
	}
	// A bad request is answered with an error, not ignored.
	if got := eval(t, tab, `meithPlugin.tools.call("").then(() => "ok", e => e.code)`); got != `"VALIDATION_ERROR"` {
		t.Errorf("a call without a name: %s", got)
	}

	// Audit: every call as caller plugin with session plugin:<id>.
	for _, tool := range []string{"list_spaces", "create_space", "test_progress", "test_wait"} {
		outs := e.audited(tool)
		if len(outs) == 0 {
			t.Errorf("no audit entry for %s", tool)
		}
		for _, o := range outs {
			if o.Client.Caller != protocol.CallerPlugin || o.Client.SessionID != "plugin:dev.meith.board" || o.Client.SpaceID != rec.SpaceID {
				t.Errorf("audit of %s: client %+v, want caller plugin, session plugin:dev.meith.board", tool, o.Client)
			}
		}
	}
	if o := e.audited("create_space"); len(o) != 1 || o[0].Authorization.Decision != registry.AuthDeny || o[0].Result.Error.Code != protocol.CodePermissionDenied {
		t.Errorf("create_space audit: %+v", o)
	}

	// An iframe of another origin inside the plugin page gets nothing: no
	// bridge of its own, no access to its parent's, no binding by name.
	eval(t, tab, fmt.Sprintf(`(() => { const f = document.createElement("iframe"); f.src = %q; document.body.append(f); return 1; })()`, e.other.URL+"/frame"))
	select {
	case got := <-e.reports:
		if got != "undefined|SecurityError|" {
			t.Errorf("the subframe reports %q, want undefined|SecurityError| (nothing reachable)", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the subframe never reported")
	}
	if st, _ := e.host.Status(rec.ID); st.Bridge != pluginhost.BridgeLive {
		t.Errorf("the bridge after the subframe: %+v", st)
	}
}

// TestPluginCDPAndAI: the cdp namespace claims a web tab for the plugin and
// runs cdp_command on it (never on a plugin tab); the ai namespace streams
// ai_complete's text (a stand-in tool here: the agents are not wired).
func TestPluginCDPAndAI(t *testing.T) {
	e := newEnv(t)
	registry.Register(e.reg, registry.Tool{Name: "ai_complete", Description: "Stand-in: streams two chunks.",
		Capabilities: []protocol.Capability{protocol.CapStartsProcess, protocol.CapAccessesNetwork}},
		func(ctx context.Context, call *registry.Call, in struct {
			Prompt string `json:"prompt"`
		}) (map[string]any, error) {
			call.PartialText("echo: ")
			call.PartialText(in.Prompt)
			return map[string]any{"text": "echo: " + in.Prompt, "truncated": false}, nil
		})
	e.dir.set(pluginhost.Info{ID: "dev.meith.driver", Name: "Driver", Root: e.dir.plugins["dev.meith.board"].Root,
		Scopes: []string{"cdp", "ai"}, Enabled: true, Capabilities: []protocol.Capability{protocol.CapReadOnly,
			protocol.CapControlsBrowser, protocol.CapAccessesNetwork, protocol.CapStartsProcess}})
	if err := e.store.Update(func(s *state.State) error {
		return s.AddBrowserTab(state.BrowserTab{ID: "btab_web", SpaceID: s.ActiveSpaceID, URL: e.other.URL + "/page",
			Mode: state.BrowserModeWeb, ContextKey: state.SpaceContextKey(s.ActiveSpaceID)})
	}); err != nil {
		t.Fatal(err)
	}
	board, _ := e.open("dev.meith.board")
	_, tab := e.open("dev.meith.driver")
	if got := eval(t, tab, `Object.keys(meithPlugin).sort().join(",")`); got != `"ai,cdp,identity"` {
		t.Errorf("namespaces = %s", got)
	}
	got := eval(t, tab, `meithPlugin.cdp.send("btab_web", "Runtime.evaluate", {expression: "document.title", returnByValue: true}).then(r => r.result.value)`)
	if got != `"Other"` {
		t.Errorf("cdp.send on a web tab: %s", got)
	}
	if s := e.store.Get(); s.BrowserTab("btab_web").OwnerID == nil || *s.BrowserTab("btab_web").OwnerID != "plugin:dev.meith.driver" {
		t.Errorf("the web tab's owner: %v", s.BrowserTab("btab_web").OwnerID)
	}
	got = eval(t, tab, fmt.Sprintf(`meithPlugin.cdp.send(%q, "Runtime.evaluate", {expression: "1"}).then(() => "ok", e => e.code + " " + e.message)`, board.ID))
	if !strings.HasPrefix(got, `"PERMISSION_DENIED`) || !strings.Contains(got, "plugin tab") {
		t.Errorf("cdp.send on another plugin's tab: %s", got)
	}
	for _, tool := range []string{"browser_use_start", "cdp_command"} {
		if o := e.audited(tool); len(o) == 0 || o[0].Client.SessionID != "plugin:dev.meith.driver" {
			t.Errorf("%s audit: %+v", tool, o)
		}
	}
	got = eval(t, tab, `(async () => { const chunks = []; let started = false;
		const r = await meithPlugin.ai.streamText({prompt: "hi", onText: c => chunks.push(c), onStart: c => { started = typeof c.cancel === "function" }});
		return JSON.stringify({chunks, text: r.text, started}); })()`)
	if got != `"{\"chunks\":[\"echo: \",\"hi\"],\"text\":\"echo: hi\",\"started\":true}"` {
		t.Errorf("ai.streamText: %s", got)
	}
	// Without the capability the permission service refuses it.
	e.dir.update("dev.meith.driver", func(p *pluginhost.Info) { p.Capabilities = []protocol.Capability{protocol.CapReadOnly} })
	got = eval(t, tab, `meithPlugin.ai.streamText({prompt: "hi"}).then(() => "ok", e => e.code + " " + e.message)`)
	if !strings.Contains(got, "PERMISSION_DENIED") || !strings.Contains(got, "starts-process") {
		t.Errorf("ai.streamText without starts-process: %s", got)
	}
}

// TestPluginStorage: the storage namespace lists the browser tabs without
// plugin tabs; a plugin without the tools scope has no tools namespace.
func TestPluginStorage(t *testing.T) {
	e := newEnv(t)
	// A web tab and two plugin tabs.
	web, err := e.browser.Open(ctxT(t), browser.Spec{ID: "btab_web", ContextKey: state.SpaceContextKey(e.store.Get().ActiveSpaceID), URL: e.other.URL + "/page"})
	if err != nil {
		t.Fatal(err)
	}
	_ = web
	if err := e.store.Update(func(s *state.State) error {
		return s.AddBrowserTab(state.BrowserTab{ID: "btab_web", SpaceID: s.ActiveSpaceID, URL: e.other.URL + "/page", Mode: state.BrowserModeWeb})
	}); err != nil {
		t.Fatal(err)
	}
	e.open("dev.meith.board")
	rec, tab := e.open("dev.meith.tabs")
	if !strings.HasSuffix(rec.URL, "/web/index.html") {
		t.Fatalf("entry in a folder: %s", rec.URL)
	}
	if got := eval(t, tab, `Object.keys(meithPlugin).sort().join(",")`); got != `"identity,storage"` {
		t.Errorf("namespaces = %s", got)
	}
	if got := eval(t, tab, `meithPlugin.storage.getBrowserTabs().then(l => l.map(b => b.id + ":" + b.mode).join(","))`); got != `"btab_web:web"` {
		t.Errorf("getBrowserTabs = %s, want the web tab only", got)
	}
	if got := eval(t, tab, `meithPlugin.storage.getWorkspaceTabs().then(l => Array.isArray(l))`); got != "true" {
		t.Errorf("getWorkspaceTabs = %s", got)
	}
	if o := e.audited("get_tabs"); len(o) != 2 || o[0].Client.SessionID != "plugin:dev.meith.tabs" {
		t.Errorf("get_tabs audit: %+v", o)
	}
	// A file of the root outside the entry's folder is outside the scope.
	eval(t, tab, `location.href = "/secret.txt"; 1`)
	st := e.waitBridge(rec.ID, pluginhost.BridgeDropped)
	if !strings.Contains(st.Reason, "left the plugin's scope") {
		t.Errorf("drop reason: %q", st.Reason)
	}
}

// TestBridgeDroppedOutOfScope: navigating to another origin or to
// file:///etc/passwd drops the bridge; navigating back by script does not
// restore it.
func TestBridgeDroppedOutOfScope(t *testing.T) {
	e := newEnv(t)
	rec, tab := e.open("dev.meith.board")
	entry := rec.URL
	done := e.cancelled("inflight")
	eval(t, tab, `window.pending = meithPlugin.tools.call("test_wait", {tag: "inflight"}); 1`)
	time.Sleep(200 * time.Millisecond)
	eval(t, tab, fmt.Sprintf(`location.href = %q; 1`, e.other.URL+"/page"))
	st := e.waitBridge(rec.ID, pluginhost.BridgeDropped)
	if !strings.Contains(st.Reason, e.other.URL) {
		t.Errorf("reason %q does not name the page", st.Reason)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight was not cancelled when the bridge dropped")
	}
	waitEval(t, tab, `location.origin`, `"`+e.other.URL+`"`)
	if got := eval(t, tab, `typeof meithPlugin + "|" + Object.getOwnPropertyNames(window).filter(k => k.startsWith("__meith")).length`); got != `"undefined|0"` {
		t.Errorf("the other origin's page sees %s", got)
	}
	waitNote(t, tab, "meith removed the plugin bridge of Board from this tab: the page left the plugin's scope")
	// Back in history (the old document may come back whole from the
	// back-forward cache, its meithPlugin object included): nothing
	// answers it.
	eval(t, tab, `history.back(); 1`)
	waitEval(t, tab, `location.href`, `"`+entry+`"`)
	if got := eval(t, tab, `typeof meithPlugin === "undefined" ? "none" : Promise.race([meithPlugin.tools.call("list_spaces").then(() => "answered", e => "rejected"), new Promise(r => setTimeout(() => r("no answer"), 1000))])`); got != `"none"` && got != `"no answer"` && got != `"rejected"` {
		t.Errorf("the page restored from history: %s", got)
	}
	if o := e.audited("list_spaces"); len(o) != 0 {
		t.Errorf("a call after the drop reached the registry: %+v", o)
	}
	// To the plugin's own page by script: still no bridge.
	eval(t, tab, fmt.Sprintf(`location.href = %q; 1`, entry))
	waitEval(t, tab, `document.body && document.body.dataset.bridge || ""`, `"undefined"`)
	if st, _ := e.host.Status(rec.ID); st.Bridge != pluginhost.BridgeDropped {
		t.Errorf("status after coming back: %+v", st)
	}

	// file:///etc/passwd, as the window would navigate there.
	rec2, tab2 := e.open("dev.meith.board")
	if _, err := tab2.CDP(ctxT(t), "Page.navigate", json.RawMessage(`{"url":"file:///etc/passwd"}`)); err != nil {
		t.Fatal(err)
	}
	st = e.waitBridge(rec2.ID, pluginhost.BridgeDropped)
	if !strings.Contains(st.Reason, "file:///etc/passwd") {
		t.Errorf("reason %q", st.Reason)
	}
	waitEval(t, tab2, `location.href`, `"file:///etc/passwd"`)
	if got := eval(t, tab2, `typeof meithPlugin`); got != `"undefined"` {
		t.Errorf("file:///etc/passwd sees meithPlugin: %s", got)
	}
	waitNote(t, tab2, "meith removed the plugin bridge")
	// about:blank (by script: it keeps the plugin's origin) and data: (as
	// the window navigates: Chromium refuses a page's own top-level
	// navigation to data:) leave the scope too.
	rec3, tab3 := e.open("dev.meith.board")
	eval(t, tab3, `location.href = "about:blank"; 1`)
	e.waitBridge(rec3.ID, pluginhost.BridgeDropped)
	waitEval(t, tab3, `location.href + "|" + typeof meithPlugin`, `"about:blank|undefined"`)
	waitNote(t, tab3, "meith removed the plugin bridge")
	rec4, tab4 := e.open("dev.meith.board")
	if _, err := tab4.CDP(ctxT(t), "Page.navigate", json.RawMessage(`{"url":"data:text/html,<title>d</title>"}`)); err != nil {
		t.Fatal(err)
	}
	e.waitBridge(rec4.ID, pluginhost.BridgeDropped)
	waitEval(t, tab4, `typeof meithPlugin`, `"undefined"`)
	waitNote(t, tab4, "meith removed the plugin bridge")
}

// waitNote waits for a console line of meith's in the tab.
func waitNote(t *testing.T, tab *browser.Tab, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, c := range tab.Console(0) {
			if c.Source == "meith" && strings.Contains(c.Text, text) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no console note %q: %+v", text, tab.Console(0))
}

// TestRevokeAndDisable: Revoke takes the bridge from every open tab of
// the plugin at once and shows a notice; a plugin disabled behind the
// host's back is refused at its next call; a disabled plugin does not
// open.
func TestRevokeAndDisable(t *testing.T) {
	e := newEnv(t)
	rec1, tab1 := e.open("dev.meith.board")
	rec2, _ := e.open("dev.meith.board")
	other, _ := e.open("dev.meith.tabs")
	done := e.cancelled("revoke")
	eval(t, tab1, `window.outcome = "pending"; meithPlugin.tools.call("test_wait", {tag: "revoke"}).then(r => window.outcome = "resolved", e => window.outcome = e.code); 1`)
	time.Sleep(200 * time.Millisecond)
	e.dir.update("dev.meith.board", func(p *pluginhost.Info) { p.Enabled = false })
	if n := e.host.Revoke(ctxT(t), "dev.meith.board", "the plugin was disabled"); n != 2 {
		t.Fatalf("Revoke = %d tabs, want 2", n)
	}
	for _, id := range []string{rec1.ID, rec2.ID} {
		if st, _ := e.host.Status(id); st.Bridge != pluginhost.BridgeDropped || st.Reason != "the plugin was disabled" {
			t.Errorf("tab %s after Revoke: %+v", id, st)
		}
	}
	if st, _ := e.host.Status(other.ID); st.Bridge != pluginhost.BridgeLive {
		t.Errorf("another plugin's tab was revoked too: %+v", st)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight was not cancelled by Revoke")
	}
	waitEval(t, tab1, `document.title`, `"Board — plugin stopped"`)
	if got := eval(t, tab1, `typeof meithPlugin`); got != `"undefined"` {
		t.Errorf("the notice page sees meithPlugin: %s", got)
	}
	// The records stay (the window shows the notice).
	s := e.store.Get()
	if s.BrowserTab(rec1.ID) == nil {
		t.Error("Revoke removed the tab record")
	}
	// A disabled plugin does not open.
	if _, err := e.host.Open(ctxT(t), pluginhost.OpenRequest{PluginID: "dev.meith.board"}); protocol.CodeOf(err) != protocol.CodeToolFailed || !strings.Contains(err.Error(), "not enabled") {
		t.Errorf("Open of a disabled plugin: %v", err)
	}
	if _, err := e.host.Open(ctxT(t), pluginhost.OpenRequest{PluginID: "dev.meith.none"}); protocol.CodeOf(err) != protocol.CodeToolFailed || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("Open of an unknown plugin: %v", err)
	}

	// Disabled without Revoke: the next call is refused and drops the
	// bridge.
	tabs := e.browser.Peek(other.ID)
	e.dir.update("dev.meith.tabs", func(p *pluginhost.Info) { p.Enabled = false })
	if got := eval(t, tabs, `meithPlugin.storage.getBrowserTabs().then(() => "ok", e => e.code)`); got != `"PERMISSION_DENIED"` {
		t.Errorf("a call of a disabled plugin: %s", got)
	}
	e.waitBridge(other.ID, pluginhost.BridgeDropped)

	// Close (uninstall) removes the records and pages.
	ids, err := e.host.Close(ctxT(t), "dev.meith.board")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	want := []string{rec1.ID, rec2.ID}
	slices.Sort(want)
	if !slices.Equal(ids, want) {
		t.Errorf("Close removed %v, want %v", ids, want)
	}
	s = e.store.Get()
	if s.BrowserTab(rec1.ID) != nil || e.browser.Peek(rec1.ID) != nil {
		t.Error("Close left the tab")
	}
}

// TestPlainTabGetsNoBridge: a normal browser tab that loads a plugin's
// page (served, since the plugin is enabled) gets no bridge.
func TestPlainTabGetsNoBridge(t *testing.T) {
	e := newEnv(t)
	rec, _ := e.open("dev.meith.board")
	tab, err := e.browser.Open(ctxT(t), browser.Spec{ID: "btab_plain", ContextKey: state.SpaceContextKey("s"), URL: rec.URL})
	if err != nil {
		t.Fatal(err)
	}
	waitEval(t, tab, `document.body && document.body.dataset.bridge || ""`, `"undefined"`)
	if got := eval(t, tab, `typeof meithPlugin + "|" + Object.getOwnPropertyNames(window).filter(k => k.startsWith("__meith")).length`); got != `"undefined|0"` {
		t.Errorf("a plain tab sees %s", got)
	}
}

// TestReopen: a plugin tab that is not live (restart, crash) reopens
// through the host: with a new bridge at its entry when the plugin is
// enabled, on a notice without one when it is not.
func TestReopen(t *testing.T) {
	e := newEnv(t)
	rec, _ := e.open("dev.meith.board")
	if err := e.browser.CloseTab(ctxT(t), rec.ID); err != nil {
		t.Fatal(err)
	}
	e.waitBridge(rec.ID, "")
	tab, err := e.browser.Live(ctxT(t), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	e.waitBridge(rec.ID, pluginhost.BridgeLive)
	waitEval(t, tab, `typeof meithPlugin`, `"object"`)
	if !tab.Bridged() || tab.ContextKey() != "plugin:dev.meith.board" {
		t.Errorf("reopened tab: bridged %v, context %s", tab.Bridged(), tab.ContextKey())
	}
	e.browser.CloseTab(ctxT(t), rec.ID)
	e.waitBridge(rec.ID, "")
	e.dir.update("dev.meith.board", func(p *pluginhost.Info) { p.Enabled = false })
	tab, err = e.browser.Live(ctxT(t), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Bridged() || !strings.HasPrefix(tab.Info().URL, "data:text/html") {
		t.Errorf("a disabled plugin's tab reopened at %s (bridged %v)", tab.Info().URL, tab.Bridged())
	}
	if got := eval(t, tab, `typeof meithPlugin`); got != `"undefined"` {
		t.Errorf("the notice sees meithPlugin: %s", got)
	}
}

// TestFileServer: the plugin server serves a plugin's root only, to its
// own origin, with its headers.
func TestFileServer(t *testing.T) {
	e := newEnv(t)
	rec, _ := e.open("dev.meith.board")
	u, _ := url.Parse(rec.URL)
	root := e.dir.plugins["dev.meith.board"].Root
	outside := filepath.Join(filepath.Dir(root), "outside.txt")
	os.WriteFile(outside, []byte("outside"), 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := exec.Command("mkfifo", filepath.Join(root, "fifo")).Run(); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	get := func(host, path string) (int, http.Header, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", "http://127.0.0.1:"+u.Port()+path, nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b := new(strings.Builder)
		buf := make([]byte, 4096)
		for {
			n, err := res.Body.Read(buf)
			b.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return res.StatusCode, res.Header, b.String()
	}
	code, h, body := get(u.Host, "/index.html")
	if code != 200 || h.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(body, "<h1>Board</h1>") {
		t.Errorf("index.html: %d %v", code, h)
	}
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP: %q", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cross-Origin-Opener-Policy") != "same-origin" {
		t.Errorf("headers: %v", h)
	}
	if code, h, _ := get(u.Host, "/main.js"); code != 200 || h.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Errorf("main.js: %d %v", code, h)
	}
	if code, _, body := get(u.Host, "/"); code != 200 || !strings.Contains(body, "<h1>Board</h1>") {
		t.Errorf("/: %d", code)
	}
	for _, p := range []string{"/.env", "/link.txt", "/../outside.txt", "/%2e%2e/outside.txt", "/fifo", "/missing", "/a%00b"} {
		if code, _, body := get(u.Host, p); code == 200 || strings.Contains(body, "outside") || strings.Contains(body, "SECRET") {
			t.Errorf("%s: %d %q, want refused", p, code, body)
		}
	}
	if code, _, _ := get("other-1234.plugins.localhost:"+u.Port(), "/index.html"); code != 404 {
		t.Errorf("an unknown plugin host: %d", code)
	}
	if code, _, _ := get("127.0.0.1:"+u.Port(), "/index.html"); code != http.StatusMisdirectedRequest {
		t.Errorf("a bare address: %d", code)
	}
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+u.Port()+"/index.html", nil)
	req.Host = u.Host
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %v %v", res, err)
	}
	// A disabled plugin is not served.
	e.dir.update("dev.meith.board", func(p *pluginhost.Info) { p.Enabled = false })
	if code, _, _ := get(u.Host, "/index.html"); code != 404 {
		t.Errorf("a disabled plugin: %d", code)
	}
}

// TestDevURLPlugin: a dev-url plugin runs from its dev server's origin,
// which is its scope: another path of that origin keeps the bridge,
// another origin drops it.
func TestDevURLPlugin(t *testing.T) {
	e := newEnv(t)
	dev := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>dev %s</title><script>document.title += " " + typeof window.meithPlugin</script>`, r.URL.Path)
	}))
	t.Cleanup(dev.Close)
	e.dir.set(pluginhost.Info{ID: "dev.meith.live", Name: "Live", DevURL: dev.URL + "/app/", Scopes: []string{"tools"},
		Capabilities: []protocol.Capability{protocol.CapReadOnly}, Enabled: true})
	rec, tab := e.open("dev.meith.live")
	if rec.URL != dev.URL+"/app/" || rec.ContextKey != "plugin:dev.meith.live" {
		t.Fatalf("dev-url tab: %+v", rec)
	}
	waitEval(t, tab, `document.title`, `"dev /app/ object"`)
	if got := eval(t, tab, `meithPlugin.tools.call("list_spaces").then(r => r.ok)`); got != "true" {
		t.Errorf("a dev-url plugin's call: %s", got)
	}
	eval(t, tab, `location.href = "/elsewhere"; 1`)
	waitEval(t, tab, `document.title`, `"dev /elsewhere object"`)
	if st, _ := e.host.Status(rec.ID); st.Bridge != pluginhost.BridgeLive {
		t.Errorf("another path of the dev origin: %+v", st)
	}
	eval(t, tab, fmt.Sprintf(`location.href = %q; 1`, e.other.URL+"/page"))
	e.waitBridge(rec.ID, pluginhost.BridgeDropped)
	waitNote(t, tab, "meith removed the plugin bridge")
}

// TestTemplatePlugin: the plugin-basic template that meith creates runs as
// a plugin tab: its page shows its identity, and its button calls app_ping
// through the bridge, as the plugin.
func TestTemplatePlugin(t *testing.T) {
	e := newEnv(t)
	dir, err := template.Create(ctxT(t), t.TempDir(), template.PluginBasic, "Deploy board")
	if err != nil {
		t.Fatal(err)
	}
	e.dir.set(pluginhost.Info{ID: "local.deploy-board", Name: "Deploy board", Version: "0.1.0", Root: dir, Entry: "index.html",
		Scopes: []string{"tools"}, Capabilities: []protocol.Capability{protocol.CapReadOnly}, Enabled: true})
	_, tab := e.open("local.deploy-board")
	waitEval(t, tab, `document.getElementById("ping").disabled`, "false")
	if got := eval(t, tab, `JSON.parse(document.getElementById("identity").textContent).pluginId`); got != `"local.deploy-board"` {
		t.Errorf("the template shows identity %s", got)
	}
	eval(t, tab, `document.getElementById("ping").click(); 1`)
	waitEval(t, tab, `(() => { try { const r = JSON.parse(document.getElementById("result").textContent); return r.ok + " " + r.content.caller + " " + r.content.sessionId; } catch (e) { return "" } })()`,
		`"true plugin plugin:local.deploy-board"`)
}
