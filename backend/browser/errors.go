package browser

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// NotFoundError says that no Chromium executable was found.
type NotFoundError struct {
	// Tried lists the names and paths that were looked at.
	Tried []string
}

// Error implements error.
func (e *NotFoundError) Error() string {
	return "no Chromium or Chrome found (install it: apt-get install chromium; or set MEITH_CHROME to the executable); tried " +
		strings.Join(e.Tried, ", ")
}

// NoTabError says that a tab id names no tab.
type NoTabError struct{ ID string }

// Error implements error.
func (e *NoTabError) Error() string { return fmt.Sprintf("unknown browser tab %q", e.ID) }

// NoElementError says that an element id is unknown in the tab's page (never
// listed, or the element is gone since).
type NoElementError struct{ ID string }

// Error implements error.
func (e *NoElementError) Error() string {
	return fmt.Sprintf("unknown element id %q: call get_browser_state again and use an id from its answer", e.ID)
}

// URLError says that a URL cannot be opened in a tab.
type URLError struct {
	URL    string
	Reason string
}

// Error implements error. It does not quote the URL, which may hold
// credentials or tokens (the caller knows what it sent).
func (e *URLError) Error() string { return "cannot open the URL: " + e.Reason }

// HistoryError says that a tab has no history entry in the asked direction.
type HistoryError struct{ Direction string }

// Error implements error.
func (e *HistoryError) Error() string {
	return "the tab cannot go " + e.Direction + ": no history entry"
}

// NotRespondingError says that a tab's page did not answer a call that its
// renderer must answer (script, capture, input) within [PageDeadline]: a
// script is stuck in a loop, or the renderer hangs. The tab itself still
// works for what the browser answers alone: navigate, reload, close.
type NotRespondingError struct {
	// After is how long the call waited.
	After time.Duration
}

// Error implements error.
func (e *NotRespondingError) Error() string {
	return fmt.Sprintf("page not responding (no answer within %s; a script may be stuck in a loop): reload the tab or close it", e.After)
}

// IsNotResponding reports whether err says a page did not answer in time.
func IsNotResponding(err error) bool { var e *NotRespondingError; return errors.As(err, &e) }

// IsNoTab reports whether err says a tab does not exist.
func IsNoTab(err error) bool { var e *NoTabError; return errors.As(err, &e) }

// IsNoElement reports whether err says an element id is unknown.
func IsNoElement(err error) bool { var e *NoElementError; return errors.As(err, &e) }

// IsNotFound reports whether err says no Chromium was found.
func IsNotFound(err error) bool { var e *NotFoundError; return errors.As(err, &e) }

// IsURL reports whether err says a URL cannot be opened.
func IsURL(err error) bool { var e *URLError; return errors.As(err, &e) }

// IsHistory reports whether err says a tab cannot go back or forward.
func IsHistory(err error) bool { var e *HistoryError; return errors.As(err, &e) }
