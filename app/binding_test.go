package app

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// fakeEmitter records what the binding would send to the window.
type fakeEmitter struct {
	mu     sync.Mutex
	events []emitted
	wake   chan struct{}
}

type emitted struct {
	name    string
	payload any
}

func newFakeEmitter() *fakeEmitter { return &fakeEmitter{wake: make(chan struct{}, 1)} }

func (f *fakeEmitter) Emit(name string, payload any) {
	// Wails marshals payloads to JSON; make sure ours survive that.
	if _, err := json.Marshal(payload); err != nil {
		panic(err)
	}
	f.mu.Lock()
	f.events = append(f.events, emitted{name, payload})
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// waitFor returns the first recorded event that matches, waiting up to 5 s.
func (f *fakeEmitter) waitFor(t *testing.T, what string, match func(emitted) bool) emitted {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		f.mu.Lock()
		for _, e := range f.events {
			if match(e) {
				f.mu.Unlock()
				return e
			}
		}
		f.mu.Unlock()
		select {
		case <-f.wake:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s; got %v", what, f.names())
		}
	}
}

// count returns how many recorded events match.
func (f *fakeEmitter) count(match func(emitted) bool) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, e := range f.events {
		if match(e) {
			n++
		}
	}
	return n
}

func (f *fakeEmitter) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var s []string
	for _, e := range f.events {
		s = append(s, e.name)
	}
	return s
}

// result waits for the tool_result of callID.
func (f *fakeEmitter) result(t *testing.T, callID string) protocol.ToolResult {
	t.Helper()
	e := f.waitFor(t, "tool_result of "+callID, func(e emitted) bool {
		p, ok := e.payload.(ToolResultPayload)
		return ok && e.name == EventToolResult && p.CallID == callID
	})
	return e.payload.(ToolResultPayload).Result
}

// toolEvents returns the tool_event payloads of callID, in order.
func (f *fakeEmitter) toolEvents(callID string) []protocol.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []protocol.Event
	for _, e := range f.events {
		if p, ok := e.payload.(ToolEventPayload); ok && e.name == EventToolEvent && p.CallID == callID {
			out = append(out, p.Event)
		}
	}
	return out
}

type whoAmI struct {
	Caller    protocol.Caller `json:"caller"`
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	Text      string          `json:"text"`
}

type echoIn struct {
	Text string `json:"text,omitempty"`
}

type noteIn struct {
	Text  string `json:"text"`
	Token string `json:"token,omitempty"`
}

type slowIn struct {
	Steps int `json:"steps,omitempty"`
}

