package browser

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The engine tests run one real Chromium (Debian's chromium) against pages
// served from 127.0.0.1.

const formPage = `<!doctype html><title>Form</title>
<h1 id="h">idle</h1>
<label for="name">Name</label><input id="name" value="old">
<input type="password" id="pw" value="secret">
<input type="checkbox" id="cb" aria-label="Agree">
<select id="sel"><option value="a">Apple</option><option value="b">Banana</option></select>
<button id="go" onclick="document.getElementById('h').textContent='clicked:'+document.getElementById('name').value">Go</button>
<button disabled>Off</button>
<a href="/next">Next page</a>
<div style="display:none"><button>Hidden</button></div>
<form onsubmit="event.preventDefault(); document.getElementById('h').textContent='submitted:'+this.q.value"><input name="q"></form>
<div style="height:3000px"></div>`

func pageServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, formPage) })
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Next</title><link rel="icon" href="/icon.png"><p>next</p>`)
	})
	mux.HandleFunc("/third", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `<title>Third</title>`) })
	mux.HandleFunc("/logs", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Logs</title><script>
			console.log('hello', 42); console.warn('careful'); console.error('bad thing');
			fetch('/missing').then(() => fetch('/next'));
			setTimeout(() => { throw new Error('boom') }, 0);
		</script>`)
	})
	mux.HandleFunc("/cookie/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		fmt.Fprint(w, `<title>set</title>`)
	})
	mux.HandleFunc("/cookie/get", func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("who")
		v := ""
		if c != nil {
			v = c.Value
		}
		fmt.Fprintf(w, `<title>cookie=%s</title>`, v)
	})
	mux.HandleFunc("/popup", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Opener</title><a id="l" href="/next" target="_blank" style="display:block;width:200px;height:50px">open</a>`)
	})
	mux.HandleFunc("/download", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>dl</title><a id="d" href="/file.txt" download="../../report.txt" style="display:block;width:200px;height:50px">get</a>`)
	})
	mux.HandleFunc("/file.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Disposition", `attachment; filename="report.txt"`)
		fmt.Fprint(w, "downloaded body")
	})
	mux.HandleFunc("/metadata", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>meta</title><script>fetch('http://169.254.169.254/latest/meta-data/').catch(() => { document.title = 'refused' })</script>`)
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Hung</title><script>setTimeout(()=>{while(true){}},100)</script>`)
	})
	mux.HandleFunc("/paint", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Paint</title><style>html,body{margin:0;height:100%;background:rgb(0,0,255)}</style>
			<script>addEventListener('mousedown', () => { document.body.style.background = 'rgb(255,0,0)'; document.title = 'red' });
			addEventListener('keydown', (e) => { document.title = 'key:' + e.key });</script>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

var (
	sharedOnce sync.Once
	shared     *Manager
	sharedErr  error
	records    sync.Map // id → Spec, the stand-in state the Lookup reads
	popups     = make(chan string, 4)
	downloads  = make(chan Download, 4)
	changes    atomic.Int64
	nextID     atomic.Int64
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Shutdown(context.Background())
	}
	os.Exit(code)
}

