package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// authFunc adapts a function to Authorizer.
type authFunc func(ctx context.Context, req AuthRequest) error

func (f authFunc) Authorize(ctx context.Context, req AuthRequest) error { return f(ctx, req) }

// deny is an authorizer that refuses everything and counts its calls.
type deny struct{ calls atomic.Int32 }

func (d *deny) Authorize(context.Context, AuthRequest) error {
	d.calls.Add(1)
	return protocol.Errorf(protocol.CodePermissionDenied, "Permission denied for tool %q", "x")
}

type writeIn struct {
	Path    string `json:"path"`
	Content string `json:"content,omitempty" default:"hello"`
}

func TestCallOrder(t *testing.T) {
	tests := []struct {
		name     string
		shutdown bool
		tool     string
		args     string
		want     protocol.ErrorCode
	}{
		{"shutdown before unknown tool", true, "nope", `[]`, protocol.CodeRuntimeShuttingDown},
		{"shutdown before validation", true, "write", `{"bad":1}`, protocol.CodeRuntimeShuttingDown},
		{"unknown tool before validation", false, "nope", `[]`, protocol.CodeUnknownTool},
		{"validation before permission", false, "write", `{"bad":1}`, protocol.CodeValidation},
		{"permission before running", false, "write", `{"path":"/tmp/x"}`, protocol.CodePermissionDenied},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			auth := &deny{}
			var audit auditLog
			r := New(Options{Authorizer: auth, Audit: audit.record})
			var ran atomic.Bool
			Register(r, Tool{Name: "write", Description: "Write.", Capabilities: []protocol.Capability{protocol.CapWritesFiles}},
				func(context.Context, *Call, writeIn) (any, error) { ran.Store(true); return nil, nil })
			if tt.shutdown {
				r.BeginShutdown()
			}
			res := r.Call(context.Background(), Request{ToolName: tt.tool, Args: json.RawMessage(tt.args)})
			if got := codeOf(res); got != tt.want {
				t.Errorf("Call(%s, %s) = %s (%s), want %s", tt.tool, tt.args, got, messageOf(res), tt.want)
			}
			if ran.Load() {
				t.Errorf("Call(%s, %s) ran the tool, want it not run", tt.tool, tt.args)
			}
			wantAuthCalls := int32(0)
			if tt.want == protocol.CodePermissionDenied {
				wantAuthCalls = 1
			}
			if got := auth.calls.Load(); got != wantAuthCalls {
				t.Errorf("Call(%s, %s) authorizer calls = %d, want %d", tt.tool, tt.args, got, wantAuthCalls)
			}
			if got := audit.all(); len(got) != 1 || codeOf(got[0].Result) != tt.want {
				t.Errorf("Call(%s, %s) audit = %+v, want one outcome with %s", tt.tool, tt.args, got, tt.want)
			}
		})
	}
}

func TestShutdownMessage(t *testing.T) {
	r := New(Options{})
	registerEcho(r)
	if r.ShuttingDown() {
		t.Errorf("ShuttingDown() before BeginShutdown = true, want false")
	}
	r.BeginShutdown()
	r.BeginShutdown() // idempotent
	if !r.ShuttingDown() {
		t.Errorf("ShuttingDown() after BeginShutdown = false, want true")
	}
	res := r.Call(context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"hi"}`)})
	want := `Runtime is shutting down; tool "echo" was not run.`
	if codeOf(res) != protocol.CodeRuntimeShuttingDown || messageOf(res) != want {
		t.Errorf("Call(echo) after shutdown = %s %q, want %s %q", codeOf(res), messageOf(res), protocol.CodeRuntimeShuttingDown, want)
	}
}

func TestAuthorizerDeny(t *testing.T) {
	var audit auditLog
	var seen AuthRequest
	auth := authFunc(func(_ context.Context, req AuthRequest) error {
		seen = req
		return &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: "no grant for writes-files", Details: map[string]any{"capability": "writes-files"}}
	})
	r := New(Options{Authorizer: auth, Audit: audit.record})
	var ran atomic.Bool
	caps := []protocol.Capability{protocol.CapWritesFiles}
	Register(r, Tool{Name: "write", Description: "Write a file.", Capabilities: caps},
		func(context.Context, *Call, writeIn) (any, error) { ran.Store(true); return nil, nil })

	client := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "sess_1", Cwd: "/w"}
	peer := &Peer{PID: 42, UID: 1000}
	res := r.Call(context.Background(), Request{RequestID: "req_1", ToolName: "write", Args: json.RawMessage(`{"path":"/tmp/x"}`), Client: client, Peer: peer})

	if codeOf(res) != protocol.CodePermissionDenied || messageOf(res) != "no grant for writes-files" {
		t.Errorf("Call(write) = %s %q, want %s %q", codeOf(res), messageOf(res), protocol.CodePermissionDenied, "no grant for writes-files")
	}
	if got := mustJSON(t, res.Error.Details); got != `{"capability":"writes-files"}` {
		t.Errorf("Call(write) details = %s, want %s", got, `{"capability":"writes-files"}`)
	}
	if ran.Load() {
		t.Errorf("Call(write) ran the denied tool")
	}
	// The authorizer saw the tool, the caller and the completed arguments.
	if seen.Tool.Name != "write" || !reflect.DeepEqual(seen.Tool.Capabilities, caps) || seen.Client != client || seen.Peer != peer {
		t.Errorf("AuthRequest = %+v, want tool write with %v, client %+v, peer %+v", seen, caps, client, peer)
	}
	if got, want := string(seen.Args), `{"content":"hello","path":"/tmp/x"}`; got != want {
		t.Errorf("AuthRequest.Args = %s, want %s", got, want)
	}
	outs := audit.all()
	if len(outs) != 1 {
		t.Fatalf("audit outcomes = %d, want 1", len(outs))
	}
	o := outs[0]
	if o.RequestID != "req_1" || o.ToolName != "write" || codeOf(o.Result) != protocol.CodePermissionDenied ||
		!reflect.DeepEqual(o.Capabilities, caps) || o.Client != client {
		t.Errorf("audit outcome = %+v, want req_1/write/%v/PERMISSION_DENIED", o, caps)
	}
}

func TestAuthorizerErrors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantCode protocol.ErrorCode
		wantMsg  string
	}{
		{"plain error", errors.New("approval dialog closed"), protocol.CodePermissionDenied, "approval dialog closed"},
		{"wrapped tool error", fmt.Errorf("check grants: %w", protocol.Errorf(protocol.CodePermissionDenied, "revoked")), protocol.CodePermissionDenied, "revoked"},
		{"other code kept", protocol.Errorf(protocol.CodeValidation, "bad scope"), protocol.CodeValidation, "bad scope"},
		{"invalid code", &protocol.ToolError{Code: "NOPE", Message: "weird"}, protocol.CodePermissionDenied, "weird"},
		{"allowed", nil, "", ""},
	}
	for _, tt := range tests {
		r := New(Options{Authorizer: authFunc(func(context.Context, AuthRequest) error { return tt.err })})
		registerEcho(r)
		res := r.Call(context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		if codeOf(res) != tt.wantCode || messageOf(res) != tt.wantMsg {
			t.Errorf("Authorize returning %v: Call = %s %q, want %s %q", tt.err, codeOf(res), messageOf(res), tt.wantCode, tt.wantMsg)
		}
	}
}

func TestAuthorizerPanicDenies(t *testing.T) {
	r := New(Options{Authorizer: authFunc(func(context.Context, AuthRequest) error { panic("boom") })})
	registerEcho(r)
	res := r.Call(context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"x"}`)})
	if codeOf(res) != protocol.CodePermissionDenied || messageOf(res) != "authorizer panicked: boom" {
		t.Errorf("Call with a panicking authorizer = %s %q, want PERMISSION_DENIED %q", codeOf(res), messageOf(res), "authorizer panicked: boom")
	}
}

