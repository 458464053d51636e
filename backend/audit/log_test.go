package audit

// The file itself (line counting, torn lines, compaction, reading across
// chunks) is jsonl's and is tested there; these tests cover what the audit
// log adds: entries, modes, order, the queue and its writer.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// openLog opens a log in a fresh directory and closes it at the end.
func openLog(t *testing.T, opts Options) (*Log, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s) error: %v", path, err)
	}
	t.Cleanup(func() { l.Close() })
	return l, path
}

// gate holds the log's writer before each batch until it is opened.
type gate struct {
	entered chan struct{} // gets a value each time the writer arrives
	open    chan struct{}
	once    sync.Once
}

func newGate() *gate {
	return &gate{entered: make(chan struct{}, 1000), open: make(chan struct{})}
}

// hold is the writer's beforeWrite hook.
func (g *gate) hold() {
	g.entered <- struct{}{}
	<-g.open
}

// release lets the writer go on, now and from then on.
func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// waitWriter waits until the writer is held with a batch.
func (g *gate) waitWriter(t *testing.T) {
	t.Helper()
	select {
	case <-g.entered:
	case <-time.After(5 * time.Second):
		t.Fatal("the writer did not take a batch")
	}
}

// heldLog opens a log whose writer waits at the gate before each batch.
func heldLog(t *testing.T, opts Options) (*Log, string, *gate) {
	t.Helper()
	g := newGate()
	opts.beforeWrite = g.hold
	l, path := openLog(t, opts)
	t.Cleanup(g.release) // runs before the Close registered by openLog
	return l, path, g
}

// flush waits for the log's writer.
func flush(t *testing.T, l *Log) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Flush(ctx); err != nil {
		t.Fatalf("Flush() error: %v", err)
	}
}

// returnsWithin reports whether fn, started in a goroutine, returns within d;
// the returned channel is closed when it does.
func returnsWithin(d time.Duration, fn func()) (bool, chan struct{}) {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
		return true, done
	case <-time.After(d):
		return false, done
	}
}

// entry returns a distinguishable entry.
func entry(tool string) Entry {
	return Entry{ID: protocol.NewID("audit"), TS: "2026-01-01T00:00:00.000Z", Caller: protocol.CallerCLI,
		ToolName: tool, Capabilities: []string{"read-only"}, Decision: DecisionAllow,
		ArgsSummary: "{}", ResultSummary: `{"ok":true}`}
}

// fileLines returns the file's lines (without newlines).
func fileLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) == 0 {
		return nil
	}
	if b[len(b)-1] != '\n' {
		t.Errorf("%s does not end with a newline", path)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// fileTools returns the tool names of the file's entries, in file order.
func fileTools(t *testing.T, path string) string {
	t.Helper()
	var s []string
	for i, line := range fileLines(t, path) {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d is not an entry: %v: %.80s", i+1, err, line)
		}
		s = append(s, e.ToolName)
	}
	return strings.Join(s, ",")
}

// toolNames returns the tool names of entries.
func toolNames(es []Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.ToolName)
	}
	return strings.Join(s, ",")
}

func TestOpenFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "user", "data")
	path := filepath.Join(dir, "audit.jsonl")
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open(new path) error: %v", err)
	}
	l.Record(entry("t"))
	l.Close()
	for _, c := range []struct {
		path string
		want os.FileMode
	}{{dir, 0o700 | os.ModeDir}, {path, 0o600}} {
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != c.want {
			t.Errorf("mode of %s = %v, want %v", c.path, fi.Mode(), c.want)
		}
	}

	// An existing file with a loose mode is tightened.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("Open(existing) error: %v", err)
	}
	defer l.Close()
	if fi, _ := os.Stat(path); fi.Mode() != 0o600 {
		t.Errorf("mode of existing %s after Open = %v, want 0600", path, fi.Mode())
	}
}

