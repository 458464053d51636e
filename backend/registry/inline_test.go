package registry

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// goid returns the current goroutine's id, from its stack header.
func goid() string {
	var b [64]byte
	s := string(b[:runtime.Stack(b[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	return s[:strings.IndexByte(s, ' ')]
}

type inlineIn struct {
	Spin int  `json:"spin,omitempty"` // milliseconds of busy work
	Wait bool `json:"wait,omitempty"` // not inline
}

// registerInline registers "inline": inline unless wait is set; it records
// the goroutine it ran on, busy-spins spin ms (ignoring its context, as
// an inline handler may) and emits one log event when spin is set.
func registerInline(r *Registry, ranOn *atomic.Value, caps ...protocol.Capability) {
	if len(caps) == 0 {
		caps = protocol.ReadOnly()
	}
	Register(r, Tool{Name: "inline", Description: "Answer at once.", Capabilities: caps,
		Inline: func(args json.RawMessage) bool {
			var in inlineIn
			return json.Unmarshal(args, &in) == nil && !in.Wait
		}},
		func(ctx context.Context, c *Call, in inlineIn) (string, error) {
			ranOn.Store(goid())
			if in.Spin > 0 {
				c.Log(protocol.LevelInfo, "spinning")
				for end := time.Now().Add(time.Duration(in.Spin) * time.Millisecond); time.Now().Before(end); {
				}
			}
			return "pong", nil
		})
}

// An inline handler runs on the caller's goroutine, which is never detached;
// a call that may block is detached before its handler runs in another.
func TestInlineRunsOnCaller(t *testing.T) {
	var audit auditLog
	r := New(Options{Audit: audit.record})
	var ranOn atomic.Value
	registerInline(r, &ranOn)

	var detached atomic.Int32
	me := goid()
	res := r.Call(context.Background(), Request{RequestID: "req_1", ToolName: "inline", Detach: func() { detached.Add(1) }})
	if !res.OK || ranOn.Load() != me || detached.Load() != 0 {
		t.Errorf("inline call: ok=%v ran on %v (caller %s), detached %d; want ok on the caller, not detached",
			res.OK, ranOn.Load(), me, detached.Load())
	}
	var detachedBeforeRun bool
	res = r.Call(context.Background(), Request{RequestID: "req_2", ToolName: "inline", Args: json.RawMessage(`{"wait":true}`),
		Detach: func() { detachedBeforeRun = ranOn.Load() == me; ranOn.Store(""); detached.Add(1) }})
	if !res.OK || ranOn.Load() == me || ranOn.Load() == "" || detached.Load() != 1 || !detachedBeforeRun {
		t.Errorf("blocking call: ok=%v ran on %v (caller %s), detached %d (before run: %v); want another goroutine, detached once first",
			res.OK, ranOn.Load(), me, detached.Load(), detachedBeforeRun)
	}
	if outs := audit.all(); len(outs) != 2 || outs[0].RequestID != "req_1" || !outs[0].Result.OK {
		t.Errorf("audit = %+v, want both calls", outs)
	}
	if n := r.InFlight(); n != 0 {
		t.Errorf("InFlight after inline calls = %d", n)
	}
}

// An inline handler that overruns its timeout gives TIMEOUT, audited once,
// although nothing interrupted it; one that emitted an event says so.
func TestInlineTimeout(t *testing.T) {
	var audit auditLog
	r := New(Options{Audit: audit.record})
	var ranOn atomic.Value
	registerInline(r, &ranOn)
	res := r.Call(context.Background(), Request{ToolName: "inline", Args: json.RawMessage(`{"spin":40}`), Timeout: 10 * time.Millisecond})
	if codeOf(res) != protocol.CodeTimeout || !strings.Contains(messageOf(res), "timed out after 10ms without progress") {
		t.Errorf("overrun inline call = %s %q, want TIMEOUT after 10ms without progress", codeOf(res), messageOf(res))
	}
	if outs := audit.all(); len(outs) != 1 || codeOf(outs[0].Result) != protocol.CodeTimeout {
		t.Errorf("audit = %+v, want one TIMEOUT", outs)
	}
	// Without events the message is the plain one.
	Register(r, Tool{Name: "spin", Description: "Spin quietly.", Capabilities: protocol.ReadOnly(),
		Inline: func(json.RawMessage) bool { return true }},
		func(ctx context.Context, c *Call, _ NoArgs) (string, error) {
			for end := time.Now().Add(30 * time.Millisecond); time.Now().Before(end); {
			}
			return "done", nil
		})
	res = r.Call(context.Background(), Request{ToolName: "spin", Timeout: 10 * time.Millisecond})
	if codeOf(res) != protocol.CodeTimeout || messageOf(res) != `Tool "spin" timed out after 10ms` {
		t.Errorf("quiet overrun = %s %q", codeOf(res), messageOf(res))
	}
	// Within its time it answers.
	if res := r.Call(context.Background(), Request{ToolName: "inline", Args: json.RawMessage(`{"spin":1}`), Timeout: time.Second}); !res.OK {
		t.Errorf("inline call within its timeout = %+v", res.Error)
	}
}

// An inline call cancelled before its handler runs (a cancel frame that
// came first) is CANCELLED; one whose context ends while it runs (a
// shutdown) ends as the context says; a panic is TOOL_FAILED.
func TestInlineCancelShutdownPanic(t *testing.T) {
	var audit auditLog
	r := New(Options{Audit: audit.record})
	var ranOn atomic.Value
	registerInline(r, &ranOn)
	res := r.Call(context.Background(), Request{ToolName: "inline",
		OnStart: func(cancel context.CancelCauseFunc) { cancel(errors.New("cancel frame")) }})
	if codeOf(res) != protocol.CodeCancelled {
		t.Errorf("inline call cancelled at start = %s, want CANCELLED", codeOf(res))
	}

	Register(r, Tool{Name: "stop", Description: "Shut down while running.", Capabilities: protocol.ReadOnly(),
		Inline: func(json.RawMessage) bool { return true }},
		func(ctx context.Context, c *Call, _ NoArgs) (string, error) { r.BeginShutdown(); return "late", nil })
	Register(r, Tool{Name: "boom", Description: "Panic.", Capabilities: protocol.ReadOnly(),
		Inline: func(json.RawMessage) bool { return true }},
		func(ctx context.Context, c *Call, _ NoArgs) (string, error) { panic("boom") })
	if res := r.Call(context.Background(), Request{ToolName: "boom"}); codeOf(res) != protocol.CodeToolFailed || !strings.Contains(messageOf(res), "panicked") {
		t.Errorf("panicking inline call = %s %q, want TOOL_FAILED", codeOf(res), messageOf(res))
	}
	if res := r.Call(context.Background(), Request{ToolName: "stop"}); codeOf(res) != protocol.CodeRuntimeShuttingDown {
		t.Errorf("inline call during which the runtime shut down = %s, want RUNTIME_SHUTTING_DOWN", codeOf(res))
	}
	if outs := audit.all(); len(outs) != 3 {
		t.Errorf("%d audit outcomes, want 3", len(outs))
	}
	if n := r.InFlight(); n != 0 {
		t.Errorf("InFlight = %d", n)
	}
}

// Steps that may wait detach first, even for an inline tool: admission of
// a tool that changes something, and an authorizer that cannot decide at
// once. A quick authorizer's answer does not.
func TestInlineDetachesBeforeWaiting(t *testing.T) {
	var ranOn atomic.Value
	var detached atomic.Int32
	var admittedDetached, authDetached bool
	r := New(Options{
		Admit: func(context.Context, protocol.ToolDescriptor) error {
			admittedDetached = detached.Load() == 1
			return nil
		},
	})
	registerInline(r, &ranOn, protocol.CapWritesFiles)
	if res := r.Call(context.Background(), Request{ToolName: "inline", Detach: func() { detached.Add(1) }}); !res.OK || !admittedDetached || detached.Load() != 1 {
		t.Errorf("admitted inline call: ok=%v detached %d (before admission: %v), want detached once before admission", res.OK, detached.Load(), admittedDetached)
	}

	detached.Store(0)
	r = New(Options{Authorizer: authFunc(func(context.Context, AuthRequest) error {
		authDetached = detached.Load() == 1
		return nil
	})})
	registerInline(r, &ranOn)
	if res := r.Call(context.Background(), Request{ToolName: "inline", Detach: func() { detached.Add(1) }}); !res.OK || !authDetached || detached.Load() != 1 {
		t.Errorf("slowly authorized inline call: ok=%v detached %d (before asking: %v)", res.OK, detached.Load(), authDetached)
	}

	detached.Store(0)
	q := &quickAuth{now: map[string]error{"inline": nil}}
	r = New(Options{Authorizer: q})
	registerInline(r, &ranOn)
	if res := r.Call(context.Background(), Request{ToolName: "inline", Detach: func() { detached.Add(1) }}); !res.OK || detached.Load() != 0 {
		t.Errorf("quickly authorized inline call: ok=%v detached %d, want 0", res.OK, detached.Load())
	}
}
