package app

import (
	"slices"
	"time"
)

// hintBatch gathers the distinct change hints of one throttle period and
// sends them together as events: each once, or a single zero hint ("re-read
// everything") when more than max changed. Its fields are guarded by
// App.mu.
type hintBatch[T comparable] struct {
	event    string
	throttle time.Duration
	max      int
	seen     []T         // changed, not yet announced
	timer    *time.Timer // the pending flush
}

// addLocked records v and schedules the flush (a.mu held).
func (h *hintBatch[T]) addLocked(a *App, v T) {
	if !slices.Contains(h.seen, v) && len(h.seen) <= h.max {
		h.seen = append(h.seen, v)
	}
	if h.timer == nil {
		h.timer = time.AfterFunc(h.throttle, func() { h.flush(a) })
	}
}

// flush sends the pending hints.
func (h *hintBatch[T]) flush(a *App) {
	a.mu.Lock()
	seen := h.seen
	h.seen, h.timer = nil, nil
	a.mu.Unlock()
	if len(seen) > h.max {
		var all T
		seen = []T{all}
	}
	for _, v := range seen {
		a.emit(h.event, v)
	}
}

// stopLocked drops the pending hints (a.mu held).
func (h *hintBatch[T]) stopLocked() {
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
	h.seen = nil
}
