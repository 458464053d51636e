// Package audittools registers the tools that read the audit log
// (audit.jsonl and its archives, see backend/audit): audit_query, a page
// of entries newest first with filters and a cursor, and audit_watch,
// which streams the matching entries written after it started until the
// call is cancelled. Both are read-only; the entries are already redacted.
package audittools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// WatchTimeout is audit_watch's timeout: as attach_process_logs', long
// enough that a watch runs until the caller cancels it.
const WatchTimeout = 2_147_483_647 * time.Millisecond

// WatchingMessage is the message of the log event audit_watch sends once
// it watches: every entry written after it is streamed.
const WatchingMessage = "watching the audit log"

// WatchBuffer bounds the entries waiting to be sent by one audit_watch;
// beyond it the newest are dropped and counted.
const WatchBuffer = 1024

// Deps is what the audit tools need.
type Deps struct {
	// Log is the audit log.
	Log *audit.Log
	// Now is the clock of relative times ("1h"); nil: time.Now.
	Now func() time.Time
}

// Filters are the filters of audit_query and audit_watch.
type Filters struct {
	Callers   []string `json:"callers,omitempty" jsonschema:"only entries of these callers" enum:"cli,renderer,agent,plugin,internal" maxItems:"8"`
	Tools     []string `json:"tools,omitempty" jsonschema:"only entries of these tool names (exact)" maxLength:"256" maxItems:"64"`
	Decisions []string `json:"decisions,omitempty" jsonschema:"only entries with these decisions" enum:"allow,approved,deny,refused,cancelled,timeout" maxItems:"8"`
	SpaceID   string   `json:"spaceId,omitempty" jsonschema:"only entries of this space" maxLength:"256"`
	Since     string   `json:"since,omitempty" jsonschema:"only entries at or after this time: RFC 3339, or a duration back from now (90s, 30m, 1h, 7d)" maxLength:"64"`
	Until     string   `json:"until,omitempty" jsonschema:"only entries at or before this time: RFC 3339, or a duration back from now" maxLength:"64"`
	Search    string   `json:"search,omitempty" jsonschema:"case-insensitive text in the tool name, the arguments summary or the result summary" maxLength:"256"`
}

// QueryInput is the input of audit_query.
type QueryInput struct {
	Filters
	Limit  int    `json:"limit,omitempty" jsonschema:"entries per page" minimum:"1" maximum:"1000" default:"200"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page: go on with older entries" maxLength:"200"`
}

// QueryResult is the content of audit_query: entries newest first, and
// the cursor of the next (older) page when there may be more.
type QueryResult struct {
	Entries    []audit.Entry `json:"entries"`
	NextCursor string        `json:"nextCursor,omitempty"`
}

// WatchResult is the content of audit_watch once it is cancelled. As with
// attach_process_logs, the registry keeps it when it is there as the call
// ends and answers CANCELLED otherwise: a caller must accept either.
type WatchResult struct {
	// Delivered is how many entries were streamed.
	Delivered int `json:"delivered"`
	// Dropped is how many matching entries were not streamed because the
	// caller read too slowly (more than WatchBuffer waiting).
	Dropped int `json:"dropped"`
}

// Register adds audit_query and audit_watch to r.
func Register(r *registry.Registry, d Deps) {
	if d.Now == nil {
		d.Now = time.Now
	}
	t := &tools{d: d}
	registry.RegisterAll(r, []registry.Def{
		{Name: "audit_query", Description: "Read the audit log of tool calls (redacted), newest first, across audit.jsonl and its archives: filter by callers, tools, decisions, space, time (since/until: RFC 3339 or a duration like 1h) and text; page with nextCursor.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.query)},
		{Name: "audit_watch", Description: "Stream the audit entries written from now on that match the filters, one progress event per entry (its message is the entry as JSON), until the call is cancelled. A log event says when the watch is on.",
			Capabilities: protocol.ReadOnly(), Timeout: WatchTimeout, Handler: registry.Handle(t.watch)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

// query is audit_query.
func (t *tools) query(ctx context.Context, call *registry.Call, in QueryInput) (QueryResult, error) {
	q, err := t.toQuery(in.Filters)
	if err != nil {
		return QueryResult{}, err
	}
	q.Limit, q.Cursor = in.Limit, in.Cursor
	p, err := t.d.Log.Query(ctx, q)
	if err != nil {
		return QueryResult{}, toolError(err)
	}
	return QueryResult{Entries: p.Entries, NextCursor: p.NextCursor}, nil
}

// watch is audit_watch.
func (t *tools) watch(ctx context.Context, call *registry.Call, in Filters) (WatchResult, error) {
	q, err := t.toQuery(in)
	if err != nil {
		return WatchResult{}, err
	}
	f, err := audit.NewFilter(q)
	if err != nil {
		return WatchResult{}, toolError(err)
	}
	pending := make(chan audit.Entry, WatchBuffer)
	var res WatchResult
	var dropped atomic.Int64
	var on atomic.Bool // entries written before are not streamed
	cancel := t.d.Log.Subscribe(func(es []audit.Entry) {
		if !on.Load() {
			return
		}
		for i := range es {
			if !f.Match(&es[i]) {
				continue
			}
			select {
			case pending <- es[i]:
			default:
				dropped.Add(1)
			}
		}
	})
	defer cancel()
	// What was recorded before the call is written first, and not
	// streamed: the watch starts with the entries recorded after the log
	// event that says it is on.
	if err := t.d.Log.Flush(ctx); err != nil {
		return res, nil // cancelled
	}
	on.Store(true)
	call.Log(protocol.LevelInfo, WatchingMessage)
	for {
		select {
		case <-ctx.Done():
			cancel()
			res.Dropped = int(dropped.Load())
			return res, nil
		case e := <-pending:
			call.Progress(string(audit.Line(&e)), -1)
			res.Delivered++
		}
	}
}

// toQuery checks the filters and turns them into an audit.Query.
func (t *tools) toQuery(in Filters) (audit.Query, error) {
	q := audit.Query{Callers: in.Callers, Tools: in.Tools, Decisions: in.Decisions, SpaceID: in.SpaceID, Search: in.Search}
	var err error
	if q.Since, err = t.parseTime("since", in.Since); err != nil {
		return audit.Query{}, err
	}
	if q.Until, err = t.parseTime("until", in.Until); err != nil {
		return audit.Query{}, err
	}
	return q, nil
}

// parseTime reads an RFC 3339 time or a positive duration back from now
// ("90s", "30m", "1h", "7d"); "" is the zero time.
func (t *tools) parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return ts, nil
	}
	var d time.Duration
	var err error
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
		if n > 36500 {
			err = errors.New("too long")
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return time.Time{}, registry.InvalidArg(field, fmt.Sprintf("%s must be an RFC 3339 time (2026-05-01T12:00:00Z) or a positive duration back from now (90s, 30m, 1h, 7d)", field))
	}
	return t.d.Now().Add(-d), nil
}

// toolError maps the log's errors: a bad query is the caller's mistake.
func toolError(err error) error {
	var qe *audit.QueryError
	if errors.As(err, &qe) {
		return registry.InvalidArg(qe.Field, qe.Field+" "+qe.Reason)
	}
	return err
}
