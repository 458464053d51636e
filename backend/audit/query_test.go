package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// queryAll pages through q until the end and returns every entry.
func queryAll(t *testing.T, l *Log, q Query) []Entry {
	t.Helper()
	var all []Entry
	for range 10_000 {
		p, err := l.Query(context.Background(), q)
		if err != nil {
			t.Fatalf("Query(%+v) error: %v", q, err)
		}
		all = append(all, p.Entries...)
		if p.NextCursor == "" {
			return all
		}
		q.Cursor = p.NextCursor
	}
	t.Fatal("Query did not end after 10,000 pages")
	return nil
}

// archivesIn lists the archive files of dir.
func archivesIn(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "audit-*.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// reversed returns the tool names t<from>..t<to-1> newest first.
func reversedTools(from, to int) string {
	var s []string
	for i := to - 1; i >= from; i-- {
		s = append(s, fmt.Sprintf("t%03d", i))
	}
	return strings.Join(s, ",")
}

// TestRotationKeepsHistory: past RotateBytes the file moves to a
// compressed archive (mode 0600) and a new file starts; Query reads across
// both, also after the log is opened again.
func TestRotationKeepsHistory(t *testing.T) {
	l, path := openLog(t, Options{RotateBytes: 2000})
	for i := range 120 {
		l.Record(entry(fmt.Sprintf("t%03d", i)))
		if i%10 == 9 {
			flush(t, l)
		}
	}
	flush(t, l)
	dir := filepath.Dir(path)
	arcs := archivesIn(t, dir)
	if len(arcs) < 3 {
		t.Fatalf("%d archives after 120 entries with RotateBytes 2000, want several", len(arcs))
	}
	for _, a := range arcs {
		fi, err := os.Stat(a)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(a), fi.Mode().Perm())
		}
		f, _ := os.Open(a)
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s is not gzip: %v", filepath.Base(a), err)
		}
		if _, err := io.ReadAll(zr); err != nil {
			t.Fatalf("%s does not decompress: %v", filepath.Base(a), err)
		}
		f.Close()
	}
	if fi, _ := os.Stat(path); fi.Size() >= 2000+4096 {
		t.Errorf("the live file has %d bytes, want it rotated", fi.Size())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, ".audit-rotate-*")); len(leftovers) > 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	// The first entry, written long before the rotations, is found.
	p, err := l.Query(context.Background(), Query{Tools: []string{"t000"}})
	if err != nil || len(p.Entries) != 1 {
		t.Fatalf("Query t000 = %+v, %v; want the entry from before the rotations", p, err)
	}
	if got := toolNames(queryAll(t, l, Query{Limit: 7})); got != reversedTools(0, 120) {
		t.Errorf("all entries across the archives = %s, want t119..t000", got)
	}
	if got := l.Files(); len(got) != len(arcs)+1 || got[0] != path {
		t.Errorf("Files() = %v, want the live file and %d archives", got, len(arcs))
	}
	l.Close()
	l2, err := Open(path, Options{RotateBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if got := toolNames(queryAll(t, l2, Query{Limit: 1000})); got != reversedTools(0, 120) {
		t.Errorf("after reopening: %s, want t119..t000", got)
	}
}

// writeArchiveFile writes an archive named as if rotated at rotated,
// holding lines (and pad random bytes, incompressible, after them in a
// line of its own that is not an entry).
func writeArchiveFile(t *testing.T, dir string, rotated time.Time, lines []Entry, pad int) string {
	t.Helper()
	var raw bytes.Buffer
	for i := range lines {
		raw.Write(appendEntry(nil, &lines[i]))
	}
	if pad > 0 {
		b := make([]byte, pad)
		rand.Read(b)
		for i := range b {
			if b[i] == '\n' {
				b[i] = 'x'
			}
		}
		raw.Write(b)
		raw.WriteByte('\n')
	}
	id := "x"
	if len(lines) > 0 {
		id = lines[0].ID
	}
	name := filepath.Join(dir, fmt.Sprintf("audit-%s-%s.jsonl.gz", rotated.UTC().Format(archiveTimeLayout), id))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw.Bytes())
	zw.Close()
	if err := os.WriteFile(name, gz.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestRetention: archives rotated more than Days ago go, then the oldest
// while everything takes more than MaxMB; the live file never goes, even
// alone over MaxMB.
func TestRetention(t *testing.T) {
	l, path := openLog(t, Options{})
	dir := filepath.Dir(path)
	now := time.Now()
	old := writeArchiveFile(t, dir, now.Add(-100*24*time.Hour), []Entry{entry("old")}, 0)
	recent := writeArchiveFile(t, dir, now.Add(-10*24*time.Hour), []Entry{entry("recent")}, 0)
	l.SetRetention(Retention{Days: 90, MaxMB: 200})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the archive of 100 days ago is still there (retention 90 days)")
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("the archive of 10 days ago was removed: %v", err)
	}
	l.SetRetention(Retention{Days: 5, MaxMB: 200}) // applied live
	if _, err := os.Stat(recent); !os.IsNotExist(err) {
		t.Errorf("the archive of 10 days ago is still there after retention became 5 days")
	}

	// By size: three archives of ~600 kB; 1 MB keeps the newest only.
	var names []string
	for i := range 3 {
		names = append(names, writeArchiveFile(t, dir, now.Add(time.Duration(i-3)*time.Hour), []Entry{entry(fmt.Sprint("a", i))}, 600_000))
	}
	l.SetRetention(Retention{Days: 90, MaxMB: 1})
	for i, n := range names {
		_, err := os.Stat(n)
		if gone := os.IsNotExist(err); gone != (i < 2) {
			t.Errorf("archive %d of 3 removed = %v, want %v (1 MB keeps the newest)", i, gone, i < 2)
		}
	}
	p, err := l.Query(context.Background(), Query{})
	if err != nil || toolNames(p.Entries) != "a2" {
		t.Errorf("Query after retention = %s, %v; want a2", toolNames(p.Entries), err)
	}

	// The live file alone over MaxMB: the archives go, it stays.
	big := strings.Repeat("y", 1500)
	for i := range 800 {
		e := entry(fmt.Sprint("live", i))
		e.ArgsSummary = big
		l.Record(e)
	}
	flush(t, l)
	l.SetRetention(Retention{Days: 90, MaxMB: 1})
	if n := archivesIn(t, dir); len(n) != 0 {
		t.Errorf("archives %v kept while the live file alone is over 1 MB", n)
	}
	if n := len(fileLines(t, path)); n != 800 {
		t.Errorf("live file has %d lines after retention, want all 800", n)
	}
}

// TestQueryFilters checks each filter on a fixed set of entries.
func TestQueryFilters(t *testing.T) {
	l, _ := openLog(t, Options{})
	mk := func(tool string, caller protocol.Caller, decision Decision, space, ts, args, result string) Entry {
		e := entry(tool)
		e.Caller, e.Decision, e.SpaceID, e.TS, e.ArgsSummary, e.ResultSummary = caller, decision, space, ts, args, result
		return e
	}
	for _, e := range []Entry{
		mk("app_ping", protocol.CallerCLI, DecisionAllow, "", "2026-05-01T10:00:00.000Z", "{}", `{"ok":true}`),
		mk("workspace_write_file", protocol.CallerCLI, "deny", "sp_1", "2026-05-01T11:00:00.000Z", `{"path":"notes/Secret.md"}`, `{"ok":false}`),
		mk("git_commit", protocol.CallerAgent, "approved", "sp_1", "2026-05-01T12:00:00.000Z", `{"message":"fix"}`, `{"ok":true}`),
		mk("workspace_write_file", protocol.CallerRenderer, "refused", "sp_2", "2026-05-01T13:00:00.000Z", `{"path":"a"}`, `{"ok":false}`),
		mk("close_space", protocol.CallerRenderer, "cancelled", "sp_2", "2026-05-01T14:00:00.000Z", `{"spaceId":"sp_2"}`, `{"ok":false,"error":{"code":"CANCELLED"}}`),
		mk("app_ping", protocol.CallerAgent, "timeout", "", "2026-05-01T15:00:00.000Z", "{}", `{"ok":false}`),
	} {
		l.Record(e)
	}
	at := func(s string) time.Time { t, _ := time.Parse(time.RFC3339, s); return t }
	for _, tc := range []struct {
		name string
		q    Query
		want string
	}{
		{"everything, newest first", Query{}, "app_ping,close_space,workspace_write_file,git_commit,workspace_write_file,app_ping"},
		{"caller", Query{Callers: []string{"renderer"}}, "close_space,workspace_write_file"},
		{"two callers", Query{Callers: []string{"renderer", "agent"}}, "app_ping,close_space,workspace_write_file,git_commit"},
		{"tool", Query{Tools: []string{"workspace_write_file"}}, "workspace_write_file,workspace_write_file"},
		{"denied-like decisions", Query{Decisions: []string{"deny", "refused", "cancelled", "timeout"}}, "app_ping,close_space,workspace_write_file,workspace_write_file"},
		{"decision approved", Query{Decisions: []string{"approved"}}, "git_commit"},
		{"space", Query{SpaceID: "sp_2"}, "close_space,workspace_write_file"},
		{"since (inclusive)", Query{Since: at("2026-05-01T13:00:00Z")}, "app_ping,close_space,workspace_write_file"},
		{"until (inclusive)", Query{Until: at("2026-05-01T11:00:00Z")}, "workspace_write_file,app_ping"},
		{"since and until", Query{Since: at("2026-05-01T11:30:00Z"), Until: at("2026-05-01T13:30:00Z")}, "workspace_write_file,git_commit"},
		{"search in the arguments, any case", Query{Search: "secret.MD"}, "workspace_write_file"},
		{"search in the tool name", Query{Search: "COMMIT"}, "git_commit"},
		{"search in the result", Query{Search: "cancelled"}, "close_space"},
		{"search with a quote", Query{Search: `"fix"`}, "git_commit"},
		{"fields together", Query{Tools: []string{"workspace_write_file"}, Callers: []string{"cli"}, SpaceID: "sp_1"}, "workspace_write_file"},
		{"no match", Query{Tools: []string{"nope"}}, ""},
		{"limit", Query{Limit: 2}, "app_ping,close_space"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := l.Query(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := toolNames(p.Entries); got != tc.want {
				t.Errorf("Query(%+v) = %s, want %s", tc.q, got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name  string
		q     Query
		field string
	}{
		{"limit too large", Query{Limit: MaxQueryLimit + 1}, "limit"},
		{"negative limit", Query{Limit: -1}, "limit"},
		{"until before since", Query{Since: at("2026-05-02T00:00:00Z"), Until: at("2026-05-01T00:00:00Z")}, "until"},
		{"cursor not base64", Query{Cursor: "!!"}, "cursor"},
		{"cursor without offset", Query{Cursor: encodeCursor("audit_1", 0)[:4]}, "cursor"},
	} {
		_, err := l.Query(context.Background(), tc.q)
		var qe *QueryError
		if !IsQueryError(err) || !errorsAs(err, &qe) || qe.Field != tc.field {
			t.Errorf("%s: error %v, want a QueryError on %s", tc.name, err, tc.field)
		}
	}
}

// errorsAs is errors.As for a *QueryError.
func errorsAs(err error, target **QueryError) bool {
	qe, ok := err.(*QueryError)
	*target = qe
	return ok
}

// TestQueryPagingWhileAppending: paging with the cursor sees each entry
// that existed at the first page exactly once, in order, while new entries
// are appended and the file rotates between pages.
func TestQueryPagingWhileAppending(t *testing.T) {
	l, _ := openLog(t, Options{RotateBytes: 3000})
	for i := range 300 {
		l.Record(entry(fmt.Sprintf("t%03d", i)))
	}
	flush(t, l)
	var got []Entry
	q := Query{Limit: 23, Search: "t"}
	for page := 0; ; page++ {
		if page > 100 {
			t.Fatalf("still paging after 100 pages of 23 (300 entries): the cursor does not advance")
		}
		p, err := l.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Entries...)
		if p.NextCursor == "" {
			break
		}
		q.Cursor = p.NextCursor
		for j := range 17 { // new entries, enough to rotate now and then
			l.Record(entry(fmt.Sprintf("n%02d_%02d", page, j)))
		}
		flush(t, l)
	}
	if n := len(archivesIn(t, filepath.Dir(l.Path()))); n < 2 {
		t.Fatalf("%d archives, want the file to have rotated during the paging", n)
	}
	if toolNames(got) != reversedTools(0, 300) {
		t.Errorf("paged entries = %s, want t299..t000 once each", toolNames(got))
	}
}

// TestQueryScanBound: a query stops after MaxScanBytes with a cursor that
// goes on from there.
func TestQueryScanBound(t *testing.T) {
	l, _ := openLog(t, Options{RotateBytes: 1 << 40})
	e := entry("filler")
	e.ArgsSummary = strings.Repeat("z", 8000)
	n := MaxScanBytes/8000 + 100
	l.Record(entry("needle"))
	for range n {
		e.ID = protocol.NewID("audit")
		l.Record(e)
	}
	p, err := l.Query(context.Background(), Query{Tools: []string{"needle"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Entries) != 0 || p.NextCursor == "" {
		t.Fatalf("first page: %d entries, cursor %q; want none yet and a cursor (scan bound)", len(p.Entries), p.NextCursor)
	}
	p, err = l.Query(context.Background(), Query{Tools: []string{"needle"}, Cursor: p.NextCursor})
	if err != nil || toolNames(p.Entries) != "needle" {
		t.Errorf("second page: %s, %v; want needle", toolNames(p.Entries), err)
	}
}

// TestSubscribeDeliversNewEntries: a subscriber gets the entries written
// after it subscribed, and none after it cancelled.
func TestSubscribeDeliversNewEntries(t *testing.T) {
	l, _ := openLog(t, Options{})
	l.Record(entry("before"))
	flush(t, l)
	got := make(chan []Entry, 10)
	cancel := l.Subscribe(func(es []Entry) { got <- es })
	l.Record(entry("after"))
	flush(t, l)
	select {
	case es := <-got:
		if toolNames(es) != "after" {
			t.Errorf("subscriber got %s, want after", toolNames(es))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no entries delivered")
	}
	cancel()
	l.Record(entry("late"))
	flush(t, l)
	if len(got) != 0 {
		t.Errorf("entries delivered after cancel: %s", toolNames(<-got))
	}
}

// TestClearRemovesArchives: Clear removes the live file's entries and the
// archives, counts them, and writes the given entry first.
func TestClearRemovesArchives(t *testing.T) {
	l, path := openLog(t, Options{RotateBytes: 1500})
	for i := range 40 {
		l.Record(entry(fmt.Sprint("t", i)))
		flush(t, l)
	}
	arcs := archivesIn(t, filepath.Dir(path))
	if len(arcs) == 0 {
		t.Fatal("no archives")
	}
	var want int64
	for _, f := range l.Files() {
		fi, _ := os.Stat(f)
		want += fi.Size()
	}
	bytesGone, files, err := l.Clear(entry("cleared"))
	if err != nil {
		t.Fatal(err)
	}
	if bytesGone != want || files != len(arcs)+1 {
		t.Errorf("Clear = %d bytes, %d files; want %d, %d", bytesGone, files, want, len(arcs)+1)
	}
	if n := archivesIn(t, filepath.Dir(path)); len(n) != 0 {
		t.Errorf("archives left: %v", n)
	}
	l.Record(entry("next"))
	if got := toolNames(queryAll(t, l, Query{})); got != "next,cleared" {
		t.Errorf("after Clear: %s, want next,cleared", got)
	}
}

// TestOpenFinishesInterruptedRotation: an archive that starts with the
// live file's first entry means a crash came between the archive's rename
// and the emptying of the live file; Open empties it, and no entry is
// read twice.
func TestOpenFinishesInterruptedRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	es := []Entry{entry("a"), entry("b")}
	var raw []byte
	for i := range es {
		raw = appendEntry(raw, &es[i])
	}
	os.WriteFile(path, raw, 0o600)
	writeArchiveFile(t, dir, time.Now(), es, 0)
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := toolNames(queryAll(t, l, Query{})); got != "b,a" {
		t.Errorf("entries = %s, want b,a once", got)
	}
}

// TestScanBackwardLines: whole lines across chunk boundaries, with their
// offsets; a torn tail is not a line.
func TestScanBackwardLines(t *testing.T) {
	var data []byte
	var want []string
	for i := range 3000 {
		line := fmt.Sprintf("%d:%s", i, strings.Repeat("a", i%500))
		want = append(want, line)
		data = append(append(data, line...), '\n')
	}
	data = append(data, "torn"...)
	var got []string
	err := scanBackward(bytes.NewReader(data), int64(len(data)), nil, nil, func(line []byte, start int64) bool {
		if !bytes.Equal(data[start:start+int64(len(line))], line) {
			t.Fatalf("offset %d does not start %q", start, line)
		}
		got = append(got, string(line))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(got)
	if !slices.Equal(got, want) {
		t.Errorf("got %d lines, want %d in order", len(got), len(want))
	}
}

// TestScanBackwardSeek: with a seek function, fn gets exactly the lines
// that hold the needle, also where a line crosses a read boundary, and
// skipped is told positions that only decrease.
func TestScanBackwardSeek(t *testing.T) {
	var data []byte
	var want []string
	for i := range 3000 {
		line := fmt.Sprintf("%d:%s", i, strings.Repeat("a", i%700))
		if i%37 == 0 {
			line += ":NEEDLE:" + strings.Repeat("b", i%300)
			want = append(want, line)
		}
		data = append(append(data, line...), '\n')
	}
	needle := []byte("NEEDLE")
	var got []string
	last := int64(len(data)) + 1
	err := scanBackward(bytes.NewReader(data), int64(len(data)), func(b []byte) []int {
		var at []int
		for off := 0; ; {
			i := bytes.Index(b[off:], needle)
			if i < 0 {
				return at
			}
			at = append(at, off+i)
			off += i + len(needle)
		}
	},
		func(pos int64) bool {
			if pos >= last {
				t.Errorf("skipped position %d after %d", pos, last)
			}
			last = pos
			return true
		},
		func(line []byte, start int64) bool {
			got = append(got, string(line))
			return true
		})
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(got)
	if !slices.Equal(got, want) {
		t.Errorf("got %d lines, want the %d that hold the needle", len(got), len(want))
	}
}
