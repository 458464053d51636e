package socket

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// shortDir returns a fresh directory with a path short enough for sun_path
// (t.TempDir paths can be too long).
func shortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ms")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// fixture is a registry of test tools plus the counters the tests check.
type fixture struct {
	reg *registry.Registry

	counted   atomic.Int64 // runs of "count"
	observed  atomic.Int64 // handlers of "block" that saw ctx.Done
	started   chan string  // requestIds of "block" calls, as they start
	auditMu   sync.Mutex
	audits    map[string]int // requestId → audit outcomes
	auditsAll atomic.Int64
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type greetIn struct {
	Name string `json:"name,omitempty" default:"world" jsonschema:"who to greet"`
}

type whoami struct {
	Caller    protocol.Caller `json:"caller"`
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	SpaceID   string          `json:"spaceId,omitempty"`
	TabID     string          `json:"tabId,omitempty"`
	PeerOwned bool            `json:"peerOwned"`
	PeerPID   bool            `json:"peerPid"`
}

type sleepIn struct {
	Ms int `json:"ms"`
}

// newFixture registers the test tools:
//
//   - echo {text} → {text}
//   - greet {name = "world"} → "hello <name>"
//   - progress → two progress events, a log and partial text, then {done:true}
//   - whoami → the caller context the tool saw (see [whoami])
//   - count → increments a counter and returns {n}
//   - block → waits for its context (recording that it saw it end)
//   - sleep {ms} → sleeps ms (or until cancelled), returns {slept:true}
//   - fail → a TOOL_FAILED error
func newFixture(t testing.TB) *fixture {
	f := &fixture{started: make(chan string, 4096), audits: map[string]int{}}
	f.reg = registry.New(registry.Options{
		Audit: func(o registry.Outcome) {
			f.auditsAll.Add(1)
			f.auditMu.Lock()
			f.audits[o.RequestID]++
			f.auditMu.Unlock()
		},
	})
	ro := []protocol.Capability{protocol.CapReadOnly}
	registry.Register(f.reg, registry.Tool{Name: "echo", Description: "Echo the text back.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, in echoIn) (echoIn, error) { return in, nil })
	registry.Register(f.reg, registry.Tool{Name: "greet", Description: "Greet someone.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, in greetIn) (string, error) {
			return "hello " + in.Name, nil
		})
	registry.Register(f.reg, registry.Tool{Name: "progress", Description: "Report progress, then finish.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (map[string]bool, error) {
			c.Progress("starting", 0.1)
			c.Log(protocol.LevelInfo, "working")
			c.PartialText("half")
			c.Progress("done", 1)
			return map[string]bool{"done": true}, nil
		})
	registry.Register(f.reg, registry.Tool{Name: "whoami", Description: "Return the caller context.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (whoami, error) {
			w := whoami{Caller: c.Client.Caller, SessionID: c.Client.SessionID, Cwd: c.Client.Cwd,
				SpaceID: c.Client.SpaceID, TabID: c.Client.TabID}
			if c.Peer != nil {
				w.PeerOwned = c.Peer.UID == os.Getuid()
				w.PeerPID = c.Peer.PID == os.Getpid()
			}
			return w, nil
		})
	registry.Register(f.reg, registry.Tool{Name: "count", Description: "Count the runs.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (map[string]int64, error) {
			return map[string]int64{"n": f.counted.Add(1)}, nil
		})
	registry.Register(f.reg, registry.Tool{Name: "block", Description: "Block until cancelled.", Capabilities: ro, Timeout: time.Hour},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (any, error) {
			f.started <- c.RequestID
			<-ctx.Done()
			f.observed.Add(1)
			return nil, ctx.Err()
		})
	registry.Register(f.reg, registry.Tool{Name: "sleep", Description: "Sleep a while.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, in sleepIn) (map[string]bool, error) {
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
				return map[string]bool{"slept": true}, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	registry.Register(f.reg, registry.Tool{Name: "fail", Description: "Always fail.", Capabilities: ro},
		func(ctx context.Context, c *registry.Call, _ registry.NoArgs) (any, error) {
			return nil, errors.New("it broke")
		})
	return f
}

// addQuick registers quick {text} → {text}, inline (registry.Tool.Inline)
// unless text is "wait".
func (f *fixture) addQuick() *fixture {
	registry.Register(f.reg, registry.Tool{Name: "quick", Description: "Echo the text back on the reader.", Capabilities: protocol.ReadOnly(),
		Inline: func(args json.RawMessage) bool { return !strings.Contains(string(args), `"wait"`) }},
		func(ctx context.Context, c *registry.Call, in echoIn) (echoIn, error) { return in, nil })
	return f
}

func (f *fixture) auditCount(id string) int {
	f.auditMu.Lock()
	defer f.auditMu.Unlock()
	return f.audits[id]
}

// listen starts a server on a fresh short path; it is closed at cleanup.
func listen(t testing.TB, f *fixture, mod func(*Options)) *Server {
	t.Helper()
	opts := Options{
		Path:       filepath.Join(shortDir(t), discovery.SocketName),
		Registry:   f.reg,
		DefaultCwd: "/default-cwd",
		Logf: func(level protocol.LogLevel, msg string, kv ...any) {
			if testing.Verbose() {
				t.Logf("[%s] %s %v", level, msg, kv)
			}
		},
	}
	if mod != nil {
		mod(&opts)
	}
	s, err := Listen(context.Background(), opts)
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// eventually polls cond until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
