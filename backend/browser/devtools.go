package browser

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// This file holds what the window's devtools panels and the pane's dialog
// sheet read: console object previews, request details (headers bounded
// and secret-looking values redacted), JavaScript dialogs that wait for an
// answer, and the link under a point of the live view.

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload) that
// a page opened and nobody answered yet. The page's script is paused until
// [Tab.HandleDialog] answers it.
type Dialog struct {
	Type          string `json:"type"` // alert | confirm | prompt | beforeunload
	Message       string `json:"message"`
	DefaultPrompt string `json:"defaultPrompt,omitempty"`
	// URL is the address of the frame that opened the dialog.
	URL string `json:"url,omitempty"`
	// OpenedAt is when the dialog opened (Unix milliseconds).
	OpenedAt int64 `json:"openedAt"`
}

// NoDialogError says that a tab has no open JavaScript dialog to answer.
type NoDialogError struct{}

// Error implements error.
func (e *NoDialogError) Error() string { return "the page has no open dialog to answer" }

// IsNoDialog reports whether err says a tab has no open dialog.
func IsNoDialog(err error) bool { var e *NoDialogError; return errors.As(err, &e) }

// maxDialogText bounds a dialog's message and default prompt.
const maxDialogText = 4096

// Dialog returns the page's open JavaScript dialog, nil when none is open.
func (t *Tab) Dialog() *Dialog {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.dialog == nil {
		return nil
	}
	d := *t.dialog
	return &d
}

// HandleDialog answers the open dialog: accept (OK, or leave the page) or
// dismiss (Cancel), with promptText as a prompt's answer. Without an open
// dialog it returns a *NoDialogError.
func (t *Tab) HandleDialog(ctx context.Context, accept bool, promptText string) error {
	if t.Dialog() == nil {
		return &NoDialogError{}
	}
	p := page.HandleJavaScriptDialogParams{Accept: accept}
	if accept {
		p.PromptText = promptText
	}
	if _, err := cdp.Call(ctx, t.target, page.HandleJavaScriptDialog, p); err != nil {
		if t.Dialog() == nil || strings.Contains(err.Error(), "No dialog is showing") {
			return &NoDialogError{}
		}
		return t.fail("answer dialog", err)
	}
	// The dialog is forgotten on Page.javascriptDialogClosed, which comes
	// before anything the page does next (such as another dialog).
	return nil
}

// leaveDialog closes the page's open dialog (Cancel) before a navigation
// that the user or an agent asked for: leaving a page ends its dialogs, as
// in Chrome, and the page could not navigate while one waits. A script
// that opens another dialog right away gets it closed too (at most
// maxLeftDialogs, each looked for during leaveDialogWait).
func (t *Tab) leaveDialog(ctx context.Context) {
	for range maxLeftDialogs {
		d := t.Dialog()
		if d == nil {
			return
		}
		gen := t.dialogGeneration()
		if err := t.HandleDialog(ctx, false, ""); err != nil {
			return
		}
		t.addConsole(ConsoleEntry{Level: "info", Text: fmt.Sprintf("%s dialog closed: the page was left", d.Type), Source: "dialog"})
		// Wait for the close (and perhaps the script's next dialog).
		deadline := time.Now().Add(leaveDialogWait)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if g := t.dialogGeneration(); g >= gen+2 || (g > gen && t.Dialog() == nil && time.Now().After(deadline.Add(-leaveDialogWait/2))) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// Bounds of leaveDialog.
const (
	maxLeftDialogs  = 8
	leaveDialogWait = 150 * time.Millisecond
)

// onDialogOpening records a page's dialog until somebody answers it (the
// page waits; it is never answered for the user).
func (t *Tab) onDialogOpening(e *page.EventJavascriptDialogOpening) {
	d := &Dialog{Type: string(e.Type), Message: clip(e.Message, maxDialogText),
		DefaultPrompt: clip(e.DefaultPrompt, maxDialogText), URL: e.URL, OpenedAt: time.Now().UnixMilli()}
	t.addConsole(ConsoleEntry{Level: "info", Text: fmt.Sprintf("%s dialog: %s", e.Type, e.Message), Source: "dialog"})
	t.setDialog(d)
}

// setDialog changes the open dialog and wakes the live view's pulls, whose
// answers say whether a dialog is open.
func (t *Tab) setDialog(d *Dialog) {
	t.mu.Lock()
	changed := (t.dialog == nil) != (d == nil) || (d != nil && *t.dialog != *d)
	t.dialog = d
	if changed {
		t.dialogGen++
	}
	t.mu.Unlock()
	if changed {
		t.view.wake()
	}
}

// dialogGeneration counts the changes of the open dialog.
func (t *Tab) dialogGeneration() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialogGen
}

// LinkAt returns the address of the link under the point (x, y) of the
// viewport in CSS pixels, "" when there is none. It reads the page in
// meith's isolated world.
func (t *Tab) LinkAt(ctx context.Context, x, y float64) (string, error) {
	expr := fmt.Sprintf(`(() => {
		const el = document.elementFromPoint(%s, %s);
		const a = el && el.closest('a[href], area[href]');
		return a ? String(a.href) : '';
	})()`, strconv.FormatFloat(x, 'f', -1, 64), strconv.FormatFloat(y, 'f', -1, 64))
	href, err := evalWorld[string](ctx, t, expr)
	if err != nil {
		return "", t.fail("link at point", err)
	}
	return href, nil
}

// ---- console object previews ----

// remoteObjectsText renders console arguments the way a console shows them:
// strings as they are, objects from their preview ({a: 1, b: 'x'}, [1, 2],
// Map(1) {'k' => 1}), bounded by the preview Chromium sends (a few
// properties; an overflow shows as …).
func remoteObjectsText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		if a == nil {
			continue
		}
		parts = append(parts, remoteObjectText(a))
	}
	return strings.Join(parts, " ")
}