// manager returns the Chromium shared by the tests (skipping when the
// machine has none).
func manager(t *testing.T) *Manager {
	t.Helper()
	if _, err := FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	sharedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "meith-browser-test-")
		if err != nil {
			sharedErr = err
			return
		}
		shared = New(Options{
			DataDir:     filepath.Join(dir, "browser"),
			DownloadDir: filepath.Join(dir, "downloads"),
			Lookup: func(id string) (Spec, bool) {
				v, ok := records.Load(id)
				if !ok {
					return Spec{}, false
				}
				return v.(Spec), true
			},
			OnChange: func(string, PageInfo) { changes.Add(1) },
			NewTabID: func() string { return fmt.Sprintf("btab_popup%d", nextID.Add(1)) },
			OnPopup:  func(opener, id string, _ PageInfo) { popups <- opener + ">" + id },
			OnDownload: func(_ string, d Download) {
				downloads <- d
			},
		})
	})
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func open(t *testing.T, m *Manager, key, url string) *Tab {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := fmt.Sprintf("btab_t%d", nextID.Add(1))
	records.Store(id, Spec{ID: id, ContextKey: key, URL: url})
	tab, err := m.Open(ctx, Spec{ID: id, ContextKey: key, URL: url})
	if err != nil {
		t.Fatalf("Open(%s): %v", url, err)
	}
	t.Cleanup(func() { m.CloseTab(context.Background(), id) })
	return tab
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestNavigationAndHistory(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:nav", srv.URL+"/form")
	info := tab.Info()
	if info.Title != "Form" || info.LoadState != LoadComplete || info.CanGoBack || info.CanGoForward {
		t.Fatalf("after open: %+v", info)
	}
	ctx := ctxT(t)
	if info, _ = tab.Navigate(ctx, srv.URL+"/next"); info.Title != "Next" || !info.CanGoBack || info.CanGoForward ||
		info.Favicon != srv.URL+"/icon.png" {
		t.Fatalf("after navigate: %+v", info)
	}
	if info, _ = tab.Back(ctx); info.Title != "Form" || info.CanGoBack || !info.CanGoForward {
		t.Fatalf("after back: %+v", info)
	}
	if _, err := tab.Back(ctx); !IsHistory(err) {
		t.Fatalf("back at the start: %v, want a HistoryError", err)
	}
	if info, _ = tab.Forward(ctx); info.Title != "Next" || !info.CanGoBack || info.CanGoForward {
		t.Fatalf("after forward: %+v", info)
	}
	if info, _ = tab.Reload(ctx); info.Title != "Next" || info.LoadState != LoadComplete {
		t.Fatalf("after reload: %+v", info)
	}
	// A refused connection is a failed load, not an error.
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	info, err := tab.Navigate(ctx, deadURL)
	if err != nil || info.LoadState != LoadFailed || !strings.Contains(info.ErrorText, "ERR_CONNECTION_REFUSED") {
		t.Fatalf("navigate to a closed port: %+v, %v", info, err)
	}
	if _, err := tab.Navigate(ctx, "file:///etc/passwd"); !IsURL(err) {
		t.Fatalf("navigate to file: %v, want a URLError", err)
	}
	if changes.Load() == 0 {
		t.Error("OnChange was never called")
	}
}

func TestStateClickTypeKeys(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:auto", srv.URL+"/form")
	ctx := ctxT(t)
	st, err := tab.State(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Title != "Form" || st.Viewport.Width != DefaultViewport.Width || st.URL != srv.URL+"/form" {
		t.Fatalf("state header: %+v", st)
	}
	find := func(st *PageState, f func(Element) bool) Element {
		t.Helper()
		for _, e := range st.Elements {
			if f(e) {
				return e
			}
		}
		t.Fatalf("no such element in %+v", st.Elements)
		return Element{}
	}
	name := find(st, func(e Element) bool { return e.Label == "Name" })
	if name.Role != "textbox" || name.Value != "old" || name.Bounds == nil || name.Hidden {
		t.Errorf("name input: %+v", name)
	}
	if pw := find(st, func(e Element) bool { return e.Type == "password" }); pw.Value == "secret" {
		t.Errorf("a password value leaked: %+v", pw)
	}
	if cb := find(st, func(e Element) bool { return e.Label == "Agree" }); cb.Checked == nil || *cb.Checked || cb.Role != "checkbox" {
		t.Errorf("checkbox: %+v", cb)
	}
	if off := find(st, func(e Element) bool { return e.Text == "Off" }); !off.Disabled {
		t.Errorf("disabled button: %+v", off)
	}
	if hid := find(st, func(e Element) bool { return e.Text == "Hidden" }); !hid.Hidden || hid.Bounds != nil {
		t.Errorf("hidden button: %+v", hid)
	}
	link := find(st, func(e Element) bool { return e.Role == "link" })
	if link.Href != srv.URL+"/next" || link.Text != "Next page" {
		t.Errorf("link: %+v", link)
	}
	goBtn := find(st, func(e Element) bool { return e.Text == "Go" })

	// Ids are stable across reads.
	st2, _ := tab.State(ctx)
	if again := find(st2, func(e Element) bool { return e.Text == "Go" }); again.ID != goBtn.ID {
		t.Errorf("the id changed between reads: %s then %s", goBtn.ID, again.ID)
	}

	if err := tab.Type(ctx, name.ID, "Ada"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Click(ctx, goBtn.ID); err != nil {
		t.Fatal(err)
	}
	if got := heading(t, tab); got != "clicked:Ada" {
		t.Errorf("after type and click the heading is %q", got)
	}
	sel := find(st, func(e Element) bool { return e.Tag == "select" })
	if err := tab.Type(ctx, sel.ID, "Banana"); err != nil {
		t.Fatal(err)
	}
	if err := tab.Type(ctx, goBtn.ID, "x"); err == nil {
		t.Error("typing into a button succeeded")
	}
	if err := tab.Click(ctx, "el-9999"); !IsNoElement(err) {
		t.Errorf("click on an unknown id: %v, want a NoElementError", err)
	}
	// Keys: type into the form's field and submit with Enter.
	q := find(st, func(e Element) bool { return e.Tag == "input" && e.Label == "" && e.Type == "text" && e.ID != name.ID })
	if err := tab.Click(ctx, q.ID); err != nil {
		t.Fatal(err)
	}
	if err := tab.SendKeys(ctx, "hi there"); err != nil {
		t.Fatal(err)
	}
	if err := tab.SendKeys(ctx, "Enter"); err != nil {
		t.Fatal(err)
	}
	if got := heading(t, tab); got != "submitted:hi there" {
		t.Errorf("after keys the heading is %q", got)
	}
	// Scroll by a delta and to a position.
	dy := 500.0
	if err := tab.ScrollBy(ctx, Scroll{DeltaY: &dy}); err != nil {
		t.Fatal(err)
	}
	if y, _ := evalMain[float64](ctx, tab, "scrollY"); y != 500 {
		t.Errorf("scrollY after scrolling by 500 = %v", y)
	}
	to := 40.0
	tab.ScrollBy(ctx, Scroll{ToY: &to})
	if y, _ := evalMain[float64](ctx, tab, "scrollY"); y != 40 {
		t.Errorf("scrollY after scrolling to 40 = %v", y)
	}
	// Raw CDP.
	raw, err := tab.CDP(ctx, "Runtime.evaluate", []byte(`{"expression":"1+2","returnByValue":true}`))
	if err != nil || !strings.Contains(string(raw), `"value":3`) {
		t.Errorf("cdp Runtime.evaluate = %s, %v", raw, err)
	}
	if _, err := tab.CDP(ctx, "No.such", nil); err == nil {
		t.Error("an unknown CDP method succeeded")
	}
	// The page cannot see meith's registry.
	if seen, _ := evalMain[bool](ctx, tab, "'__meithRegistry' in globalThis"); seen {
		t.Error("the page's own world sees meith's element registry")
	}
	shot, err := tab.Screenshot(ctx)
	if err != nil || shot.Width != DefaultViewport.Width || shot.Height != DefaultViewport.Height {
		t.Fatalf("screenshot: %v, %+v", err, shot)
	}
	if _, err := png.Decode(bytes.NewReader(shot.PNG)); err != nil {
		t.Errorf("screenshot is not a PNG: %v", err)
	}
}

func heading(t *testing.T, tab *Tab) string {
	t.Helper()
	ctx := ctxT(t)
	var got string
	for range 50 {
		got, _ = evalMain[string](ctx, tab, "document.getElementById('h').textContent")
		if got != "idle" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	return got
}

func TestConsoleAndNetwork(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:logs", srv.URL+"/logs")
	deadline := time.Now().Add(5 * time.Second)
	settled := func() bool {
		for _, n := range tab.Network(0) {
			if strings.HasSuffix(n.URL, "/next") && n.EndedAt != 0 {
				return true
			}
		}
		return false
	}
	for time.Now().Before(deadline) && (len(tab.Console(0)) < 4 || !settled()) {
		time.Sleep(50 * time.Millisecond)
	}
	var levels []string
	for _, c := range tab.Console(0) {
		levels = append(levels, c.Level+":"+c.Text)
	}
	all := strings.Join(levels, "|")
	for _, want := range []string{"log:hello 42", "warn:careful", "error:bad thing", "error:Error: boom"} {
		if !strings.Contains(all, want) {
			t.Errorf("console lacks %q: %s", want, all)
		}
	}
	if got := tab.Console(1); len(got) != 1 {
		t.Errorf("Console(1) = %d entries", len(got))
	}
	var missing, next *NetworkEntry
	for _, n := range tab.Network(0) {
		n := n
		switch {
		case strings.HasSuffix(n.URL, "/missing"):
			missing = &n
		case strings.HasSuffix(n.URL, "/next"):
			next = &n
		}
	}
	if missing == nil || missing.Status != 404 || missing.Method != "GET" || missing.PageURL != srv.URL+"/logs" {
		t.Errorf("the 404 request: %+v", missing)
	}
	if next == nil || next.Status != 200 || next.EndedAt == 0 {
		t.Errorf("the 200 request: %+v", next)
	}
}

func TestContextIsolation(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	a1 := open(t, m, "space:A", srv.URL+"/cookie/set?v=alpha")
	a2 := open(t, m, "space:A", srv.URL+"/cookie/get")
	b := open(t, m, "space:B", srv.URL+"/cookie/get")
	_ = a1
	if got := a2.Info().Title; got != "cookie=alpha" {
		t.Errorf("a second tab of space A sees %q, want cookie=alpha", got)
	}
	if got := b.Info().Title; got != "cookie=" {
		t.Errorf("a tab of space B sees %q, want no cookie", got)
	}
	// Closing a context disposes of its cookies.
	if err := m.CloseContext(ctxT(t), "space:A"); err != nil {
		t.Fatal(err)
	}
	if m.Peek(a2.ID()) != nil {
		t.Error("a tab of a closed context is still live")
	}
	a3 := open(t, m, "space:A", srv.URL+"/cookie/get")
	if got := a3.Info().Title; got != "cookie=" {
		t.Errorf("after closing space A's context a new tab sees %q", got)
	}
}

func TestHardening(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:hard", srv.URL+"/form")
	ctx := ctxT(t)
	for _, name := range []string{"geolocation", "notifications", "camera", "microphone"} {
		got, err := evalMain[string](ctx, tab, `navigator.permissions.query({name:'`+name+`'}).then(s => s.state)`)
		if err != nil || got != "denied" {
			t.Errorf("permission %s = %q, %v; want denied", name, got, err)
		}
	}
	// Link-local addresses are refused for the page's own requests and
	// for redirects, not only for the URLs meith is asked to open.
	meta := open(t, m, "space:hard", srv.URL+"/metadata")
	waitTitle(t, meta, "refused")
	blocked := false
	for _, c := range meta.Console(0) {
		blocked = blocked || strings.Contains(c.Text, "blocked a request to a link-local address")
	}
	if !blocked {
		t.Errorf("no console note of the blocked request: %+v", meta.Console(0))
	}
	info, _ := meta.Navigate(ctx, srv.URL+"/to-metadata")
	if info.LoadState != LoadFailed || !strings.Contains(info.ErrorText, "BLOCKED_BY_CLIENT") {
		t.Errorf("a redirect to a link-local address: %+v, want a blocked load", info)
	}
	// A target=_blank link becomes a tab of the same context.
	pop := open(t, m, "space:hard", srv.URL+"/popup")
	st, _ := pop.State(ctx)
	if err := pop.Click(ctx, st.Elements[0].ID); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-popups:
		ids := strings.Split(got, ">")
		if ids[0] != pop.ID() {
			t.Fatalf("popup opener = %s, want %s", ids[0], pop.ID())
		}
		child := m.Peek(ids[1])
		if child == nil || child.ContextKey() != "space:hard" || child.Info().Title != "Next" || child.Info().URL != srv.URL+"/next" {
			t.Fatalf("popup tab: %+v", child)
		}
		m.CloseTab(ctx, ids[1])
	case <-time.After(10 * time.Second):
		t.Fatal("no popup tab within 10 s")
	}
	// Downloads land in the download folder under their own name.
	dl := open(t, m, "space:hard", srv.URL+"/download")
	st, _ = dl.State(ctx)
	if err := dl.Click(ctx, st.Elements[0].ID); err != nil {
		t.Fatal(err)
	}
	select {
	case d := <-downloads:
		body, err := os.ReadFile(d.Path)
		if d.State != "completed" || filepath.Base(d.Path) != "report.txt" || err != nil || string(body) != "downloaded body" {
			t.Fatalf("download: %+v, %q, %v", d, body, err)
		}
		if filepath.Dir(d.Path) != m.opts.DownloadDir {
			t.Errorf("the download escaped its folder: %s", d.Path)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no download within 10 s")
	}
}

func TestLiveView(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:view", srv.URL+"/paint")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := tab.NextFrame(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Width != 1280 || f.Height != 800 || f.DeviceWidth != 1280 || !tab.Streaming() {
		t.Fatalf("first frame %dx%d device %vx%v", f.Width, f.Height, f.DeviceWidth, f.DeviceHeight)
	}
	if c := centre(t, f); c[2] < 200 || c[0] > 60 {
		t.Fatalf("first frame centre = %v, want blue", c)
	}
	// A click from the view repaints the page red.
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := tab.Input(ctx, InputEvent{Kind: InputMouse, Type: typ, X: 100, Y: 100, Button: "left", ClickCount: 1}); err != nil {
			t.Fatal(err)
		}
	}
	seq := f.Seq
	red := false
	for i := 0; i < 20 && !red; i++ {
		if f, err = tab.NextFrame(ctx, seq); err != nil {
			t.Fatal(err)
		}
		seq = f.Seq
		c := centre(t, f)
		red = c[0] > 200 && c[2] < 60
	}
	if !red {
		t.Fatal("no red frame after the click")
	}
	if err := tab.Input(ctx, InputEvent{Kind: InputKey, Type: "keyDown", Key: "q", Code: "KeyQ", Text: "q", KeyCode: 81}); err != nil {
		t.Fatal(err)
	}
	tab.Input(ctx, InputEvent{Kind: InputKey, Type: "keyUp", Key: "q", Code: "KeyQ", KeyCode: 81})
	if got, _ := evalMain[string](ctx, tab, "document.title"); got != "key:q" {
		t.Errorf("document.title after a key = %q", got)
	}
	waitTitle(t, tab, "key:q")
	// The wheel scrolls, also with a zero deltaX.
	tab.SetViewport(ctx, Viewport{Width: 800, Height: 600}, 1)
	evalMain[bool](ctx, tab, "document.body.style.height = '5000px'; true")
	if err := tab.Input(ctx, InputEvent{Kind: InputWheel, X: 100, Y: 100, DeltaY: 300}); err != nil {
		t.Fatal(err)
	}
	scrolled := 0.0
	for range 50 {
		if scrolled, _ = evalMain[float64](ctx, tab, "scrollY"); scrolled > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if scrolled <= 0 {
		t.Error("the wheel did not scroll the page")
	}
	if err := tab.Input(ctx, InputEvent{Kind: "bogus"}); err == nil {
		t.Error("an unknown input kind was accepted")
	}
	// The viewport follows the pane: frames take the new size.
	if err := tab.SetViewport(ctx, Viewport{Width: 640, Height: 400}, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if f, err = tab.NextFrame(ctx, seq); err != nil {
			t.Fatal(err)
		}
		seq = f.Seq
		if f.Width == 640 {
			break
		}
	}
	if f.Width != 640 || f.Height != 400 {
		t.Errorf("frame after resize %dx%d, want 640x400", f.Width, f.Height)
	}
	// At scale 1 the window takes the size (no emulation); another scale
	// is emulated.
	if got, _ := evalMain[[]float64](ctx, tab, "[innerWidth, innerHeight, devicePixelRatio]"); len(got) != 3 || got[0] != 640 || got[1] != 400 || got[2] != 1 {
		t.Errorf("page viewport %v, want [640 400 1]", got)
	}
	if tab.emulated {
		t.Error("a scale-1 viewport is emulated; want the window resized")
	}
	if err := tab.SetViewport(ctx, Viewport{Width: 500, Height: 300}, 2); err != nil {
		t.Fatal(err)
	}
	if got, _ := evalMain[[]float64](ctx, tab, "[innerWidth, innerHeight, devicePixelRatio]"); len(got) != 3 || got[0] != 500 || got[2] != 2 {
		t.Errorf("page viewport at scale 2: %v, want [500 300 2]", got)
	}
	for i := 0; i < 20 && f.Width != 1000; i++ {
		if f, err = tab.NextFrame(ctx, seq); err != nil {
			t.Fatal(err)
		}
		seq = f.Seq
	}
	if f.Width != 1000 || f.DeviceWidth != 500 {
		t.Errorf("frame at scale 2: %dx%d device %v, want 1000 wide for a 500 px page", f.Width, f.Height, f.DeviceWidth)
	}
	if err := tab.SetViewport(ctx, Viewport{Width: 640, Height: 400}, 1); err != nil {
		t.Fatal(err)
	}
	if err := tab.SetViewport(ctx, Viewport{Width: 10, Height: 10}, 1); err == nil {
		t.Error("a 10x10 viewport was accepted")
	}

	// Over HTTP.
	h := httptest.NewServer(m.FrameHandler())
	defer h.Close()
	var resp *http.Response
	var body []byte
	after := "0"
	for range 10 { // frames of the previous size may still be in flight
		if resp, err = http.Get(h.URL + FramePath + tab.ID() + "?after=" + after); err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.Header.Get("X-Meith-Device-Width") == "640" {
			break
		}
		after = resp.Header.Get("X-Meith-Frame-Seq")
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" || resp.Header.Get("X-Meith-Device-Width") != "640" {
		t.Fatalf("frame over HTTP: %d %v", resp.StatusCode, resp.Header)
	}
	if live := m.LiveTabs(); !slices.ContainsFunc(live, func(l LiveTab) bool { return l.ID == tab.ID() && l.Viewport.Width == 640 }) {
		t.Errorf("LiveTabs = %+v, want %s at 640 wide", live, tab.ID())
	}
	if m.FramesServed() == 0 {
		t.Error("FramesServed = 0 after serving a frame")
	}
	if _, err := jpeg.Decode(bytes.NewReader(body)); err != nil {
		t.Fatalf("the frame is not a JPEG: %v", err)
	}
	last := resp.Header.Get("X-Meith-Frame-Seq")
	// A still page stops producing frames: the poll then answers 204. The
	// page may still be settling for a moment (the scrollbar of the scroll
	// above fades out), so the frames may go on for a while, not for ever.
	status := 0
	var kept []string // the frames that kept coming, for the failure message
	begin := time.Now()
	for time.Since(begin) < 15*time.Second {
		resp, _ = http.Get(h.URL + FramePath + tab.ID() + "?after=" + last)
		resp.Body.Close()
		if status = resp.StatusCode; status == http.StatusNoContent {
			break
		}
		last = resp.Header.Get("X-Meith-Frame-Seq")
		kept = append(kept, fmt.Sprintf("#%s %sx%s at %v", last, resp.Header.Get("X-Meith-Frame-Width"),
			resp.Header.Get("X-Meith-Frame-Height"), time.Since(begin).Round(time.Millisecond)))
	}
	if status != http.StatusNoContent {
		tab.view.mu.Lock()
		motion := tab.view.motion
		tab.view.mu.Unlock()
		t.Errorf("a still page kept answering %d, want 204: frames %v (motion %v)", status, kept, motion)
	}
	resp, _ = http.Get(h.URL + FramePath + "btab_nope")
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown tab answered %d, want 404", resp.StatusCode)
	}
	// Nobody pulls: the screencast stops by itself.
	deadline := time.Now().Add(castIdle + 3*time.Second)
	for time.Now().Before(deadline) && tab.Streaming() {
		time.Sleep(100 * time.Millisecond)
	}
	if tab.Streaming() {
		t.Error("the screencast still runs with nobody watching")
	}
}

func centre(t *testing.T, f *Frame) [3]uint32 {
	t.Helper()
	img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Dx()/2, b.Dy()/2).RGBA()
	return [3]uint32{r >> 8, g >> 8, bl >> 8}
}

func waitTitle(t *testing.T, tab *Tab, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if tab.Info().Title == want {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("title %q, want %q", tab.Info().Title, want)
}

func TestReopenAfterCrash(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:crash", srv.URL+"/next")
	id := tab.ID()
	ctx := ctxT(t)
	// Unknown ids are refused without starting anything.
	if _, err := m.Live(ctx, "btab_unknown"); !IsNoTab(err) {
		t.Fatalf("Live(unknown) = %v, want a NoTabError", err)
	}
	pid := m.PID()
	if pid == 0 {
		t.Fatal("no browser pid")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && m.Running() {
		time.Sleep(50 * time.Millisecond)
	}
	if m.Running() {
		t.Fatal("the manager did not notice the browser died")
	}
	again, err := m.Live(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if info := again.Info(); info.Title != "Next" || info.URL != srv.URL+"/next" {
		t.Fatalf("reopened tab: %+v", info)
	}
	if m.PID() == pid {
		t.Error("the same browser pid after a crash")
	}
}

func TestCookiesSurviveARestart(t *testing.T) {
	if _, err := FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	srv := pageServer(t)
	dir := t.TempDir()
	opts := Options{DataDir: filepath.Join(dir, "browser"), CookieDir: filepath.Join(dir, "cookies")}
	ctx := ctxT(t)
	first := New(opts)
	if _, err := first.Open(ctx, Spec{ID: "btab_c1", ContextKey: "space:keep", URL: srv.URL + "/cookie/set?v=kept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Open(ctx, Spec{ID: "btab_c2", ContextKey: "space:other", URL: srv.URL + "/cookie/set?v=other"}); err != nil {
		t.Fatal(err)
	}
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, "cookies", "space_keep.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved cookies: %v, %v", fi, err)
	}
	second := New(opts)
	defer second.Shutdown(context.Background())
	tab, err := second.Open(ctx, Spec{ID: "btab_c3", ContextKey: "space:keep", URL: srv.URL + "/cookie/get"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Info().Title; got != "cookie=kept" {
		t.Errorf("after a restart the space sees %q, want cookie=kept", got)
	}
	// Closing a space's context deletes its cookies for good.
	if err := second.CloseContext(ctx, "space:keep"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cookies", "space_keep.json")); !os.IsNotExist(err) {
		t.Errorf("the closed space's cookies are still saved: %v", err)
	}
	tab, _ = second.Open(ctx, Spec{ID: "btab_c4", ContextKey: "space:keep", URL: srv.URL + "/cookie/get"})
	if got := tab.Info().Title; got != "cookie=" {
		t.Errorf("after closing the space a new tab sees %q", got)
	}
}

// A tab reopened from its record loads its page before anyone else gets it:
// a navigate that waited for the tab lands after that first load instead of
// being undone by it (the window's frame pull and a navigate racing on a
// tab that was not live yet).
func TestNavigateDuringReopenIsNotUndone(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	slow := http.NewServeMux()
	slow.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, `<title>Slow</title>`)
	})
	slowSrv := httptest.NewServer(slow)
	t.Cleanup(slowSrv.Close)
	for i := range 6 {
		id := fmt.Sprintf("btab_t%d", nextID.Add(1))
		records.Store(id, Spec{ID: id, ContextKey: "space:reopen", URL: slowSrv.URL + "/slow"})
		ctx := ctxT(t)
		first := make(chan error, 1)
		go func() { _, err := m.Live(ctx, id); first <- err }() // reopens at /slow
		time.Sleep(50 * time.Millisecond)                       // that reopen is creating the target
		tab, err := m.Live(ctx, id)                             // waits for it
		if err != nil {
			t.Fatal(err)
		}
		// The tab came back with its first page loaded, not half-open.
		if info := tab.Info(); info.Title != "Slow" || !strings.HasSuffix(info.URL, "/slow") {
			t.Fatalf("try %d: Live returned the tab before its first load: %+v", i, info)
		}
		if _, err := tab.Navigate(ctx, srv.URL+"/third"); err != nil {
			t.Fatal(err)
		}
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		time.Sleep(400 * time.Millisecond)
		if info := tab.Info(); info.Title != "Third" || !strings.HasSuffix(info.URL, "/third") {
			t.Fatalf("try %d, after the navigate: %+v (the reopen's load undid it)", i, info)
		}
		if m.Peek(id) != tab {
			t.Error("two tabs for one id")
		}
		m.CloseTab(context.Background(), id)
	}
}

// TestHungPage: a page stuck in a script loop answers the calls its
// renderer must answer with a *NotRespondingError after PageDeadline (well
// before the caller's own deadline), and still closes.
func TestHungPage(t *testing.T) {
	m := manager(t)
	srv := pageServer(t)
	tab := open(t, m, "space:hung", srv.URL+"/hang")
	ctx, cancel := context.WithTimeout(context.Background(), 10*PageDeadline)
	defer cancel()
	var err error
	// The loop starts 100 ms after the load; a call before it answers.
	for attempt := 0; attempt < 20 && err == nil; attempt++ {
		if _, err = tab.State(ctx); err == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !IsNotResponding(err) || ctx.Err() != nil {
		t.Fatalf("State of a hung page: %v (caller's context: %v), want a NotRespondingError", err, ctx.Err())
	}
	if _, err := tab.Screenshot(ctx); !IsNotResponding(err) {
		t.Errorf("Screenshot of a hung page: %v, want a NotRespondingError", err)
	}
	if err := tab.SendKeys(ctx, "Enter"); !IsNotResponding(err) {
		t.Errorf("SendKeys to a hung page: %v, want a NotRespondingError", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("the calls used up the caller's deadline: %v", ctx.Err())
	}
	other := open(t, m, "space:hung-other", srv.URL+"/next")
	if st, err := other.State(ctx); err != nil || st.Title != "Next" {
		t.Errorf("another tab while one hangs: %+v, %v", st, err)
	}
	if err := m.CloseTab(ctx, tab.ID()); err != nil || m.Peek(tab.ID()) != nil {
		t.Errorf("close the hung tab: %v (still live: %v)", err, m.Peek(tab.ID()) != nil)
	}
}
