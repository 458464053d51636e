package audit

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	l, err := Open(filepath.Join(b.TempDir(), "audit.jsonl"), Options{RotateBytes: 1 << 40})
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

// BenchmarkQuery20000 reads 20,000 app_ping-like entries (audit.jsonl and,
// past RotateBytes, its first archive) with a tool filter that matches 150
// of them, so every entry is examined. The anchor is a raw bufio scan of
// the same bytes (every line of the live file and the decompressed
// archives), timed in the same benchmark; the ratio is reported as
// x-rawscan. Goal (issue 18): ≤ 50 ms per query.
func BenchmarkQuery20000(b *testing.B) {
	dir := b.TempDir()
	l, err := Open(filepath.Join(dir, "audit.jsonl"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	o := pingOutcome()
	for i := range 20_000 {
		e := EntryFrom(o)
		if i%133 == 0 {
			e.ToolName = "git_commit"
		}
		l.Record(e)
	}
	l.Flush(context.Background())
	q := Query{Tools: []string{"git_commit"}}
	p, err := l.Query(context.Background(), q)
	if err != nil || len(p.Entries) != 151 || p.NextCursor != "" {
		b.Fatalf("query: %d entries, cursor %q, %v; want 151 and no cursor", len(p.Entries), p.NextCursor, err)
	}
	anchor := func() int {
		n := 0
		for _, f := range l.Files() {
			fh, err := os.Open(f)
			if err != nil {
				b.Fatal(err)
			}
			var r io.Reader = fh
			if strings.HasSuffix(f, ".gz") {
				if r, err = gzip.NewReader(fh); err != nil {
					b.Fatal(err)
				}
			}
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				if bytes.Contains(sc.Bytes(), []byte(`"toolName":"git_commit"`)) {
					n++
				}
			}
			fh.Close()
		}
		return n
	}
	const anchorRuns = 20
	start := time.Now()
	for range anchorRuns {
		if anchor() != 151 {
			b.Fatal("anchor scan found the wrong count")
		}
	}
	anchorNs := float64(time.Since(start).Nanoseconds()) / anchorRuns
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := l.Query(context.Background(), q); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	perQuery := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perQuery/anchorNs, "x-rawscan")
	b.ReportMetric(anchorNs/1e6, "rawscan-ms")
	b.ReportMetric(float64(len(l.Files())), "files")
}
