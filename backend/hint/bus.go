package hint

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// MaxQueued bounds the hints waiting for one subscriber. A subscriber that
// falls further behind loses its oldest hints: they only said "re-read",
// and the newer ones say it too.
const MaxQueued = 1024

// Bus carries hints from publishers to subscribers. Its zero value is not
// usable; make one with [New]. A nil *Bus drops what is published, so an
// engine built without a bus needs no checks. It is safe for concurrent
// use.
type Bus struct {
	dropped atomic.Uint64

	mu      sync.Mutex
	subs    []*subscriber     // in subscription order
	batches map[string]*batch // the open window of each gathered topic
	seq     uint64            // numbers the batches in the order they opened
	closed  bool
}

// New returns a bus with no subscribers.
func New() *Bus { return &Bus{batches: map[string]*batch{}} }

// Publish announces a change. It never waits for a subscriber: the hint is
// queued for each subscriber of its topic (or, for a gathered topic, added
// to the topic's window) and Publish returns. Without a subscriber of the
// topic the hint is dropped. It is safe to call from any goroutine, with
// any lock of the caller's held.
func (b *Bus) Publish(p Payload) {
	if b == nil || p == nil {
		return
	}
	topic := p.Topic()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || !slices.ContainsFunc(b.subs, func(s *subscriber) bool { return s.wants(topic) }) {
		return
	}
	g, ok := gathered[topic]
	if !ok {
		b.deliverLocked(p)
		return
	}
	bt := b.batches[topic]
	if bt == nil {
		b.seq++
		bt = &batch{topic: topic, g: g, seq: b.seq}
		b.batches[topic] = bt
		bt.timer = time.AfterFunc(g.window, func() { b.closeWindow(bt) })
	}
	bt.add(p)
}

// Subscribe calls fn with every hint of the given topics (every topic when
// none is given), one at a time, in the order they entered the bus, on a
// goroutine of its own: fn may take its time without holding up
// publishers, and may call the bus. cancel stops the delivery: fn is not
// called after cancel returns, except for a call already running.
func (b *Bus) Subscribe(fn func(Payload), topics ...string) (cancel func()) {
	if b == nil {
		return func() {}
	}
	s := &subscriber{fn: fn, wake: make(chan struct{}, 1), stop: make(chan struct{})}
	if len(topics) > 0 {
		s.topics = map[string]bool{}
		for _, t := range topics {
			s.topics[t] = true
		}
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return func() {}
	}
	b.subs = append(b.subs, s)
	b.mu.Unlock()
	go s.run()
	return func() {
		b.mu.Lock()
		b.subs = slices.DeleteFunc(b.subs, func(x *subscriber) bool { return x == s })
		b.mu.Unlock()
		s.cancel()
	}
}

// Flush ends the open windows of the gathered topics at once (their hints
// go out now) and waits until every subscriber has handled every hint
// published before the call, or until ctx ends. A subscriber cancelled
// meanwhile is not waited for.
func (b *Bus) Flush(ctx context.Context) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	open := slices.SortedFunc(maps.Values(b.batches), func(x, y *batch) int { return cmp.Compare(x.seq, y.seq) })
	for _, bt := range open {
		b.sendLocked(bt)
	}
	marks := make([]chan struct{}, 0, len(b.subs))
	for _, s := range b.subs {
		mark := make(chan struct{})
		s.push(item{reached: mark})
		marks = append(marks, mark)
	}
	b.mu.Unlock()
	for _, mark := range marks {
		select {
		case <-mark:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Dropped returns how many hints subscribers lost by falling more than
// [MaxQueued] hints behind.
func (b *Bus) Dropped() uint64 {
	if b == nil {
		return 0
	}
	return b.dropped.Load()
}

// Close ends every subscription and drops the hints still gathered or
// queued; later hints are dropped. It is idempotent.
func (b *Bus) Close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	for _, bt := range b.batches {
		bt.timer.Stop()
	}
	clear(b.batches)
	subs := b.subs
	b.subs = nil
	b.mu.Unlock()
	for _, s := range subs {
		s.cancel()
	}
}

// closeWindow sends the hints of bt when its window ends (unless Flush or
// Close took care of it already).
func (b *Bus) closeWindow(bt *batch) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.batches[bt.topic] == bt {
		b.sendLocked(bt)
	}
}

