package acp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// turn queues the updates of one running prompt. The SDK's notification
// goroutine pushes; the Prompt goroutine takes and calls onUpdate, so the
// callback runs on the caller's goroutine, in order, and never after
// Prompt returns.
type turn struct {
	mu        sync.Mutex
	queue     []Update
	closed    bool
	signal    chan struct{} // has an element when the queue may be non-empty
	cancelled chan struct{} // closed when the prompt's ctx ended
}

func newTurn() *turn {
	return &turn{signal: make(chan struct{}, 1), cancelled: make(chan struct{})}
}

func (t *turn) push(u Update) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.queue = append(t.queue, u)
	t.mu.Unlock()
	select {
	case t.signal <- struct{}{}:
	default:
	}
}

func (t *turn) take() []Update {
	t.mu.Lock()
	defer t.mu.Unlock()
	q := t.queue
	t.queue = nil
	return q
}

func (t *turn) close() {
	t.mu.Lock()
	t.closed = true
	t.queue = nil
	t.mu.Unlock()
}

// errBusy is returned by a Prompt while another one runs.
var errBusy = errors.New("acp: a prompt is already running in this session; wait for it to end or cancel it")

func (s *session) prompt(ctx context.Context, text string, onUpdate func(Update)) (string, error) {
	if onUpdate == nil {
		onUpdate = func(Update) {}
	}
	if !s.promptMu.TryLock() {
		return "", errBusy
	}
	defer s.promptMu.Unlock()

	select {
	case <-s.closed:
		return "", fmt.Errorf("%w: the session was closed", ErrExited)
	case <-s.proc.exited:
		return "", s.exitedErr("before the prompt")
	default:
	}
	if err := s.waitToolsListed(ctx); err != nil {
		if ctx.Err() != nil {
			return StopCancelled, ctx.Err()
		}
		return "", err
	}
	if ctx.Err() != nil {
		return StopCancelled, ctx.Err()
	}

	t := newTurn()
	s.mu.Lock()
	s.cur = t
	s.calls = map[string]*ToolCall{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.cur == t {
			s.cur = nil
		}
		s.mu.Unlock()
		t.close()
	}()
	deliver := func() {
		for _, u := range t.take() {
			onUpdate(u)
		}
	}

	// The request's own context is not ctx: on cancellation the turn is
	// ended with session/cancel and the agent's answer is still awaited.
	reqCtx, reqCancel := context.WithCancel(context.Background())
	defer reqCancel()
	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := s.conn.Prompt(reqCtx, sdk.PromptRequest{
			SessionId: s.sid,
			Prompt:    []sdk.ContentBlock{sdk.TextBlock(text)},
		})
		done <- result{resp, err}
	}()

	ctxDone := ctx.Done()
	exited := s.proc.exited
	var grace, exitGrace <-chan time.Time
	cancelled := false
	for {
		select {
		case <-t.signal:
			deliver()
		case <-ctxDone:
			ctxDone = nil
			cancelled = true
			close(t.cancelled)
			if err := s.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: s.sid}); err != nil {
				s.logf("acp: %s: session/cancel: %v", s.display, err)
			}
			timer := time.NewTimer(cancelGrace)
			defer timer.Stop()
			grace = timer.C
		case <-grace:
			s.logf("acp: %s did not end the turn within %s of session/cancel", s.display, cancelGrace)
			deliver()
			return StopCancelled, ctx.Err()
		case <-exited:
			// The answer may still be in the pipe: give it a moment.
			exited = nil
			timer := time.NewTimer(time.Second)
			defer timer.Stop()
			exitGrace = timer.C
		case <-exitGrace:
			s.drained(time.Second)
			deliver()
			return "", s.exitedErr("during the prompt")
		case r := <-done:
			deliver()
			if r.err != nil {
				if cancelled {
					return StopCancelled, ctx.Err()
				}
				err := s.callErr(ctx, "session/prompt", r.err)
				if errors.Is(err, ErrExited) {
					// What the agent said before it exited is still being
					// handled: keep it.
					s.drained(time.Second)
					deliver()
					return "", s.exitedErr("during the prompt")
				}
				return "", err
			}
			if u := r.resp.Usage; u != nil {
				onUpdate(Update{Kind: UpdateUsage, Usage: &Usage{
					InputTokens:  int64(u.InputTokens),
					OutputTokens: int64(u.OutputTokens),
				}})
			}
			if cancelled {
				return StopCancelled, ctx.Err()
			}
			return string(r.resp.StopReason), nil
		}
	}
}

// waitToolsListed waits, before the first prompt, until the agent listed
// meith's MCP tools.
func (s *session) waitToolsListed(ctx context.Context) error {
	m := s.spec.MCP
	if m == nil || m.ToolsListed == nil || s.toolsOK {
		return nil
	}
	timeout := m.ToolsListedTimeout
	if timeout <= 0 {
		timeout = defaultToolsListedTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-m.ToolsListed:
		s.toolsOK = true
		return nil
	case <-timer.C:
		return fmt.Errorf("%w: %s never listed Meith's MCP tools; meith will not run it without them", ErrToolsNotListed, s.display)
	case <-ctx.Done():
		return ctx.Err()
	case <-s.proc.exited:
		return s.exitedErr("before listing meith's MCP tools")
	}
}