// newTestRegistry returns a real registry with a few test tools, guarded by
// a real permission service whose approvals go through appr.
func newTestRegistry(t *testing.T, appr *permission.Approvals) *registry.Registry {
	t.Helper()
	perms := permission.New(permission.Options{Approvals: appr, ApprovalTimeout: 10 * time.Second})
	reg := registry.New(registry.Options{Authorizer: perms})
	registry.Register(reg, registry.Tool{
		Name: "whoami", Description: "Echo the caller context.", Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(ctx context.Context, call *registry.Call, in echoIn) (whoAmI, error) {
		return whoAmI{Caller: call.Client.Caller, SessionID: call.Client.SessionID, Cwd: call.Client.Cwd, Text: in.Text}, nil
	})
	registry.Register(reg, registry.Tool{
		Name: "stream", Description: "Emit progress events, then finish.", Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(ctx context.Context, call *registry.Call, in slowIn) (int, error) {
		for i := range in.Steps {
			call.Progress("step", float64(i+1)/float64(in.Steps))
		}
		return in.Steps, nil
	})
	registry.Register(reg, registry.Tool{
		Name: "wait_forever", Description: "Block until cancelled.", Capabilities: []protocol.Capability{protocol.CapReadOnly},
		Timeout: time.Hour,
	}, func(ctx context.Context, call *registry.Call, _ registry.NoArgs) (any, error) {
		call.Progress("waiting", -1)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	registry.Register(reg, registry.Tool{
		Name: "write_note", Description: "Pretend to write a file.", Capabilities: []protocol.Capability{protocol.CapWritesFiles},
	}, func(ctx context.Context, call *registry.Call, in noteIn) (string, error) {
		return "wrote " + in.Text, nil
	})
	return reg
}

// startApp returns a started binding with a fake emitter; it is shut down
// when the test ends.
func startApp(t *testing.T, reg *registry.Registry, appr *permission.Approvals, opts ...Option) (*App, *fakeEmitter) {
	t.Helper()
	em := newFakeEmitter()
	a := New(reg, appr, opts...)
	a.newEmitter = func(context.Context) emitter { return em }
	a.Startup(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		a.Shutdown(ctx)
	})
	return a, em
}

var callIDRE = regexp.MustCompile(`^call_[0-9a-f]{12}$`)

func TestCallRoutesResultByCallID(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	ids := map[string]string{}
	for _, text := range []string{"one", "two", "three"} {
		id, err := a.Call("whoami", map[string]any{"text": text}, protocol.ClientInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if !callIDRE.MatchString(id) {
			t.Fatalf("call id %q does not match %s", id, callIDRE)
		}
		if _, dup := ids[id]; dup {
			t.Fatalf("duplicate call id %q", id)
		}
		ids[id] = text
	}
	for id, text := range ids {
		res := em.result(t, id)
		var got whoAmI
		if !res.OK || json.Unmarshal(res.Content, &got) != nil || got.Text != text {
			t.Errorf("call %s: got %+v (%s), want text %q", id, res, res.Content, text)
		}
	}
}

func TestCallForcesRendererCaller(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	id, err := a.Call("whoami", nil, protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:spoofed", Cwd: "/work"})
	if err != nil {
		t.Fatal(err)
	}
	res := em.result(t, id)
	var got whoAmI
	if err := json.Unmarshal(res.Content, &got); err != nil {
		t.Fatalf("%+v: %v", res, err)
	}
	want := whoAmI{Caller: protocol.CallerRenderer, SessionID: SessionRenderer, Cwd: "/work"}
	if got != want {
		t.Errorf("tool saw %+v, want %+v", got, want)
	}
}

func TestCallStreamsEventsInOrderBeforeResult(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	id, err := a.Call("stream", map[string]any{"steps": 5}, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	if res := em.result(t, id); !res.OK || string(res.Content) != "5" {
		t.Fatalf("result %+v", res)
	}
	evs := em.toolEvents(id)
	if len(evs) != 5 {
		t.Fatalf("got %d events, want 5: %+v", len(evs), evs)
	}
	for i, ev := range evs {
		if ev.Kind != protocol.EventProgress || ev.Fraction == nil || *ev.Fraction != float64(i+1)/5 {
			t.Errorf("event %d = %+v", i, ev)
		}
	}
	// The result is the last thing emitted for the call.
	names := em.names()
	if names[len(names)-1] != EventToolResult {
		t.Errorf("last event %q, want %q", names[len(names)-1], EventToolResult)
	}
}

func TestCallFailuresArriveAsResults(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	cases := []struct {
		tool string
		args map[string]any
		code protocol.ErrorCode
	}{
		{"no_such_tool", nil, protocol.CodeUnknownTool},
		{"whoami", map[string]any{"text": 42}, protocol.CodeValidation},
		{"whoami", map[string]any{"extra": true}, protocol.CodeValidation},
	}
	for _, c := range cases {
		id, err := a.Call(c.tool, c.args, protocol.ClientInfo{})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		res := em.result(t, id)
		if res.OK || res.Error == nil || res.Error.Code != c.code {
			t.Errorf("%s %v: got %+v, want %s", c.tool, c.args, res, c.code)
		}
	}
}

func TestCancel(t *testing.T) {
	a, em := startApp(t, newTestRegistry(t, nil), nil)
	id, err := a.Call("wait_forever", nil, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the tool runs, then cancel.
	em.waitFor(t, "the progress event", func(e emitted) bool {
		p, ok := e.payload.(ToolEventPayload)
		return ok && p.CallID == id
	})
	a.Cancel("call_000000000000") // unknown ids are ignored
	a.Cancel(id)
	res := em.result(t, id)
	if res.OK || res.Error == nil || res.Error.Code != protocol.CodeCancelled {
		t.Fatalf("got %+v, want CANCELLED", res)
	}
	a.Cancel(id) // a finished id is ignored too
}

func TestListTools(t *testing.T) {
	a := New(newTestRegistry(t, nil), nil)
	tools, err := a.ListTools()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range tools {
		names = append(names, d.Name)
		if len(d.Capabilities) == 0 || len(d.InputSchema) == 0 {
			t.Errorf("descriptor %+v lacks capabilities or schema", d)
		}
	}
	if got := strings.Join(names, ","); got != "whoami,stream,wait_forever,write_note" {
		t.Errorf("tools = %s", got)
	}
	empty, _ := New(registry.New(registry.Options{}), nil).ListTools()
	if empty == nil {
		t.Error("ListTools of an empty registry is nil; the UI wants []")
	}
}

func TestShutdownCancelsCallsAndRefusesNewOnes(t *testing.T) {
	em := newFakeEmitter()
	a := New(newTestRegistry(t, nil), nil)
	a.newEmitter = func(context.Context) emitter { return em }
	a.Startup(context.Background())
	id, err := a.Call("wait_forever", nil, protocol.ClientInfo{})
	if err != nil {
		t.Fatal(err)
	}
	em.waitFor(t, "the progress event", func(e emitted) bool { return e.name == EventToolEvent })

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Shutdown(ctx)
	if ctx.Err() != nil {
		t.Fatal("Shutdown did not wait for the cancelled call to finish in time")
	}
	a.mu.Lock()
	left := len(a.calls)
	a.mu.Unlock()
	if left != 0 {
		t.Errorf("%d calls still tracked after Shutdown (%s)", left, id)
	}
	_, err = a.Call("whoami", nil, protocol.ClientInfo{})
	if protocol.CodeOf(err) != protocol.CodeRuntimeShuttingDown || !strings.HasPrefix(err.Error(), "RUNTIME_SHUTTING_DOWN: ") {
		t.Errorf("Call after Shutdown: %v", err)
	}
	a.Shutdown(ctx) // idempotent
}
