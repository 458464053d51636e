package app

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestQuitOnSignal: a signal quits the window once, not before the page is
// up, and never once the window is closing or gone.
func TestQuitOnSignal(t *testing.T) {
	type chans struct{ ready, ended, closing chan struct{} }
	newChans := func() chans { return chans{make(chan struct{}), make(chan struct{}), make(chan struct{})} }
	start := func(ctx context.Context, c chans) (*atomic.Int32, <-chan struct{}) {
		var quits atomic.Int32
		done := make(chan struct{})
		go func() {
			defer close(done)
			quitOnSignal(ctx, c.ready, c.ended, c.closing, func() {}, func() { quits.Add(1) })
		}()
		return &quits, done
	}
	wait := func(done <-chan struct{}) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("quitOnSignal did not return")
		}
	}

	// A signal after the page is up: one quit.
	c := newChans()
	close(c.ready)
	ctx, cancel := context.WithCancel(context.Background())
	quits, done := start(ctx, c)
	cancel()
	wait(done)
	if quits.Load() != 1 {
		t.Errorf("quits = %d, want 1", quits.Load())
	}

	// A signal before the page is up waits for it.
	c = newChans()
	ctx, cancel = context.WithCancel(context.Background())
	quits, done = start(ctx, c)
	cancel()
	time.Sleep(50 * time.Millisecond)
	if quits.Load() != 0 {
		t.Fatal("quit before the page was up")
	}
	close(c.ready)
	wait(done)
	if quits.Load() != 1 {
		t.Errorf("quits after ready = %d, want 1", quits.Load())
	}

	// The window closed by the user (Shutdown began) or already gone: no
	// quit, before or after a signal.
	for _, which := range []string{"closing", "ended"} {
		c = newChans()
		ctx, cancel = context.WithCancel(context.Background())
		quits, done = start(ctx, c)
		cancel()
		if which == "closing" {
			close(c.closing)
		} else {
			close(c.ended)
		}
		wait(done)
		close(c.ready) // too late: the window is going or gone
		if quits.Load() != 0 {
			t.Errorf("%s: quits = %d, want 0", which, quits.Load())
		}
	}
}