func TestAuthorizerWaitCancelled(t *testing.T) {
	tests := []struct {
		name    string
		observe bool // whether the authorizer returns when ctx ends
	}{
		{"authorizer observes ctx", true},
		{"authorizer ignores ctx", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			waiting := make(chan struct{})
			release := make(chan struct{})
			defer close(release)
			var audit auditLog
			var events eventLog
			auth := authFunc(func(ctx context.Context, req AuthRequest) error {
				req.Emit(protocol.Log(protocol.LevelInfo, "waiting for approval"))
				close(waiting)
				if tt.observe {
					<-ctx.Done()
					return ctx.Err()
				}
				<-release
				return nil
			})
			r := New(Options{Authorizer: auth, Audit: audit.record})
			var ran atomic.Bool
			Register(r, Tool{Name: "write", Description: "Write.", Capabilities: []protocol.Capability{protocol.CapWritesFiles}, Timeout: 10 * time.Millisecond},
				func(context.Context, *Call, writeIn) (any, error) { ran.Store(true); return nil, nil })

			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-waiting; time.Sleep(30 * time.Millisecond); cancel() }()
			start := time.Now()
			res := r.Call(ctx, Request{ToolName: "write", Args: json.RawMessage(`{"path":"p"}`), Emit: events.emit})
			events.markReturned()
			if elapsed := time.Since(start); elapsed > 2*time.Second {
				t.Errorf("Call took %v after cancel, want prompt", elapsed)
			}
			want := `Tool "write" was cancelled`
			if codeOf(res) != protocol.CodeCancelled || messageOf(res) != want {
				t.Errorf("Call cancelled while authorizing = %s %q, want %s %q", codeOf(res), messageOf(res), protocol.CodeCancelled, want)
			}
			if ran.Load() {
				t.Errorf("Call cancelled while authorizing ran the tool")
			}
			evs, late := events.snapshot()
			if len(evs) != 1 || evs[0].Message != "waiting for approval" || late != 0 {
				t.Errorf("events = %+v (late %d), want the one waiting event", evs, late)
			}
			if got := audit.all(); len(got) != 1 || codeOf(got[0].Result) != protocol.CodeCancelled {
				t.Errorf("audit = %+v, want one CANCELLED outcome", got)
			}
		})
	}
}

func TestAuthorizerNotSubjectToToolTimeout(t *testing.T) {
	auth := authFunc(func(context.Context, AuthRequest) error {
		time.Sleep(100 * time.Millisecond) // longer than the tool timeout
		return nil
	})
	r := New(Options{Authorizer: auth})
	Register(r, Tool{Name: "quick", Description: "Quick.", Capabilities: readOnly, Timeout: 20 * time.Millisecond},
		func(context.Context, *Call, NoArgs) (string, error) { return "done", nil })
	res := r.Call(context.Background(), Request{ToolName: "quick"})
	if !res.OK || string(res.Content) != `"done"` {
		t.Errorf("Call(quick) after a slow approval = %+v, want ok \"done\"", res)
	}
}

