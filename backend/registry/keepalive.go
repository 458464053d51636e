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
	timed    bool         // arm was called (set before the timer exists)
	t        *time.Timer
	fire     func(cause error)
}

// begin starts the clock of a call of tool name.
func (k *keepAlive) begin(name string, timeout, hardCap time.Duration) {
	now := time.Now()
	k.name, k.timeout, k.begun, k.hard = name, timeout, now, now.Add(max(hardCap, timeout))
	k.last.Store(now.UnixNano())
}

// arm starts the timer; fire is called once, with a *timeoutError, when the
// call must end. A call whose handler runs inline has no timer: it asks
// check when the handler returns.
func (k *keepAlive) arm(fire func(cause error)) {
	k.fire, k.timed = fire, true
	k.t = time.AfterFunc(k.timeout, k.expire)
}

// touch records a sign of life.
func (k *keepAlive) touch() { k.last.Store(time.Now().UnixNano()) }

// check reports, at now, whether the call is out of time (over), with the
// message of its TIMEOUT result, or else when the timer should fire next.
func (k *keepAlive) check(now time.Time) (msg string, over bool) {
	if _, ok := k.nextFire(now); ok {
		return "", false
	}
	ran := now.Sub(k.begun).Milliseconds()
	msg = fmt.Sprintf("Tool %q timed out after %dms", k.name, k.timeout.Milliseconds())
	// Without a timer (an inline handler) the timeout was extended when an
	// event came after the start.
	extended := k.extended || !k.timed && time.Unix(0, k.last.Load()).After(k.begun)
	switch {
	case !extended:
	case !now.Before(k.hard):
		msg = fmt.Sprintf("Tool %q timed out after %dms, its limit, although it was still reporting progress", k.name, ran)
	default:
		msg += fmt.Sprintf(" without progress (it ran %dms)", ran)
	}
	return msg, true
}

// nextFire is how long until the call runs out of time, when it has not.
func (k *keepAlive) nextFire(now time.Time) (time.Duration, bool) {
	next := time.Unix(0, k.last.Load()).Add(k.timeout)
	if next.After(k.hard) {
		next = k.hard
	}
	d := next.Sub(now)
	return d, d > 0
}

// expire re-arms the timer when an event came since it was set, else ends
// the call.
func (k *keepAlive) expire() {
	now := time.Now()
	if d, ok := k.nextFire(now); ok {
		k.extended = true
		k.t.Reset(d)
		return
	}
	msg, _ := k.check(now)
	k.fire(&timeoutError{msg: msg})
}

// stop disarms the timer.
func (k *keepAlive) stop() { k.t.Stop() }
