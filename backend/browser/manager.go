// Package browser is meith's browser engine: one Chromium driven with
// chromedp, started on first use, with one target per meith browser tab and
// one browser context per space (or per agent session), so cookies and
// storage never leak between them.
//
// A [Manager] owns the browser and the live tabs, keyed by the tab ids of
// the app state (btab_…). A tab that is not live (after a restart, a crash,
// or before first use) is reopened from its record through
// [Options.Lookup] when something needs it. Every browser context is
// hardened: permission requests are denied, downloads land in
// [Options.DownloadDir], popups and target=_blank links become tabs.
//
// Chromium keeps its sandbox unless it cannot have one ([Manager.Sandbox]
// says which), and every request it makes but those to loopback goes
// through the engine's guard proxy, which refuses [BlockedPrefixes]
// (link-local, cloud metadata) on the address it is about to connect to:
// any written form, a name that resolves there, WebSockets, workers and a
// popup's first request alike. Each tab's Fetch domain also fails its own
// requests to those addresses early, with a console note.
//
// A [Tab] answers the automation calls (navigate, state, click, type, keys,
// screenshot, raw CDP), keeps bounded console and network logs, and serves a
// live view: a JPEG screencast pulled frame by frame ([Tab.NextFrame],
// [Manager.FrameHandler]) with user input forwarded through
// Input.dispatch* ([Tab.Input]).
//
// The browser's context is never given a timeout: every call derives its
// own context from the caller's. A call that the page's renderer must answer
// (script, capture, input) is also bounded by [PageDeadline], so a page stuck
// in a script loop fails fast with a *NotRespondingError.
package browser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// startTimeout bounds Chromium's start.
const startTimeout = 30 * time.Second

// Options configures a [Manager].
type Options struct {
	// ExecPath is the Chromium executable ("" finds one with [FindChrome]).
	ExecPath string
	// DataDir holds the browser's profile (a fresh folder per start,
	// removed at shutdown); "" uses a temporary folder.
	DataDir string
	// DownloadDir is where downloads are saved ("" refuses downloads).
	DownloadDir string
	// CookieDir keeps each browser context's cookies across restarts (""
	// keeps none: contexts live in memory).
	CookieDir string
	// Logf receives the engine's log lines; level is debug|info|warn|error.
	Logf func(level, format string, args ...any)
	// Lookup returns the record of a tab that is not live (after a restart
	// or a crash) so that [Manager.Live] can reopen it.
	Lookup func(id string) (Spec, bool)
	// OnChange is called (from an engine goroutine, never under a lock the
	// caller holds) whenever a live tab's PageInfo changes.
	OnChange func(id string, info PageInfo)
	// OnPopup is called when a page opened a new window (window.open or a
	// target=_blank link). The engine already holds it live as a tab with
	// id in the opener's browser context.
	OnPopup func(openerID, id string, info PageInfo)
	// OnDownload is called when a download of a tab ends.
	OnDownload func(id string, d Download)
	// NewTabID returns an id for a tab the engine opens itself (popups);
	// nil means popups are closed instead of adopted.
	NewTabID func() string

	// Test hooks. extraBlocked adds address prefixes to [BlockedPrefixes]
	// (a loopback address that stands in for a metadata service).
	// launchCmd changes Chromium's command (it replaces chromedp's own
	// change, which sets Pdeathsig), launchUID is the user it then runs as
	// (its profile folders are given to that user), and extraFlags are
	// added to its flags.
	extraBlocked []netip.Prefix
	launchCmd    func(*exec.Cmd)
	launchUID    *uint32
	extraFlags   map[string]any
}

// Spec says which tab to open: its id, its browser context and its URL.
type Spec struct {
	ID string
	// ContextKey names the browser context ("space:<id>" or
	// "session:<id>"); tabs with one key share cookies and storage, tabs
	// with different keys share nothing.
	ContextKey string
	URL        string
	// Bridge, when set, is installed in the new target before its first
	// navigation (bridge.go): the tab's page gets a binding meith answers.
	// A live tab is returned as it is, with or without one.
	Bridge *Bridge
}

