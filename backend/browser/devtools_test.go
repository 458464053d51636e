package browser

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// devtoolsServer serves the pages of the devtools tests: console objects,
// a request with headers, and JavaScript dialogs.
func devtoolsServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/objects", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Objects</title><script>
			console.log('obj', {a: 1, b: 'x', nested: {c: 2}}, [1, 2, 3], null, undefined, true);
			console.info(new Map([['k', 1]]));
		</script>`)
	})
	mux.HandleFunc("/fetcher", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Fetcher</title><script>
			fetch('/api/items?q=1', {method: 'POST', body: 'hello', headers: {'Authorization': 'Bearer sekret-token', 'X-Trace': 'abc'}})
				.then(r => r.text()).then(() => { document.title = 'fetched' });
		</script>`)
	})
	mux.HandleFunc("/api/items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "sid=very-secret; Path=/")
		w.Header().Set("X-Served-By", "devtools-test")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"pad":%q}`, strings.Repeat("x", 2000))
	})
	mux.HandleFunc("/dialogs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Dialogs</title><script>
			setTimeout(() => {
				alert('hello alert');
				document.title = 'after-alert';
				const a = confirm('first?');
				const b = confirm('second?');
				const p = prompt('your name?', 'anon');
				document.title = 'done:' + a + ':' + b + ':' + p;
			}, 50);
		</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// waitFor polls cond until it holds (bounded: the test fails after 10 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestConsoleObjectPreviews(t *testing.T) {
	m := manager(t)
	srv := devtoolsServer(t)
	tab := open(t, m, "space:devtools", srv.URL+"/objects")
	waitFor(t, "two console entries", func() bool { return len(tab.Console(0)) >= 2 })
	got := tab.Console(0)
	want := `obj {a: 1, b: 'x', nested: {…}} [1, 2, 3] null undefined true`
	if got[0].Text != want || got[0].Level != "log" {
		t.Errorf("console.log of objects = %s %q, want log %q", got[0].Level, got[0].Text, want)
	}
	if got[1].Level != "info" || !strings.HasPrefix(got[1].Text, "Map(1) {") || !strings.Contains(got[1].Text, "'k' => 1") {
		t.Errorf("console.info of a Map = %s %q", got[1].Level, got[1].Text)
	}
}

func TestNetworkRequestDetails(t *testing.T) {
	m := manager(t)
	srv := devtoolsServer(t)
	tab := open(t, m, "space:devtools", srv.URL+"/fetcher")
	var api *NetworkEntry
	waitFor(t, "the API request to end", func() bool {
		for _, n := range tab.Network(0) {
			if strings.Contains(n.URL, "/api/items") && n.EndedAt != 0 {
				api = &n
				return true
			}
		}
		return false
	})
	for _, n := range tab.Network(0) {
		if want := strings.HasSuffix(n.URL, "/fetcher"); n.Navigation != want {
			t.Errorf("%s: navigation = %v, want %v", n.URL, n.Navigation, want)
		}
	}
	if api.Method != "POST" || api.Status != 201 || api.StatusText != "Created" || api.MimeType != "application/json" {
		t.Errorf("the API request: %s %d %q %q", api.Method, api.Status, api.StatusText, api.MimeType)
	}
	if api.Size < 2000 {
		t.Errorf("size = %d, want at least the 2000-byte body", api.Size)
	}
	if api.ResourceType != "Fetch" {
		t.Errorf("resource type = %q", api.ResourceType)
	}
	if got := api.RequestHeaders["X-Trace"]; got != "abc" {
		t.Errorf("request header X-Trace = %q (headers %v)", got, api.RequestHeaders)
	}
	if got := api.RequestHeaders["Authorization"]; got != RedactedHeader {
		t.Errorf("request header Authorization = %q, want it redacted", got)
	}
	if got := api.ResponseHeaders["X-Served-By"]; got != "devtools-test" {
		t.Errorf("response header X-Served-By = %q (headers %v)", got, api.ResponseHeaders)
	}
	if got := api.ResponseHeaders["Set-Cookie"]; got != RedactedHeader {
		t.Errorf("response header Set-Cookie = %q, want it redacted (headers %v)", got, api.ResponseHeaders)
	}
	// Chromium measures the wait; the duration is meith's own clock between
	// events, so they are not compared.
	if api.DurationMs < 0 || api.WaitMs <= 0 {
		t.Errorf("timing: duration %v ms, wait %v ms", api.DurationMs, api.WaitMs)
	}
}

func TestRedactHeaders(t *testing.T) {
	long := strings.Repeat("v", 3000)
	got := boundedHeaders(map[string]any{
		"Authorization": "Bearer x", "proxy-authorization": "Basic y", "Cookie": "a=b", "X-Api-Key": "k",
		"X-CSRF-Token": "t", "Accept": "text/html", "X-Long": long, "X-Number": 5,
	})
	for _, name := range []string{"Authorization", "proxy-authorization", "Cookie", "X-Api-Key", "X-CSRF-Token"} {
		if got[name] != RedactedHeader {
			t.Errorf("%s = %q, want redacted", name, got[name])
		}
	}
	if got["Accept"] != "text/html" || got["X-Number"] != "5" {
		t.Errorf("plain headers changed: %v", got)
	}
	if n := len(got["X-Long"]); n > maxHeaderValue+len("…") {
		t.Errorf("a long value kept %d bytes", n)
	}
	many := map[string]any{}
	for i := range 200 {
		many[fmt.Sprintf("X-H%03d", i)] = "v"
	}
	if n := len(boundedHeaders(many)); n > maxHeaders {
		t.Errorf("kept %d headers, want at most %d", n, maxHeaders)
	}
}

func TestJavaScriptDialogsWaitForAnAnswer(t *testing.T) {
	m := manager(t)
	srv := devtoolsServer(t)
	tab := open(t, m, "space:devtools", srv.URL+"/dialogs")
	ctx := ctxT(t)
	waitFor(t, "the alert", func() bool { d := tab.Dialog(); return d != nil && d.Type == "alert" })
	d := tab.Dialog()
	if d.Message != "hello alert" || !strings.HasSuffix(d.URL, "/dialogs") {
		t.Errorf("alert: %+v", d)
	}
	// The alert is not answered by anyone: it is still open after the page
	// had every chance to go on (the engine used to accept it at once).
	time.Sleep(300 * time.Millisecond)
	if d := tab.Dialog(); d == nil || d.Type != "alert" {
		t.Fatalf("the alert closed by itself: %+v", d)
	}
	if tab.Info().Title == "after-alert" {
		t.Fatal("the page went on past an unanswered alert")
	}
	// The live view's pulls say that a dialog is open.
	frames := httptest.NewServer(m.FrameHandler())
	defer frames.Close()
	res, err := http.Get(frames.URL + FramePath + tab.ID() + "?after=999999999")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get(DialogHeader); got != "alert" {
		t.Errorf("frame answer %d: %s = %q, want alert", res.StatusCode, DialogHeader, got)
	}
	if err := tab.HandleDialog(ctx, true, ""); err != nil {
		t.Fatalf("accept the alert: %v", err)
	}
	waitFor(t, "the first confirm", func() bool { d := tab.Dialog(); return d != nil && d.Message == "first?" })
	if err := tab.HandleDialog(ctx, false, ""); err != nil {
		t.Fatalf("dismiss the first confirm: %v", err)
	}
	waitFor(t, "the second confirm", func() bool { d := tab.Dialog(); return d != nil && d.Message == "second?" })
	if err := tab.HandleDialog(ctx, true, ""); err != nil {
		t.Fatalf("accept the second confirm: %v", err)
	}
	waitFor(t, "the prompt", func() bool { d := tab.Dialog(); return d != nil && d.Type == "prompt" })
	if d := tab.Dialog(); d.DefaultPrompt != "anon" {
		t.Errorf("prompt default = %q", d.DefaultPrompt)
	}
	if err := tab.HandleDialog(ctx, true, "meith"); err != nil {
		t.Fatalf("answer the prompt: %v", err)
	}
	waitFor(t, "the page's answers", func() bool { return tab.Info().Title == "done:false:true:meith" })
	if d := tab.Dialog(); d != nil {
		t.Errorf("a dialog is still recorded: %+v", d)
	}
	var notes []string
	for _, c := range tab.Console(0) {
		if c.Source == "dialog" {
			notes = append(notes, c.Text)
		}
	}
	if len(notes) != 4 || notes[0] != "alert dialog: hello alert" {
		t.Errorf("dialog notes in the console: %q", notes)
	}
}

func TestLinkAt(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:devtools", srv.URL+"/popup")
	ctx := ctxT(t)
	href, err := tab.LinkAt(ctx, 20, 20)
	if err != nil || href != srv.URL+"/next" {
		t.Errorf("LinkAt over the link = %q, %v", href, err)
	}
	href, err = tab.LinkAt(ctx, 600, 600)
	if err != nil || href != "" {
		t.Errorf("LinkAt away from links = %q, %v", href, err)
	}
	if err := tab.HandleDialog(ctx, true, ""); !IsNoDialog(err) {
		t.Errorf("answering without a dialog: %v, want a NoDialogError", err)
	}
}

func TestNavigatingAwayEndsAnOpenDialog(t *testing.T) {
	m := manager(t)
	srv := devtoolsServer(t)
	tab := open(t, m, "space:devtools", srv.URL+"/dialogs")
	waitFor(t, "the alert", func() bool { return tab.Dialog() != nil })
	ctx := ctxT(t)
	info, err := tab.Navigate(ctx, srv.URL+"/objects")
	if err != nil || info.Title != "Objects" {
		t.Fatalf("navigate away from an open alert: %+v, %v", info, err)
	}
	waitFor(t, "the dialog to be forgotten", func() bool { return tab.Dialog() == nil })
}
