package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// MaxElements bounds how many elements [Tab.State] lists (hidden ones are
// dropped first): a page snapshot must fit an agent's context.
const MaxElements = 500

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// PageDeadline bounds one DevTools call that the page's renderer must
// answer: evaluating script, capturing the viewport, dispatching input. A
// page stuck in a script loop answers none of them; its tools then fail with
// a *NotRespondingError after this long instead of waiting for the whole
// call's timeout.
const PageDeadline = 5 * time.Second

// errPageDeadline is the cause of a page call's context that hit
// PageDeadline.
var errPageDeadline = errors.New("the page did not answer within the page deadline")

// pageCall runs one DevTools call that the page's renderer must answer,
// bounded by [PageDeadline]. A page that does not answer in time gives a
// *NotRespondingError; the end of ctx itself stays ctx's error (so the
// registry still reports CANCELLED or TIMEOUT).
func pageCall[R any](ctx context.Context, call func(context.Context) (R, error)) (R, error) {
	pctx, cancel := context.WithTimeoutCause(ctx, PageDeadline, errPageDeadline)
	defer cancel()
	res, err := call(pctx)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(pctx), errPageDeadline) {
		var zero R
		return zero, &NotRespondingError{After: PageDeadline}
	}
	return res, err
}

// callPage is cdp.Call on the tab's target for a command that the page's
// renderer must answer, bounded by [PageDeadline] (see pageCall).
func callPage[P, R any](ctx context.Context, t *Tab, c cdp.Command[P, R], params P) (R, error) {
	return pageCall(ctx, func(ctx context.Context) (R, error) { return cdp.Call(ctx, t.target, c, params) })
}

// evalIn evaluates expr in an execution context (0: the page's own) and
// decodes its JSON value into T.
func evalIn[T any](ctx context.Context, t *Tab, contextID runtime.ExecutionContextID, expr string) (T, error) {
	var zero T
	yes := true
	res, err := callPage(ctx, t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: contextID, ReturnByValue: &yes, AwaitPromise: &yes, Silent: &yes,
	})
	if err != nil {
		return zero, err
	}
	if d := res.ExceptionDetails; d != nil {
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg = d.Exception.Description
		}
		return zero, &jsError{msg: msg}
	}
	if res.Result == nil || len(res.Result.Value) == 0 {
		return zero, nil
	}
	var v T
	if err := json.Unmarshal(res.Result.Value, &v); err != nil {
		return zero, fmt.Errorf("decode page answer: %w", err)
	}
	return v, nil
}

// jsError is an exception thrown by meith's own page script.
type jsError struct{ msg string }

func (e *jsError) Error() string { return "page script: " + e.msg }

// evalMain evaluates expr in the page's own world.
func evalMain[T any](ctx context.Context, t *Tab, expr string) (T, error) {
	return evalIn[T](ctx, t, 0, expr)
}

// evalWorld evaluates expr in meith's isolated world of the main frame,
// creating the world when the page has none yet.
func evalWorld[T any](ctx context.Context, t *Tab, expr string) (T, error) {
	for attempt := 0; ; attempt++ {
		t.mu.Lock()
		id := t.world
		t.mu.Unlock()
		if id == 0 {
			res, err := callPage(ctx, t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{
				FrameID: cdp.FrameID(t.targetID), WorldName: worldName,
			})
			if err != nil {
				var zero T
				return zero, err
			}
			id = res.ExecutionContextID
			t.mu.Lock()
			t.world = id
			t.mu.Unlock()
		}
		v, err := evalIn[T](ctx, t, id, expr)
		var je *jsError
		if err != nil && attempt == 0 && !errors.As(err, &je) && !IsNotResponding(err) && strings.Contains(err.Error(), "context") {
			// The document changed under us: its world is gone.
			t.mu.Lock()
			if t.world == id {
				t.world = 0
			}
			t.mu.Unlock()
			continue
		}
		return v, err
	}
}

// registryJS is the prelude of every element script: one registry per
// document, in meith's isolated world, mapping elements to stable ids.
const registryJS = `
const R = globalThis.__meithRegistry || (globalThis.__meithRegistry = { ids: new WeakMap(), els: new Map(), next: 1 });
const idOf = (el) => {
	let id = R.ids.get(el);
	if (!id) { id = 'el-' + R.next++; R.ids.set(el, id); R.els.set(id, new WeakRef(el)); }
	return id;
};
const byId = (id) => {
	const ref = R.els.get(id);
	const el = ref && ref.deref();
	return el && el.isConnected ? el : null;
};
`