func TestCancelledBeforeRunning(t *testing.T) {
	r := New(Options{})
	var ran atomic.Bool
	Register(r, Tool{Name: "t", Description: "T.", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (any, error) { ran.Store(true); return nil, nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := r.Call(ctx, Request{ToolName: "t"})
	if codeOf(res) != protocol.CodeCancelled || ran.Load() {
		t.Errorf("Call with a cancelled ctx = %s (ran %v), want CANCELLED and not run", codeOf(res), ran.Load())
	}
}

func TestTimeoutPrecedence(t *testing.T) {
	tests := []struct {
		call, tool, def time.Duration
		want            time.Duration
	}{
		{30 * time.Millisecond, 60 * time.Millisecond, 90 * time.Millisecond, 30 * time.Millisecond},
		{0, 60 * time.Millisecond, 90 * time.Millisecond, 60 * time.Millisecond},
		{0, 0, 90 * time.Millisecond, 90 * time.Millisecond},
		{0, 0, 0, protocol.DefaultToolTimeoutMs * time.Millisecond},
		{-time.Second, 0, 0, protocol.DefaultToolTimeoutMs * time.Millisecond},
		{0, 1 << 62, 0, maxTimeout},
	}
	for _, tt := range tests {
		r := New(Options{DefaultTimeout: tt.def})
		e := &entry{tool: Tool{Timeout: tt.tool}}
		if got := r.timeoutFor(e, Request{Timeout: tt.call}); got != tt.want {
			t.Errorf("timeoutFor(call %v, tool %v, default %v) = %v, want %v", tt.call, tt.tool, tt.def, got, tt.want)
		}
	}
	// And the message names the timeout that applied.
	for _, tt := range tests[:3] {
		r := New(Options{DefaultTimeout: tt.def})
		Register(r, Tool{Name: "block", Description: "Block.", Capabilities: readOnly, Timeout: tt.tool},
			func(ctx context.Context, _ *Call, _ NoArgs) (any, error) { <-ctx.Done(); return nil, ctx.Err() })
		res := r.Call(context.Background(), Request{ToolName: "block", Timeout: tt.call})
		want := fmt.Sprintf(`Tool "block" timed out after %dms`, tt.want.Milliseconds())
		if codeOf(res) != protocol.CodeTimeout || messageOf(res) != want {
			t.Errorf("Call(block; call %v, tool %v, default %v) = %s %q, want %s %q", tt.call, tt.tool, tt.def, codeOf(res), messageOf(res), protocol.CodeTimeout, want)
		}
	}
}

func TestTimeoutOfToolIgnoringContext(t *testing.T) {
	t.Parallel()
	var audit auditLog
	r := New(Options{Audit: audit.record})
	finished := make(chan struct{})
	Register(r, Tool{Name: "sleepy", Description: "Sleeps.", Capabilities: readOnly},
		func(_ context.Context, call *Call, _ NoArgs) (string, error) {
			defer close(finished)
			call.Progress("starting", 0)
			time.Sleep(5 * time.Second) // ignores ctx
			call.Log(protocol.LevelInfo, "late")
			call.PartialText("late")
			return "late result", nil
		})
	var events eventLog
	start := time.Now()
	res := r.Call(context.Background(), Request{ToolName: "sleepy", Timeout: 100 * time.Millisecond, Emit: events.emit})
	events.markReturned()
	elapsed := time.Since(start)
	if elapsed < 100*time.Millisecond || elapsed > time.Second {
		t.Errorf("Call(sleepy) returned after %v, want about 100ms", elapsed)
	}
	// The progress event at the start may have extended the deadline by a
	// little: the message then goes on with " without progress (…)".
	want := `Tool "sleepy" timed out after 100ms`
	if codeOf(res) != protocol.CodeTimeout || !strings.HasPrefix(messageOf(res), want) {
		t.Errorf("Call(sleepy) = %s %q, want %s %q", codeOf(res), messageOf(res), protocol.CodeTimeout, want)
	}
	if got := r.InFlight(); got != 1 {
		t.Errorf("InFlight() while the abandoned handler sleeps = %d, want 1", got)
	}
	if got := audit.all(); len(got) != 1 || codeOf(got[0].Result) != protocol.CodeTimeout {
		t.Errorf("audit = %+v, want one TIMEOUT outcome", got)
	}

	<-finished
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := r.WaitIdle(ctx); err != nil {
		t.Fatalf("WaitIdle() = %v, want nil", err)
	}
	if got := r.InFlight(); got != 0 {
		t.Errorf("InFlight() after the handler returned = %d, want 0", got)
	}
	evs, late := events.snapshot()
	if late != 0 || len(evs) != 1 || evs[0].Message != "starting" {
		t.Errorf("events = %v with %d after return, want only \"starting\" and none late", summarize(evs), late)
	}
	if got := audit.all(); len(got) != 1 {
		t.Errorf("audit outcomes after the late result = %d, want still 1", len(got))
	}
}

func TestLateEventsDropped(t *testing.T) {
	// A deterministic variant: the handler keeps emitting after the timeout
	// until it is released.
	r := New(Options{})
	release := make(chan struct{})
	emitted := make(chan struct{})
	Register(r, Tool{Name: "chatty", Description: "Chatty.", Capabilities: readOnly},
		func(_ context.Context, call *Call, _ NoArgs) (string, error) {
			call.PartialText("early")
			<-release
			for i := range 100 {
				call.Progress("late", float64(i)/100)
			}
			close(emitted)
			return "late", nil
		})
	var events eventLog
	res := r.Call(context.Background(), Request{ToolName: "chatty", Timeout: 20 * time.Millisecond, Emit: events.emit})
	events.markReturned()
	if codeOf(res) != protocol.CodeTimeout {
		t.Errorf("Call(chatty) = %s, want TIMEOUT", codeOf(res))
	}
	close(release)
	<-emitted
	if err := r.WaitIdle(context.Background()); err != nil {
		t.Fatalf("WaitIdle() = %v", err)
	}
	evs, late := events.snapshot()
	if late != 0 || len(evs) != 1 || evs[0].Text != "early" {
		t.Errorf("events = %v with %d late, want only \"early\"", summarize(evs), late)
	}
}

func TestCallerCancel(t *testing.T) {
	tests := []struct {
		name    string
		observe bool
	}{
		{"handler observes ctx", true},
		{"handler ignores ctx", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{})
			release := make(chan struct{})
			defer close(release)
			started := make(chan struct{})
			Register(r, Tool{Name: "stream", Description: "Streams.", Capabilities: readOnly, Timeout: time.Hour},
				func(ctx context.Context, _ *Call, _ NoArgs) (any, error) {
					close(started)
					if tt.observe {
						<-ctx.Done()
						return nil, ctx.Err()
					}
					<-release
					return "late", nil
				})
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-started; cancel() }()
			res := r.Call(ctx, Request{ToolName: "stream"})
			want := `Tool "stream" was cancelled`
			if codeOf(res) != protocol.CodeCancelled || messageOf(res) != want {
				t.Errorf("Call(stream) cancelled = %s %q, want %s %q", codeOf(res), messageOf(res), protocol.CodeCancelled, want)
			}
		})
	}
}