// Manager owns one Chromium and the live tabs in it. It is safe for
// concurrent use.
type Manager struct {
	opts   Options
	policy *addressPolicy // the addresses no request may reach

	startMu sync.Mutex // serializes starting and stopping the browser

	mu         sync.Mutex
	run        *session           // the running browser, nil when stopped
	tabs       map[string]*Tab    // live tabs by id
	byTarget   map[target.ID]*Tab // live tabs by target id
	contexts   map[string]cdp.BrowserContextID
	guard      *guardProxy              // the proxy every browser request goes through, once started
	opening    map[string]chan struct{} // ids being opened, closed when done
	downloads  map[string]*pendingDownload
	closed     bool
	adoptingWG sync.WaitGroup
	// frame is the part of a tab's window that is not viewport, once
	// measured (frameKnown).
	frame      Viewport
	frameKnown bool

	framesServed atomic.Int64 // frames the FrameHandler answered

	sandboxOnce   sync.Once
	sandboxPlan   SandboxStatus  // the decision for this machine
	sandboxUsed   *SandboxStatus // how the last browser started (under mu), nil before
	refusedBefore atomic.Int64   // refusals of guard proxies that are closed
}

// session is one run of Chromium.
type session struct {
	ctx        context.Context // the root chromedp context (owns the browser)
	cancel     context.CancelFunc
	allocStop  context.CancelFunc
	profileDir string
	done       chan struct{} // closed when the browser is gone
}

// New returns a Manager; Chromium starts on the first call that needs it.
func New(opts Options) *Manager {
	return &Manager{
		opts:      opts,
		policy:    newAddressPolicy(opts.extraBlocked),
		tabs:      map[string]*Tab{},
		byTarget:  map[target.ID]*Tab{},
		contexts:  map[string]cdp.BrowserContextID{},
		opening:   map[string]chan struct{}{},
		downloads: map[string]*pendingDownload{},
	}
}

func (m *Manager) logf(level, format string, args ...any) {
	if m.opts.Logf != nil {
		m.opts.Logf(level, format, args...)
	}
}

// Running reports whether Chromium is running.
func (m *Manager) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.run != nil && m.run.ctx.Err() == nil
}

// PID returns Chromium's process id, 0 when it is not running.
func (m *Manager) PID() int {
	m.mu.Lock()
	run := m.run
	m.mu.Unlock()
	if run == nil {
		return 0
	}
	if c := chromedp.FromContext(run.ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		return c.Browser.Process().Pid
	}
	return 0
}

// ensure returns the running browser, starting it when it is not.
func (m *Manager) ensure(ctx context.Context) (*session, error) {
	m.startMu.Lock()
	defer m.startMu.Unlock()
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("browser: the manager is shut down")
	}
	if run := m.run; run != nil {
		if run.ctx.Err() == nil {
			m.mu.Unlock()
			return run, nil
		}
		m.forgetLocked()
	}
	m.mu.Unlock()

	exe := m.opts.ExecPath
	if exe == "" {
		var err error
		if exe, err = FindChrome(); err != nil {
			return nil, err
		}
	}
	m.mu.Lock()
	guard := m.guard
	m.mu.Unlock()
	if guard == nil {
		var err error
		if guard, err = startGuardProxy(m.policy, m.logf); err != nil {
			return nil, err
		}
		m.mu.Lock()
		m.guard = guard
		m.mu.Unlock()
	}
	sandbox := m.plannedSandbox(exe)
	run, err := m.launch(ctx, exe, m.chromeFlags(guard, sandbox))
	if sandbox.On && isNoUsableSandbox(err) {
		sandbox = SandboxStatus{Reason: SandboxOffUnusable}
		m.logf("debug", "chromium without a sandbox: %v", err)
		m.logf("warn", "chromium found no usable sandbox; starting it without one")
		run, err = m.launch(ctx, exe, m.chromeFlags(guard, sandbox))
	}
	if err != nil {
		return nil, err
	}
	rootCtx, rootCancel, allocCancel := run.ctx, run.cancel, run.allocStop
	if err := chromedp.ListenBrowser(rootCtx, m.onBrowserEvent); err != nil {
		rootCancel()
		allocCancel()
		return nil, fmt.Errorf("browser: listen: %w", err)
	}
	go func() {
		<-rootCtx.Done()
		close(run.done)
	}()
	go m.saveCookiesEvery(run)
	m.mu.Lock()
	m.run = run
	m.sandboxUsed = &sandbox
	m.mu.Unlock()
	m.logf("info", "chromium started: %s (pid %d, sandbox %s)", exe, m.PID(), sandbox)
	if !sandbox.On {
		m.logf("warn", "chromium runs without its sandbox: %s", sandbox.Reason)
	}
	return run, nil
}