// stateJS lists the interactable elements of the document.
const stateJS = `(() => {` + registryJS + `
for (const [id, ref] of R.els) if (!ref.deref()) R.els.delete(id);
const SEL = 'a[href],button,input,textarea,select,summary,[role=button],[role=link],[role=checkbox],[role=radio],[role=tab],' +
	'[role=menuitem],[role=option],[role=switch],[role=textbox],[role=combobox],[role=searchbox],[role=slider],' +
	'[contenteditable=""],[contenteditable=true],[onclick],[tabindex]:not([tabindex="-1"])';
const clip = (s, n) => { s = (s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n) + '…' : s; };
const implicitRole = (el) => {
	const tag = el.tagName.toLowerCase(), type = (el.getAttribute('type') || '').toLowerCase();
	if (tag === 'a') return 'link';
	if (tag === 'button' || tag === 'summary') return 'button';
	if (tag === 'textarea') return 'textbox';
	if (tag === 'select') return el.multiple ? 'listbox' : 'combobox';
	if (tag === 'input') {
		if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
		if (type === 'checkbox' || type === 'radio' || type === 'range') return type === 'range' ? 'slider' : type;
		if (type === 'search') return 'searchbox';
		return 'textbox';
	}
	if (el.isContentEditable) return 'textbox';
	return '';
};
const labelOf = (el) => {
	const a = el.getAttribute('aria-label'); if (a) return a;
	const by = el.getAttribute('aria-labelledby');
	if (by) { const t = by.split(/\s+/).map((i) => { const n = document.getElementById(i); return n ? n.innerText : ''; }).join(' '); if (t.trim()) return t; }
	if (el.labels && el.labels.length) return el.labels[0].innerText;
	for (const k of ['placeholder', 'title', 'alt']) { const v = el.getAttribute(k); if (v) return v; }
	const img = el.querySelector && el.querySelector('img[alt]'); if (img) return img.getAttribute('alt');
	return '';
};
const out = [];
for (const el of document.querySelectorAll(SEL)) {
	const r = el.getBoundingClientRect();
	const visible = r.width > 0 && r.height > 0 && (!el.checkVisibility || el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }));
	const tag = el.tagName.toLowerCase();
	const type = tag === 'input' ? (el.type || 'text') : '';
	const e = { id: idOf(el), tag, disabled: !!(el.disabled || el.getAttribute('aria-disabled') === 'true' || el.closest('fieldset[disabled]')), hidden: !visible };
	const role = el.getAttribute('role') || implicitRole(el); if (role) e.role = role;
	const label = clip(labelOf(el), 200); if (label) e.label = label;
	const text = clip(tag === 'select' ? '' : (el.innerText || el.textContent), 200); if (text && text !== label) e.text = text;
	if (type) e.type = type;
	if (type === 'checkbox' || type === 'radio') e.checked = !!el.checked;
	else if (type === 'password') { if (el.value) e.value = '••••••'; }
	else if ('value' in el && typeof el.value === 'string' && tag !== 'button' && tag !== 'li') { if (el.value) e.value = clip(el.value, 500); }
	else if (el.isContentEditable) { const v = clip(el.innerText, 500); if (v) e.value = v; }
	if (tag === 'a' && el.href) e.href = el.href;
	if (visible) e.bounds = { x: Math.round(r.x), y: Math.round(r.y), width: Math.round(r.width), height: Math.round(r.height) };
	out.push(e);
}
let elements = out, truncated = 0;
if (out.length > ` + "MAXEL" + `) {
	const vis = out.filter((e) => !e.hidden);
	elements = (vis.length >= ` + "MAXEL" + ` ? vis : vis.concat(out.filter((e) => e.hidden))).slice(0, ` + "MAXEL" + `);
	const keep = new Set(elements.map((e) => e.id));
	elements = out.filter((e) => keep.has(e.id));
	truncated = out.length - elements.length;
}
return { url: location.href, title: document.title, viewport: { width: innerWidth, height: innerHeight }, elements, truncated };
})()`

// State returns the page's interactable elements.
func (t *Tab) State(ctx context.Context) (*PageState, error) {
	t.op.Lock()
	defer t.op.Unlock()
	st, err := evalWorld[PageState](ctx, t, strings.ReplaceAll(stateJS, "MAXEL", fmt.Sprint(MaxElements)))
	if err != nil {
		return nil, t.fail("read page", err)
	}
	if st.Elements == nil {
		st.Elements = []Element{}
	}
	return &st, nil
}

// elementJS runs body with el bound to the element of id ID, answering
// {found:false} when there is none.
func elementJS(id, body string) string {
	q, _ := json.Marshal(id)
	return `(() => {` + registryJS + `const el = byId(` + string(q) + `); if (!el) return { found: false };` + body + `})()`
}

