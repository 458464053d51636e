package socket

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/protocol"
)

// An inline tool is answered by the connection's reader itself: no reader
// hand-off, and every call is still audited once and answered in order.
func TestInlineCallsStayOnReader(t *testing.T) {
	f := newFixture(t).addQuick()
	s := listen(t, f, nil)
	c := dial(t, s)
	for i := range 50 {
		text := fmt.Sprintf("t%d", i)
		got := content[echoIn](t, call(t, c, "quick", `{"text":"`+text+`"}`, client.CallOptions{}))
		if got.Text != text {
			t.Fatalf("quick = %q, want %q", got.Text, text)
		}
	}
	if n := s.handOffs.Load(); n != 0 {
		t.Errorf("%d reader hand-offs for inline calls, want 0", n)
	}
	eventually(t, 5*time.Second, "50 audits", func() bool { return f.auditsAll.Load() == 50 })

	// The same tool with arguments its Inline refuses, and a tool without
	// Inline, leave the reader to a new goroutine.
	call(t, c, "quick", `{"text":"wait"}`, client.CallOptions{})
	call(t, c, "count", "", client.CallOptions{})
	if n := s.handOffs.Load(); n != 2 {
		t.Errorf("%d reader hand-offs, want 2", n)
	}
}

// A call that may block runs off the reader: while it runs, the same
// connection's inline calls are answered and its cancel frame is read.
func TestBlockingCallLeavesReader(t *testing.T) {
	f := newFixture(t).addQuick()
	s := listen(t, f, nil)
	c := dial(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	type outcome struct {
		res protocol.ToolResult
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := c.Call(ctx, "block", nil, client.CallOptions{})
		done <- outcome{res, err}
	}()
	id := <-f.started
	for i := range 10 {
		text := fmt.Sprint(i)
		if got := content[echoIn](t, call(t, c, "quick", `{"text":"`+text+`"}`, client.CallOptions{})); got.Text != text {
			t.Fatalf("quick during a blocked call = %q", got.Text)
		}
	}
	cancel() // sends cancel_tool_call
	o := <-done
	if o.err != nil || o.res.OK || o.res.Error.Code != protocol.CodeCancelled {
		t.Fatalf("blocked call after cancel = %+v, %v; want CANCELLED", o.res, o.err)
	}
	eventually(t, 5*time.Second, "the tool to see its context end", func() bool { return f.observed.Load() == 1 })
	eventually(t, 5*time.Second, "the audit", func() bool { return f.auditCount(id) == 1 })
}

// Inline calls pipelined on one connection are all answered, each once.
func TestInlineCallsPipelined(t *testing.T) {
	f := newFixture(t).addQuick()
	s := listen(t, f, nil)
	c := dial(t, s)
	const n = 200
	errs := make(chan error, n)
	for i := range n {
		go func() {
			text := fmt.Sprint(i)
			res, err := c.Call(context.Background(), "quick", json.RawMessage(`{"text":"`+text+`"}`), client.CallOptions{})
			switch {
			case err != nil:
				errs <- err
			case !res.OK || string(res.Content) != `{"text":"`+text+`"}`:
				errs <- fmt.Errorf("call %d: %+v", i, res)
			default:
				errs <- nil
			}
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, 5*time.Second, "audits", func() bool { return f.auditsAll.Load() == n })
}
