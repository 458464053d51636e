package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/jpeg"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
)

// Live view tuning.
const (
	// frameQuality is the screencast's JPEG quality.
	frameQuality = 80
	// castIdle stops a screencast nobody pulled from for this long.
	castIdle = 3 * time.Second
	// firstFrameWait is how long a new screencast may stay silent before
	// a still of the page stands in for its first frame (Chrome sends
	// frames only when the page paints).
	firstFrameWait = 300 * time.Millisecond
	// motionScale and motionQuality shape the frames while a page animates:
	// encoding is what bounds the frame rate on a machine without a GPU
	// (1280×800 at quality 80 gives about 21 frames/s on 2 cores, 960×600
	// about 36), so a moving page streams smaller frames and a page that
	// settles gets one full-size frame again.
	motionScale   = 0.75
	motionQuality = 70
	// motionAfter is how many frames in a row must come faster than
	// motionInterval to switch to motion frames.
	motionAfter    = 6
	motionInterval = 100 * time.Millisecond
	// settleAfter is how long a moving page must stay still before it gets
	// a full-size frame again.
	settleAfter = 250 * time.Millisecond
	// FramePollWait is how long [Manager.FrameHandler] waits for a new
	// frame before it answers 204.
	FramePollWait = 2 * time.Second
	// inputRepaintWait is how long after a click, key or wheel from a view
	// the screencast may stay silent before the view is given a still of
	// the page and the screencast is started again: Chrome may stop
	// sending frames (an acknowledgement lost across a restart, a busy
	// compositor), and a person who clicked must see what the click did.
	inputRepaintWait = 700 * time.Millisecond
)

// FramePath is the URL prefix of the live-view frames:
// GET FramePath+"<tabId>?after=<seq>".
const FramePath = "/_meith/browser/frame/"

// view is a tab's live view: the newest screencast frame and whether the
// screencast runs.
type view struct {
	mu       sync.Mutex
	frame    *Frame
	seq      uint64
	notify   chan struct{} // closed and replaced at every new frame
	casting  bool
	lastPull time.Time
	waiters  int
	// motion says the screencast sends motion frames; fast counts frames
	// in a row that came quickly; lastFrame is when the newest came.
	motion    bool
	fast      int
	lastFrame time.Time
	modeReq   bool // a switch to motion frames is asked for
	// repaintCheck says an input's repaint check is pending (one at a time).
	repaintCheck bool
}

func (v *view) init() { v.notify = make(chan struct{}) }

// wake wakes every waiter (a new frame, or the tab is gone).
func (v *view) wake() {
	v.mu.Lock()
	close(v.notify)
	v.notify = make(chan struct{})
	v.mu.Unlock()
}

// publish makes f the newest frame.
func (v *view) publish(f *Frame) {
	v.mu.Lock()
	v.seq++
	f.Seq = v.seq
	v.frame = f
	close(v.notify)
	v.notify = make(chan struct{})
	v.mu.Unlock()
}

// onFrame takes a screencast frame (reader goroutine) and acknowledges it
// so that Chrome sends the next one.
func (v *view) onFrame(t *Tab, e *page.EventScreencastFrame) {
	f := &Frame{JPEG: e.Data, At: time.Now()}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(e.Data)); err == nil {
		f.Width, f.Height = cfg.Width, cfg.Height
	}
	if md := e.Metadata; md != nil {
		f.DeviceWidth, f.DeviceHeight = md.DeviceWidth, md.DeviceHeight
		// Under emulated device metrics the metadata counts device
		// pixels; a view maps its pointer in CSS pixels.
		t.mu.Lock()
		if t.emulated && t.scale > 0 {
			f.DeviceWidth, f.DeviceHeight = md.DeviceWidth/t.scale, md.DeviceHeight/t.scale
		}
		t.mu.Unlock()
	}
	v.mu.Lock()
	if !v.lastFrame.IsZero() && f.At.Sub(v.lastFrame) < motionInterval {
		v.fast++
	} else {
		v.fast = 0
	}
	v.lastFrame = f.At
	if !v.motion && !v.modeReq && v.fast >= motionAfter {
		v.modeReq = true
		t.signal(t.castMode)
	}
	v.mu.Unlock()
	v.publish(f)
	go cdp.Call(t.ctx, t.target, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: e.SessionID})
}

