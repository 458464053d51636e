package audit

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// pingOutcome is the outcome of an app_ping call.
func pingOutcome() registry.Outcome {
	return registry.Outcome{
		RequestID: "req_bench", Started: time.Now(), Duration: time.Millisecond, ToolName: "app_ping",
		Capabilities: []protocol.Capability{protocol.CapReadOnly},
		Client:       protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:2b7d0c4e-54a3-4f7e-9d51-0c1f7b2a9e11", Cwd: "/home/user/project"},
		Args:         json.RawMessage(`{}`),
		Result:       protocol.OKResult(map[string]any{"pong": true, "pid": 12345, "version": "0.1.0-dev", "protocolVersion": 1, "elapsedMs": 0, "caller": "cli", "sessionId": "socket:2b7d0c4e-54a3-4f7e-9d51-0c1f7b2a9e11"}),
	}
}

// BenchmarkLogAudit is the sustained rate of auditing app_ping calls from
// parallel callers: the callers' enqueueing, and the writer's summarizing,
// encoding and batched writes (a full queue makes callers wait for it).
func BenchmarkLogAudit(b *testing.B) {
	l, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"), Options{MaxRecords: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	o := pingOutcome()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Audit(o)
		}
	})
	l.Flush(context.Background())
}

// BenchmarkEntryFrom builds the entry of an app_ping call: both summaries,
// the id and the time.
func BenchmarkEntryFrom(b *testing.B) {
	o := pingOutcome()
	b.ReportAllocs()
	for b.Loop() {
		EntryFrom(o)
	}
}
