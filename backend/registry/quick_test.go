package registry

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// quickAuth decides calls whose tool is in now at once and sends the rest
// to Authorize, counting both paths.
type quickAuth struct {
	now       map[string]error
	quick     atomic.Int32
	slow      atomic.Int32
	slowError error
}

func (q *quickAuth) AuthorizeNow(req AuthRequest) (bool, error) {
	q.quick.Add(1)
	err, ok := q.now[req.Tool.Name]
	return ok, err
}

func (q *quickAuth) Authorize(ctx context.Context, req AuthRequest) error {
	q.slow.Add(1)
	return q.slowError
}

func TestQuickAuthorizer(t *testing.T) {
	denied := protocol.Errorf(protocol.CodePermissionDenied, "no")
	tests := []struct {
		name      string
		now       map[string]error
		slowError error
		wantOK    bool
		wantSlow  int32
	}{
		{"allowed without waiting", map[string]error{"echo": nil}, errors.New("must not be asked"), true, 0},
		{"denied without waiting", map[string]error{"echo": denied}, nil, false, 0},
		{"undecided goes to Authorize", map[string]error{}, nil, true, 1},
		{"undecided and denied by Authorize", map[string]error{}, denied, false, 1},
	}
	for _, tt := range tests {
		q := &quickAuth{now: tt.now, slowError: tt.slowError}
		r := New(Options{Authorizer: q})
		registerEcho(r)
		res := r.Call(context.Background(), Request{ToolName: "echo", Args: json.RawMessage(`{"text":"x"}`)})
		if res.OK != tt.wantOK || q.quick.Load() != 1 || q.slow.Load() != tt.wantSlow {
			t.Errorf("%s: ok=%v quick=%d slow=%d, want ok=%v quick=1 slow=%d (%+v)",
				tt.name, res.OK, q.quick.Load(), q.slow.Load(), tt.wantOK, tt.wantSlow, res.Error)
		}
	}
}