// castModeCheck switches the screencast between full-size frames and
// motion frames (the tab loop calls it).
func (v *view) castModeCheck(t *Tab) {
	t.castMu.Lock()
	defer t.castMu.Unlock()
	v.mu.Lock()
	toMotion := v.casting && v.modeReq && !v.motion
	settled := v.casting && v.motion && time.Since(v.lastFrame) > settleAfter
	v.modeReq = false
	if toMotion {
		v.motion = true
	}
	if settled {
		v.motion, v.fast = false, 0
	}
	v.mu.Unlock()
	if !toMotion && !settled {
		return
	}
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	t.restartCast(ctx)
}

// restartCast stops the screencast and starts it again with the tab's
// current size and mode (callers hold castMu). When the start fails the
// screencast counts as stopped, so the next pull starts it: a view never
// waits on a screencast that is not running.
func (t *Tab) restartCast(ctx context.Context) error {
	cdp.Call(ctx, t.target, page.StopScreencast, cdp.Empty{})
	err := t.startCast(ctx)
	if err != nil {
		t.view.mu.Lock()
		t.view.casting, t.view.motion, t.view.fast = false, false, 0
		t.view.mu.Unlock()
	}
	return err
}

// startCast starts the screencast at the tab's viewport size.
func (t *Tab) startCast(ctx context.Context) error {
	t.mu.Lock()
	vp, scale := t.viewport, t.scale
	t.mu.Unlock()
	q := int64(frameQuality)
	t.view.mu.Lock()
	if t.view.motion {
		scale *= motionScale
		q = motionQuality
	}
	t.view.mu.Unlock()
	_, err := cdp.Call(ctx, t.target, page.StartScreencast, page.StartScreencastParams{
		Format: page.StartScreencastFormatJpeg, Quality: &q,
		MaxWidth: int64(float64(vp.Width) * scale), MaxHeight: int64(float64(vp.Height) * scale), EveryNthFrame: 1,
	})
	if err != nil {
		return err
	}
	t.view.mu.Lock()
	before := t.view.seq
	t.view.mu.Unlock()
	go func() {
		time.Sleep(firstFrameWait)
		// No frame since the start, or only frames of the old size still
		// in flight: a still of the page as it is now stands in.
		t.view.mu.Lock()
		f := t.view.frame
		stale := t.view.casting && (t.view.seq == before || f == nil ||
			math.Abs(f.DeviceWidth-float64(vp.Width)) > 1 || math.Abs(f.DeviceHeight-float64(vp.Height)) > 1)
		t.view.mu.Unlock()
		if stale {
			t.stillFrame()
		}
	}()
	return nil
}

// stillFrame publishes a JPEG capture of the page as a frame.
func (t *Tab) stillFrame() {
	ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
	defer cancel()
	q := int64(frameQuality)
	vp, scale := t.Viewport()
	res, err := cdp.Call(ctx, t.target, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: &q})
	if err != nil {
		return
	}
	if nvp, nscale := t.Viewport(); nvp != vp || nscale != scale {
		return // resized meanwhile: the restarted screencast brings its own
	}
	f := &Frame{JPEG: res.Data, At: time.Now(), DeviceWidth: float64(vp.Width), DeviceHeight: float64(vp.Height)}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(res.Data)); err == nil {
		f.Width, f.Height = cfg.Width, cfg.Height
	}
	t.view.publish(f)
}

// idleCheck stops a screencast that nobody watches (the tab loop calls it).
func (v *view) idleCheck(t *Tab) {
	t.castMu.Lock()
	defer t.castMu.Unlock()
	v.mu.Lock()
	stop := v.casting && v.waiters == 0 && time.Since(v.lastPull) > castIdle
	if stop {
		v.casting, v.motion, v.fast = false, false, 0
	}
	v.mu.Unlock()
	if stop {
		if testHookIdleStop != nil {
			testHookIdleStop()
		}
		ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
		cdp.Call(ctx, t.target, page.StopScreencast, cdp.Empty{})
		cancel()
	}
}

// testHookIdleStop, when set (tests only), runs between an idle stop's
// decision and its StopScreencast.
var testHookIdleStop func()

// Streaming reports whether the tab's screencast runs.
func (t *Tab) Streaming() bool {
	t.view.mu.Lock()
	defer t.view.mu.Unlock()
	return t.view.casting
}

// errDialogChanged ends a frame wait early: a JavaScript dialog opened or
// closed, which the view must hear about at once.
var errDialogChanged = errors.New("browser: live view: a dialog opened or closed")

