package browser

import (
	"bytes"
	"context"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
)

// TestIdleStopRacingAPullKeepsTheViewLive: the tab loop stops a screencast
// nobody pulled from for a while just as a view pulls again. The pull must
// get frames, and frames keep coming. Before the starts and stops were
// ordered, the pull's StartScreencast overtook the idle stop's
// StopScreencast and failed ("Screencast is already active"), and the view
// showed an error until its next pull. The hook holds the idle stop between
// its decision and its StopScreencast while the pull comes in.
func TestIdleStopRacingAPullKeepsTheViewLive(t *testing.T) {
	m := manager(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A page that paints all the time, so a running screencast always
		// has frames to send.
		fmt.Fprint(w, `<!doctype html><title>Spin</title><style>html,body{margin:0;height:100%}</style>
			<script>let n = 0; setInterval(() => { document.body.style.background = 'rgb(' + (n++ % 256) + ',0,0)' }, 30)</script>`)
	}))
	t.Cleanup(srv.Close)
	tab := open(t, m, "space:race", srv.URL+"/spin")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := tab.NextFrame(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	decided := make(chan struct{})
	testHookIdleStop = func() {
		close(decided)
		time.Sleep(300 * time.Millisecond) // the pull comes in meanwhile
	}
	t.Cleanup(func() { testHookIdleStop = nil })

	// Nobody pulled for longer than castIdle: the idle stop is decided…
	tab.view.mu.Lock()
	tab.view.lastPull = time.Now().Add(-2 * castIdle)
	tab.view.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tab.view.idleCheck(tab)
	}()
	<-decided
	// …and a view pulls before its StopScreencast is sent.
	pctx, pcancel := context.WithTimeout(ctx, 10*time.Second)
	f, err = tab.NextFrame(pctx, f.Seq)
	pcancel()
	<-stopped
	if err != nil {
		t.Fatalf("no frame after the race: %v", err)
	}
	// Frames keep coming after it.
	seq := f.Seq
	for i := range 5 {
		pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
		f, err = tab.NextFrame(pctx, seq)
		pcancel()
		if err != nil {
			t.Fatalf("frame %d after the race: the view froze (streaming=%v): %v", i, tab.Streaming(), err)
		}
		seq = f.Seq
	}
}

// TestStalledScreencastShowsAClick: Chrome may stop sending screencast
// frames while meith believes the screencast runs (here it is stopped
// behind the view's back). A click from the view that changes the page
// still reaches the view: a still of the page stands in, and the
// screencast is started again so later changes stream too.
func TestStalledScreencastShowsAClick(t *testing.T) {
	m := manager(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Click</title><style>html,body{margin:0;height:100%;background:rgb(0,128,0)}</style>
			<body onclick="document.body.style.background='rgb(200,0,0)'; setTimeout(() => document.title = 'later', 1500)">`)
	}))
	t.Cleanup(srv.Close)
	tab := open(t, m, "space:stall", srv.URL+"/click")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f, err := tab.NextFrame(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The stall: the screencast ends, the view still thinks it runs.
	if _, err := cdp.Call(ctx, tab.target, page.StopScreencast, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		if err := tab.Input(ctx, InputEvent{Kind: InputMouse, Type: typ, X: 50, Y: 50, Button: "left", Buttons: 1, ClickCount: 1}); err != nil {
			t.Fatal(err)
		}
	}
	pctx, pcancel := context.WithTimeout(ctx, 5*time.Second)
	defer pcancel()
	for {
		f, err = tab.NextFrame(pctx, f.Seq)
		if err != nil {
			t.Fatalf("no frame shows the click: %v", err)
		}
		img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
		if err != nil {
			t.Fatal(err)
		}
		if r, g, _, _ := img.At(10, 10).RGBA(); r>>8 > 150 && g>>8 < 60 {
			break // red: the click shows
		}
	}
	if !tab.Streaming() {
		t.Error("the screencast is not running again after the stall")
	}
}