func TestShutdownCancelsInFlight(t *testing.T) {
	r := New(Options{})
	started := make(chan struct{})
	var sawCancel atomic.Bool
	Register(r, Tool{Name: "logs", Description: "Attach logs.", Capabilities: readOnly, Timeout: time.Hour},
		func(ctx context.Context, _ *Call, _ NoArgs) (any, error) {
			close(started)
			<-ctx.Done()
			sawCancel.Store(true)
			return nil, ctx.Err()
		})
	go func() { <-started; r.BeginShutdown() }()
	start := time.Now()
	res := r.Call(context.Background(), Request{ToolName: "logs"})
	want := `Runtime is shutting down; tool "logs" was cancelled.`
	if codeOf(res) != protocol.CodeRuntimeShuttingDown || messageOf(res) != want {
		t.Errorf("Call(logs) during shutdown = %s %q, want %s %q", codeOf(res), messageOf(res), protocol.CodeRuntimeShuttingDown, want)
	}
	if elapsed := time.Since(start); elapsed > time.Second {
		t.Errorf("Call(logs) took %v to resolve after shutdown, want < 1s", elapsed)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := r.WaitIdle(ctx); err != nil || !sawCancel.Load() {
		t.Errorf("WaitIdle() = %v, handler saw cancel = %v; want nil, true", err, sawCancel.Load())
	}
}

func TestHandlerFailures(t *testing.T) {
	toolErr := &protocol.ToolError{Code: protocol.CodeValidation, Message: "unknown collection \"x\"", Details: map[string]string{"collection": "x"}}
	tests := []struct {
		name        string
		handler     func(ctx context.Context) (any, error)
		wantCode    protocol.ErrorCode
		wantMsg     string
		wantDetails string
	}{
		{"tool error keeps its code", func(context.Context) (any, error) { return nil, toolErr },
			protocol.CodeValidation, `unknown collection "x"`, `{"collection":"x"}`},
		{"wrapped tool error keeps its code", func(context.Context) (any, error) { return nil, fmt.Errorf("open store: %w", toolErr) },
			protocol.CodeValidation, `unknown collection "x"`, `{"collection":"x"}`},
		{"tool error with a result", func(context.Context) (any, error) {
			return "ignored", protocol.Errorf(protocol.CodePermissionDenied, "tab owned by another session")
		}, protocol.CodePermissionDenied, "tab owned by another session", "null"},
		{"tool error with an invalid code", func(context.Context) (any, error) { return nil, &protocol.ToolError{Code: "WHAT", Message: "m"} },
			protocol.CodeToolFailed, "WHAT: m", "null"},
		{"plain error", func(context.Context) (any, error) { return nil, errors.New("element not found: el_9") },
			protocol.CodeToolFailed, "element not found: el_9", "null"},
		{"panic", func(context.Context) (any, error) { panic("boom") },
			protocol.CodeToolFailed, "tool panicked: boom", "null"},
		{"panic with error", func(context.Context) (any, error) { var m map[string]int; m["x"] = 1; return nil, nil },
			protocol.CodeToolFailed, "tool panicked: assignment to entry in nil map", "null"},
		{"own deadline", func(context.Context) (any, error) { return nil, fmt.Errorf("http get: %w", context.DeadlineExceeded) },
			protocol.CodeToolFailed, `http get: context deadline exceeded`, "null"},
		{"own cancel", func(context.Context) (any, error) { return nil, context.Canceled },
			protocol.CodeToolFailed, `context canceled`, "null"},
		{"returns ctx error at deadline", func(ctx context.Context) (any, error) { <-ctx.Done(); return nil, ctx.Err() },
			protocol.CodeTimeout, `Tool "f" timed out after 30ms`, "null"},
	}
	for _, tt := range tests {
		var audit auditLog
		r := New(Options{Audit: audit.record})
		Register(r, Tool{Name: "f", Description: "F.", Capabilities: readOnly, Timeout: 30 * time.Millisecond},
			func(ctx context.Context, _ *Call, _ NoArgs) (any, error) { return tt.handler(ctx) })
		res := r.Call(context.Background(), Request{ToolName: "f"})
		if codeOf(res) != tt.wantCode || messageOf(res) != tt.wantMsg {
			t.Errorf("%s: Call(f) = %s %q, want %s %q", tt.name, codeOf(res), messageOf(res), tt.wantCode, tt.wantMsg)
			continue
		}
		if got := mustJSON(t, res.Error.Details); got != tt.wantDetails {
			t.Errorf("%s: Call(f) details = %s, want %s", tt.name, got, tt.wantDetails)
		}
		if got := audit.all(); len(got) != 1 || codeOf(got[0].Result) != tt.wantCode {
			t.Errorf("%s: audit = %+v, want one %s outcome", tt.name, got, tt.wantCode)
		}
		// A handler returning on cancellation may still be on its way out.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := r.WaitIdle(ctx); err != nil || r.InFlight() != 0 {
			t.Errorf("%s: WaitIdle() = %v, InFlight() = %d, want nil, 0", tt.name, err, r.InFlight())
		}
		cancel()
	}
}