// launch starts Chromium with flags in a fresh profile folder and waits for
// it (bounded by ctx and startTimeout).
func (m *Manager) launch(ctx context.Context, exe string, flags map[string]any) (*session, error) {
	run := &session{done: make(chan struct{})}
	allocOpts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	allocOpts = append(allocOpts, chromedp.ExecPath(exe), chromedp.DisableGPU)
	for name, value := range flags {
		allocOpts = append(allocOpts, chromedp.Flag(name, value))
	}
	allocOpts = append(allocOpts, chromedp.WindowSize(DefaultViewport.Width, DefaultViewport.Height))
	if m.opts.launchCmd != nil {
		allocOpts = append(allocOpts, chromedp.ModifyCmdFunc(m.opts.launchCmd))
	}
	if m.opts.DataDir != "" {
		if err := os.MkdirAll(m.opts.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("browser: profile folder: %w", err)
		}
		removeStaleProfiles(m.opts.DataDir)
		dir, err := os.MkdirTemp(m.opts.DataDir, fmt.Sprintf("profile-%d-", os.Getpid()))
		if err != nil {
			return nil, fmt.Errorf("browser: profile folder: %w", err)
		}
		if m.opts.launchUID != nil {
			if err := os.Chown(dir, int(*m.opts.launchUID), -1); err != nil {
				os.RemoveAll(dir)
				return nil, fmt.Errorf("browser: profile folder: %w", err)
			}
		}
		run.profileDir = dir
		allocOpts = append(allocOpts, chromedp.UserDataDir(dir))
	}
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), allocOpts...)
	rootCtx, rootCancel := chromedp.NewContext(allocCtx,
		chromedp.WithLogf(func(f string, a ...any) { m.logf("debug", "chromium: "+f, a...) }),
		chromedp.WithErrorf(func(f string, a ...any) { m.logf("debug", "chromium: "+f, a...) }),
	)
	run.ctx, run.cancel, run.allocStop = rootCtx, rootCancel, allocCancel

	started := make(chan error, 1)
	go func() { started <- chromedp.Do(rootCtx) }()
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-started:
	case <-ctx.Done():
		err = ctx.Err()
	case <-timer.C:
		err = fmt.Errorf("chromium did not start within %s", startTimeout)
	}
	if err != nil {
		rootCancel()
		allocCancel()
		if run.profileDir != "" {
			os.RemoveAll(run.profileDir)
		}
		return nil, fmt.Errorf("browser: start %s: %w", exe, err)
	}
	return run, nil
}

// plannedSandbox is the sandbox decision for this machine (probed once):
// what the next start of Chromium will try.
func (m *Manager) plannedSandbox(exe string) SandboxStatus {
	m.sandboxOnce.Do(func() {
		uid := -1
		if m.opts.launchUID != nil {
			uid = int(*m.opts.launchUID)
		}
		m.sandboxPlan = decideSandbox(probeSandboxEnv(exe, uid))
	})
	return m.sandboxPlan
}

// Sandbox says whether Chromium runs inside its sandbox: how the running
// (or last) browser started, else what the next start will try. It never
// starts Chromium.
func (m *Manager) Sandbox() SandboxStatus {
	m.mu.Lock()
	used := m.sandboxUsed
	m.mu.Unlock()
	if used != nil {
		return *used
	}
	exe := m.opts.ExecPath
	if exe == "" {
		exe, _ = FindChrome()
	}
	return m.plannedSandbox(exe)
}

// proxyFailure says why the guard proxy could not connect for rawURL
// ("" when it does not know).
func (m *Manager) proxyFailure(rawURL string) string {
	m.mu.Lock()
	guard := m.guard
	m.mu.Unlock()
	u, err := url.Parse(rawURL)
	if guard == nil || err != nil || u.Host == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" || u.Scheme == "wss" {
			port = "443"
		}
	}
	return guard.failure(net.JoinHostPort(u.Hostname(), port))
}

// BlockedConnections counts the connections the guard proxy refused for
// their address since the start.
func (m *Manager) BlockedConnections() int64 {
	m.mu.Lock()
	guard := m.guard
	m.mu.Unlock()
	if guard == nil {
		return m.refusedBefore.Load()
	}
	return m.refusedBefore.Load() + guard.refused.Load()
}