func TestRecordConcurrent(t *testing.T) {
	const goroutines, each = 16, 250
	l, path := openLog(t, Options{QueueLen: 64}) // a short queue: callers wait for room too
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				e := entry(fmt.Sprintf("g%02d_%03d", g, i))
				e.ArgsSummary = strings.Repeat("x", 100*(i%7)) // vary the line lengths
				l.Record(e)
			}
		})
	}
	wg.Wait()
	flush(t, l)
	lines := fileLines(t, path)
	if len(lines) != goroutines*each {
		t.Fatalf("%d goroutines × %d records wrote %d lines, want %d", goroutines, each, len(lines), goroutines*each)
	}
	seen := map[string]bool{}
	next := map[string]int{} // per goroutine, the next record expected
	for i, line := range lines {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("line %d is not an entry: %v: %.80s", i+1, err, line)
		}
		if seen[e.ToolName] {
			t.Errorf("line %d repeats %s", i+1, e.ToolName)
		}
		seen[e.ToolName] = true
		// Each goroutine's records are in the order it made them.
		g, n := e.ToolName[:3], 0
		fmt.Sscanf(e.ToolName[4:], "%d", &n)
		if n != next[g] {
			t.Fatalf("line %d is %s, want %s_%03d next", i+1, e.ToolName, g, next[g])
		}
		next[g]++
	}
}

// TestRecordOrder: entries reach the file in the order of the calls, across
// batches and whether they come from Record or from Audit.
func TestRecordOrder(t *testing.T) {
	l, path, g := heldLog(t, Options{})
	var want []string
	for i := range 30 {
		name := fmt.Sprintf("t%02d", i)
		want = append(want, name)
		if i%2 == 0 {
			l.Record(entry(name))
		} else {
			l.Audit(registry.Outcome{ToolName: name, Started: time.Now(), Client: protocol.ClientInfo{Caller: protocol.CallerCLI}})
		}
		if i == 0 {
			g.waitWriter(t) // the writer holds a batch of one; the rest queue
		}
	}
	g.release()
	flush(t, l)
	if got := fileTools(t, path); got != strings.Join(want, ",") {
		t.Errorf("file order = %s, want %s", got, strings.Join(want, ","))
	}
}

// TestAuditBuildsEntriesInTheWriter: Audit returns before the entry is
// built, and a call without a start time is stamped when Audit was called,
// not when the writer got to it.
func TestAuditBuildsEntriesInTheWriter(t *testing.T) {
	l, path, g := heldLog(t, Options{})
	l.Record(entry("first"))
	g.waitWriter(t)
	before := time.Now().UTC().Truncate(time.Millisecond)
	l.Audit(registry.Outcome{ToolName: "late", Args: json.RawMessage(`{"password":"p"}`),
		Client: protocol.ClientInfo{Caller: protocol.CallerCLI}, Result: protocol.OKResult(map[string]int{"n": 1})})
	after := time.Now().UTC()
	time.Sleep(20 * time.Millisecond)
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Fatalf("the file has %q while the writer is held", b)
	}
	g.release()
	got, err := l.Tail(1)
	if err != nil || len(got) != 1 {
		t.Fatalf("Tail(1) = %v, %v", got, err)
	}
	e := got[0]
	ts, err := time.Parse(TimeLayout, e.TS)
	if err != nil || ts.Before(before) || ts.After(after) {
		t.Errorf("TS = %s, want the time of the Audit call, %s..%s", e.TS, before.Format(TimeLayout), after.Format(TimeLayout))
	}
	if e.ArgsSummary != `{"password":"[REDACTED]"}` || e.ResultSummary != `{"ok":true,"content":{"n":1}}` || !strings.HasPrefix(e.ID, "audit_") {
		t.Errorf("entry = %+v, want redacted summaries and an id", e)
	}
}

// TestBackpressure: once QueueLen entries wait, Record blocks until the
// writer takes them; nothing is dropped.
func TestBackpressure(t *testing.T) {
	const queueLen = 4
	l, path, g := heldLog(t, Options{QueueLen: queueLen})
	l.Record(entry("r0"))
	g.waitWriter(t) // r0 is being written; the queue is empty
	for i := range queueLen {
		if ok, _ := returnsWithin(2*time.Second, func() { l.Record(entry(fmt.Sprintf("r%d", i+1))) }); !ok {
			t.Fatalf("Record %d blocked with %d of %d queued", i+1, i, queueLen)
		}
	}
	ok, done := returnsWithin(100*time.Millisecond, func() { l.Record(entry("r5")) })
	if ok {
		t.Fatalf("Record returned with a full queue, want it to wait")
	}
	g.release()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Record still blocked after the writer went on")
	}
	flush(t, l)
	if got, want := fileTools(t, path), "r0,r1,r2,r3,r4,r5"; got != want {
		t.Errorf("file = %s, want %s", got, want)
	}
}

