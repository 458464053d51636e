package browser

// ring is a bounded log: the newest size entries, each with a sequence
// number so that an entry can be updated while it is still held.
type ring[T any] struct {
	buf  []T
	next int // sequence of the next entry (total pushed)
}

func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, size)} }

// push adds e, dropping the oldest entry when full, and returns e's
// sequence number.
func (r *ring[T]) push(e T) int {
	seq := r.next
	r.buf[seq%len(r.buf)] = e
	r.next++
	return seq
}

// update changes the entry with sequence seq if it is still held.
func (r *ring[T]) update(seq int, f func(*T)) {
	if seq < r.next-len(r.buf) || seq >= r.next {
		return
	}
	f(&r.buf[seq%len(r.buf)])
}

// last returns up to n of the newest entries, oldest first (n <= 0: all).
func (r *ring[T]) last(n int) []T {
	held := min(r.next, len(r.buf))
	if n <= 0 || n > held {
		n = held
	}
	out := make([]T, 0, n)
	for seq := r.next - n; seq < r.next; seq++ {
		out = append(out, r.buf[seq%len(r.buf)])
	}
	return out
}
