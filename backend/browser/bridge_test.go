package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// bridgeRecorder collects what a tab's bridge hands its owner, in order.
type bridgeRecorder struct {
	mu    sync.Mutex
	items []string // "nav <url>" or "call <payload> <origin>"
	calls []BridgeCall
}

func (r *bridgeRecorder) bridge(name, preload string) *Bridge {
	return &Bridge{Name: name, Preload: preload,
		OnNavigate: func(_ *Tab, url string) {
			r.mu.Lock()
			r.items = append(r.items, "nav "+url)
			r.mu.Unlock()
		},
		OnCall: func(_ *Tab, c BridgeCall) {
			r.mu.Lock()
			r.items = append(r.items, "call "+c.Payload+" "+c.Origin)
			r.calls = append(r.calls, c)
			r.mu.Unlock()
		}}
}

func (r *bridgeRecorder) snapshot() ([]string, []BridgeCall) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.items...), append([]BridgeCall(nil), r.calls...)
}

// waitItem waits until an item with prefix was recorded and returns the
// items so far.
func (r *bridgeRecorder) waitItem(t *testing.T, prefix string) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		items, _ := r.snapshot()
		for _, it := range items {
			if strings.HasPrefix(it, prefix) {
				return items
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	items, _ := r.snapshot()
	t.Fatalf("no bridge item %q; got %q", prefix, items)
	return nil
}

// TestBridge: a tab opened with a bridge hands its owner the calls of its
// main frame's page world only (not a subframe's, same site or not), with
// the navigations in order; answers reach the calling document only;
// dropping the bridge removes binding and preload for good; windows the
// page opens are closed.
func TestBridge(t *testing.T) {
	m := manager(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A subframe of another origin (same site: 127.0.0.1) that tries
		// the binding by its name.
		fmt.Fprint(w, `<title>frame</title><script>try { __testBridge("from-frame") } catch (e) {}</script>`)
	}))
	t.Cleanup(other.Close)
	mux := http.NewServeMux()
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<title>app</title><iframe src="%s/frame"></iframe>
			<script>__testBridge("from-main")</script>`, other.URL)
	})
	mux.HandleFunc("/two", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>two</title><script>document.title = typeof __testBridge + "/" + typeof __preloaded</script>`)
	})
	mux.HandleFunc("/opener", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>opener</title><a id="l" href="/two" target="_blank" style="display:block;width:200px;height:50px">open</a>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	rec := &bridgeRecorder{}
	// The preload keeps the binding (a plugin's would capture and delete
	// it) so that the subframe can try it.
	preload := `window.__preloaded = true; window.__answers = [];`
	ctx := ctxT(t)
	id := fmt.Sprintf("btab_bridge%d", nextID.Add(1))
	tab, err := m.Open(ctx, Spec{ID: id, ContextKey: "plugin:test.bridge", URL: srv.URL + "/app",
		Bridge: rec.bridge("__testBridge", preload)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.CloseTab(context.Background(), id) })
	if !tab.Bridged() || !tab.BridgeLive() {
		t.Fatal("the tab has no live bridge")
	}
	items := rec.waitItem(t, "call from-main")
	// Give the subframe's call time to arrive if it were to.
	time.Sleep(300 * time.Millisecond)
	items, calls := rec.snapshot()
	want := []string{"nav " + srv.URL + "/app", "call from-main " + srv.URL}
	if strings.Join(items, "\n") != strings.Join(want, "\n") {
		t.Fatalf("bridge items = %q, want %q (the subframe must not reach the owner)", items, want)
	}
	if n := tab.bridge.ignored.Load(); n != 1 {
		t.Errorf("ignored calls = %d, want the subframe's one", n)
	}
	if calls[0].URL != srv.URL+"/app" {
		t.Errorf("call URL = %q", calls[0].URL)
	}

	// An answer runs in the calling document's page world.
	if err := tab.Answer(ctx, calls[0], `window.__answers.push("a1")`); err != nil {
		t.Fatal(err)
	}
	if got, err := evalMain[string](ctx, tab, `window.__answers.join(",")`); err != nil || got != "a1" {
		t.Fatalf("answers = %q, %v", got, err)
	}
	// After a navigation, an answer to the old document goes nowhere.
	if _, err := tab.Navigate(ctx, srv.URL+"/two"); err != nil {
		t.Fatal(err)
	}
	waitTitle(t, tab, "function/boolean")
	rec.waitItem(t, "nav "+srv.URL+"/two")
	if err := tab.Answer(ctx, calls[0], `window.__answers.push("stale")`); err == nil {
		if got, _ := evalMain[string](ctx, tab, `window.__answers.join(",")`); got != "" {
			t.Fatalf("an answer to a gone document reached the new one: %q", got)
		}
	}

	// A window the page opens is closed, never adopted as a tab.
	if _, err := tab.Navigate(ctx, srv.URL+"/opener"); err != nil {
		t.Fatal(err)
	}
	st, err := tab.State(ctx)
	if err != nil || len(st.Elements) == 0 {
		t.Fatalf("opener state: %+v, %v", st, err)
	}
	if err := tab.Click(ctx, st.Elements[0].ID); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-popups:
		t.Fatalf("a bridged tab's popup was adopted: %s", got)
	case <-time.After(1500 * time.Millisecond):
	}
	closed := false
	for _, c := range tab.Console(0) {
		closed = closed || strings.Contains(c.Text, "meith closed a window")
	}
	if !closed {
		t.Errorf("no console note of the closed window: %+v", tab.Console(0))
	}

	// Dropped: nothing reaches the owner any more, and new documents have
	// neither the binding nor the preload.
	if err := tab.DropBridge(ctx); err != nil {
		t.Fatal(err)
	}
	if tab.BridgeLive() || !tab.Bridged() {
		t.Fatal("the bridge is still live after DropBridge")
	}
	before, _ := rec.snapshot()
	if _, err := tab.Navigate(ctx, srv.URL+"/two"); err != nil {
		t.Fatal(err)
	}
	waitTitle(t, tab, "undefined/undefined")
	if _, err := tab.Navigate(ctx, srv.URL+"/app"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if after, _ := rec.snapshot(); len(after) != len(before) {
		t.Fatalf("the dropped bridge still reported %q", after[len(before):])
	}
	if err := tab.Answer(ctx, calls[0], `1`); err != ErrBridgeDropped {
		t.Fatalf("Answer after the drop = %v, want ErrBridgeDropped", err)
	}
	if err := tab.DropBridge(ctx); err != nil {
		t.Fatalf("a second drop: %v", err)
	}
}

// TestNoBridgeInPlainTabs: a tab opened without a bridge has none.
func TestNoBridgeInPlainTabs(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:plain", srv.URL+"/next")
	if tab.Bridged() || tab.BridgeLive() {
		t.Fatal("a plain tab reports a bridge")
	}
	if err := tab.Answer(ctxT(t), BridgeCall{}, "1"); err != ErrBridgeDropped {
		t.Fatalf("Answer on a plain tab = %v", err)
	}
}
