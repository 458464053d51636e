package browser

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// loadWait bounds how long a navigation waits for its page to load before
// it returns with the page still loading.
const loadWait = 15 * time.Second

// worldName is the isolated JavaScript world where meith keeps its element
// ids: the page's own scripts cannot see or change them.
const worldName = "__meith"

// titleBinding is the function meith's world calls with a new title.
const titleBinding = "__meithTitle"

// titleWatchJS runs in meith's world of every document: it reports the
// title whenever the <head> changes it.
const titleWatchJS = `(() => {
	if (window.top !== window) return;
	let last = null;
	const report = () => { const t = document.title; if (t !== last) { last = t; ` + titleBinding + `(t); } };
	const watch = () => {
		report();
		if (document.head) new MutationObserver(report).observe(document.head, { subtree: true, childList: true, characterData: true });
	};
	if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch, { once: true }); else watch();
})()`

// Tab is one live page. Its methods are safe for concurrent use; the
// automation calls of one tab run one at a time.
type Tab struct {
	m   *Manager
	id  string
	key string

	ctx      context.Context // the chromedp context of the target (its lifetime)
	cancel   context.CancelFunc
	target   *chromedp.Target
	targetID target.ID
	// listenerTarget is targetID for onEvent, which chromedp runs on its
	// own goroutine from before attach has set targetID.
	listenerTarget atomic.Pointer[target.ID]

	op sync.Mutex // serializes automation calls (navigation, state, clicks)

	mu        sync.Mutex
	info      PageInfo
	viewport  Viewport
	scale     float64
	emulated  bool                       // the viewport is emulated device metrics
	world     runtime.ExecutionContextID // the isolated world of the main frame, 0 unknown
	worldUID  string                     // its unique id
	loadWaits []chan struct{}
	gone      bool
	console   ring[ConsoleEntry]
	network   ring[NetworkEntry]
	requests  map[network.RequestID]int // request id → sequence in the network ring
	dialog    *Dialog                   // the page's open JavaScript dialog, nil none
	dialogGen uint64                    // counts the changes of dialog

	// The bridge of a tab opened with one (bridge.go): bridged stays set
	// once it was; mainCtx and mainURL are the main frame's page world and
	// committed URL as the events said, in their order.
	bridge  *tabBridge
	bridged bool
	mainCtx mainContext
	mainURL string

	changed  chan struct{} // info changed: the loop calls OnChange
	castMode chan struct{} // the screencast should send motion frames
	refresh  chan struct{} // navigation settled: the loop re-reads history and favicon

	view view
	// castMu orders the screencast's starts and stops, each decided and sent
	// under it: an idle stop sent after a pull's start would freeze the
	// live view for good.
	castMu sync.Mutex
}

func newTab(m *Manager, id, key string) *Tab {
	t := &Tab{
		m: m, id: id, key: key,
		info:     PageInfo{URL: "about:blank", LoadState: LoadComplete},
		viewport: DefaultViewport, scale: 1,
		console:  newRing[ConsoleEntry](ConsoleRingSize),
		network:  newRing[NetworkEntry](NetworkRingSize),
		requests: map[network.RequestID]int{},
		changed:  make(chan struct{}, 1),
		castMode: make(chan struct{}, 1),
		refresh:  make(chan struct{}, 1),
	}
	t.view.init()
	return t
}

// ID returns the tab's id.
func (t *Tab) ID() string { return t.id }

// ContextKey returns the key of the tab's browser context.
func (t *Tab) ContextKey() string { return t.key }

// Info returns the page's current PageInfo.
func (t *Tab) Info() PageInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.info
}

func (t *Tab) dead() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.gone
}

// markDead records that the target is gone (closed, crashed, browser
// exited) and wakes everything that waits on it.
func (t *Tab) markDead() {
	t.mu.Lock()
	if t.gone {
		t.mu.Unlock()
		return
	}
	t.gone = true
	t.dialog = nil
	for _, w := range t.loadWaits {
		close(w)
	}
	t.loadWaits = nil
	t.mu.Unlock()
	t.view.wake()
}

