package registry

import (
	"fmt"
	"sync/atomic"
	"time"
)

// timeoutError is the cause of a call's context when its time ran out. It
// matches errCallTimeout and carries the message of the TIMEOUT result.
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string        { return e.msg }
func (e *timeoutError) Is(target error) bool { return target == errCallTimeout }

// keepAlive ends a running call when it has been quiet for its timeout:
// every event the tool emits (progress, partial text, a log line) restarts
// the clock, so a long clone, build or agent turn that shows progress is not
// killed at 30 s; the hard cap ends it in any case. Touching costs one
// atomic store: the timer is re-armed lazily, when it fires.
type keepAlive struct {
	name    string
	timeout time.Duration
	begun   time.Time
	hard    time.Time // the call never runs past this

	last     atomic.Int64 // UnixNano of the last event
	extended bool         // re-armed at least once (only expire, serially, uses it)
	t        *time.Timer
	fire     func(cause error)
}

// start arms the timer of a call of tool name; fire is called once, with a
// *timeoutError, when the call must end.
func (k *keepAlive) start(name string, timeout, hardCap time.Duration, fire func(cause error)) {
	now := time.Now()
	k.name, k.timeout, k.begun, k.hard, k.fire = name, timeout, now, now.Add(max(hardCap, timeout)), fire
	k.last.Store(now.UnixNano())
	k.t = time.AfterFunc(timeout, k.expire)
}

// touch records a sign of life.
func (k *keepAlive) touch() { k.last.Store(time.Now().UnixNano()) }

// expire re-arms the timer when an event came since it was set, else ends
// the call.
func (k *keepAlive) expire() {
	now := time.Now()
	next := time.Unix(0, k.last.Load()).Add(k.timeout)
	if next.After(k.hard) {
		next = k.hard
	}
	if d := next.Sub(now); d > 0 {
		k.extended = true
		k.t.Reset(d)
		return
	}
	ran := now.Sub(k.begun).Milliseconds()
	msg := fmt.Sprintf("Tool %q timed out after %dms", k.name, k.timeout.Milliseconds())
	switch {
	case !k.extended:
	case !now.Before(k.hard):
		msg = fmt.Sprintf("Tool %q timed out after %dms, its limit, although it was still reporting progress", k.name, ran)
	default:
		msg += fmt.Sprintf(" without progress (it ran %dms)", ran)
	}
	k.fire(&timeoutError{msg: msg})
}

// stop disarms the timer.
func (k *keepAlive) stop() { k.t.Stop() }