type point struct {
	Found   bool    `json:"found"`
	Visible bool    `json:"visible"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

// Click clicks an element of the latest State by id with real mouse events
// at its centre, after scrolling it into view (a *NoElementError when the
// id is unknown or the element is gone).
func (t *Tab) Click(ctx context.Context, elementID string) error {
	t.op.Lock()
	defer t.op.Unlock()
	p, err := evalWorld[point](ctx, t, elementJS(elementID, `
		el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
		const r = el.getBoundingClientRect();
		const visible = r.width > 0 && r.height > 0;
		if (!visible) { el.click(); }
		return { found: true, visible, x: r.x + r.width / 2, y: r.y + r.height / 2 };`))
	if err != nil {
		return t.fail("click", err)
	}
	if !p.Found {
		return &NoElementError{ID: elementID}
	}
	if !p.Visible {
		return nil // clicked from script: it has no box to hit
	}
	for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved, input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
		ev := input.DispatchMouseEventParams{Type: typ, X: p.X, Y: p.Y}
		if typ != input.DispatchMouseEventTypeMouseMoved {
			ev.Button, ev.ClickCount = input.MouseButtonLeft, 1
			if typ == input.DispatchMouseEventTypeMousePressed {
				ev.Buttons = 1
			}
		}
		if _, err := callPage(ctx, t, input.DispatchMouseEvent, ev); err != nil {
			return t.fail("click", err)
		}
	}
	return nil
}

// Type focuses an element by id and replaces its value with text, as if a
// person selected everything in it and typed (input events fire). A select
// picks the option whose value or label is text.
func (t *Tab) Type(ctx context.Context, elementID, text string) error {
	t.op.Lock()
	defer t.op.Unlock()
	q, _ := json.Marshal(text)
	type typed struct {
		Found    bool   `json:"found"`
		Done     bool   `json:"done"`
		Problem  string `json:"problem"`
		Editable bool   `json:"editable"`
	}
	r, err := evalWorld[typed](ctx, t, elementJS(elementID, `
		const text = `+string(q)+`;
		el.scrollIntoView({ block: 'center', behavior: 'instant' });
		if (el.tagName === 'SELECT') {
			const opt = [...el.options].find((o) => o.value === text || o.label === text || o.text.trim() === text);
			if (!opt) return { found: true, problem: 'the select has no option ' + JSON.stringify(text) };
			el.value = opt.value;
			el.dispatchEvent(new Event('input', { bubbles: true }));
			el.dispatchEvent(new Event('change', { bubbles: true }));
			return { found: true, done: true };
		}
		const textual = (el.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'range', 'color'].includes(el.type)) || el.tagName === 'TEXTAREA';
		if (!textual && !el.isContentEditable) return { found: true, problem: 'the element does not take text (' + el.tagName.toLowerCase() + (el.type ? ' type=' + el.type : '') + ')' };
		if (el.disabled || el.readOnly) return { found: true, problem: 'the element is disabled or read-only' };
		el.focus();
		if (textual) { el.select(); } else { const s = getSelection(); const rg = document.createRange(); rg.selectNodeContents(el); s.removeAllRanges(); s.addRange(rg); }
		if (text === '') document.execCommand('delete');
		return { found: true, editable: true };`))
	if err != nil {
		return t.fail("type", err)
	}
	switch {
	case !r.Found:
		return &NoElementError{ID: elementID}
	case r.Problem != "":
		return fmt.Errorf("browser: type: %s", r.Problem)
	case r.Done || text == "":
		return nil
	}
	if _, err := callPage(ctx, t, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		return t.fail("type", err)
	}
	return nil
}

// ScrollBy scrolls the page by a delta or to a position (a field left nil
// keeps that axis).
func (t *Tab) ScrollBy(ctx context.Context, s Scroll) error {
	if s.DeltaX == nil && s.DeltaY == nil && s.ToX == nil && s.ToY == nil {
		return errors.New("browser: scroll: give deltaX/deltaY or toX/toY")
	}
	t.op.Lock()
	defer t.op.Unlock()
	num := func(p *float64) string {
		if p == nil {
			return "null"
		}
		return fmt.Sprint(*p)
	}
	expr := fmt.Sprintf(`(() => {
		const dx = %s, dy = %s, tx = %s, ty = %s;
		if (tx !== null || ty !== null) window.scrollTo({ left: tx ?? scrollX, top: ty ?? scrollY, behavior: 'instant' });
		if (dx !== null || dy !== null) window.scrollBy({ left: dx ?? 0, top: dy ?? 0, behavior: 'instant' });
		return true; })()`, num(s.DeltaX), num(s.DeltaY), num(s.ToX), num(s.ToY))
	if _, err := evalMain[bool](ctx, t, expr); err != nil {
		return t.fail("scroll", err)
	}
	return nil
}

// CDP sends a raw protocol command to the tab's target and returns its raw
// answer.
func (t *Tab) CDP(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var p any
	if len(bytes.TrimSpace(params)) > 0 && string(bytes.TrimSpace(params)) != "null" {
		p = jsonv2.Value(params)
	}
	var res jsonv2.Value
	if err := t.target.Call(ctx, method, p, &res); err != nil {
		return nil, t.fail(method, err)
	}
	if len(res) == 0 {
		return json.RawMessage("{}"), nil
	}
	return json.RawMessage(res), nil
}

// Screenshot captures the viewport as a PNG.
func (t *Tab) Screenshot(ctx context.Context) (*Screenshot, error) {
	res, err := callPage(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
	if err != nil {
		return nil, t.fail("screenshot", err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(res.Data))
	if err != nil {
		return nil, fmt.Errorf("browser: screenshot: %w", err)
	}
	return &Screenshot{PNG: res.Data, Width: cfg.Width, Height: cfg.Height}, nil
}
