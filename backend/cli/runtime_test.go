package cli

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/instance/instancetest"
)

// signalWriter is a buffer that closes seen once something is written.
type signalWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
	seen chan struct{}
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.once.Do(func() { close(w.seen) })
	return w.buf.Write(p)
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestInterruptCancelsOnRuntime: cancelling Main's context during a call (as
// Ctrl+C does) cancels the call on the real runtime and exits 130 promptly.
func TestInterruptCancelsOnRuntime(t *testing.T) {
	inst := instancetest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	errw := &signalWriter{seen: make(chan struct{})}
	done := make(chan int, 1)
	start := time.Now()
	go func() {
		done <- Main(ctx, []string{"--socket", inst.SocketPath, "call", "app_ping", "--delayMs", "60000", "--progressSteps", "100"}, &Streams{Out: &out, Err: errw})
	}()
	select {
	case <-errw.seen: // the first progress event: the call is running
	case <-time.After(10 * time.Second):
		t.Fatal("no progress event")
	}
	cancel()
	select {
	case code := <-done:
		if code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Main did not return after cancellation")
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("cancellation took %v", took)
	}
	if !strings.Contains(errw.String(), "error (CANCELLED): ") || out.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", out.String(), errw.String())
	}
	// The runtime answered CANCELLED itself (not the client's local fallback):
	// its log has the cancelled call.
	var logs bytes.Buffer
	if code := Main(context.Background(), []string{"--socket", inst.SocketPath, "--json", "app", "logs", "--search", "CANCELLED"}, &Streams{Out: &logs, Err: &logs}); code != 0 || !strings.Contains(logs.String(), "app_ping") {
		t.Errorf("runtime logs (exit %d):\n%s", code, logs.String())
	}
}