// NextFrame returns the first live-view frame newer than after, starting the
// screencast when it is off; it waits until one arrives, a JavaScript
// dialog opens or closes (errDialogChanged), or ctx ends. A view that stops
// asking stops the screencast after a short idle time.
func (t *Tab) NextFrame(ctx context.Context, after uint64) (*Frame, error) {
	v := &t.view
	v.mu.Lock()
	v.lastPull = time.Now()
	v.waiters++ // from now on no idle stop is decided
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.waiters--
		v.lastPull = time.Now()
		v.mu.Unlock()
	}()
	gen := t.dialogGeneration()
	if err := t.ensureCast(ctx); err != nil {
		return nil, t.fail("live view", err)
	}
	for {
		if t.dead() {
			return nil, fmt.Errorf("browser: live view: the tab's page is gone")
		}
		if t.dialogGeneration() != gen {
			return nil, errDialogChanged
		}
		v.mu.Lock()
		f, ch := v.frame, v.notify
		v.mu.Unlock()
		if f != nil && f.Seq > after {
			return f, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// ensureCast starts the screencast unless it runs. An idle stop decided
// before the caller registered as a waiter is sent before this start
// (castMu), never after it.
func (t *Tab) ensureCast(ctx context.Context) error {
	v := &t.view
	v.mu.Lock()
	on := v.casting
	v.mu.Unlock()
	if on {
		return nil
	}
	t.castMu.Lock()
	defer t.castMu.Unlock()
	v.mu.Lock()
	if v.casting {
		v.mu.Unlock()
		return nil
	}
	v.casting = true
	v.mu.Unlock()
	if err := t.startCast(ctx); err != nil {
		v.mu.Lock()
		v.casting = false
		v.mu.Unlock()
		return err
	}
	return nil
}

// Viewport returns the page's size in CSS pixels and its device scale.
func (t *Tab) Viewport() (Viewport, float64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.viewport, t.scale
}

// SetViewport sets the page's size in CSS pixels and its device scale (a
// live view follows its pane with it).
func (t *Tab) SetViewport(ctx context.Context, vp Viewport, scale float64) error {
	if vp.Width < 100 || vp.Height < 100 || vp.Width > 8192 || vp.Height > 8192 {
		return errors.New("browser: viewport is out of range (width and height 100–8192)")
	}
	if scale <= 0 {
		scale = 1
	}
	scale = min(max(scale, 0.5), 4)
	t.mu.Lock()
	same := t.viewport == vp && t.scale == scale
	t.mu.Unlock()
	if same {
		return nil
	}
	if err := t.applyViewport(ctx, vp, scale); err != nil {
		return t.fail("viewport", err)
	}
	t.mu.Lock()
	t.viewport, t.scale = vp, scale
	t.mu.Unlock()
	t.castMu.Lock()
	defer t.castMu.Unlock()
	if t.Streaming() {
		// The screencast's size is fixed at its start: restart it.
		if err := t.restartCast(ctx); err != nil {
			return t.fail("viewport", err)
		}
	}
	return nil
}

// applyViewport gives the page a viewport of vp CSS pixels. At scale 1 it
// resizes the tab's (headless) window, which keeps Chromium's normal
// rendering path: emulated device metrics cost about a third of the
// screencast's frame rate. Another scale, or a window that does not take
// the size, falls back to device-metrics emulation.
func (t *Tab) applyViewport(ctx context.Context, vp Viewport, scale float64) error {
	if scale == 1 {
		err := t.resizeWindow(ctx, vp)
		if err == nil {
			t.mu.Lock()
			emulated := t.emulated
			t.emulated = false
			t.mu.Unlock()
			if emulated {
				_, err = cdp.Call(ctx, t.target, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
			}
			return err
		}
		t.m.logf("debug", "viewport by window size: %v; emulating it", err)
	}
	if _, err := cdp.Call(ctx, t.target, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: int64(vp.Width), Height: int64(vp.Height), DeviceScaleFactor: scale,
	}); err != nil {
		return err
	}
	t.mu.Lock()
	t.emulated = true
	t.mu.Unlock()
	return nil
}

// resizeWindow sizes the tab's window so that its viewport is vp. The
// window's frame (the part that is not viewport) is measured once per
// browser and then added to every size.
func (t *Tab) resizeWindow(ctx context.Context, vp Viewport) error {
	b := t.m.browserSession()
	if b == nil {
		return errors.New("no browser")
	}
	w, err := cdp.Call(ctx, b, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: t.targetID})
	if err != nil {
		return err
	}
	set := func(frame Viewport) error {
		_, err := cdp.Call(ctx, b, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: w.WindowID,
			Bounds: &browser.Bounds{Width: int64(vp.Width + frame.Width), Height: int64(vp.Height + frame.Height), WindowState: browser.WindowStateNormal}})
		return err
	}
	frame, known := t.m.windowFrame()
	if err := set(frame); err != nil {
		return err
	}
	if known {
		return nil
	}
	inner, err := evalMain[[]int](ctx, t, "[innerWidth, innerHeight]")
	if err != nil || len(inner) != 2 {
		return fmt.Errorf("measure the window: %v", err)
	}
	frame = Viewport{Width: frame.Width + vp.Width - inner[0], Height: frame.Height + vp.Height - inner[1]}
	if frame.Width < 0 || frame.Height < 0 || frame.Width > 400 || frame.Height > 400 {
		return fmt.Errorf("implausible window frame %+v", frame)
	}
	if err := set(frame); err != nil {
		return err
	}
	if inner, err = evalMain[[]int](ctx, t, "[innerWidth, innerHeight]"); err != nil || inner[0] != vp.Width || inner[1] != vp.Height {
		return fmt.Errorf("the window gives a %v viewport, not %dx%d", inner, vp.Width, vp.Height)
	}
	t.m.setWindowFrame(frame)
	return nil
}

