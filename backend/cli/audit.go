package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/protocol"
)

// auditBooleans are the flags of "meith audit" that take no value.
var auditBooleans = []string{"denied", "follow"}

// auditFlags are the flags "meith audit" knows (besides the global ones).
var auditFlags = []string{"denied", "follow", "tool", "since", "until", "caller", "search", "limit"}

// deniedDecisions are the decisions --denied selects: every call that did
// not run because nobody (or no policy) approved it.
var deniedDecisions = []string{"deny", "refused", "cancelled", "timeout"}

// auditCmd is "meith audit": the newest audit entries (audit_query), oldest
// of them first, one line each (time, caller, tool, decision, duration) or
// NDJSON with --json; --follow then streams new entries (audit_watch)
// until Ctrl+C.
func (r *runner) auditCmd(ctx context.Context, rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("audit takes no positional arguments (got %q). Run \"meith help audit\".", rest[0])
	}
	for _, f := range r.a.Flags {
		if !isReserved(f.Name) && !slices.Contains(auditFlags, f.Name) {
			return r.p.usage("audit has no --%s flag. Run \"meith help audit\".", f.Name)
		}
	}
	filters := map[string]any{}
	if r.a.Bool("denied") {
		filters["decisions"] = deniedDecisions
	}
	for _, name := range []struct{ flag, key string }{{"tool", "tools"}, {"caller", "callers"}} {
		if f := r.a.Lookup(name.flag); f != nil {
			var vs []string
			for _, v := range f.Values {
				if v.Bare || v.Text == "" {
					return r.p.usage("--%s needs a value.", name.flag)
				}
				vs = append(vs, v.Text)
			}
			filters[name.key] = vs
		}
	}
	for _, name := range []string{"since", "until", "search"} {
		if v, present, bare := r.a.Value(name); present {
			if bare || v == "" {
				return r.p.usage("--%s needs a value.", name)
			}
			filters[name] = v
		}
	}
	query := map[string]any{}
	for k, v := range filters {
		query[k] = v
	}
	if v, present, bare := r.a.Value("limit"); present {
		var n int
		if _, err := fmt.Sscan(v, &n); bare || err != nil || n < 1 || n > maxAuditLimit {
			return r.p.usage("--limit must be a whole number from 1 to %d.", maxAuditLimit)
		}
		query["limit"] = n
	}

	c, t, code := r.connect(ctx)
	if c == nil {
		return code
	}
	defer c.Close()
	follow := r.a.Bool("follow")
	var (
		mu          sync.Mutex
		historyDone bool
		seen        = map[string]bool{}
		held        []auditEntry // streamed before the history was printed
	)
	watchDone := make(chan error, 1)
	var watchRes protocol.ToolResult
	if follow {
		watching := make(chan struct{})
		onEvent := func(ev protocol.Event) {
			switch ev.Kind {
			case protocol.EventLog:
				if ev.Message == "watching the audit log" {
					close(watching)
				}
			case protocol.EventProgress:
				e, ok := decodeAuditEntry([]byte(ev.Message))
				if !ok {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if !historyDone {
					held = append(held, e)
				} else if !seen[e.ID] {
					r.printAuditEntry(&e)
				}
			}
		}
		raw, _ := json.Marshal(filters)
		go func() {
			var err error
			watchRes, err = c.Call(ctx, "audit_watch", raw, client.CallOptions{ClientInfo: clientInfo(), OnEvent: onEvent})
			watchDone <- err
		}()
		select {
		case <-watching:
		case err := <-watchDone:
			return r.auditCallFailed(ctx, t.SocketPath, watchRes, err)
		case <-ctx.Done():
			return exitOK
		}
	}
	raw, _ := json.Marshal(query)
	res, err := c.Call(ctx, "audit_query", raw, client.CallOptions{ClientInfo: clientInfo(), Timeout: r.timeout})
	if err != nil || !res.OK {
		if ctx.Err() != nil && follow {
			return exitOK
		}
		return r.auditCallFailed(ctx, t.SocketPath, res, err)
	}
	var page struct {
		Entries []json.RawMessage `json:"entries"`
	}
	if err := json.Unmarshal(res.Content, &page); err != nil {
		return r.p.fail(t.SocketPath, fmt.Errorf("audit_query answered %v", err))
	}
	mu.Lock()
	for i := len(page.Entries) - 1; i >= 0; i-- { // oldest first
		e, ok := decodeAuditEntry(page.Entries[i])
		if !ok {
			continue
		}
		r.printAuditEntry(&e)
		seen[e.ID] = true
	}
	for i := range held {
		if !seen[held[i].ID] {
			r.printAuditEntry(&held[i])
		}
	}
	historyDone, held = true, nil
	mu.Unlock()
	if !follow {
		return exitOK
	}
	if !r.p.quiet && !r.p.json {
		r.p.stderr("following the audit log… Ctrl+C to stop")
	}
	err = <-watchDone
	if ctx.Err() != nil {
		return exitOK // Ctrl+C is how a follow ends
	}
	return r.auditCallFailed(ctx, t.SocketPath, watchRes, err)
}

// auditCallFailed reports a failed audit_query or audit_watch call.
func (r *runner) auditCallFailed(ctx context.Context, socket string, res protocol.ToolResult, err error) int {
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return r.p.fail(socket, err)
	}
	if !res.OK {
		r.p.toolError(res.Error)
		return exitFailure
	}
	return exitOK
}

// maxAuditLimit is the largest page audit_query returns (audit.MaxQueryLimit;
// the CLI stays apart from the audit package, its schema is the contract).
const maxAuditLimit = 1000

// auditEntry is what the CLI reads of an audit entry; raw is the entry as
// the runtime sent it, printed unchanged with --json.
type auditEntry struct {
	ID         string `json:"id"`
	TS         string `json:"ts"`
	Caller     string `json:"caller"`
	ToolName   string `json:"toolName"`
	Decision   string `json:"decision"`
	DurationMs int64  `json:"durationMs"`
	raw        []byte
}

// decodeAuditEntry reads one entry of audit_query or audit_watch; false
// when it is not an entry.
func decodeAuditEntry(b []byte) (auditEntry, bool) {
	var e auditEntry
	if json.Unmarshal(b, &e) != nil || e.ID == "" {
		return auditEntry{}, false
	}
	var compact bytes.Buffer
	if json.Compact(&compact, b) != nil {
		return auditEntry{}, false
	}
	e.raw = compact.Bytes()
	return e, true
}

// printAuditEntry prints one entry: NDJSON with --json, else a line of
// time (local), caller, tool, decision and duration.
func (r *runner) printAuditEntry(e *auditEntry) {
	if r.p.json {
		r.p.stdout("%s", e.raw)
		return
	}
	when := e.TS
	if ts, err := time.Parse(time.RFC3339Nano, e.TS); err == nil {
		when = ts.Local().Format("2006-01-02 15:04:05.000")
	}
	r.p.stdout("%s  %-8s  %-30s  %-9s  %6dms", when, e.Caller, e.ToolName, e.Decision, e.DurationMs)
}