// loopbackBypass is the proxy bypass list: "<-loopback>" removes
// Chromium's implicit rules, which send not only loopback but also
// link-local addresses (169.254/16, fe80::/10) around any proxy; the
// loopback hosts are then put back, so dev servers on this machine are
// reached directly (and the browser still sees them as local).
const loopbackBypass = "<-loopback>;localhost;*.localhost;127.0.0.0/8;[::1]"

// chromeFlags are the command-line flags meith adds to chromedp's defaults.
// The sandbox stays on unless sandbox says it cannot be. Every request but
// those to loopback goes through the guard proxy (those too when the policy
// blocks a loopback address), and WebRTC sends no UDP around it.
func (m *Manager) chromeFlags(guard *guardProxy, sandbox SandboxStatus) map[string]any {
	flags := map[string]any{
		"disable-quic":                    true,
		"disable-component-update":        true,
		"disable-notifications":           true,
		"deny-permission-prompts":         true,
		"autoplay-policy":                 "user-gesture-required",
		"hide-scrollbars":                 false,
		"mute-audio":                      true,
		"proxy-server":                    guard.url(),
		"force-webrtc-ip-handling-policy": "disable_non_proxied_udp",
		"proxy-bypass-list":               loopbackBypass,
	}
	if m.policy.blocksLoopback() {
		flags["proxy-bypass-list"] = "<-loopback>"
	}
	// Always set: chromedp adds --no-sandbox for a root process unless the
	// flag is set (false leaves it out), and the browser may run as
	// another user.
	flags["no-sandbox"] = !sandbox.On
	for name, value := range m.opts.extraFlags {
		flags[name] = value
	}
	return flags
}

// LiveTab describes a live tab for diagnostics.
type LiveTab struct {
	ID         string   `json:"id"`
	ContextKey string   `json:"contextKey"`
	Viewport   Viewport `json:"viewport"`
	Scale      float64  `json:"scale"`
	Streaming  bool     `json:"streaming"`
}

