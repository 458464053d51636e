package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
)

func TestBrowserBindingRefusals(t *testing.T) {
	mouse := browser.InputEvent{Kind: browser.InputMouse, Type: "mousePressed", X: 10, Y: 10, Button: "left", Buttons: 1, ClickCount: 1}

	// Without an engine (a window built without one) it fails clearly.
	bare, _ := startApp(t, newTestRegistry(t, nil), nil)
	if err := bare.BrowserInput("btab_1", mouse); protocol.CodeOf(err) != protocol.CodeToolFailed {
		t.Errorf("BrowserInput without an engine = %v, want TOOL_FAILED", err)
	}

	// A real engine with no tab records: unknown tabs and bad events are
	// refused before anything starts Chromium.
	m := browser.New(browser.Options{DataDir: t.TempDir()})
	t.Cleanup(func() { _ = m.Shutdown(context.Background()) })
	a, _ := startApp(t, newTestRegistry(t, nil), nil, WithBrowser(m))
	for _, tc := range []struct {
		name string
		call func() error
		code protocol.ErrorCode
		text string
	}{
		{"input to an unknown tab", func() error { return a.BrowserInput("btab_gone", mouse) }, protocol.CodeValidation, `there is no browser tab "btab_gone"`},
		{"viewport of an unknown tab", func() error { return a.BrowserViewport("btab_gone", 800, 600, 1) }, protocol.CodeValidation, "no browser tab"},
		{"stop of an unknown tab", func() error { return a.BrowserStop("btab_gone") }, protocol.CodeValidation, "no browser tab"},
		{"no tab id", func() error { return a.BrowserStop("") }, protocol.CodeValidation, "no tab id"},
		{"unknown kind", func() error { return a.BrowserInput("btab_1", browser.InputEvent{Kind: "touch"}) }, protocol.CodeValidation, `kind "touch"`},
		{"unknown mouse type", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputMouse, Type: "mouseWheel"})
		}, protocol.CodeValidation, "mouse type"},
		{"unknown button", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputMouse, Type: "mouseMoved", Button: "thumb"})
		}, protocol.CodeValidation, "mouse button"},
		{"key without a key", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputKey, Type: "keyDown"})
		}, protocol.CodeValidation, "needs a key"},
		{"char key type", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputKey, Type: "char", Key: "a"})
		}, protocol.CodeValidation, "key type"},
		{"empty text", func() error { return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputText}) }, protocol.CodeValidation, "needs text"},
		{"bad modifiers", func() error {
			return a.BrowserInput("btab_1", browser.InputEvent{Kind: browser.InputWheel, Modifiers: 16})
		}, protocol.CodeValidation, "modifiers"},
		{"tiny viewport", func() error { return a.BrowserViewport("btab_1", 40, 600, 1) }, protocol.CodeValidation, "out of range"},
		{"huge viewport", func() error { return a.BrowserViewport("btab_1", 800, 9000, 1) }, protocol.CodeValidation, "out of range"},
		{"no scale", func() error { return a.BrowserViewport("btab_1", 800, 600, 0) }, protocol.CodeValidation, "device scale"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if protocol.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %v, want %s containing %q", err, tc.code, tc.text)
			}
		})
	}
	if m.Running() {
		t.Error("refused calls started Chromium")
	}
	a.Shutdown(context.Background())
	if err := a.BrowserInput("btab_1", mouse); protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("BrowserInput after Shutdown = %v, want RUNTIME_SHUTTING_DOWN", err)
	}
}

// livePage is what TestBrowserBindingDrivesALivePage clicks and types into.
const livePage = `<!doctype html><title>live</title><style>html,body{margin:0}</style>
<button id="b" style="position:absolute;left:10px;top:10px;width:100px;height:40px"
  onclick="document.title='clicked'" ondblclick="document.title='double'">Go</button>
<input id="i" style="position:absolute;left:10px;top:80px;width:200px;height:30px">
<div style="height:5000px"></div>`

// evalString evaluates a JavaScript expression in a tab and returns its
// value as a string.
func evalString(t *testing.T, tab *browser.Tab, expr string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	params, _ := json.Marshal(map[string]any{"expression": "String(" + expr + ")", "returnByValue": true})
	raw, err := tab.CDP(ctx, "Runtime.evaluate", params)
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	var r struct {
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("evaluate %s: %v in %s", expr, err, raw)
	}
	return r.Result.Value
}

