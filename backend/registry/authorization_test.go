package registry

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// nowAuth is a QuickAuthorizer deciding every call with err.
type nowAuth struct{ err error }

func (q nowAuth) Authorize(context.Context, AuthRequest) error { return q.err }
func (q nowAuth) AuthorizeNow(AuthRequest) (bool, error)       { return true, q.err }

// TestOutcomeAuthorization: the outcome carries what the authorizer
// recorded, completed from its answer when it recorded nothing.
func TestOutcomeAuthorization(t *testing.T) {
	denied := protocol.Errorf(protocol.CodePermissionDenied, "no")
	asking := func(d AuthDecision, err error) Authorizer {
		return authFunc(func(_ context.Context, req AuthRequest) error {
			req.Record.Ask("appr_1", "window")
			if d != "" {
				req.Record.Decide(d, "")
			}
			return err
		})
	}
	tests := []struct {
		name   string
		auth   Authorizer
		args   string
		want   AuthDecision
		asked  bool
		runs   int32
		noStep bool // the call ends before the authorization step
	}{
		{"no authorizer allows", nil, `{"path":"p"}`, AuthAllow, false, 1, false},
		{"nil answer allows", authFunc(func(context.Context, AuthRequest) error { return nil }), `{"path":"p"}`, AuthAllow, false, 1, false},
		{"quick nil answer allows", nowAuth{}, `{"path":"p"}`, AuthAllow, false, 1, false},
		{"quick denial denies", nowAuth{denied}, `{"path":"p"}`, AuthDeny, false, 0, false},
		{"denial denies", authFunc(func(context.Context, AuthRequest) error { return denied }), `{"path":"p"}`, AuthDeny, false, 0, false},
		{"asked and allowed is approved", asking("", nil), `{"path":"p"}`, AuthApproved, true, 1, false},
		{"asked and denied is refused", asking("", denied), `{"path":"p"}`, AuthRefused, true, 0, false},
		{"the authorizer's own decision stands", asking(AuthTimeout, denied), `{"path":"p"}`, AuthTimeout, true, 0, false},
		{"invalid arguments never reach it", asking("", nil), `{"bad":1}`, "", false, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var audit auditLog
			r := New(Options{Authorizer: tt.auth, Audit: audit.record})
			var runs atomic.Int32
			Register(r, Tool{Name: "write", Description: "Write.", Capabilities: []protocol.Capability{protocol.CapWritesFiles}},
				func(context.Context, *Call, writeIn) (any, error) { runs.Add(1); return nil, nil })
			peer := &Peer{PID: 77, Exe: "/bin/x"}
			r.Call(t.Context(), Request{RequestID: "req_a", ToolName: "write", Args: json.RawMessage(tt.args), Peer: peer})
			got := audit.all()
			if len(got) != 1 {
				t.Fatalf("%d outcomes, want 1", len(got))
			}
			a := got[0].Authorization
			if a.Decision != tt.want {
				t.Errorf("Authorization.Decision = %q, want %q", a.Decision, tt.want)
			}
			if asked := a.ApprovalID == "appr_1" && a.DecidedBy == "window"; asked != tt.asked {
				t.Errorf("Authorization = %+v, want asked %v", a, tt.asked)
			}
			if tt.noStep && a != (Authorization{}) {
				t.Errorf("Authorization = %+v, want zero (step not reached)", a)
			}
			if got[0].Peer != peer || got[0].RequestID != "req_a" {
				t.Errorf("outcome peer %+v request %q, want the request's", got[0].Peer, got[0].RequestID)
			}
			if runs.Load() != tt.runs {
				t.Errorf("tool ran %d times, want %d", runs.Load(), tt.runs)
			}
		})
	}
}

// TestOutcomeAuthorizationCancelledWhileAsking: a call cancelled while its
// question is open is recorded as cancelled with the question's id, even
// when the authorizer ignores the cancellation and answers later.
func TestOutcomeAuthorizationCancelledWhileAsking(t *testing.T) {
	for _, observe := range []bool{true, false} {
		waiting := make(chan struct{})
		release := make(chan struct{})
		var audit auditLog
		auth := authFunc(func(ctx context.Context, req AuthRequest) error {
			req.Record.Ask("appr_2", "window")
			close(waiting)
			if observe {
				<-ctx.Done()
				return ctx.Err()
			}
			<-release
			req.Record.Decide(AuthApproved, "") // too late: the call was given up
			return nil
		})
		r := New(Options{Authorizer: auth, Audit: audit.record})
		var runs atomic.Int32
		Register(r, Tool{Name: "write", Description: "Write.", Capabilities: []protocol.Capability{protocol.CapWritesFiles}},
			func(context.Context, *Call, writeIn) (any, error) { runs.Add(1); return nil, nil })
		ctx, cancel := context.WithCancel(t.Context())
		go func() { <-waiting; cancel() }()
		res := r.Call(ctx, Request{ToolName: "write", Args: json.RawMessage(`{"path":"p"}`)})
		close(release)
		got := audit.all()
		if codeOf(res) != protocol.CodeCancelled || len(got) != 1 || runs.Load() != 0 {
			t.Fatalf("observe %v: result %s, %d outcomes, %d runs; want CANCELLED, one outcome, not run", observe, codeOf(res), len(got), runs.Load())
		}
		if a := got[0].Authorization; a.Decision != AuthCancelled || a.ApprovalID != "appr_2" || a.DecidedBy != "window" {
			t.Errorf("observe %v: Authorization = %+v, want cancelled appr_2 window", observe, a)
		}
	}
}
