package browser

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// This file holds the page bridge: a binding meith puts into a tab it opens
// itself (a plugin tab), the one way such a page talks to meith. The engine
// knows nothing of plugins: it installs the binding and a preload script
// before the tab's first navigation, hands its owner the calls made from the
// main frame's own page world (never a subframe's, whatever its origin, nor
// an isolated world's or a worker's) and the main frame's committed URLs, in
// the order the page made them, and answers into the calling document only.

// Bridge describes the binding of a tab opened with [Spec.Bridge].
type Bridge struct {
	// Name is the global function the page calls with one string. The
	// preload should capture and delete it before the page's own scripts
	// run.
	Name string
	// Preload runs in the page world of every new document of the tab,
	// subframes too, before the document's own scripts.
	Preload string
	// OnNavigate receives every URL the main frame commits (new
	// documents and same-document changes alike), in order, before any
	// call made from the document that URL belongs to.
	OnNavigate func(t *Tab, url string)
	// OnCall receives each call made from the main frame's page world. It
	// runs on the tab's bridge goroutine, one call at a time, after every
	// earlier navigation: it must not block for long.
	OnCall func(t *Tab, c BridgeCall)
	// OnEnd, when set, is called once when the tab ends (closed, crashed,
	// the browser gone), after the last call was handed over.
	OnEnd func()
}

// BridgeCall is one call of a tab's bridge binding.
type BridgeCall struct {
	// Payload is the string the page passed.
	Payload string
	// Origin is the calling document's origin, as Chromium reports it for
	// the execution context (not something the page says).
	Origin string
	// URL is the main frame's URL at the call, as its navigations said.
	URL string
	// context is the calling execution context ([Tab.Answer] answers into
	// it and no other).
	context string
}

// MaxBridgePayload bounds a bridge call's payload: a longer one is dropped
// with a console note.
const MaxBridgePayload = 4 << 20

// maxBridgeQueue bounds the calls waiting for the bridge goroutine; calls
// beyond it are dropped with a console note (navigations always queue).
const maxBridgeQueue = 256

// ErrBridgeDropped says that a tab's bridge is gone: dropped by its owner,
// or the tab was opened without one.
var ErrBridgeDropped = errors.New("browser: the tab's bridge is dropped")

// bridgeItem is a navigation (call nil) or a call, queued in event order.
type bridgeItem struct {
	url  string
	call *BridgeCall
}

// tabBridge is a tab's bridge while it lives.
type tabBridge struct {
	spec   Bridge
	script page.ScriptIdentifier

	mu      sync.Mutex
	queue   []bridgeItem
	calls   int  // calls in queue
	dropped bool // sticky: nothing is queued, dispatched or answered after
	noted   bool // the queue's overflow was noted in the console
	wake    chan struct{}

	ignored atomic.Int64 // calls from other execution contexts (tests read it)
}

// mainContext is the main frame's page world, as the Runtime events said.
type mainContext struct {
	id     runtime.ExecutionContextID
	unique string
	origin string
}

// installBridge adds the binding and the preload to a fresh target, before
// its first navigation, and starts the goroutine that hands calls to the
// owner.
func (t *Tab) installBridge(ctx context.Context, b *Bridge) error {
	if b.Name == "" || b.OnCall == nil {
		return errors.New("browser: a bridge needs a name and a call handler")
	}
	// Without a context name the binding lives in the page world of every
	// frame; the events name the calling context, which is checked.
	if _, err := cdp.Call(ctx, t.target, runtime.AddBinding, runtime.AddBindingParams{Name: b.Name}); err != nil {
		return t.fail("add the bridge binding", err)
	}
	res, err := cdp.Call(ctx, t.target, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: b.Preload})
	if err != nil {
		return t.fail("add the bridge preload", err)
	}
	tb := &tabBridge{spec: *b, script: res.Identifier, wake: make(chan struct{}, 1)}
	t.mu.Lock()
	t.bridge = tb
	t.bridged = true
	t.mu.Unlock()
	go t.bridgeLoop(tb)
	return nil
}

// Bridged reports whether the tab was opened with a bridge (it stays true
// after the bridge is dropped: the page is still its owner's).
func (t *Tab) Bridged() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bridged
}

// BridgeLive reports whether the tab's bridge is installed and not
// dropped.
func (t *Tab) BridgeLive() bool {
	t.mu.Lock()
	tb := t.bridge
	t.mu.Unlock()
	if tb == nil {
		return false
	}
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return !tb.dropped
}

// DropBridge removes the tab's bridge for good: the binding and the preload
// are removed from the target, queued calls are forgotten, and no later
// call or navigation reaches the owner, nor does any answer reach the page.
// Only a new tab gets a bridge again. It is safe to call more than once.
func (t *Tab) DropBridge(ctx context.Context) error {
	t.mu.Lock()
	tb := t.bridge
	t.mu.Unlock()
	if tb == nil {
		return nil
	}
	tb.mu.Lock()
	already := tb.dropped
	tb.dropped = true
	tb.queue, tb.calls = nil, 0
	tb.mu.Unlock()
	if already || t.dead() {
		return nil
	}
	var errs []error
	if _, err := cdp.Call(ctx, t.target, runtime.RemoveBinding, runtime.RemoveBindingParams{Name: tb.spec.Name}); err != nil {
		errs = append(errs, err)
	}
	if _, err := cdp.Call(ctx, t.target, page.RemoveScriptToEvaluateOnNewDocument,
		page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: tb.script}); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return t.fail("drop the bridge", err)
	}
	return nil
}

