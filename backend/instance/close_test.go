package instance_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// TestCloseWaitsForCancelledHandlers: the registry answers a cancelled call
// without waiting for its handler, so Close waits for the handlers before
// the engines go away, and says so when one outlives Close's context.
func TestCloseWaitsForCancelledHandlers(t *testing.T) {
	inst := newInstance(t, instance.Config{})
	type empty struct{}
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	registry.Register(inst.Registry(), registry.Tool{
		Name: "test_lingering_job", Description: "Wait until cancelled, then until released.",
		Capabilities: protocol.ReadOnly(), Timeout: time.Hour,
	}, func(ctx context.Context, call *registry.Call, _ empty) (string, error) {
		close(started)
		<-ctx.Done()
		<-release // still running after its call was answered
		return "", ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan protocol.ToolResult, 1)
	go func() {
		answered <- inst.Registry().Call(ctx, registry.Request{RequestID: "req_linger", ToolName: "test_lingering_job",
			Args: []byte(`{}`), Client: protocol.ClientInfo{Caller: protocol.CallerInternal}})
	}()
	<-started
	cancel()
	if res := <-answered; res.OK || res.Error.Code != protocol.CodeCancelled {
		t.Fatalf("cancelled call = %+v, want CANCELLED", res)
	}
	closeCtx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	err := inst.Close(closeCtx)
	if err == nil || !strings.Contains(err.Error(), "tool handlers still running") {
		t.Errorf("Close with a handler still running = %v, want it to say so", err)
	}
}
