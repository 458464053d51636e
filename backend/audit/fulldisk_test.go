package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/meith-dev/meith/backend/internal/fulldisk"
)

// logLines collects what the log reports to Logf.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// wholeLines checks that every line of the file is a whole entry and
// returns their ids.
func wholeLines(t *testing.T, path string) []string {
	t.Helper()
	var ids []string
	for i, line := range fileLines(t, path) {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.ID == "" {
			t.Errorf("line %d is not a whole entry: %.80q", i+1, line)
			continue
		}
		ids = append(ids, e.ID)
	}
	return ids
}

// fillUntilFailing records entries until a write fails (the file's last
// page may take a few more first) and returns their ids.
func fillUntilFailing(t *testing.T, l *Log, tool string) []string {
	t.Helper()
	var ids []string
	for i := 0; !l.WriteStatus().Failing; i++ {
		if i == 2000 {
			t.Fatal("no write failed on a full disk")
		}
		e := entry(tool)
		ids = append(ids, e.ID)
		l.Record(e)
		flush(t, l)
	}
	return ids
}

// TestFullDisk: on a real full filesystem the writer keeps the entries it
// could not write (no partial line is left in the file), reports the
// failure once, and Writable says the log cannot be written; once space is
// freed, Writable's probe writes the kept entries, so none is lost.
func TestFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, 1<<20)
	var logged logLines
	l, err := Open(dir+"/audit.jsonl", Options{Logf: logged.logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	path := l.Path()
	var want []string
	for range 5 {
		e := entry("before")
		want = append(want, e.ID)
		l.Record(e)
	}
	flush(t, l)
	if err := l.Writable(context.Background()); err != nil {
		t.Fatalf("Writable() with space = %v", err)
	}
	free := fulldisk.Fill(t, dir)
	want = append(want, fillUntilFailing(t, l, "during")...)
	for range 20 { // more calls while the disk is full
		e := entry("during")
		want = append(want, e.ID)
		l.Record(e)
	}
	flush(t, l)
	err = l.Writable(context.Background())
	if !IsWriteError(err) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("Writable() on a full disk = %v, want a WriteError wrapping ENOSPC", err)
	}
	st := l.WriteStatus()
	if !st.Failing || st.Retained == 0 || st.Lost != 0 || st.LastErrorAt.IsZero() {
		t.Errorf("WriteStatus() = %+v, want failing, entries retained, none lost", st)
	}
	b, _ := os.ReadFile(path)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("audit.jsonl ends in a partial line: ...%q", b[max(0, len(b)-40):])
	}
	free()
	if err := l.Writable(context.Background()); err != nil {
		t.Fatalf("Writable() after freeing space = %v, want nil", err)
	}
	if st := l.WriteStatus(); st.Failing || st.Retained != 0 || st.Lost != 0 {
		t.Errorf("WriteStatus() after recovery = %+v", st)
	}
	got := wholeLines(t, path)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("audit.jsonl holds %d entries, want all %d recorded, in order", len(got), len(want))
	}
	lines := logged.all()
	if len(lines) != 2 || !strings.Contains(lines[0], "cannot write") || !strings.Contains(lines[1], "written again") {
		t.Errorf("logged %q, want one line when writes start failing and one when they work again", lines)
	}
}

// TestRetainedBound: while the file cannot be written at most
// MaxRetainedBytes of entries are kept; older ones are dropped and counted,
// and once writes work again an entry in the file records the gap.
func TestRetainedBound(t *testing.T) {
	dir := fulldisk.Mount(t, 1<<20)
	var logged logLines
	l, err := Open(dir+"/audit.jsonl", Options{Logf: logged.logf, MaxRetainedBytes: 2000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	free := fulldisk.Fill(t, dir)
	fillUntilFailing(t, l, "during")
	for range 50 {
		l.Record(entry("during"))
	}
	flush(t, l)
	st := l.WriteStatus()
	if st.Lost == 0 || st.Retained == 0 {
		t.Fatalf("WriteStatus() = %+v, want entries lost and some retained", st)
	}
	before := l.file.Count()
	free()
	if err := l.Writable(context.Background()); err != nil {
		t.Fatal(err)
	}
	tail, err := l.Tail(1000)
	if err != nil {
		t.Fatal(err)
	}
	gap := ""
	for _, e := range tail {
		if e.ToolName == GapToolName {
			gap = e.ResultSummary
		}
	}
	if want := fmt.Sprintf("%d audit entries were lost", st.Lost); !strings.Contains(gap, want) {
		t.Errorf("gap entry says %q, want %q", gap, want)
	}
	if got, want := len(tail), before+st.Retained+1; got != want {
		t.Errorf("file holds %d entries, want %d: the %d written before, the %d retained and the gap entry", got, want, before, st.Retained)
	}
}