type tabOut struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
}

func TestResultEnvelopes(t *testing.T) {
	explicit := protocol.ToolResult{
		OK:          true,
		Content:     json.RawMessage(`{"files":[]}`),
		Meta:        map[string]any{"truncated": true},
		Diagnostics: []protocol.Diagnostic{{Level: "warn", Message: "large file omitted"}},
	}
	failed := protocol.ErrorResult(protocol.CodeToolFailed, "git not installed", map[string]any{"hint": "install git"})
	failed.Diagnostics = []protocol.Diagnostic{{Level: "error", Message: "exec: git: not found"}}

	r := New(Options{})
	Register(r, Tool{Name: "explicit", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (protocol.ToolResult, error) { return explicit, nil })
	Register(r, Tool{Name: "explicit_fail", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (protocol.ToolResult, error) { return failed, nil })
	Register(r, Tool{Name: "explicit_ptr", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (*protocol.ToolResult, error) { return &explicit, nil })
	Register(r, Tool{Name: "nil_ptr", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (*protocol.ToolResult, error) { return nil, nil })
	Register(r, Tool{Name: "malformed", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (protocol.ToolResult, error) {
			return protocol.ToolResult{OK: false}, nil
		})
	Register(r, Tool{Name: "bad_code", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (protocol.ToolResult, error) {
			return protocol.ErrorResult("NOPE", "odd", nil), nil
		})
	Register(r, Tool{Name: "raw_struct", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (tabOut, error) { return tabOut{ID: "btab_1"}, nil })
	Register(r, Tool{Name: "raw_slice", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) ([]string, error) { return []string{"a", "b"}, nil })
	Register(r, Tool{Name: "raw_nil", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (any, error) { return nil, nil })
	Register(r, Tool{Name: "raw_unserializable", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (any, error) { return func() {}, nil })

	tests := []struct {
		tool string
		want string
	}{
		{"explicit", `{"ok":true,"content":{"files":[]},"meta":{"truncated":true},"diagnostics":[{"level":"warn","message":"large file omitted"}]}`},
		{"explicit_fail", `{"ok":false,"diagnostics":[{"level":"error","message":"exec: git: not found"}],"error":{"code":"TOOL_FAILED","message":"git not installed","details":{"hint":"install git"}}}`},
		{"explicit_ptr", `{"ok":true,"content":{"files":[]},"meta":{"truncated":true},"diagnostics":[{"level":"warn","message":"large file omitted"}]}`},
		{"nil_ptr", `{"ok":true}`},
		{"malformed", `{"ok":false,"error":{"code":"TOOL_FAILED","message":"tool failed without an error"}}`},
		{"bad_code", `{"ok":false,"error":{"code":"TOOL_FAILED","message":"odd (unknown error code \"NOPE\")"}}`},
		{"raw_struct", `{"ok":true,"content":{"id":"btab_1"}}`},
		{"raw_slice", `{"ok":true,"content":["a","b"]}`},
		{"raw_nil", `{"ok":true}`},
		{"raw_unserializable", `{"ok":false,"error":{"code":"TOOL_FAILED","message":"result is not serializable: json: unsupported type: func()"}}`},
	}
	for _, tt := range tests {
		res := r.Call(context.Background(), Request{ToolName: tt.tool})
		if got := mustJSON(t, res); got != tt.want {
			t.Errorf("Call(%s) = %s, want %s", tt.tool, got, tt.want)
		}
	}
	// The explicit envelope comes back unchanged, not re-marshalled.
	if res := r.Call(context.Background(), Request{ToolName: "explicit"}); !reflect.DeepEqual(res, explicit) {
		t.Errorf("Call(explicit) = %+v, want %+v", res, explicit)
	}
}

func TestAuditExactlyOncePerPath(t *testing.T) {
	var audit auditLog
	var allow atomic.Bool
	allow.Store(true)
	auth := authFunc(func(context.Context, AuthRequest) error {
		if allow.Load() {
			return nil
		}
		return protocol.Errorf(protocol.CodePermissionDenied, "denied")
	})
	r := New(Options{Authorizer: auth, Audit: audit.record})
	registerEcho(r)
	Register(r, Tool{Name: "fail", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (any, error) { return nil, errors.New("nope") })
	Register(r, Tool{Name: "boom", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (any, error) { panic("boom") })
	Register(r, Tool{Name: "block", Description: "d", Capabilities: readOnly},
		func(ctx context.Context, _ *Call, _ NoArgs) (any, error) { <-ctx.Done(); return nil, ctx.Err() })

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		req      Request
		deny     bool
		shutdown bool
		want     protocol.ErrorCode
		wantCaps bool
	}{
		{"success", context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"a"}`)}, false, false, "", true},
		{"unknown tool", context.Background(), Request{ToolName: "nope"}, false, false, protocol.CodeUnknownTool, false},
		{"validation", context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{}`)}, false, false, protocol.CodeValidation, true},
		{"denial", context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"a"}`)}, true, false, protocol.CodePermissionDenied, true},
		{"timeout", context.Background(), Request{ToolName: "block", Timeout: 10 * time.Millisecond}, false, false, protocol.CodeTimeout, true},
		{"cancelled", cancelled, Request{ToolName: "block"}, false, false, protocol.CodeCancelled, true},
		{"tool failed", context.Background(), Request{ToolName: "fail"}, false, false, protocol.CodeToolFailed, true},
		{"panic", context.Background(), Request{ToolName: "boom"}, false, false, protocol.CodeToolFailed, true},
		{"shutdown", context.Background(), Request{ToolName: "echo"}, false, true, protocol.CodeRuntimeShuttingDown, true},
	}
	for _, tt := range tests {
		allow.Store(!tt.deny)
		if tt.shutdown {
			r.BeginShutdown()
		}
		before := len(audit.all())
		req := tt.req
		req.RequestID = "req_" + strings.ReplaceAll(tt.name, " ", "_")
		res := r.Call(tt.ctx, req)
		outs := audit.all()[before:] // read right after return: audit is synchronous
		if len(outs) != 1 {
			t.Errorf("%s: audit outcomes = %d, want 1", tt.name, len(outs))
			continue
		}
		o := outs[0]
		if codeOf(res) != tt.want || !reflect.DeepEqual(o.Result, res) {
			t.Errorf("%s: Call = %s, audit result %+v, want %s and the same result", tt.name, codeOf(res), o.Result, tt.want)
		}
		if o.RequestID != req.RequestID || o.ToolName != req.ToolName || o.Started.IsZero() || o.Duration <= 0 {
			t.Errorf("%s: audit outcome = %+v, want request id, tool name, start and duration", tt.name, o)
		}
		if (o.Capabilities != nil) != tt.wantCaps {
			t.Errorf("%s: audit capabilities = %v, want present = %v", tt.name, o.Capabilities, tt.wantCaps)
		}
	}
}

func TestAuditArgs(t *testing.T) {
	var audit auditLog
	r := New(Options{Audit: audit.record})
	Register(r, Tool{Name: "write", Description: "d", Capabilities: []protocol.Capability{protocol.CapWritesFiles}},
		func(context.Context, *Call, writeIn) (any, error) { return nil, nil })
	r.Call(context.Background(), Request{ToolName: "write", Args: json.RawMessage(`{"path":"p"}`)})
	r.Call(context.Background(), Request{ToolName: "write", Args: json.RawMessage(`{"path":"a<b>&c"}`)})
	r.Call(context.Background(), Request{ToolName: "write", Args: json.RawMessage(`{"paht":"p"}`)})
	r.Call(context.Background(), Request{ToolName: "write"})
	r.Call(context.Background(), Request{ToolName: "write", Args: json.RawMessage(`{"path":`)})
	outs := audit.all()
	want := []string{`{"content":"hello","path":"p"}`, `{"content":"hello","path":"a<b>&c"}`, `{"paht":"p"}`, `{}`, `"{\"path\":"`}
	if len(outs) != len(want) {
		t.Fatalf("audit outcomes = %d, want %d", len(outs), len(want))
	}
	for i, o := range outs {
		if string(o.Args) != want[i] {
			t.Errorf("audit[%d].Args = %s, want %s", i, o.Args, want[i])
		}
	}
}

func TestEventsInOrder(t *testing.T) {
	r := New(Options{})
	Register(r, Tool{Name: "events", Description: "d", Capabilities: readOnly},
		func(_ context.Context, call *Call, _ NoArgs) (string, error) {
			call.Progress("start", -1)
			for i := range 50 {
				call.PartialText(fmt.Sprint(i))
			}
			call.Log(protocol.LevelWarn, "careful")
			call.Log("", "default level")
			call.Log("loud", "invalid level dropped")
			call.Emit(protocol.Event{Kind: "bogus"})
			call.Emit(protocol.Event{Kind: protocol.EventArtifact, Name: "no mime, dropped"})
			call.Progress("half", 0.5)
			call.Progress("over", 7)
			call.Artifact("image/png", "shot.png", "/tmp/shot.png")
			return "done", nil
		})
	var events eventLog
	res := r.Call(context.Background(), Request{ToolName: "events", Emit: events.emit})
	events.markReturned()
	if !res.OK {
		t.Fatalf("Call(events) = %+v, want ok", res)
	}
	evs, late := events.snapshot()
	got := summarize(evs)
	want := []string{"progress:start"}
	for i := range 50 {
		want = append(want, "partial_text:"+fmt.Sprint(i))
	}
	want = append(want, "log:carefulwarn", "log:default levelinfo", "progress:half@0.5", "progress:over@1",
		"artifact:image/png/tmp/shot.png")
	if strings.Join(got, "|") != strings.Join(want, "|") || late != 0 {
		t.Errorf("events = %v (late %d), want %v", got, late, want)
	}
}

func TestConcurrentEmits(t *testing.T) {
	r := New(Options{})
	Register(r, Tool{Name: "fan", Description: "d", Capabilities: readOnly},
		func(_ context.Context, call *Call, _ NoArgs) (string, error) {
			var wg sync.WaitGroup
			for g := range 8 {
				wg.Go(func() {
					for i := range 100 {
						call.Log(protocol.LevelDebug, fmt.Sprintf("%d-%d", g, i))
					}
				})
			}
			wg.Wait()
			return "done", nil
		})
	var mu sync.Mutex
	inEmit := false
	overlaps := 0
	count := 0
	emit := func(protocol.Event) {
		mu.Lock()
		if inEmit {
			overlaps++
		}
		inEmit = true
		count++
		mu.Unlock()
		time.Sleep(time.Microsecond)
		mu.Lock()
		inEmit = false
		mu.Unlock()
	}
	res := r.Call(context.Background(), Request{ToolName: "fan", Emit: emit})
	if !res.OK || count != 800 || overlaps != 0 {
		t.Errorf("Call(fan) ok=%v events=%d overlaps=%d, want ok, 800, 0", res.OK, count, overlaps)
	}
}

func TestConcurrentCalls(t *testing.T) {
	var audit auditLog
	r := New(Options{Audit: audit.record})
	registerEcho(r)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			text := fmt.Sprint(i)
			res := r.Call(context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"` + text + `"}`)})
			if want := `{"text":"` + text + `"}`; !res.OK || string(res.Content) != want {
				t.Errorf("Call(echo, %s) = %+v, want content %s", text, res, want)
			}
		})
	}
	wg.Wait()
	if got := len(audit.all()); got != 50 {
		t.Errorf("audit outcomes = %d, want 50", got)
	}
	if got := r.InFlight(); got != 0 {
		t.Errorf("InFlight() after all calls = %d, want 0", got)
	}
}

func TestCallHandle(t *testing.T) {
	r := New(Options{})
	var seen *Call
	Register(r, Tool{Name: "who", Description: "d", Capabilities: readOnly},
		func(_ context.Context, call *Call, _ NoArgs) (any, error) { seen = call; return nil, nil })
	client := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: "s1"}
	peer := &Peer{PID: 7}
	r.Call(context.Background(), Request{RequestID: "req_abc", ToolName: "who", Client: client, Peer: peer})
	if seen == nil || seen.RequestID != "req_abc" || seen.Client != client || seen.Peer != peer {
		t.Errorf("handler Call = %+v, want req_abc, %+v, %+v", seen, client, peer)
	}
	r.Call(context.Background(), Request{ToolName: "who"})
	if seen == nil || !strings.HasPrefix(seen.RequestID, "req_") || len(seen.RequestID) != len("req_")+12 {
		t.Errorf("generated RequestID = %q, want req_ and 12 hex digits", seen.RequestID)
	}
	// A Call outside the registry works, and a nil or zero Call is a no-op.
	var events eventLog
	c := NewCall("req_x", client, nil, events.emit)
	c.Progress("p", 0.25)
	c.Emit(protocol.Event{Kind: "bogus"})
	if evs, _ := events.snapshot(); len(evs) != 1 || evs[0].Kind != protocol.EventProgress {
		t.Errorf("NewCall events = %+v, want one progress event", evs)
	}
	(&Call{}).Log(protocol.LevelInfo, "no-op")
	var nilCall *Call
	nilCall.PartialText("no-op")
}

func TestWaitIdleHonoursContext(t *testing.T) {
	r := New(Options{})
	release := make(chan struct{})
	Register(r, Tool{Name: "hang", Description: "d", Capabilities: readOnly},
		func(context.Context, *Call, NoArgs) (any, error) { <-release; return nil, nil })
	r.Call(context.Background(), Request{ToolName: "hang", Timeout: time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := r.WaitIdle(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitIdle() with a hung handler = %v, want context.DeadlineExceeded", err)
	}
	close(release)
	if err := r.WaitIdle(context.Background()); err != nil || r.InFlight() != 0 {
		t.Errorf("WaitIdle() after release = %v, InFlight %d; want nil, 0", err, r.InFlight())
	}
}

func TestCallPath(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	call := NewCall("req_1", protocol.ClientInfo{Caller: protocol.CallerCLI, Cwd: "/work/proj"}, nil, nil)
	noCwd := NewCall("req_2", protocol.ClientInfo{Caller: protocol.CallerCLI}, nil, nil)
	wd, _ := os.Getwd()
	cases := []struct {
		call *Call
		in   string
		want string
	}{
		{call, "", ""},
		{call, "  ", ""},
		{call, "~", home},
		{call, "~/src/x", filepath.Join(home, "src/x")},
		{call, "sub/dir", "/work/proj/sub/dir"},
		{call, "../other", "/work/other"},
		{call, "/abs/./path/", "/abs/path"},
		{call, "~user", "/work/proj/~user"},
		{noCwd, "rel", filepath.Join(wd, "rel")},
	}
	for _, c := range cases {
		if got := c.call.Path(c.in); got != c.want {
			t.Errorf("Path(%q) with cwd %q = %q, want %q", c.in, c.call.Client.Cwd, got, c.want)
		}
	}
}

// TestProgressKeepsCallAlive: the timeout is an idle timeout. A tool that
// reports progress runs past it; one that falls silent times out; one that
// reports progress for ever is stopped at the hard cap.
func TestProgressKeepsCallAlive(t *testing.T) {
	t.Parallel()
	r := New(Options{})
	// ticker emits a progress event every 50 ms until ctx ends or total passes.
	ticker := func(ctx context.Context, call *Call, total time.Duration) error {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		stop := time.After(total)
		for {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-stop:
				return nil
			case <-tick.C:
				call.Progress("working", -1)
			}
		}
	}
	Register(r, Tool{Name: "long_build", Description: "Reports progress for 2 s.", Capabilities: readOnly},
		func(ctx context.Context, call *Call, _ NoArgs) (string, error) {
			return "built", ticker(ctx, call, 2*time.Second)
		})
	Register(r, Tool{Name: "falls_silent", Description: "Reports progress for 1 s, then hangs.", Capabilities: readOnly},
		func(ctx context.Context, call *Call, _ NoArgs) (string, error) {
			if err := ticker(ctx, call, time.Second); err != nil {
				return "", err
			}
			<-ctx.Done()
			return "", ctx.Err()
		})
	Register(r, Tool{Name: "endless", Description: "Reports progress for ever.", Capabilities: readOnly,
		MaxTimeout: 1500 * time.Millisecond},
		func(ctx context.Context, call *Call, _ NoArgs) (string, error) {
			return "", ticker(ctx, call, time.Hour)
		})

	timeout := 500 * time.Millisecond
	tests := []struct {
		tool       string
		wantCode   protocol.ErrorCode // "" means ok
		wantPrefix string
	}{
		{"long_build", "", ""},
		{"falls_silent", protocol.CodeTimeout, `Tool "falls_silent" timed out after 500ms without progress (it ran `},
		{"endless", protocol.CodeTimeout, `Tool "endless" timed out after `},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			res := r.Call(context.Background(), Request{ToolName: tt.tool, Timeout: timeout})
			if tt.wantCode == "" {
				if !res.OK {
					t.Fatalf("Call(%s) = %s %q, want ok: its progress should keep it alive past %v", tt.tool, codeOf(res), messageOf(res), timeout)
				}
				return
			}
			if codeOf(res) != tt.wantCode || !strings.HasPrefix(messageOf(res), tt.wantPrefix) {
				t.Errorf("Call(%s) = %s %q, want %s %q…", tt.tool, codeOf(res), messageOf(res), tt.wantCode, tt.wantPrefix)
			}
			if tt.tool == "endless" && !strings.Contains(messageOf(res), "still reporting progress") {
				t.Errorf("Call(endless) message %q should say it was stopped at its limit", messageOf(res))
			}
		})
	}
}

func TestHardCapPrecedence(t *testing.T) {
	tests := []struct {
		tool, def, timeout time.Duration
		want               time.Duration
	}{
		{0, 0, time.Second, protocol.MaxToolTimeoutMs * time.Millisecond},
		{0, time.Minute, time.Second, time.Minute},
		{2 * time.Minute, time.Minute, time.Second, 2 * time.Minute},
		{time.Second, 0, time.Hour * 2, time.Hour * 2}, // never below the timeout
		{0, 0, 1 << 62, maxTimeout},
	}
	for _, tt := range tests {
		r := New(Options{MaxTimeout: tt.def})
		if got := r.hardCapFor(&entry{tool: Tool{MaxTimeout: tt.tool}}, tt.timeout); got != tt.want {
			t.Errorf("hardCapFor(tool %v, default %v, timeout %v) = %v, want %v", tt.tool, tt.def, tt.timeout, got, tt.want)
		}
	}
}

// TestArgCapabilities: a flag that makes a call do more asks for more.
// The authorizer decides on the tool's capabilities plus those the
// arguments add, and the audit records the union; without the flag only
// the tool's own.
func TestArgCapabilities(t *testing.T) {
	var audit auditLog
	var seen []protocol.Capability
	auth := authFunc(func(_ context.Context, req AuthRequest) error {
		seen = req.Tool.Capabilities
		if slices.Contains(req.Tool.Capabilities, protocol.CapStartsProcess) {
			return &protocol.ToolError{Code: protocol.CodePermissionDenied, Message: "no grant for starts-process"}
		}
		return nil
	})
	r := New(Options{Authorizer: auth, Audit: audit.record})
	type openIn struct {
		Run bool `json:"run,omitempty"`
	}
	var ran atomic.Int32
	Register(r, Tool{Name: "open", Description: "Open a thing.", Capabilities: []protocol.Capability{protocol.CapWritesFiles},
		ArgCapabilities: func(args json.RawMessage) []protocol.Capability {
			var in openIn
			if json.Unmarshal(args, &in) == nil && in.Run {
				return []protocol.Capability{protocol.CapStartsProcess, protocol.CapWritesFiles}
			}
			return nil
		}},
		func(context.Context, *Call, openIn) (any, error) { ran.Add(1); return nil, nil })

	for _, tc := range []struct {
		args     string
		wantCaps []protocol.Capability
		wantCode protocol.ErrorCode
	}{
		{`{}`, []protocol.Capability{protocol.CapWritesFiles}, ""},
		{`{"run":false}`, []protocol.Capability{protocol.CapWritesFiles}, ""},
		{`{"run":true}`, []protocol.Capability{protocol.CapWritesFiles, protocol.CapStartsProcess}, protocol.CodePermissionDenied},
	} {
		before := ran.Load()
		res := r.Call(context.Background(), Request{ToolName: "open", Args: json.RawMessage(tc.args),
			Client: protocol.ClientInfo{Caller: protocol.CallerCLI}})
		if codeOf(res) != tc.wantCode {
			t.Errorf("Call(open %s) = %s, want %q", tc.args, codeOf(res), tc.wantCode)
		}
		if !reflect.DeepEqual(seen, tc.wantCaps) {
			t.Errorf("Call(open %s): the authorizer saw %v, want %v", tc.args, seen, tc.wantCaps)
		}
		if got := audit.all(); !reflect.DeepEqual(got[len(got)-1].Capabilities, tc.wantCaps) {
			t.Errorf("Call(open %s): audited capabilities %v, want %v", tc.args, got[len(got)-1].Capabilities, tc.wantCaps)
		}
		if ran := ran.Load() - before; (ran == 1) != (tc.wantCode == "") {
			t.Errorf("Call(open %s) ran the handler %d times", tc.args, ran)
		}
	}
}
