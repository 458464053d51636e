package browser

import (
	"context"
	"encoding/json"
	"errors"
)

// This file is the engine's contract while it is being built; every body
// returns errNotBuilt until the real one lands.

var errNotBuilt = errors.New("browser: not built yet")

// Options configures a [Manager].
type Options struct {
	// ExecPath is the Chromium executable ("" finds one with [FindChrome]).
	ExecPath string
	// DataDir holds the browser's profile (a fresh folder per start).
	DataDir string
	// DownloadDir is where downloads are saved.
	DownloadDir string
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
	// NewTabID returns an id for a tab the engine opens itself (popups).
	NewTabID func() string
}

// Spec says which tab to open: its id, its browser context and its URL.
type Spec struct {
	ID string
	// ContextKey names the browser context ("space:<id>" or
	// "session:<id>"); tabs with one key share cookies and storage, tabs
	// with different keys share nothing.
	ContextKey string
	URL        string
}

// Download is a finished (or failed) download.
type Download struct {
	URL      string `json:"url"`
	Path     string `json:"path,omitempty"`
	Filename string `json:"filename"`
	State    string `json:"state"` // completed | canceled
	Bytes    int64  `json:"bytes"`
}

// Manager owns one Chromium and the live tabs in it.
type Manager struct{ opts Options }

// Tab is one live page.
type Tab struct{ id string }

// New returns a Manager; Chromium starts on the first call that needs it.
func New(opts Options) *Manager { return &Manager{opts: opts} }

// Open creates a live tab and navigates it to spec.URL, waiting for the load
// (bounded by ctx and a few seconds).
func (m *Manager) Open(ctx context.Context, spec Spec) (*Tab, error) { return nil, errNotBuilt }

// Live returns the live tab id, reopening it from [Options.Lookup] when it
// is not live. An unknown id gives an error for which IsNoTab is true.
func (m *Manager) Live(ctx context.Context, id string) (*Tab, error) { return nil, errNotBuilt }

// Peek returns the live tab id or nil; it never starts anything.
func (m *Manager) Peek(id string) *Tab { return nil }

// CloseTab closes a live tab (no error when it is not live).
func (m *Manager) CloseTab(ctx context.Context, id string) error { return errNotBuilt }

// CloseContext closes every tab of a browser context and disposes of it.
func (m *Manager) CloseContext(ctx context.Context, key string) error { return errNotBuilt }

// Running reports whether Chromium is running.
func (m *Manager) Running() bool { return false }

// Shutdown closes every tab and stops Chromium.
func (m *Manager) Shutdown(ctx context.Context) error { return nil }

// ID returns the tab's id.
func (t *Tab) ID() string { return t.id }

// Info returns the page's current PageInfo.
func (t *Tab) Info() PageInfo { return PageInfo{} }

// Navigate loads url and waits for the load (bounded by ctx and a few
// seconds; a page still loading then is not an error).
func (t *Tab) Navigate(ctx context.Context, url string) (PageInfo, error) {
	return PageInfo{}, errNotBuilt
}

// Back goes back in the tab's history (an error when it cannot).
func (t *Tab) Back(ctx context.Context) (PageInfo, error) { return PageInfo{}, errNotBuilt }

// Forward goes forward in the tab's history (an error when it cannot).
func (t *Tab) Forward(ctx context.Context) (PageInfo, error) { return PageInfo{}, errNotBuilt }

// Reload reloads the page and waits for the load.
func (t *Tab) Reload(ctx context.Context) (PageInfo, error) { return PageInfo{}, errNotBuilt }

// Stop stops loading.
func (t *Tab) Stop(ctx context.Context) error { return errNotBuilt }

// Screenshot captures the viewport as a PNG.
func (t *Tab) Screenshot(ctx context.Context) (*Screenshot, error) { return nil, errNotBuilt }

// State returns the page's interactable elements.
func (t *Tab) State(ctx context.Context) (*PageState, error) { return nil, errNotBuilt }

// Click clicks an element of the latest State by id (IsNoElement when the
// id is unknown).
func (t *Tab) Click(ctx context.Context, elementID string) error { return errNotBuilt }

// Type focuses an element by id and replaces its value with text.
func (t *Tab) Type(ctx context.Context, elementID, text string) error { return errNotBuilt }

// ScrollBy scrolls the page.
func (t *Tab) ScrollBy(ctx context.Context, s Scroll) error { return errNotBuilt }

// SendKeys types a named key (Enter, Tab, ArrowDown, Control+A, …) or
// literal characters into the focused element.
func (t *Tab) SendKeys(ctx context.Context, keys string) error { return errNotBuilt }

// CDP sends a raw protocol command to the tab's target.
func (t *Tab) CDP(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return nil, errNotBuilt
}

// Console returns up to limit of the newest console messages, oldest first
// (limit <= 0: all).
func (t *Tab) Console(limit int) []ConsoleEntry { return nil }

// Network returns up to limit of the newest requests, oldest first.
func (t *Tab) Network(limit int) []NetworkEntry { return nil }

// SetViewport sets the page's size in CSS pixels and its device scale.
func (t *Tab) SetViewport(ctx context.Context, v Viewport, scale float64) error { return errNotBuilt }

// NextFrame returns the first live-view frame newer than after, starting the
// screencast when it is off; it waits until one arrives or ctx ends. A view
// that stops asking stops the screencast after a short idle time.
func (t *Tab) NextFrame(ctx context.Context, after uint64) (*Frame, error) { return nil, errNotBuilt }

// Input dispatches a user input from a live view.
func (t *Tab) Input(ctx context.Context, ev InputEvent) error { return errNotBuilt }

// IsNoTab reports whether err says a tab does not exist.
func IsNoTab(err error) bool { return false }

// IsNoElement reports whether err says an element id is unknown.
func IsNoElement(err error) bool { return false }

// IsNotFound reports whether err says no Chromium was found.
func IsNotFound(err error) bool { return false }

// NormalizeURL infers a scheme the way an address bar does
// ("localhost:3000" → http://localhost:3000, "example.com" →
// https://example.com) and refuses URLs a tab must not open (file:,
// javascript:, chrome:, …); the error is for a person to read.
func NormalizeURL(raw string) (string, error) { return "", errNotBuilt }