// TestFlush: Flush waits for the writer, and gives up when its context ends.
func TestFlush(t *testing.T) {
	l, path, g := heldLog(t, Options{})
	l.Record(entry("a"))
	g.waitWriter(t)
	l.Record(entry("b"))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := l.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Flush with the writer held = %v, want DeadlineExceeded", err)
	}
	g.release()
	flush(t, l)
	if got := fileTools(t, path); got != "a,b" {
		t.Errorf("file after Flush = %s, want a,b", got)
	}
	if err := l.Flush(context.Background()); err != nil { // nothing queued
		t.Errorf("Flush with nothing queued = %v", err)
	}
}

// TestTailAndClearFlushFirst: both see everything recorded before them.
func TestTailAndClearFlushFirst(t *testing.T) {
	l, path, g := heldLog(t, Options{})
	l.Record(entry("one"))
	g.waitWriter(t)
	l.Record(entry("two"))
	var got []Entry
	ok, done := returnsWithin(50*time.Millisecond, func() { got, _ = l.Tail(10) })
	if ok {
		t.Fatalf("Tail returned %s while the writer was held, want it to wait", toolNames(got))
	}
	g.release()
	<-done
	if toolNames(got) != "one,two" {
		t.Errorf("Tail(10) = %s, want one,two", toolNames(got))
	}

	for i := range 5 {
		l.Record(entry(fmt.Sprint(i)))
	}
	if _, files, err := l.Clear(entry("cleared")); err != nil || files != 1 {
		t.Fatalf("Clear() = %d files, error %v; want 1 file", files, err)
	}
	l.Record(entry("new"))
	if got, _ := l.Tail(10); toolNames(got) != "cleared,new" {
		t.Errorf("Tail after Clear and one record = %s, want cleared,new", toolNames(got))
	}
	if got := fileTools(t, path); got != "cleared,new" {
		t.Errorf("file after Clear and one record = %s, want cleared,new", got)
	}
}

// TestCloseWritesQueued: Close writes what is queued before it closes.
func TestCloseWritesQueued(t *testing.T) {
	l, path, g := heldLog(t, Options{})
	var want []string
	for i := range 100 {
		want = append(want, fmt.Sprint(i))
		l.Record(entry(fmt.Sprint(i)))
		if i == 0 {
			g.waitWriter(t)
		}
	}
	ok, done := returnsWithin(50*time.Millisecond, func() { l.Close() })
	if ok {
		t.Fatal("Close returned while the writer was held with entries queued")
	}
	g.release()
	<-done
	if got := fileTools(t, path); got != strings.Join(want, ",") {
		t.Errorf("file after Close = %s, want 0..99", got)
	}
}

// TestTailSkipsNonEntries: lines that are not entries (not JSON, not an
// object, no id, wrong types) are skipped and older entries read instead.
func TestTailSkipsNonEntries(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	good := func(tool string) string {
		b, _ := json.Marshal(entry(tool))
		return string(b)
	}
	content := strings.Join([]string{
		good("one"), "not json", "", `[1,2]`, `{"noid":true}`, good("two"),
		`{"id":"audit_x","ts":`, good("three"), `{"id":"audit_y","toolName":5}`,
	}, "\n") + "\n"
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Record(entry("four"))

	tests := []struct {
		n    int
		want string
	}{
		{0, ""},
		{1, "four"},
		{2, "three,four"},
		{3, "two,three,four"},
		{10, "one,two,three,four"},
	}
	for _, tt := range tests {
		got, err := l.Tail(tt.n)
		if err != nil {
			t.Fatalf("Tail(%d) error: %v", tt.n, err)
		}
		if toolNames(got) != tt.want {
			t.Errorf("Tail(%d) = %q, want %q", tt.n, toolNames(got), tt.want)
		}
		for _, e := range got {
			if e.Capabilities == nil {
				t.Errorf("Tail(%d) entry %s has nil capabilities, want []", tt.n, e.ToolName)
			}
		}
	}
}

