package browser

import (
	"encoding/json"
	"time"
)

// Load states of a page ([PageInfo.LoadState]).
const (
	LoadLoading  = "loading"
	LoadComplete = "complete"
	LoadFailed   = "failed"
)

// DefaultViewport is the size of a tab's page until a view says otherwise.
var DefaultViewport = Viewport{Width: 1280, Height: 800}

// Ring sizes of the per-tab logs.
const (
	ConsoleRingSize = 1000
	NetworkRingSize = 1000
)

// PageInfo is what a tab's page looks like now: the fields a tab record
// mirrors.
type PageInfo struct {
	URL          string `json:"url"`
	Title        string `json:"title"`
	Favicon      string `json:"favicon,omitempty"`
	LoadState    string `json:"loadState"`
	CanGoBack    bool   `json:"canGoBack"`
	CanGoForward bool   `json:"canGoForward"`
	// ErrorText says why the last navigation failed (LoadState "failed").
	ErrorText string `json:"errorText,omitempty"`
}

// Viewport is a size in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Bounds is an element's rectangle in CSS pixels relative to the viewport.
type Bounds struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Element is one interactable element of a page. Its id ("el-N") stays the
// same for as long as the element lives in the page.
type Element struct {
	ID    string `json:"id"`
	Tag   string `json:"tag"`
	Role  string `json:"role,omitempty"`
	Label string `json:"label,omitempty"`
	Text  string `json:"text,omitempty"`
	Value string `json:"value,omitempty"`
	Type  string `json:"type,omitempty"` // an input's type
	Href  string `json:"href,omitempty"`
	// Checked is set for checkboxes and radio buttons.
	Checked  *bool   `json:"checked,omitempty"`
	Bounds   *Bounds `json:"bounds,omitempty"`
	Disabled bool    `json:"disabled"`
	Hidden   bool    `json:"hidden"`
}

// PageState is a page's interactable elements with its url, title and
// viewport (get_browser_state).
type PageState struct {
	URL      string    `json:"url"`
	Title    string    `json:"title"`
	Viewport Viewport  `json:"viewport"`
	Elements []Element `json:"elements"`
	// Truncated counts the elements left out beyond [MaxElements].
	Truncated int `json:"truncated,omitempty"`
}

// ConsoleEntry is one console message of a page.
type ConsoleEntry struct {
	Level  string `json:"level"` // log | info | warn | error | debug
	Text   string `json:"text"`
	TS     int64  `json:"ts"` // Unix milliseconds
	Source string `json:"source,omitempty"`
}

// NetworkEntry is one request of a page.
type NetworkEntry struct {
	ID           string  `json:"id"`
	Method       string  `json:"method"`
	URL          string  `json:"url"`
	Status       int     `json:"status,omitempty"`
	ResourceType string  `json:"resourceType,omitempty"`
	StartedAt    int64   `json:"startedAt"` // Unix milliseconds
	EndedAt      int64   `json:"endedAt,omitempty"`
	DurationMs   float64 `json:"durationMs,omitempty"`
	Failed       bool    `json:"failed"`
	ErrorText    string  `json:"errorText,omitempty"`
	// PageURL is the document the request belongs to.
	PageURL string `json:"pageUrl,omitempty"`
	// Navigation marks the main frame's document requests: a new page
	// starts there (the devtools panels clear at it unless they preserve
	// the log).
	Navigation bool `json:"navigation,omitempty"`
	// StatusText, MimeType, Protocol and RemoteAddress describe the
	// response; FromCache says it came from a cache.
	StatusText    string `json:"statusText,omitempty"`
	MimeType      string `json:"mimeType,omitempty"`
	Protocol      string `json:"protocol,omitempty"`
	RemoteAddress string `json:"remoteAddress,omitempty"`
	FromCache     bool   `json:"fromCache,omitempty"`
	// Size is the bytes received (headers and body as sent on the wire).
	Size int64 `json:"size,omitempty"`
	// WaitMs is the time from the request sent to the response's headers.
	WaitMs float64 `json:"waitMs,omitempty"`
	// RequestHeaders and ResponseHeaders are bounded copies (at most 64,
	// values clipped) with secret-looking values (Authorization, Cookie,
	// tokens) replaced by [RedactedHeader].
	RequestHeaders  map[string]string `json:"requestHeaders,omitempty"`
	ResponseHeaders map[string]string `json:"responseHeaders,omitempty"`
}

// Scroll moves a page: by a delta, or to an absolute position.
type Scroll struct {
	DeltaX *float64 `json:"deltaX,omitempty"`
	DeltaY *float64 `json:"deltaY,omitempty"`
	ToX    *float64 `json:"toX,omitempty"`
	ToY    *float64 `json:"toY,omitempty"`
}

// Screenshot is a PNG of a tab's viewport.
type Screenshot struct {
	PNG    []byte
	Width  int
	Height int
}

// Frame is one JPEG frame of a tab's live view.
type Frame struct {
	// Seq counts the frames of a tab from 1.
	Seq  uint64
	JPEG []byte
	// Width and Height are the JPEG's size in pixels.
	Width, Height int
	// DeviceWidth and DeviceHeight are the page's viewport in CSS pixels
	// when the frame was painted; a view maps its pointer through them.
	DeviceWidth, DeviceHeight float64
	// At is when the frame arrived.
	At time.Time
}

// Input kinds of [InputEvent].
const (
	InputMouse = "mouse"
	InputWheel = "wheel"
	InputKey   = "key"
	InputText  = "text"
)

// InputEvent is one user input from a live view, in the page's CSS pixels.
type InputEvent struct {
	Kind string `json:"kind"` // mouse | wheel | key | text
	// Type is, for mouse: mousePressed | mouseReleased | mouseMoved; for
	// key: keyDown | keyUp.
	Type       string  `json:"type,omitempty"`
	X          float64 `json:"x,omitempty"`
	Y          float64 `json:"y,omitempty"`
	Button     string  `json:"button,omitempty"` // none | left | middle | right
	Buttons    int     `json:"buttons,omitempty"`
	ClickCount int     `json:"clickCount,omitempty"`
	DeltaX     float64 `json:"deltaX,omitempty"`
	DeltaY     float64 `json:"deltaY,omitempty"`
	// Modifiers is a bit field: Alt=1, Ctrl=2, Meta=4, Shift=8.
	Modifiers int    `json:"modifiers,omitempty"`
	Key       string `json:"key,omitempty"`  // DOM KeyboardEvent.key
	Code      string `json:"code,omitempty"` // DOM KeyboardEvent.code
	// Text is what a key inserts (key) or the text to insert (text).
	Text    string `json:"text,omitempty"`
	KeyCode int    `json:"keyCode,omitempty"` // windowsVirtualKeyCode
}

// CDPResult is the answer of a raw protocol command.
type CDPResult = json.RawMessage