// LiveTabs lists the live tabs (app_health shows them).
func (m *Manager) LiveTabs() []LiveTab {
	m.mu.Lock()
	tabs := make([]*Tab, 0, len(m.tabs))
	for _, t := range m.tabs {
		tabs = append(tabs, t)
	}
	m.mu.Unlock()
	out := make([]LiveTab, 0, len(tabs))
	for _, t := range tabs {
		vp, scale := t.Viewport()
		out = append(out, LiveTab{ID: t.id, ContextKey: t.key, Viewport: vp, Scale: scale, Streaming: t.Streaming()})
	}
	slices.SortFunc(out, func(a, b LiveTab) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// browserSession returns the running browser's session, or nil.
func (m *Manager) browserSession() *chromedp.Browser {
	m.mu.Lock()
	run := m.run
	m.mu.Unlock()
	if run == nil {
		return nil
	}
	if c := chromedp.FromContext(run.ctx); c != nil {
		return c.Browser
	}
	return nil
}

func (m *Manager) windowFrame() (Viewport, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.frame, m.frameKnown
}

func (m *Manager) setWindowFrame(f Viewport) {
	m.mu.Lock()
	m.frame, m.frameKnown = f, true
	m.mu.Unlock()
}

// removeStaleProfiles removes the profile folders of earlier runs whose
// process is gone (a crash leaves them behind).
func removeStaleProfiles(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "profile-%d-", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}

// forgetLocked drops everything of a browser run that ended (crash or
// kill): the next call starts a new one and reopens tabs from their records.
func (m *Manager) forgetLocked() {
	for _, t := range m.tabs {
		t.markDead()
	}
	m.tabs = map[string]*Tab{}
	m.byTarget = map[target.ID]*Tab{}
	m.contexts = map[string]cdp.BrowserContextID{}
	m.frameKnown = false
	if m.run != nil && m.run.profileDir != "" {
		os.RemoveAll(m.run.profileDir)
	}
	m.run = nil
}

// Open creates a live tab and navigates it to spec.URL, waiting for the load
// (bounded by ctx and a few seconds). Opening an id that is live returns it
// as it is.
func (m *Manager) Open(ctx context.Context, spec Spec) (*Tab, error) {
	if spec.ID == "" || spec.ContextKey == "" {
		return nil, errors.New("browser: open needs an id and a context key")
	}
	url, err := NormalizeURL(spec.URL)
	if err != nil {
		return nil, err
	}
	// The first load happens before anyone else gets the tab: a navigate
	// that waited for the tab to open must come after it, not be undone by it.
	t, _, err := m.attach(ctx, spec.ID, spec.ContextKey, "", func(ctx context.Context, t *Tab) error {
		if spec.Bridge != nil {
			if err := t.installBridge(ctx, spec.Bridge); err != nil {
				return err
			}
		}
		if _, err := t.Navigate(ctx, url); err != nil {
			return err
		}
		// The new target's about:blank is not a page to go back to.
		if _, err := cdp.Call(ctx, t.target, page.ResetNavigationHistory, cdp.Empty{}); err == nil {
			t.refreshInfo(ctx)
		}
		return nil
	})
	return t, err
}

// Live returns the live tab id, reopening it from [Options.Lookup] when it
// is not live. An unknown id gives a *NoTabError.
func (m *Manager) Live(ctx context.Context, id string) (*Tab, error) {
	if t := m.Peek(id); t != nil {
		return t, nil
	}
	if m.opts.Lookup == nil {
		return nil, &NoTabError{ID: id}
	}
	spec, ok := m.opts.Lookup(id)
	if !ok {
		return nil, &NoTabError{ID: id}
	}
	spec.ID = id
	if spec.URL == "" {
		spec.URL = "about:blank"
	}
	if _, err := NormalizeURL(spec.URL); err != nil {
		spec.URL = "about:blank"
	}
	m.logf("info", "reopening browser tab %s at %s", id, spec.URL)
	return m.Open(ctx, spec)
}

// Peek returns the live tab id or nil; it never starts anything.
func (m *Manager) Peek(id string) *Tab {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.run == nil || m.run.ctx.Err() != nil {
		return nil
	}
	t := m.tabs[id]
	if t == nil || t.dead() {
		return nil
	}
	return t
}

// attach makes id live: a new target in key's browser context, or (with
// targetID) an existing target such as a popup. fresh says it was created
// now. Concurrent attaches of one id share the first.
//
// A fresh tab runs first (when not nil) before it is registered, so other
// callers of the same id wait for it; the tab is registered even when first
// fails (a page that failed to load is still a tab), and its error is
// returned.
func (m *Manager) attach(ctx context.Context, id, key string, targetID target.ID, first func(context.Context, *Tab) error) (t *Tab, fresh bool, err error) {
	for {
		m.mu.Lock()
		if t := m.tabs[id]; t != nil && !t.dead() && m.run != nil && m.run.ctx.Err() == nil {
			m.mu.Unlock()
			return t, false, nil
		}
		wait, busy := m.opening[id]
		if !busy {
			m.opening[id] = make(chan struct{})
			m.mu.Unlock()
			break
		}
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, false, ctx.Err()
		}
	}
	defer func() {
		m.mu.Lock()
		close(m.opening[id])
		delete(m.opening, id)
		m.mu.Unlock()
	}()
	run, err := m.ensure(ctx)
	if err != nil {
		return nil, false, err
	}
	t = newTab(m, id, key)
	opts := []chromedp.ContextOption{chromedp.WithListener(t.onEvent)}
	if targetID != "" {
		opts = append(opts, chromedp.WithTargetID(targetID))
	} else {
		bc, err := m.browserContext(ctx, run, key)
		if err != nil {
			return nil, false, err
		}
		opts = append(opts, chromedp.WithExistingBrowserContext(bc))
	}
	tabCtx, cancel := chromedp.NewContext(run.ctx, opts...)
	t.ctx, t.cancel = tabCtx, cancel
	// The first run creates or attaches the target; its context (tabCtx)
	// is the target's lifetime, so it gets no timeout: wait for it here.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(tabCtx) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		cancel()
		return nil, false, fmt.Errorf("browser: open tab: %w", err)
	}
	c := chromedp.FromContext(tabCtx)
	t.target = c.Target
	t.targetID = c.Target.TargetID
	tid := t.targetID
	t.listenerTarget.Store(&tid)
	if err := t.setup(withCancelOf(tabCtx, ctx)); err != nil {
		cancel()
		return nil, false, fmt.Errorf("browser: set up tab: %w", err)
	}
	go t.loop()
	var firstErr error
	if first != nil {
		firstErr = first(ctx, t)
	}
	m.mu.Lock()
	m.tabs[id] = t
	m.byTarget[t.targetID] = t
	m.mu.Unlock()
	return t, true, firstErr
}

