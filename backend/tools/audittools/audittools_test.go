package audittools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/tools/audittools"
)

// setup is a registry whose calls are audited to a real log, with the
// audit tools and a tool to make entries with.
func setup(t *testing.T) (*registry.Registry, *audit.Log) {
	t.Helper()
	l, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	reg := registry.New(registry.Options{Audit: l.Audit})
	audittools.Register(reg, audittools.Deps{Log: l})
	type echoIn struct {
		Word string `json:"word"`
	}
	registry.RegisterAll(reg, []registry.Def{{Name: "echo", Description: "Echo a word.", Capabilities: protocol.ReadOnly(),
		Handler: registry.Handle(func(ctx context.Context, call *registry.Call, in echoIn) (echoIn, error) { return in, nil })}})
	return reg, l
}

func call(reg *registry.Registry, caller protocol.Caller, tool, args string) protocol.ToolResult {
	return reg.Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: tool, Args: json.RawMessage(args),
		Client: protocol.ClientInfo{Caller: caller}})
}

func query(t *testing.T, reg *registry.Registry, args string) audittools.QueryResult {
	t.Helper()
	res := call(reg, protocol.CallerCLI, "audit_query", args)
	var out audittools.QueryResult
	if !res.OK || json.Unmarshal(res.Content, &out) != nil {
		t.Fatalf("audit_query(%s) = %s %+v", args, res.Content, res.Error)
	}
	return out
}

func words(es []audit.Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.ToolName+":"+e.ArgsSummary)
	}
	return strings.Join(s, ",")
}

func TestQuery(t *testing.T) {
	reg, _ := setup(t)
	call(reg, protocol.CallerCLI, "echo", `{"word":"alpha"}`)
	call(reg, protocol.CallerRenderer, "echo", `{"word":"beta"}`)
	call(reg, protocol.CallerAgent, "nope_tool", `{}`)
	for _, tc := range []struct {
		args, want string
	}{
		{`{"tools":["echo"]}`, `echo:{"word":"beta"},echo:{"word":"alpha"}`},
		{`{"callers":["renderer"]}`, `echo:{"word":"beta"}`},
		{`{"search":"ALPHA","since":"1h","tools":["echo"]}`, `echo:{"word":"alpha"}`},
		{`{"tools":["echo"],"until":"2000-01-01T00:00:00Z"}`, ``},
		{`{"tools":["nope_tool"],"since":"7d"}`, `nope_tool:{}`},
		{`{"decisions":["deny"],"tools":["echo"]}`, ``},
	} {
		if got := words(query(t, reg, tc.args).Entries); got != tc.want {
			t.Errorf("audit_query(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
	// Paging: one entry a page, newest first, then no cursor.
	p := query(t, reg, `{"tools":["echo"],"limit":1}`)
	if words(p.Entries) != `echo:{"word":"beta"}` || p.NextCursor == "" {
		t.Fatalf("first page %+v", p)
	}
	p = query(t, reg, fmt.Sprintf(`{"tools":["echo"],"limit":1,"cursor":%q}`, p.NextCursor))
	if words(p.Entries) != `echo:{"word":"alpha"}` {
		t.Errorf("second page %+v", p)
	}
}

func TestQueryRefused(t *testing.T) {
	reg, _ := setup(t)
	for _, tc := range []struct{ args, field string }{
		{`{"since":"yesterday"}`, "since"},
		{`{"until":"-1h"}`, "until"},
		{`{"limit":1001}`, "limit"},
		{`{"limit":0}`, "limit"},
		{`{"decisions":["maybe"]}`, "decisions"},
		{`{"callers":["robot"]}`, "callers"},
		{`{"cursor":"not-a-cursor"}`, "cursor"},
		{`{"since":"2026-05-02T00:00:00Z","until":"2026-05-01T00:00:00Z"}`, "until"},
		{`{"colour":"red"}`, "colour"},
	} {
		res := call(reg, protocol.CallerCLI, "audit_query", tc.args)
		if res.OK || res.Error.Code != protocol.CodeValidation || !strings.Contains(fmt.Sprint(res.Error.Details)+res.Error.Message, tc.field) {
			t.Errorf("audit_query(%s) = %+v, want VALIDATION_ERROR naming %s", tc.args, res.Error, tc.field)
		}
	}
}

// TestWatchDeliversNewEntries: an entry written after the watch started
// arrives as a progress event carrying it; entries that do not match the
// filters do not; cancelling ends the call.
func TestWatchDeliversNewEntries(t *testing.T) {
	reg, _ := setup(t)
	call(reg, protocol.CallerCLI, "echo", `{"word":"before"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var events []protocol.Event
	on := make(chan struct{})
	got := make(chan struct{}, 64)
	done := make(chan protocol.ToolResult, 1)
	go func() {
		done <- reg.Call(ctx, registry.Request{RequestID: "req_w", ToolName: "audit_watch", Args: json.RawMessage(`{"tools":["echo"]}`),
			Client: protocol.ClientInfo{Caller: protocol.CallerCLI}, Emit: func(ev protocol.Event) {
				if ev.Kind == protocol.EventLog && ev.Message == audittools.WatchingMessage {
					close(on)
					return
				}
				mu.Lock()
				events = append(events, ev)
				mu.Unlock()
				got <- struct{}{}
			}})
	}()
	select {
	case <-on:
	case res := <-done:
		t.Fatalf("audit_watch ended before it watched: %+v", res)
	}
	call(reg, protocol.CallerCLI, "nope_tool", `{}`) // filtered out
	call(reg, protocol.CallerCLI, "echo", `{"word":"after"}`)
	<-got
	cancel()
	res := <-done
	if !res.OK && res.Error.Code != protocol.CodeCancelled {
		t.Errorf("audit_watch after cancel = %+v, want its result or CANCELLED", res.Error)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 1 || events[0].Kind != protocol.EventProgress {
		t.Fatalf("events %+v, want one progress event", events)
	}
	var e audit.Entry
	if err := json.Unmarshal([]byte(events[0].Message), &e); err != nil || e.ToolName != "echo" || e.ArgsSummary != `{"word":"after"}` {
		t.Errorf("streamed entry %s (%v), want the echo of after", events[0].Message, err)
	}
}
