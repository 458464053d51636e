// Package workpool runs short tasks on reused goroutines. A new goroutine
// starts with a small stack that grows (by copying) the first time a task
// goes deep, as JSON decoding does; reusing goroutines keeps their grown
// stacks, which matters on the per-call paths of the socket and registry.
package workpool

import (
	"sync"
	"time"
)

// Pool hands tasks to idle worker goroutines, starting a new one when none
// is idle, so Go never blocks. Idle workers exit after IdleTimeout. The zero
// value is ready to use.
type Pool struct {
	// IdleTimeout is how long a worker waits for a task before it exits
	// (default 30 s).
	IdleTimeout time.Duration

	mu     sync.Mutex
	idle   []chan func() // idle workers' task channels, most recent last
	closed bool
}

// Go runs f on an idle worker, or on a new goroutine.
func (p *Pool) Go(f func()) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		go f()
		return
	}
	if n := len(p.idle); n > 0 {
		ch := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		ch <- f
		return
	}
	p.mu.Unlock()
	go p.work(f)
}

func (p *Pool) work(f func()) {
	timeout := p.IdleTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ch := make(chan func(), 1)
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		f()
		f = nil
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, ch)
		p.mu.Unlock()
		t.Reset(timeout)
		select {
		case f = <-ch:
			if f == nil { // Close
				return
			}
		case <-t.C:
			if p.retire(ch) {
				return
			}
			if f = <-ch; f == nil { // a task (or Close) was handed over as the timer fired
				return
			}
		}
	}
}

// retire removes ch from the idle list; false means Go has just taken it
// and a task is on its way.
func (p *Pool) retire(ch chan func()) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, c := range p.idle {
		if c == ch {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return true
		}
	}
	return false
}

// Close ends the idle workers; busy ones end after their task. Later calls
// to Go start plain goroutines.
func (p *Pool) Close() {
	p.mu.Lock()
	idle := p.idle
	p.idle, p.closed = nil, true
	p.mu.Unlock()
	for _, ch := range idle {
		ch <- nil
	}
}

// Idle returns the number of idle workers.
func (p *Pool) Idle() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle)
}