// CloseTab closes a live tab (no error when it is not live).
func (m *Manager) CloseTab(ctx context.Context, id string) error {
	m.mu.Lock()
	t := m.tabs[id]
	delete(m.tabs, id)
	if t != nil {
		delete(m.byTarget, t.targetID)
	}
	m.mu.Unlock()
	if t == nil {
		return nil
	}
	m.mu.Lock()
	bc, ok := m.contexts[t.key]
	run := m.run
	m.mu.Unlock()
	if ok && run != nil && m.opts.CookieDir != "" {
		if err := m.saveContextCookies(withCancelOf(run.ctx, ctx), t.key, bc); err != nil {
			m.logf("warn", "save the cookies of %s: %v", t.key, err)
		}
	}
	t.close()
	return nil
}

// Shutdown saves the cookies, closes every tab and stops Chromium; later
// calls fail.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.saveCookies(ctx)
	m.startMu.Lock()
	defer m.startMu.Unlock()
	m.mu.Lock()
	m.closed = true
	run := m.run
	for _, t := range m.tabs {
		t.markDead()
	}
	m.tabs = map[string]*Tab{}
	m.byTarget = map[target.ID]*Tab{}
	m.run = nil
	guard := m.guard
	m.guard = nil
	m.mu.Unlock()
	if guard != nil {
		defer func() {
			guard.close()
			m.refusedBefore.Add(guard.refused.Load())
		}()
	}
	if run == nil {
		return nil
	}
	run.cancel() // waits for the browser to exit
	run.allocStop()
	if run.profileDir != "" {
		os.RemoveAll(run.profileDir)
	}
	return nil
}

// onBrowserEvent handles the browser's events: popups, target titles and
// urls, downloads. It runs on chromedp's reader goroutine and must return
// fast.
func (m *Manager) onBrowserEvent(ev any) {
	switch e := ev.(type) {
	case *target.EventTargetCreated:
		info := e.TargetInfo
		if info == nil || info.Type != "page" || info.OpenerID == "" {
			return
		}
		m.mu.Lock()
		opener := m.byTarget[info.OpenerID]
		closed := m.closed
		m.mu.Unlock()
		if opener == nil || closed {
			return
		}
		m.adoptingWG.Add(1)
		go func() {
			defer m.adoptingWG.Done()
			m.adopt(opener, info.TargetID)
		}()
	case *target.EventTargetInfoChanged:
		info := e.TargetInfo
		if info == nil {
			return
		}
		m.mu.Lock()
		t := m.byTarget[info.TargetID]
		m.mu.Unlock()
		if t != nil {
			t.targetInfo(info.URL, info.Title)
		}
	case *target.EventTargetDestroyed:
		m.mu.Lock()
		t := m.byTarget[e.TargetID]
		if t != nil {
			delete(m.byTarget, e.TargetID)
			if m.tabs[t.id] == t {
				delete(m.tabs, t.id)
			}
		}
		m.mu.Unlock()
		if t != nil {
			t.markDead()
		}
	case *browser.EventDownloadWillBegin:
		m.downloadWillBegin(e)
	case *browser.EventDownloadProgress:
		m.downloadProgress(e)
	}
}

// adopt makes a popup a meith tab in its opener's browser context.
func (m *Manager) adopt(opener *Tab, targetID target.ID) {
	if opener.Bridged() {
		m.refusePopup(opener, targetID)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if m.opts.NewTabID == nil {
		m.mu.Lock()
		run := m.run
		m.mu.Unlock()
		if run != nil {
			chromedp.CallBrowser(withCancelOf(run.ctx, ctx), target.CloseTarget, target.CloseTargetParams{TargetID: targetID})
		}
		return
	}
	id := m.opts.NewTabID()
	t, _, err := m.attach(ctx, id, opener.key, targetID, nil)
	if err != nil {
		m.logf("warn", "popup of %s: %v", opener.id, err)
		return
	}
	t.waitLoad(ctx)
	t.refreshInfo(ctx)
	m.logf("info", "popup of %s opened as tab %s: %s", opener.id, id, t.Info().URL)
	if m.opts.OnPopup != nil {
		m.opts.OnPopup(opener.id, id, t.Info())
	}
}

// withCancelOf returns a context that carries long's values (the chromedp
// context) and ends when either long or call ends: a call's deadline and
// cancellation without ever putting a timeout on the browser's context.
func withCancelOf(long, call context.Context) context.Context {
	ctx, cancel := context.WithCancelCause(long)
	stop := context.AfterFunc(call, func() { cancel(context.Cause(call)) })
	context.AfterFunc(ctx, func() { stop() })
	return ctx
}
