package process

import (
	"context"
	"sync"
	"time"
)

// logRing holds a process's recent output: LogEntries with consecutive
// seqs from 1, bounded by a count and by the bytes of their text (at least
// the newest entry is always held). Waiters are woken on every append and
// at the end.
//
// Every entry's text is a string of its own (copied out of the reader's
// buffer), so dropping an entry frees its bytes: nothing pins a larger
// buffer.
type logRing struct {
	mu         sync.Mutex
	entries    []LogEntry // entries[head:] are held
	head       int
	maxEntries int // 0: unbounded
	maxBytes   int // 0: unbounded
	bytes      int // text bytes held
	nextSeq    int64
	ended      bool
	wake       chan struct{} // closed (and replaced) when watched and changed
	watched    bool
}

func newLogRing(maxEntries, maxBytes int) *logRing {
	return &logRing{maxEntries: maxEntries, maxBytes: maxBytes, nextSeq: 1, wake: make(chan struct{})}
}

// add appends an entry and wakes the waiters.
func (r *logRing) add(stream, text string) {
	r.addLines(stream, 0, []string{text})
}

// addLines appends entries with one timestamp, after skipping `skipped`
// seqs (lines the ring would drop at once, never held), and wakes the
// waiters.
func (r *logRing) addLines(stream string, skipped int, texts []string) {
	if skipped == 0 && len(texts) == 0 {
		return
	}
	ts := time.Now().UnixMilli()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.nextSeq += int64(skipped)
	for _, text := range texts {
		r.entries = append(r.entries, LogEntry{Seq: r.nextSeq, Stream: stream, Text: text, TS: ts})
		r.nextSeq++
		r.bytes += len(text)
		r.trimLocked()
	}
	if r.head >= 64 && r.head*2 >= len(r.entries) { // compact
		n := copy(r.entries, r.entries[r.head:])
		clear(r.entries[n:])
		r.entries = r.entries[:n]
		r.head = 0
	}
	r.signal()
}

// trimLocked drops the oldest entries beyond the bounds, keeping at least
// one.
func (r *logRing) trimLocked() {
	for r.held() > 1 && ((r.maxEntries > 0 && r.held() > r.maxEntries) || (r.maxBytes > 0 && r.bytes > r.maxBytes)) {
		r.bytes -= len(r.entries[r.head].Text)
		r.entries[r.head] = LogEntry{}
		r.head++
	}
}

func (r *logRing) held() int { return len(r.entries) - r.head }

// heldBytes is the text bytes held.
func (r *logRing) heldBytes() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

func (r *logRing) signal() {
	if r.watched {
		close(r.wake)
		r.wake = make(chan struct{})
		r.watched = false
	}
}

// end marks the process as ended and wakes the waiters.
func (r *logRing) end() {
	r.mu.Lock()
	r.ended = true
	r.signal()
	r.mu.Unlock()
}

// shrink lowers the byte bound to maxBytes (for an ended process, whose
// log is only read now), drops the oldest entries beyond it and moves the
// held ones into a backing array of their own size, so the larger one is
// freed.
func (r *logRing) shrink(maxBytes int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.maxBytes == 0 || maxBytes < r.maxBytes {
		r.maxBytes = maxBytes
	}
	r.trimLocked()
	r.entries = append([]LogEntry(nil), r.entries[r.head:]...)
	r.head = 0
}

// since returns copies of the held entries with a seq greater than after
// (the newest limit of them when limit > 0) and the next seq.
func (r *logRing) since(after int64, limit int) ([]LogEntry, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sinceLocked(after, limit), r.nextSeq
}

func (r *logRing) sinceLocked(after int64, limit int) []LogEntry {
	held := r.entries[r.head:]
	if len(held) == 0 || after >= r.nextSeq-1 {
		return nil
	}
	start := 0
	if after >= held[0].Seq {
		start = int(after - held[0].Seq + 1)
	}
	if limit > 0 && len(held)-start > limit {
		start = len(held) - limit
	}
	out := make([]LogEntry, len(held)-start)
	copy(out, held[start:])
	return out
}

// wait blocks until there are entries after `after`, the process ended or
// ctx ends (then it returns ctx's error).
func (r *logRing) wait(ctx context.Context, after int64) ([]LogEntry, int64, error) {
	for {
		r.mu.Lock()
		if out := r.sinceLocked(after, 0); len(out) > 0 || r.ended {
			next := r.nextSeq
			r.mu.Unlock()
			return out, next, nil
		}
		r.watched = true
		wake, next := r.wake, r.nextSeq
		r.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, next, ctx.Err()
		}
	}
}

// text is the held entries' text concatenated, and the next seq.
func (r *logRing) text() (string, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.entries[r.head:] {
		n += len(e.Text)
	}
	b := make([]byte, 0, n)
	for _, e := range r.entries[r.head:] {
		b = append(b, e.Text...)
	}
	return string(b), r.nextSeq
}

// clear drops every held entry (the next seq stays) and wakes the waiters.
func (r *logRing) clear() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.entries)
	r.entries = r.entries[:0]
	r.head = 0
	r.bytes = 0
	r.signal()
}