func TestRecordAfterCloseIsReported(t *testing.T) {
	var mu sync.Mutex
	var reports []string
	l, path := openLog(t, Options{Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		reports = append(reports, fmt.Sprintf(format, args...))
	}})
	l.Record(entry("before"))
	if err := l.Close(); err != nil {
		t.Fatalf("Close() error: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close() error: %v, want nil", err)
	}
	l.Record(entry("after")) // must not panic
	l.Audit(registry.Outcome{ToolName: "after_audit"})
	mu.Lock()
	if len(reports) != 2 || !strings.Contains(reports[0], ErrClosed.Error()) || !strings.Contains(reports[1], ErrClosed.Error()) {
		t.Errorf("Logf reports after a record and an audit on a closed log = %q, want two mentioning %q", reports, ErrClosed)
	}
	mu.Unlock()
	if n := len(fileLines(t, path)); n != 1 {
		t.Errorf("file has %d lines, want 1", n)
	}
	if _, err := l.Tail(1); !errors.Is(err, ErrClosed) {
		t.Errorf("Tail on a closed log error = %v, want ErrClosed", err)
	}
	if _, _, err := l.Clear(entry("cleared")); !errors.Is(err, ErrClosed) {
		t.Errorf("Clear on a closed log error = %v, want ErrClosed", err)
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Errorf("Flush on a closed log = %v, want nil (nothing is left to write)", err)
	}
	var nilLog *Log
	nilLog.Record(entry("nil")) // a nil log drops entries
	nilLog.Audit(registry.Outcome{})
	if err := nilLog.Flush(context.Background()); err != nil {
		t.Errorf("nil Flush = %v", err)
	}
}

// TestRegistryAudit wires the log as the registry's audit hook: every call
// lands in the file, with redacted summaries.
func TestRegistryAudit(t *testing.T) {
	l, _ := openLog(t, Options{})
	reg := registry.New(registry.Options{Audit: l.Audit})
	type in struct {
		Note string `json:"note"`
	}
	registry.Register(reg, registry.Tool{Name: "echo_secret", Description: "Echo a secret.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly}},
		func(ctx context.Context, call *registry.Call, in in) (map[string]string, error) {
			return map[string]string{"apiKey": "sk-123", "note": in.Note}, nil
		})
	ci := protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:abc", Cwd: "/w"}
	reg.Call(t.Context(), registry.Request{ToolName: "echo_secret", Args: json.RawMessage(`{"note":"Bearer abcdefghijklmnop"}`), Client: ci})
	reg.Call(t.Context(), registry.Request{ToolName: "no_such_tool", Client: ci})

	got, err := l.Tail(5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("Tail(5) = %d entries, want 2", len(got))
	}
	e := got[0]
	if e.ToolName != "echo_secret" || e.Decision != DecisionAllow || e.SessionID != "socket:abc" || e.Cwd != "/w" ||
		strings.Join(e.Capabilities, ",") != "read-only" {
		t.Errorf("entry 1 = %+v, want echo_secret allowed for socket:abc in /w", e)
	}
	if want := `{"note":"[REDACTED]"}`; e.ArgsSummary != want {
		t.Errorf("entry 1 ArgsSummary = %s, want %s", e.ArgsSummary, want)
	}
	if want := `{"ok":true,"content":{"apiKey":"[REDACTED]","note":"[REDACTED]"}}`; e.ResultSummary != want {
		t.Errorf("entry 1 ResultSummary = %s, want %s", e.ResultSummary, want)
	}
	if u := got[1]; u.ToolName != "no_such_tool" || len(u.Capabilities) != 0 || u.Capabilities == nil ||
		!strings.Contains(u.ResultSummary, "UNKNOWN_TOOL") {
		t.Errorf("entry 2 = %+v, want the unknown tool with capabilities []", u)
	}
}

// TestLingeringEntryIsWritten: a lone entry is not written at once (the
// writer lingers to gather a batch) but reaches the file without Flush, and
// Close while the writer lingers neither hangs nor loses it.
func TestLingeringEntryIsWritten(t *testing.T) {
	l, path := openLog(t, Options{})
	l.Record(entry("lone"))
	deadline := time.Now().Add(2 * time.Second)
	for fileTools(t, path) != "lone" {
		if time.Now().After(deadline) {
			t.Fatalf("a lone entry was not written within 2s of Record")
		}
		time.Sleep(time.Millisecond)
	}

	l2, path2 := openLog(t, Options{})
	l2.Record(entry("at-close"))
	ok, _ := returnsWithin(time.Second, func() { l2.Close() })
	if !ok {
		t.Fatal("Close hung while the writer lingered")
	}
	if got := fileTools(t, path2); got != "at-close" {
		t.Errorf("file after Close = %q, want at-close", got)
	}
}