// Answer evaluates expr in the page world that made call, and nowhere else:
// when that document is gone (the page navigated), nothing runs. It fails
// with [ErrBridgeDropped] once the bridge is dropped.
func (t *Tab) Answer(ctx context.Context, call BridgeCall, expr string) error {
	if !t.BridgeLive() {
		return ErrBridgeDropped
	}
	yes := true
	res, err := callPage(ctx, t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, UniqueContextID: call.context, Silent: &yes,
	})
	if err != nil {
		return t.fail("answer the bridge", err)
	}
	if d := res.ExceptionDetails; d != nil {
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg = d.Exception.Description
		}
		return &jsError{msg: msg}
	}
	return nil
}

// Note adds a line from meith to the tab's console (the window's devtools
// show it).
func (t *Tab) Note(level, text string) {
	t.addConsole(ConsoleEntry{Level: level, Text: text, Source: "meith"})
}

// bridgeEvent takes the events that concern a bridge, on chromedp's reader
// goroutine (fast, no commands): it tracks the main frame's page world and
// queues navigations and the calls made from that world.
func (t *Tab) bridgeEvent(ev any, mainFrame string) {
	switch e := ev.(type) {
	case *runtime.EventExecutionContextCreated:
		d := e.Context
		if d == nil {
			return
		}
		var aux struct {
			IsDefault bool   `json:"isDefault"`
			FrameID   string `json:"frameId"`
		}
		if json.Unmarshal(d.AuxData, &aux) != nil || !aux.IsDefault || aux.FrameID != mainFrame || mainFrame == "" {
			return
		}
		t.mu.Lock()
		t.mainCtx = mainContext{id: d.ID, unique: d.UniqueID, origin: d.Origin}
		t.mu.Unlock()
	case *runtime.EventExecutionContextDestroyed:
		t.mu.Lock()
		if t.mainCtx.unique != "" && t.mainCtx.unique == e.ExecutionContextUniqueID {
			t.mainCtx = mainContext{}
		}
		t.mu.Unlock()
	case *runtime.EventExecutionContextsCleared:
		t.mu.Lock()
		t.mainCtx = mainContext{}
		t.mu.Unlock()
	case *page.EventFrameNavigated:
		if e.Frame != nil && e.Frame.ParentID == "" {
			t.bridgeNavigated(e.Frame.URL + e.Frame.URLFragment)
		}
	case *page.EventNavigatedWithinDocument:
		if string(e.FrameID) == mainFrame {
			t.bridgeNavigated(e.URL)
		}
	case *runtime.EventBindingCalled:
		t.mu.Lock()
		tb, mc, url := t.bridge, t.mainCtx, t.mainURL
		t.mu.Unlock()
		if tb == nil || e.Name != tb.spec.Name {
			return
		}
		if mc.id == 0 || e.ExecutionContextID != mc.id {
			// A subframe (of any origin), an isolated world or a document
			// already gone: nobody meith opened the bridge for.
			tb.ignored.Add(1)
			t.m.logf("debug", "tab %s: a bridge call from another execution context than the main frame's page was ignored", t.id)
			return
		}
		if len(e.Payload) > MaxBridgePayload {
			t.Note("error", "meith dropped a plugin bridge call: its payload is over 4 MiB")
			return
		}
		tb.push(t, bridgeItem{call: &BridgeCall{Payload: e.Payload, Origin: mc.origin, URL: url, context: mc.unique}})
	}
}

// bridgeNavigated records the main frame's committed URL and queues it for
// the bridge.
func (t *Tab) bridgeNavigated(url string) {
	t.mu.Lock()
	t.mainURL = url
	tb := t.bridge
	t.mu.Unlock()
	if tb != nil {
		tb.push(t, bridgeItem{url: url})
	}
}

// push queues an item unless the bridge is dropped; calls beyond
// maxBridgeQueue are dropped.
func (tb *tabBridge) push(t *Tab, it bridgeItem) {
	tb.mu.Lock()
	if tb.dropped {
		tb.mu.Unlock()
		return
	}
	if it.call != nil {
		if tb.calls >= maxBridgeQueue {
			noted := tb.noted
			tb.noted = true
			tb.mu.Unlock()
			if !noted {
				t.Note("error", "meith dropped plugin bridge calls: too many are waiting")
			}
			return
		}
		tb.calls++
	}
	tb.queue = append(tb.queue, it)
	tb.mu.Unlock()
	select {
	case tb.wake <- struct{}{}:
	default:
	}
}

// bridgeLoop hands the queued items to the owner, in order, until the tab
// ends.
func (t *Tab) bridgeLoop(tb *tabBridge) {
	if tb.spec.OnEnd != nil {
		defer tb.spec.OnEnd()
	}
	for {
		tb.mu.Lock()
		if len(tb.queue) == 0 || tb.dropped {
			tb.queue = nil
			tb.mu.Unlock()
			select {
			case <-tb.wake:
				continue
			case <-t.ctx.Done():
				return
			}
		}
		it := tb.queue[0]
		tb.queue = tb.queue[1:]
		if it.call != nil {
			tb.calls--
		}
		tb.mu.Unlock()
		switch {
		case it.call == nil && tb.spec.OnNavigate != nil:
			tb.spec.OnNavigate(t, it.url)
		case it.call != nil:
			tb.spec.OnCall(t, *it.call)
		}
	}
}

// refusePopup closes a window that a bridged tab's page opened: a page
// holding a bridge gets no window that others could drive and that shares
// its opener (see the decision record on plugin tabs).
func (m *Manager) refusePopup(opener *Tab, targetID target.ID) {
	m.mu.Lock()
	run := m.run
	m.mu.Unlock()
	if run != nil {
		ctx, cancel := context.WithTimeout(run.ctx, 5*time.Second)
		defer cancel()
		chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: targetID})
	}
	opener.Note("warn", "meith closed a window this plugin page opened: plugin pages cannot open windows or tabs")
}