func remoteObjectText(a *runtime.RemoteObject) string {
	switch {
	case a.Type == runtime.RemoteObjectTypeString:
		var s string
		if err := jsonUnmarshal(a.Value, &s); err == nil {
			return s
		}
		return string(a.Value)
	case a.Type == runtime.RemoteObjectTypeObject && a.Preview != nil && a.Subtype != runtime.RemoteObjectSubtypeError && a.Subtype != runtime.RemoteObjectSubtypeNode:
		return objectPreviewText(a.Preview)
	case len(a.Value) > 0:
		return string(a.Value)
	case a.UnserializableValue != "":
		return string(a.UnserializableValue)
	case a.Description != "":
		return a.Description
	}
	return string(a.Type)
}

// objectPreviewText renders one object preview.
func objectPreviewText(p *runtime.ObjectPreview) string {
	switch p.Type {
	case runtime.ObjectPreviewTypeString:
		return quoteJS(p.Description)
	case runtime.ObjectPreviewTypeObject:
	default:
		return p.Description
	}
	var items []string
	switch p.Subtype {
	case runtime.ObjectPreviewSubtypeNull:
		return "null"
	case runtime.ObjectPreviewSubtypeMap, runtime.ObjectPreviewSubtypeSet, runtime.ObjectPreviewSubtypeWeakmap, runtime.ObjectPreviewSubtypeWeakset:
		for _, e := range p.Entries {
			if e == nil || e.Value == nil {
				continue
			}
			v := objectPreviewText(e.Value)
			if e.Key != nil {
				v = objectPreviewText(e.Key) + " => " + v
			}
			items = append(items, v)
		}
		if p.Overflow {
			items = append(items, "…")
		}
		return p.Description + " {" + strings.Join(items, ", ") + "}"
	case runtime.ObjectPreviewSubtypeArray, runtime.ObjectPreviewSubtypeTypedarray:
		for _, pp := range p.Properties {
			if pp != nil {
				items = append(items, propertyValueText(pp))
			}
		}
		if p.Overflow {
			items = append(items, "…")
		}
		return "[" + strings.Join(items, ", ") + "]"
	case runtime.ObjectPreviewSubtypeRegexp, runtime.ObjectPreviewSubtypeDate, runtime.ObjectPreviewSubtypeError, runtime.ObjectPreviewSubtypeNode:
		return p.Description
	}
	for _, pp := range p.Properties {
		if pp != nil {
			items = append(items, pp.Name+": "+propertyValueText(pp))
		}
	}
	if p.Overflow {
		items = append(items, "…")
	}
	out := "{" + strings.Join(items, ", ") + "}"
	if p.Description != "" && p.Description != "Object" {
		out = p.Description + " " + out
	}
	return out
}

// propertyValueText renders a property of a preview (a nested object shows
// as {…} or its kind, as a console does).
func propertyValueText(pp *runtime.PropertyPreview) string {
	switch pp.Type {
	case runtime.PropertyPreviewTypeString:
		return quoteJS(pp.Value)
	case runtime.PropertyPreviewTypeFunction:
		return "ƒ"
	case runtime.PropertyPreviewTypeAccessor:
		return "(...)"
	case runtime.PropertyPreviewTypeObject:
		if pp.Subtype == runtime.PropertyPreviewSubtypeNull {
			return "null"
		}
		if pp.Subtype == "" && (pp.Value == "Object" || pp.Value == "") {
			return "{…}"
		}
	}
	return pp.Value
}

// quoteJS quotes s as a console shows a string inside an object.
func quoteJS(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// clip bounds s to n bytes (cut on a rune boundary, with "…").
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// ---- request details ----

// mergeHeaders adds the headers of an ExtraInfo event (those Chromium sends
// apart: cookies, the raw header lines) to a request's copy.
func mergeHeaders(have map[string]string, extra map[string]any) map[string]string {
	add := boundedHeaders(extra)
	if len(add) == 0 {
		return have
	}
	out := make(map[string]string, len(have)+len(add))
	for k, v := range have {
		out[k] = v
	}
	for k, v := range add {
		if _, dup := out[k]; !dup && len(out) >= maxHeaders {
			continue
		}
		out[k] = v
	}
	return out
}

// RedactedHeader replaces the value of a header that looks like a secret.
const RedactedHeader = "[redacted]"

// Bounds of the headers kept per request and response.
const (
	maxHeaders     = 64
	maxHeaderValue = 1024
)

// secretHeaderRE matches header names whose values are credentials.
var secretHeaderRE = regexp.MustCompile(`(?i)^(authorization|proxy-authorization|cookie|set-cookie|set-cookie2)$|token|secret|passw|api[-_]?key|session|credential|signature`)

// boundedHeaders copies CDP headers for the network log: at most
// [maxHeaders] (in name order), values clipped to [maxHeaderValue] bytes,
// secret-looking values replaced with [RedactedHeader].
func boundedHeaders(h map[string]any) map[string]string {
	if len(h) == 0 {
		return nil
	}
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(names) > maxHeaders {
		names = names[:maxHeaders]
	}
	out := make(map[string]string, len(names))
	for _, name := range names {
		v := fmt.Sprint(h[name])
		if secretHeaderRE.MatchString(name) {
			v = RedactedHeader
		}
		out[clip(name, 256)] = clip(v, maxHeaderValue)
	}
	return out
}