// close closes the target and ends the tab's goroutines.
func (t *Tab) close() {
	t.markDead()
	if t.cancel != nil {
		t.cancel()
	}
}

// setup prepares a new target: the isolated world for element ids, the
// viewport, and a known page state.
func (t *Tab) setup(ctx context.Context) error {
	// Chrome reports a title set from script late (if at all), so meith's
	// world watches the document's <head> and calls a binding.
	if _, err := cdp.Call(ctx, t.target, runtime.AddBinding,
		runtime.AddBindingParams{Name: titleBinding, ExecutionContextName: worldName}); err != nil {
		return err
	}
	if _, err := cdp.Call(ctx, t.target, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: titleWatchJS, WorldName: worldName}); err != nil {
		return err
	}
	if err := t.applyViewport(ctx, t.viewport, t.scale); err != nil {
		return err
	}
	// Link-local addresses (cloud metadata services) are refused for every
	// request of the page — subresources, fetches and redirects too, not
	// only the URLs meith is asked to open.
	if _, err := cdp.Call(ctx, t.target, fetch.Enable, fetch.EnableParams{Patterns: t.m.policy.fetchPatterns()}); err != nil {
		return err
	}
	// Focus emulation keeps the page "focused" while it is not the
	// browser's foreground tab, so focus and keyboard input work in every
	// tab.
	if _, err := cdp.Call(ctx, t.target, emulation.SetFocusEmulationEnabled,
		emulation.SetFocusEmulationEnabledParams{Enabled: true}); err != nil {
		t.m.logf("debug", "focus emulation: %v", err)
	}
	t.mu.Lock()
	t.info.URL = "about:blank"
	t.mu.Unlock()
	return nil
}

// loop runs the tab's slow reactions outside chromedp's reader goroutine:
// it re-reads history and favicon after navigations, reports changes, and
// stops an unwatched screencast.
func (t *Tab) loop() {
	tick := time.NewTicker(settleAfter / 2)
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
			t.markDead()
			return
		case <-t.refresh:
			ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
			t.refreshInfo(ctx)
			cancel()
		case <-t.changed:
			if t.m.opts.OnChange != nil && !t.dead() {
				t.m.opts.OnChange(t.id, t.Info())
			}
		case <-t.castMode:
			t.view.castModeCheck(t)
		case <-tick.C:
			t.view.idleCheck(t)
			t.view.castModeCheck(t)
		}
	}
}

func (t *Tab) signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// update changes the PageInfo under the lock and reports a change.
func (t *Tab) update(f func(*PageInfo)) {
	t.mu.Lock()
	before := t.info
	f(&t.info)
	after := t.info
	t.mu.Unlock()
	if before != after {
		t.signal(t.changed)
	}
}

// targetInfo takes the url and title the browser reports for the target.
func (t *Tab) targetInfo(url, title string) {
	t.update(func(p *PageInfo) {
		if url != "" {
			p.URL = url
		}
		p.Title = title
	})
}

