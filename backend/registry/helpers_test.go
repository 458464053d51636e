package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// auditLog records the outcomes handed to Options.Audit.
type auditLog struct {
	mu       sync.Mutex
	outcomes []Outcome
}

func (a *auditLog) record(o Outcome) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.outcomes = append(a.outcomes, o)
}

func (a *auditLog) all() []Outcome {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Outcome(nil), a.outcomes...)
}

// eventLog records events and counts the ones delivered after the call it
// belongs to returned.
type eventLog struct {
	mu       sync.Mutex
	events   []protocol.Event
	returned bool
	late     int
}

func (e *eventLog) emit(ev protocol.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.returned {
		e.late++
	}
	e.events = append(e.events, ev)
}

func (e *eventLog) markReturned() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.returned = true
}

func (e *eventLog) snapshot() ([]protocol.Event, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]protocol.Event(nil), e.events...), e.late
}

// codeOf returns the error code of a result, or "" when it is OK.
func codeOf(r protocol.ToolResult) protocol.ErrorCode {
	if r.OK || r.Error == nil {
		return ""
	}
	return r.Error.Code
}

func messageOf(r protocol.ToolResult) string {
	if r.Error == nil {
		return ""
	}
	return r.Error.Message
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%v): %v", v, err)
	}
	return string(b)
}

// expectPanic runs f and returns the panic message, failing when f does not
// panic.
func expectPanic(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			t.Errorf("no panic")
			return
		}
		msg = fmt.Sprint(p)
	}()
	f()
	return ""
}

// echoTool registers "echo": it returns its input.
type echoIn struct {
	Text string `json:"text"`
}

func registerEcho(r *Registry) {
	Register(r, Tool{Name: "echo", Description: "Echo the text.", Capabilities: []protocol.Capability{protocol.CapReadOnly}},
		func(_ context.Context, _ *Call, in echoIn) (echoIn, error) { return in, nil })
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// summarize renders events as "kind:message+text+mime+path+level@fraction".
func summarize(evs []protocol.Event) []string {
	var out []string
	for _, ev := range evs {
		s := string(ev.Kind) + ":" + ev.Message + ev.Text + ev.MimeType + ev.Path + string(ev.Level)
		if ev.Fraction != nil {
			s += fmt.Sprintf("@%v", *ev.Fraction)
		}
		out = append(out, s)
	}
	return out
}