// waitEval polls expr in a tab until it gives want (5 s at most).
func waitEval(t *testing.T, tab *browser.Tab, expr, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := evalString(t, tab, expr)
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %q, want %q", expr, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBrowserBindingDrivesALivePage(t *testing.T) {
	if _, err := browser.FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, livePage) }))
	t.Cleanup(srv.Close)
	m := browser.New(browser.Options{DataDir: t.TempDir(), DownloadDir: t.TempDir()})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab, err := m.Open(ctx, browser.Spec{ID: "btab_app", ContextKey: "space:app", URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := startApp(t, newTestRegistry(t, nil), nil, WithBrowser(m))

	// The viewport follows the view.
	if err := a.BrowserViewport("btab_app", 640, 480, 1); err != nil {
		t.Fatal(err)
	}
	waitEval(t, tab, "innerWidth + 'x' + innerHeight", "640x480")

	// A click (press + release) on the button, then a double click.
	click := func(x, y float64, count int) {
		t.Helper()
		for _, typ := range []string{"mousePressed", "mouseReleased"} {
			buttons := 1
			if typ == "mouseReleased" {
				buttons = 0
			}
			if err := a.BrowserInput("btab_app", browser.InputEvent{Kind: browser.InputMouse, Type: typ, X: x, Y: y,
				Button: "left", Buttons: buttons, ClickCount: count}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := a.BrowserInput("btab_app", browser.InputEvent{Kind: browser.InputMouse, Type: "mouseMoved", X: 60, Y: 30}); err != nil {
		t.Fatal(err)
	}
	click(60, 30, 1)
	waitEval(t, tab, "document.title", "clicked")
	click(60, 30, 1)
	click(60, 30, 2)
	waitEval(t, tab, "document.title", "double")

	// Keys and pasted text land in the focused input.
	click(100, 95, 1)
	waitEval(t, tab, "document.activeElement.id", "i")
	for _, ev := range []browser.InputEvent{
		{Kind: browser.InputKey, Type: "keyDown", Key: "H", Code: "KeyH", KeyCode: 72, Text: "H", Modifiers: 8},
		{Kind: browser.InputKey, Type: "keyUp", Key: "H", Code: "KeyH", KeyCode: 72, Modifiers: 8},
		{Kind: browser.InputText, Text: "ey there"},
		{Kind: browser.InputKey, Type: "keyDown", Key: "Backspace", Code: "Backspace", KeyCode: 8},
		{Kind: browser.InputKey, Type: "keyUp", Key: "Backspace", Code: "Backspace", KeyCode: 8},
	} {
		if err := a.BrowserInput("btab_app", ev); err != nil {
			t.Fatalf("%+v: %v", ev, err)
		}
	}
	waitEval(t, tab, "document.getElementById('i').value", "Hey ther")

	// The wheel scrolls the page (vertically only, as a mouse wheel does:
	// deltaX is 0, and CDP wants both deltas).
	if err := a.BrowserInput("btab_app", browser.InputEvent{Kind: browser.InputWheel, X: 300, Y: 300, DeltaY: 400}); err != nil {
		t.Fatalf("a vertical wheel: %v", err)
	}
	waitEval(t, tab, "scrollY > 0", "true")

	if err := a.BrowserStop("btab_app"); err != nil {
		t.Errorf("BrowserStop = %v", err)
	}
}

func TestTerminalBindingRefusals(t *testing.T) {
	bare, _ := startApp(t, newTestRegistry(t, nil), nil)
	if err := bare.TerminalWrite("term_1", "ls\r"); protocol.CodeOf(err) != protocol.CodeToolFailed {
		t.Errorf("TerminalWrite without an engine = %v, want TOOL_FAILED", err)
	}

	m := process.New(process.Options{})
	t.Cleanup(func() { _ = m.Shutdown(context.Background(), true) })
	a, _ := startApp(t, newTestRegistry(t, nil), nil, WithProcesses(m))
	for _, tc := range []struct {
		name string
		call func() error
		code protocol.ErrorCode
		text string
	}{
		{"write to an unknown terminal", func() error { return a.TerminalWrite("term_gone", "ls\r") }, protocol.CodeValidation, `there is no terminal "term_gone"`},
		{"resize an unknown terminal", func() error { return a.TerminalResize("term_gone", 80, 24) }, protocol.CodeValidation, "no terminal"},
		{"no id", func() error { return a.TerminalWrite("", "x") }, protocol.CodeValidation, "no terminal id"},
		{"too much input", func() error { return a.TerminalWrite("term_1", strings.Repeat("x", maxTerminalWrite+1)) }, protocol.CodeValidation, "too large"},
		{"no columns", func() error { return a.TerminalResize("term_1", 0, 24) }, protocol.CodeValidation, "out of range"},
		{"too many rows", func() error { return a.TerminalResize("term_1", 80, maxTerminalRows+1) }, protocol.CodeValidation, "out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if protocol.CodeOf(err) != tc.code || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("got %v, want %s containing %q", err, tc.code, tc.text)
			}
		})
	}
	a.Shutdown(context.Background())
	if err := a.TerminalWrite("term_1", "x"); protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("TerminalWrite after Shutdown = %v, want RUNTIME_SHUTTING_DOWN", err)
	}
}

// TestTerminalBindingDrivesARealShell types into a real PTY through the
// binding, resizes it, and sees the shell's answers in the terminal's
// output; the engine's change notices reach the window as process_changed.
func TestTerminalBindingDrivesARealShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	bus := hint.New()
	t.Cleanup(bus.Close)
	// The process engine's OnChange, as the instance wires it.
	m := process.New(process.Options{OnChange: func(kind, id string) { bus.Publish(hint.ProcessChanged{Kind: kind, ID: id}) }})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx, true)
	})
	a, em := startApp(t, newTestRegistry(t, nil), nil, WithProcesses(m), WithHints(bus))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	term, err := m.CreateTerminal(ctx, process.TermSpec{Cwd: t.TempDir(), Shell: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "process_changed of the new terminal", func(e emitted) bool {
		p, ok := e.payload.(hint.ProcessChanged)
		return isProcessChanged(e) && ok && (p.ID == term.ID || p.ID == "")
	})

	if err := a.TerminalResize(term.ID, 100, 30); err != nil {
		t.Fatalf("TerminalResize: %v", err)
	}
	if err := a.TerminalWrite(term.ID, "stty size; echo meith-$((40+2))\r"); err != nil {
		t.Fatalf("TerminalWrite: %v", err)
	}
	// The output is pulled through the window's asset handler, as the
	// terminal view pulls it.
	srv := httptest.NewServer(a.bulkHandler())
	t.Cleanup(srv.Close)
	if r, err := http.Get(srv.URL + process.OutputPath + "term_gone/output?after=0"); err != nil || r.StatusCode != http.StatusNotFound {
		t.Errorf("output of an unknown terminal = %v %v, want 404", r, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	var out strings.Builder
	var after int64
	for !strings.Contains(out.String(), "meith-42") || !strings.Contains(out.String(), "30 100") {
		if time.Now().After(deadline) {
			t.Fatalf("the shell's answers did not arrive; output: %q", out.String())
		}
		r, err := http.Get(fmt.Sprintf("%s%s%s/output?after=%d", srv.URL, process.OutputPath, term.ID, after))
		if err != nil {
			t.Fatal(err)
		}
		var page struct {
			Entries []process.LogEntry `json:"entries"`
			NextSeq int64              `json:"nextSeq"`
			Status  string             `json:"status"`
		}
		err = json.NewDecoder(r.Body).Decode(&page)
		r.Body.Close()
		if err != nil || r.StatusCode != http.StatusOK || page.Status != process.StatusRunning {
			t.Fatalf("output page: HTTP %d, %+v, %v", r.StatusCode, page, err)
		}
		for _, e := range page.Entries {
			if e.Stream != process.StreamPTY {
				t.Errorf("a terminal entry of stream %q", e.Stream)
			}
			out.WriteString(e.Text)
		}
		after = page.NextSeq - 1
	}
}