// onEvent is the target's listener (chromedp's reader goroutine: fast, no
// commands).
func (t *Tab) onEvent(ev any) {
	var tid target.ID
	if p := t.listenerTarget.Load(); p != nil {
		tid = *p
	}
	mainFrame := cdp.FrameID(tid)
	t.bridgeEvent(ev, string(tid))
	switch e := ev.(type) {
	case *page.EventFrameStartedLoading:
		if e.FrameID == mainFrame || tid == "" {
			t.update(func(p *PageInfo) { p.LoadState = LoadLoading; p.ErrorText = "" })
		}
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ParentID == "" {
			t.update(func(p *PageInfo) { p.URL = e.Frame.URL + e.Frame.URLFragment })
			t.signal(t.refresh)
		}
	case *page.EventNavigatedWithinDocument:
		if e.FrameID == mainFrame {
			t.update(func(p *PageInfo) { p.URL = e.URL })
			t.signal(t.refresh)
			t.loadDone()
		}
	case *page.EventLoadEventFired:
		t.update(func(p *PageInfo) {
			if p.LoadState != LoadFailed {
				p.LoadState = LoadComplete
			}
		})
		t.signal(t.refresh)
		t.loadDone()
	case *page.EventFrameStoppedLoading:
		if e.FrameID == mainFrame {
			t.update(func(p *PageInfo) {
				if p.LoadState == LoadLoading {
					p.LoadState = LoadComplete
				}
			})
			t.signal(t.refresh)
			t.loadDone()
		}
	case *page.EventJavascriptDialogOpening:
		// The page waits until somebody answers (the pane's sheet, or
		// browser_handle_dialog); nothing answers for the user.
		t.onDialogOpening(e)
	case *page.EventJavascriptDialogClosed:
		t.setDialog(nil)
	case *fetch.EventRequestPaused:
		go t.screenRequest(e)
	case *page.EventScreencastFrame:
		t.view.onFrame(t, e)
	case *runtime.EventExecutionContextCreated:
		if d := e.Context; d != nil && d.Name == worldName && strings.Contains(string(d.AuxData), string(mainFrame)) {
			t.mu.Lock()
			t.world, t.worldUID = d.ID, d.UniqueID
			t.mu.Unlock()
		}
	case *runtime.EventExecutionContextDestroyed:
		t.mu.Lock()
		if t.worldUID != "" && t.worldUID == e.ExecutionContextUniqueID {
			t.world, t.worldUID = 0, ""
		}
		t.mu.Unlock()
	case *runtime.EventExecutionContextsCleared:
		t.mu.Lock()
		t.world = 0
		t.mu.Unlock()
	case *runtime.EventConsoleAPICalled:
		t.addConsole(ConsoleEntry{Level: consoleLevel(string(e.Type)), Text: remoteObjectsText(e.Args), Source: "console"})
	case *runtime.EventBindingCalled:
		if e.Name == titleBinding {
			t.update(func(p *PageInfo) {
				p.Title = e.Payload
				if p.Title == "" {
					p.Title = p.URL
				}
			})
		}
	case *runtime.EventExceptionThrown:
		if d := e.ExceptionDetails; d != nil {
			text := d.Text
			if d.Exception != nil && d.Exception.Description != "" {
				text = d.Exception.Description
			}
			t.addConsole(ConsoleEntry{Level: "error", Text: text, Source: "exception"})
		}
	case *log.EventEntryAdded:
		if en := e.Entry; en != nil {
			t.addConsole(ConsoleEntry{Level: consoleLevel(string(en.Level)), Text: en.Text, Source: string(en.Source)})
		}
	case *network.EventRequestWillBeSent:
		t.onRequest(e, mainFrame)
	case *network.EventResponseReceived:
		t.onResponse(e)
	case *network.EventRequestWillBeSentExtraInfo:
		t.onExtraHeaders(e.RequestID, e.Headers, false)
	case *network.EventResponseReceivedExtraInfo:
		t.onExtraHeaders(e.RequestID, e.Headers, true)
	case *network.EventLoadingFinished:
		t.onRequestSize(e.RequestID, int64(e.EncodedDataLength))
		t.onRequestEnd(e.RequestID, "", false)
	case *network.EventLoadingFailed:
		errText := t.onRequestEnd(e.RequestID, e.ErrorText, e.Canceled)
		if e.Type == network.ResourceTypeDocument && e.ErrorText != "" && e.ErrorText != "net::ERR_ABORTED" {
			t.update(func(p *PageInfo) { p.LoadState = LoadFailed; p.ErrorText = errText })
			t.loadDone()
		}
	}
}

