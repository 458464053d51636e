package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
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