// mouseButtons maps InputEvent.Button onto CDP's.
var mouseButtons = map[string]input.MouseButton{
	"": input.MouseButtonNone, "none": input.MouseButtonNone, "left": input.MouseButtonLeft,
	"middle": input.MouseButtonMiddle, "right": input.MouseButtonRight,
	"back": input.MouseButtonBack, "forward": input.MouseButtonForward,
}

// Input dispatches a user input from a live view.
func (t *Tab) Input(ctx context.Context, ev InputEvent) error {
	var err error
	switch ev.Kind {
	case InputMouse:
		typ := input.DispatchMouseEventType(ev.Type)
		if typ != input.DispatchMouseEventTypeMousePressed && typ != input.DispatchMouseEventTypeMouseReleased && typ != input.DispatchMouseEventTypeMouseMoved {
			return errors.New("browser: input: unknown mouse event type (mousePressed, mouseReleased or mouseMoved)")
		}
		btn, ok := mouseButtons[ev.Button]
		if !ok {
			return errors.New("browser: input: unknown mouse button")
		}
		_, err = callPage(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{
			Type: typ, X: ev.X, Y: ev.Y, Button: btn, Buttons: int64(ev.Buttons), ClickCount: int64(ev.ClickCount), Modifiers: int64(ev.Modifiers),
		})
	case InputWheel:
		// Chrome wants both deltas even when one is zero, which the typed
		// params would leave out.
		_, err = pageCall(ctx, func(ctx context.Context) (struct{}, error) {
			return struct{}{}, t.target.Call(ctx, input.CommandDispatchMouseEvent, map[string]any{
				"type": input.DispatchMouseEventTypeMouseWheel, "x": ev.X, "y": ev.Y,
				"deltaX": ev.DeltaX, "deltaY": ev.DeltaY, "modifiers": ev.Modifiers,
			}, nil)
		})
	case InputKey:
		err = t.dispatchKey(ctx, ev)
	case InputText:
		if ev.Text == "" {
			return nil
		}
		_, err = callPage(ctx, t, input.InsertText, input.InsertTextParams{Text: ev.Text})
	default:
		return errors.New("browser: input: unknown kind (mouse, wheel, key or text)")
	}
	if err != nil {
		return t.fail("input", err)
	}
	if ev.Kind != InputMouse || ev.Type != string(input.DispatchMouseEventTypeMouseMoved) {
		t.checkRepaint()
	}
	return nil
}

// checkRepaint makes sure a view sees what an input did: when no frame
// came within inputRepaintWait of it while the screencast runs, a still of
// the page is published and the screencast is started again. One check at
// a time; a page the input did not change costs one still.
func (t *Tab) checkRepaint() {
	v := &t.view
	v.mu.Lock()
	if !v.casting || v.repaintCheck {
		v.mu.Unlock()
		return
	}
	v.repaintCheck = true
	before := v.seq
	v.mu.Unlock()
	time.AfterFunc(inputRepaintWait, func() {
		v.mu.Lock()
		v.repaintCheck = false
		stalled := v.casting && v.seq == before
		v.mu.Unlock()
		if !stalled || t.dead() {
			return
		}
		t.stillFrame()
		t.castMu.Lock()
		defer t.castMu.Unlock()
		v.mu.Lock()
		casting := v.casting
		v.mu.Unlock()
		if casting {
			ctx, cancel := context.WithTimeout(t.ctx, 5*time.Second)
			defer cancel()
			t.restartCast(ctx)
		}
	})
}