// sendLocked closes the window of bt and delivers its hints (b.mu held).
func (b *Bus) sendLocked(bt *batch) {
	bt.timer.Stop()
	delete(b.batches, bt.topic)
	for _, p := range bt.out() {
		b.deliverLocked(p)
	}
}

// deliverLocked queues p for every subscriber of its topic (b.mu held, so
// every subscriber sees the hints in the same order).
func (b *Bus) deliverLocked(p Payload) {
	topic := p.Topic()
	for _, s := range b.subs {
		if s.wants(topic) && s.push(item{p: p}) {
			b.dropped.Add(1)
		}
	}
}

// batch holds the hints of one window of a gathered topic (guarded by
// Bus.mu).
type batch struct {
	topic string
	g     gathering
	seq   uint64
	timer *time.Timer
	seen  []Payload // distinct hints, or the one merged hint
}

// add records p in the window.
func (bt *batch) add(p Payload) {
	if k, ok := p.(keyedMerger); ok {
		for i, q := range bt.seen {
			if q.(keyedMerger).gatherKey() == k.gatherKey() {
				bt.seen[i] = q.(keyedMerger).merge(p)
				return
			}
		}
		bt.seen = append(bt.seen, p)
		return
	}
	if _, ok := p.(merger); ok {
		if len(bt.seen) == 0 {
			bt.seen = []Payload{p}
		} else {
			bt.seen[0] = bt.seen[0].(merger).merge(p)
		}
		return
	}
	if len(bt.seen) <= bt.g.max && !slices.Contains(bt.seen, p) {
		bt.seen = append(bt.seen, p)
	}
}

// out returns the hints the window sends: each distinct hint once, or the
// topic's "re-read everything" hint when more than its maximum changed.
func (bt *batch) out() []Payload {
	if bt.g.all != nil && len(bt.seen) > bt.g.max {
		return []Payload{bt.g.all}
	}
	return bt.seen
}

// item is a queued hint, or the mark of a Flush (p nil, reached closed
// when the subscriber gets there).
type item struct {
	p       Payload
	reached chan struct{}
}

// subscriber is one subscription: a bounded queue and the goroutine that
// empties it into fn.
type subscriber struct {
	fn     func(Payload)
	topics map[string]bool // nil: every topic
	wake   chan struct{}
	stop   chan struct{}

	mu      sync.Mutex
	queue   []item
	hints   int // the hints in queue (Flush marks are not counted)
	stopped bool
}

func (s *subscriber) wants(topic string) bool { return s.topics == nil || s.topics[topic] }

// push queues it and wakes the goroutine. It reports whether the oldest
// queued hint was dropped to make room.
func (s *subscriber) push(it item) (dropped bool) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		if it.reached != nil {
			close(it.reached)
		}
		return false
	}
	if it.p != nil {
		if s.hints >= MaxQueued {
			i := slices.IndexFunc(s.queue, func(q item) bool { return q.p != nil })
			s.queue = slices.Delete(s.queue, i, i+1)
			s.hints--
			dropped = true
		}
		s.hints++
	}
	s.queue = append(s.queue, it)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return dropped
}

// next takes the oldest queued item; false when there is none or the
// subscription ended.
func (s *subscriber) next() (item, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || len(s.queue) == 0 {
		return item{}, false
	}
	it := s.queue[0]
	s.queue[0] = item{}
	s.queue = s.queue[1:]
	if it.p != nil {
		s.hints--
	}
	return it, true
}

// run delivers the queue to fn until the subscription ends.
func (s *subscriber) run() {
	for {
		select {
		case <-s.stop:
			return
		case <-s.wake:
		}
		for {
			it, ok := s.next()
			if !ok {
				break
			}
			if it.reached != nil {
				close(it.reached)
				continue
			}
			s.fn(it.p)
		}
	}
}

// cancel ends the subscription: the queue is dropped and the Flush marks in
// it are released.
func (s *subscriber) cancel() {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return
	}
	s.stopped = true
	queue := s.queue
	s.queue, s.hints = nil, 0
	s.mu.Unlock()
	close(s.stop)
	for _, it := range queue {
		if it.reached != nil {
			close(it.reached)
		}
	}
}
