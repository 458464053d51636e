package registry

import (
	"context"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// allowAll decides every call at once, as the permission service does for a
// read-only tool.
type allowAll struct{}

func (allowAll) Authorize(context.Context, AuthRequest) error { return nil }
func (allowAll) AuthorizeNow(AuthRequest) (bool, error)       { return true, nil }

type pingIn struct {
	DelayMs int    `json:"delayMs,omitempty" minimum:"0" default:"0"`
	Message string `json:"message,omitempty"`
}

type pingOut struct {
	Pong    bool   `json:"pong"`
	PID     int    `json:"pid"`
	Caller  string `json:"caller"`
	Session string `json:"sessionId,omitempty"`
}

// BenchmarkCallNoArgs is the registry's share of an app_ping round trip.
func BenchmarkCallNoArgs(b *testing.B) {
	r := New(Options{Authorizer: allowAll{}, Audit: func(Outcome) {}})
	Register(r, Tool{Name: "ping", Description: "Ping.", Capabilities: readOnly},
		func(_ context.Context, c *Call, in pingIn) (pingOut, error) {
			return pingOut{Pong: true, PID: 1, Caller: string(c.Client.Caller), Session: c.Client.SessionID}, nil
		})
	req := Request{RequestID: "req_1", ToolName: "ping", Args: []byte(`{}`),
		Client: protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1", Cwd: "/"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if res := r.Call(ctx, req); !res.OK {
			b.Fatal(res.Error)
		}
	}
}
