package workpool

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestGoRunsEveryTaskAndReusesWorkers(t *testing.T) {
	var p Pool
	defer p.Close()
	var ran atomic.Int32
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		p.Go(func() { ran.Add(1); wg.Done() })
		wg.Wait() // one at a time: the same worker should take every task
	}
	if ran.Load() != 100 {
		t.Fatalf("ran %d tasks, want 100", ran.Load())
	}
	// A task may come before its worker is idle again, so more than one
	// worker can exist; far fewer than one per task.
	eventually(t, "the workers to be idle", func() bool { return p.Idle() >= 1 })
	if n := p.Idle(); n > 10 {
		t.Errorf("%d idle workers after 100 sequential tasks, want them reused", n)
	}
}

func TestConcurrentTasks(t *testing.T) {
	var p Pool
	defer p.Close()
	var ran atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var inner sync.WaitGroup
			for range 200 {
				inner.Add(1)
				p.Go(func() { ran.Add(1); inner.Done() })
			}
			inner.Wait()
		}()
	}
	wg.Wait()
	if ran.Load() != 1600 {
		t.Errorf("ran %d tasks, want 1600", ran.Load())
	}
}

func TestIdleWorkersRetire(t *testing.T) {
	p := Pool{IdleTimeout: 20 * time.Millisecond}
	done := make(chan struct{})
	p.Go(func() { close(done) })
	<-done
	eventually(t, "the idle worker to retire", func() bool { return p.Idle() == 0 })
}

func TestCloseEndsIdleWorkers(t *testing.T) {
	base := runtime.NumGoroutine()
	var p Pool
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		p.Go(func() { time.Sleep(5 * time.Millisecond); wg.Done() })
	}
	wg.Wait()
	p.Close()
	eventually(t, "the workers to exit", func() bool { return runtime.NumGoroutine() <= base })
	ran := make(chan struct{})
	p.Go(func() { close(ran) }) // after Close: a plain goroutine
	<-ran
	if p.Idle() != 0 {
		t.Errorf("Idle() after Close = %d, want 0", p.Idle())
	}
}