// dispatchKey sends one key event of a live view.
func (t *Tab) dispatchKey(ctx context.Context, ev InputEvent) error {
	p := input.DispatchKeyEventParams{Key: ev.Key, Code: ev.Code, WindowsVirtualKeyCode: int64(ev.KeyCode),
		NativeVirtualKeyCode: int64(ev.KeyCode), Modifiers: int64(ev.Modifiers)}
	switch ev.Type {
	case "keyDown":
		text := ev.Text
		if ev.Key == "Enter" {
			text = "\r"
		}
		if ev.Modifiers&(ModCtrl|ModMeta) != 0 {
			text = ""
			if cmd, ok := editCommands[strings.ToLower(ev.Key)]; ok {
				if cmd == "undo" && ev.Modifiers&ModShift != 0 {
					cmd = "redo"
				}
				p.Commands = []string{cmd}
			}
		}
		p.Type = input.DispatchKeyEventTypeRawKeyDown
		if text != "" {
			p.Type, p.Text, p.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, text, text
		}
	case "keyUp":
		p.Type = input.DispatchKeyEventTypeKeyUp
	default:
		return errors.New("browser: input: unknown key event type (keyDown or keyUp)")
	}
	_, err := callPage(ctx, t, input.DispatchKeyEvent, p)
	return err
}

// FramesServed counts the live-view frames [Manager.FrameHandler] has
// answered since the start: what the window's views have drawn.
func (m *Manager) FramesServed() int64 { return m.framesServed.Load() }

// known reports whether id names a tab record (live or not).
func (m *Manager) known(id string) bool {
	if m.opts.Lookup == nil {
		return false
	}
	_, ok := m.opts.Lookup(id)
	return ok
}

// DialogHeader is set on the frame answers of a tab whose page has an open
// JavaScript dialog; its value is the dialog's type (get_browser_dialog has
// the rest).
const DialogHeader = "X-Meith-Dialog"

// FrameHandler serves the live views' frames to the window:
// GET FramePath+"<tabId>?after=<seq>" answers the first frame newer than
// seq as image/jpeg with X-Meith-Frame-Seq, -Width, -Height and
// X-Meith-Device-Width/-Height (the page's CSS viewport), 204 when none
// came within [FramePollWait] or a JavaScript dialog opened or closed, 404
// for an unknown tab, and 503 with a
// plain-text reason when the browser cannot run. A tab that is not live is
// reopened. Only GET is served; other paths are 404.
func (m *Manager) FrameHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, FramePath)
		if !ok || id == "" || strings.Contains(id, "/") {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", http.MethodGet)
			http.Error(w, "only GET", http.StatusMethodNotAllowed)
			return
		}
		var after uint64
		if s := r.URL.Query().Get("after"); s != "" {
			n, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				http.Error(w, "after must be a frame number", http.StatusBadRequest)
				return
			}
			after = n
		}
		w.Header().Set("Cache-Control", "no-store")
		t, err := m.Live(r.Context(), id)
		switch {
		case IsNoTab(err):
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), FramePollWait)
		defer cancel()
		f, err := t.NextFrame(ctx, after)
		if d := t.Dialog(); d != nil {
			w.Header().Set(DialogHeader, d.Type)
		}
		w.Header().Set("Access-Control-Expose-Headers", "X-Meith-Frame-Seq, X-Meith-Frame-Width, X-Meith-Frame-Height, X-Meith-Device-Width, X-Meith-Device-Height, "+DialogHeader)
		switch {
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, errDialogChanged):
			w.WriteHeader(http.StatusNoContent)
			return
		case err != nil && t.dead() && m.Peek(id) == nil && !m.known(id):
			http.Error(w, "the tab was closed", http.StatusNotFound)
			return
		case err != nil:
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		m.framesServed.Add(1)
		h := w.Header()
		h.Set("Content-Type", "image/jpeg")
		h.Set("Content-Length", strconv.Itoa(len(f.JPEG)))
		h.Set("X-Meith-Frame-Seq", strconv.FormatUint(f.Seq, 10))
		h.Set("X-Meith-Frame-Width", strconv.Itoa(f.Width))
		h.Set("X-Meith-Frame-Height", strconv.Itoa(f.Height))
		h.Set("X-Meith-Device-Width", strconv.FormatFloat(f.DeviceWidth, 'f', -1, 64))
		h.Set("X-Meith-Device-Height", strconv.FormatFloat(f.DeviceHeight, 'f', -1, 64))
		w.Write(f.JPEG)
	})
}
