package apptools

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

func TestWaitProgress(t *testing.T) {
	tests := []struct {
		delay      time.Duration
		steps      int
		wantEvents int
	}{
		{0, 5, 0},
		{100 * time.Millisecond, 4, 4},
		{1200 * time.Millisecond, 0, 2}, // default: one every 500 ms
		{100 * time.Millisecond, 0, 1},  // default: at least one
	}
	for _, tt := range tests {
		var events []protocol.Event
		call := registry.NewCall("r", protocol.ClientInfo{Caller: protocol.CallerCLI}, nil, func(ev protocol.Event) { events = append(events, ev) })
		start := time.Now()
		if err := wait(context.Background(), call, tt.delay, tt.steps); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < tt.delay {
			t.Errorf("wait(%v, %d) returned after %v", tt.delay, tt.steps, took)
		}
		if len(events) != tt.wantEvents {
			t.Errorf("wait(%v, %d) emitted %d events, want %d", tt.delay, tt.steps, len(events), tt.wantEvents)
		}
		if n := len(events); n > 0 && (events[n-1].Fraction == nil || *events[n-1].Fraction != 1) {
			t.Errorf("wait(%v, %d) last event %+v, want fraction 1", tt.delay, tt.steps, events[n-1])
		}
	}
}

func TestWaitHonoursCancel(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	call := registry.NewCall("r", protocol.ClientInfo{}, nil, nil)
	start := time.Now()
	if err := wait(ctx, call, time.Minute, 0); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("wait(1m) under a 50 ms context = %v after %v, want the context's error promptly", err, time.Since(start))
	}
}

// app_ping runs inline (on the socket's reader) only when it cannot wait.
func TestPingInline(t *testing.T) {
	for args, want := range map[string]bool{
		`{"delayMs":0,"progressSteps":0}`:      true, // what {} becomes
		`{"delayMs":0,"message":"hi"}`:         true,
		`{"delayMs":1}`:                        false,
		`{"delayMs":600000,"progressSteps":3}`: false,
	} {
		if got := pingInline(json.RawMessage(args)); got != want {
			t.Errorf("pingInline(%s) = %v, want %v", args, got, want)
		}
	}
}