// screenRequest fails a paused request to a blocked address and lets any
// other through (a host name can merely look like one).
func (t *Tab) screenRequest(e *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	host := ""
	if e.Request != nil {
		if u, err := url.Parse(e.Request.URL); err == nil {
			host = u.Hostname()
		}
	}
	if t.m.policy.blocksHost(host) {
		t.addConsole(ConsoleEntry{Level: "error", Text: "meith blocked a request to a link-local address: " + e.Request.URL, Source: "network"})
		cdp.Call(ctx, t.target, fetch.FailRequest, fetch.FailRequestParams{RequestID: e.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
		return
	}
	cdp.Call(ctx, t.target, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
}

// loadDone wakes the navigations that wait for the page.
func (t *Tab) loadDone() {
	t.mu.Lock()
	waits := t.loadWaits
	t.loadWaits = nil
	t.mu.Unlock()
	for _, w := range waits {
		close(w)
	}
}

// loadWaiter returns a channel closed at the next load end.
func (t *Tab) loadWaiter() chan struct{} {
	ch := make(chan struct{})
	t.mu.Lock()
	if t.gone {
		close(ch)
	} else {
		t.loadWaits = append(t.loadWaits, ch)
	}
	t.mu.Unlock()
	return ch
}

// waitLoad waits until the page is no longer loading (bounded by ctx and
// loadWait).
func (t *Tab) waitLoad(ctx context.Context) {
	ch := t.loadWaiter()
	if t.Info().LoadState != LoadLoading {
		return
	}
	t.await(ctx, ch)
}

func (t *Tab) await(ctx context.Context, ch chan struct{}) {
	timer := time.NewTimer(loadWait)
	defer timer.Stop()
	select {
	case <-ch:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// refreshInfo reads what the events do not carry: history flags, title and
// favicon.
func (t *Tab) refreshInfo(ctx context.Context) {
	hist, err := cdp.Call(ctx, t.target, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return
	}
	type pageMeta struct {
		Title string `json:"title"`
		Icon  string `json:"icon"`
		URL   string `json:"url"`
	}
	meta, _ := evalMain[pageMeta](ctx, t, `(() => {
		const l = document.querySelector('link[rel~="icon"], link[rel="shortcut icon"], link[rel="apple-touch-icon"]');
		let icon = l && l.href ? l.href : '';
		if (!icon && /^https?:$/.test(location.protocol)) icon = location.origin + '/favicon.ico';
		return { title: document.title, icon, url: location.href };
	})()`)
	t.update(func(p *PageInfo) {
		p.CanGoBack = hist.CurrentIndex > 0
		p.CanGoForward = hist.CurrentIndex < int64(len(hist.Entries))-1
		if meta.Title != "" || p.Title == "" {
			p.Title = meta.Title
		}
		p.Favicon = meta.Icon
		// A page attached after its navigation (a popup) has no
		// navigation event to name its URL.
		if meta.URL != "" && p.LoadState != LoadFailed && !strings.HasPrefix(meta.URL, "chrome-error:") {
			p.URL = meta.URL
		}
		if p.Title == "" {
			p.Title = p.URL
		}
	})
}

// Navigate loads url and waits for the load (bounded by ctx and a few
// seconds; a page still loading then is not an error). A URL the browser
// cannot load leaves LoadState "failed" with ErrorText, not an error.
func (t *Tab) Navigate(ctx context.Context, url string) (PageInfo, error) {
	url, err := NormalizeURL(url)
	if err != nil {
		return t.Info(), err
	}
	if err := t.m.policy.checkURL(url); err != nil {
		return t.Info(), err
	}
	t.op.Lock()
	defer t.op.Unlock()
	t.leaveDialog(ctx)
	ch := t.loadWaiter()
	t.update(func(p *PageInfo) { p.LoadState = LoadLoading; p.ErrorText = ""; p.URL = url })
	res, err := cdp.Call(ctx, t.target, page.Navigate, page.NavigateParams{URL: url})
	if err != nil {
		t.update(func(p *PageInfo) { p.LoadState = LoadFailed; p.ErrorText = err.Error() })
		return t.Info(), t.fail("navigate", err)
	}
	if res.ErrorText != "" {
		text := res.ErrorText
		if text == tunnelFailed {
			if why := t.m.proxyFailure(url); why != "" {
				text += " (" + why + ")"
			}
		}
		t.update(func(p *PageInfo) { p.LoadState = LoadFailed; p.ErrorText = text })
	} else if res.LoaderID != "" {
		t.await(ctx, ch)
	} else {
		t.update(func(p *PageInfo) { p.LoadState = LoadComplete })
	}
	t.refreshInfo(ctx)
	return t.Info(), nil
}

// Back goes back in the tab's history (a *HistoryError when it cannot).
func (t *Tab) Back(ctx context.Context) (PageInfo, error) { return t.history(ctx, -1) }

// Forward goes forward in the tab's history (a *HistoryError when it cannot).
func (t *Tab) Forward(ctx context.Context) (PageInfo, error) { return t.history(ctx, +1) }

func (t *Tab) history(ctx context.Context, step int64) (PageInfo, error) {
	t.op.Lock()
	defer t.op.Unlock()
	hist, err := cdp.Call(ctx, t.target, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return t.Info(), t.fail("history", err)
	}
	t.leaveDialog(ctx)
	i := hist.CurrentIndex + step
	if i < 0 || i >= int64(len(hist.Entries)) {
		dir := "back"
		if step > 0 {
			dir = "forward"
		}
		return t.Info(), &HistoryError{Direction: dir}
	}
	ch := t.loadWaiter()
	if _, err := cdp.Call(ctx, t.target, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: hist.Entries[i].ID}); err != nil {
		return t.Info(), t.fail("history", err)
	}
	t.await(ctx, ch)
	t.refreshInfo(ctx)
	return t.Info(), nil
}

// Reload reloads the page and waits for the load.
func (t *Tab) Reload(ctx context.Context) (PageInfo, error) {
	t.op.Lock()
	defer t.op.Unlock()
	t.leaveDialog(ctx)
	ch := t.loadWaiter()
	if _, err := cdp.Call(ctx, t.target, page.Reload, page.ReloadParams{}); err != nil {
		return t.Info(), t.fail("reload", err)
	}
	t.await(ctx, ch)
	t.refreshInfo(ctx)
	return t.Info(), nil
}

// Stop stops loading.
func (t *Tab) Stop(ctx context.Context) error {
	if _, err := cdp.Call(ctx, t.target, page.StopLoading, cdp.Empty{}); err != nil {
		return t.fail("stop", err)
	}
	t.update(func(p *PageInfo) {
		if p.LoadState == LoadLoading {
			p.LoadState = LoadComplete
		}
	})
	t.loadDone()
	return nil
}

// fail wraps a protocol error; a tab whose target is gone says so.
func (t *Tab) fail(what string, err error) error {
	if t.dead() && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("browser: %s: the tab's page is gone (closed or crashed): %w", what, err)
	}
	return fmt.Errorf("browser: %s: %w", what, err)
}

// consoleLevel maps CDP's console and log levels onto log|info|warn|error|debug.
func consoleLevel(l string) string {
	switch l {
	case "warning", "warn":
		return "warn"
	case "error", "assert":
		return "error"
	case "debug", "verbose", "trace":
		return "debug"
	case "info":
		return "info"
	}
	return "log"
}

func (t *Tab) addConsole(e ConsoleEntry) {
	if e.TS == 0 {
		e.TS = time.Now().UnixMilli()
	}
	if len(e.Text) > 8192 {
		e.Text = e.Text[:8192] + "…"
	}
	t.mu.Lock()
	t.console.push(e)
	t.mu.Unlock()
}

func (t *Tab) onRequest(e *network.EventRequestWillBeSent, mainFrame cdp.FrameID) {
	if e.Request == nil || strings.HasPrefix(e.Request.URL, "data:") {
		return
	}
	en := NetworkEntry{ID: string(e.RequestID), Method: e.Request.Method, URL: e.Request.URL,
		ResourceType: string(e.Type), StartedAt: time.Now().UnixMilli(), PageURL: e.DocumentURL,
		RequestHeaders: boundedHeaders(e.Request.Headers),
		Navigation:     e.Type == network.ResourceTypeDocument && e.FrameID == mainFrame}
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq, ok := t.requests[e.RequestID]; ok && e.RedirectResponse != nil {
		// A redirect ends the previous hop under the same request id.
		t.network.update(seq, func(p *NetworkEntry) {
			p.Status = int(e.RedirectResponse.Status)
			p.EndedAt = en.StartedAt
			p.DurationMs = float64(p.EndedAt - p.StartedAt)
		})
	}
	t.requests[e.RequestID] = t.network.push(en)
	if len(t.requests) > 4*NetworkRingSize {
		t.requests = map[network.RequestID]int{}
	}
}

func (t *Tab) onResponse(e *network.EventResponseReceived) {
	if e.Response == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq, ok := t.requests[e.RequestID]; ok {
		r := e.Response
		t.network.update(seq, func(p *NetworkEntry) {
			p.Status = int(r.Status)
			p.StatusText = clip(r.StatusText, 256)
			p.MimeType = clip(r.MimeType, 256)
			p.Protocol = clip(r.Protocol, 32)
			p.RemoteAddress = clip(r.RemoteIPAddress, 64)
			p.FromCache = r.FromDiskCache || r.FromPrefetchCache
			// The ExtraInfo events (cookies) may have come first: merge.
			p.ResponseHeaders = mergeHeaders(p.ResponseHeaders, r.Headers)
			p.RequestHeaders = mergeHeaders(p.RequestHeaders, r.RequestHeaders)
			if tm := r.Timing; tm != nil && tm.ReceiveHeadersEnd >= tm.SendEnd && tm.SendEnd > 0 {
				p.WaitMs = tm.ReceiveHeadersEnd - tm.SendEnd
			}
		})
	}
}

// onExtraHeaders merges the headers Chromium sends apart (cookies) into a
// request's entry, when the entry is already there.
func (t *Tab) onExtraHeaders(id network.RequestID, h network.Headers, response bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq, ok := t.requests[id]; ok {
		t.network.update(seq, func(p *NetworkEntry) {
			if response {
				p.ResponseHeaders = mergeHeaders(p.ResponseHeaders, h)
			} else {
				p.RequestHeaders = mergeHeaders(p.RequestHeaders, h)
			}
		})
	}
}

// onRequestSize records the bytes a finished request received.
func (t *Tab) onRequestSize(id network.RequestID, size int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if seq, ok := t.requests[id]; ok {
		t.network.update(seq, func(p *NetworkEntry) { p.Size = size })
	}
}

// onRequestEnd closes a request's network entry and returns its error text,
// with the guard proxy's cause added to a failed tunnel.
func (t *Tab) onRequestEnd(id network.RequestID, errText string, canceled bool) string {
	now := time.Now().UnixMilli()
	if errText == tunnelFailed {
		// Not under t.mu: the manager's lock comes first.
		if why := t.m.proxyFailure(t.requestURL(id)); why != "" {
			errText += " (" + why + ")"
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	seq, ok := t.requests[id]
	if !ok {
		return errText
	}
	delete(t.requests, id)
	t.network.update(seq, func(p *NetworkEntry) {
		p.EndedAt = now
		p.DurationMs = float64(now - p.StartedAt)
		if errText != "" || canceled {
			p.Failed = true
			p.ErrorText = errText
		}
	})
	return errText
}

// requestURL returns the URL of a request in the network log ("" when it
// is not there).
func (t *Tab) requestURL(id network.RequestID) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	u := ""
	if seq, ok := t.requests[id]; ok {
		t.network.update(seq, func(p *NetworkEntry) { u = p.URL })
	}
	return u
}

// tunnelFailed is how Chromium reports any failed connection through the
// guard proxy's tunnels.
const tunnelFailed = "net::ERR_TUNNEL_CONNECTION_FAILED"

// Console returns up to limit of the newest console messages, oldest first
// (limit <= 0: all).
func (t *Tab) Console(limit int) []ConsoleEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.console.last(limit)
}

// Network returns up to limit of the newest requests, oldest first
// (limit <= 0: all).
func (t *Tab) Network(limit int) []NetworkEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.network.last(limit)
}
