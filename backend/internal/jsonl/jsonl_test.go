package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/meith-dev/meith/backend/internal/fulldisk"
)

// open opens path with opts and closes it at the end of the test.
func open(t *testing.T, path string, opts Options) *File {
	t.Helper()
	f, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open(%s) error: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// fileLines returns the file's lines, without newlines; the file must end
// with one.
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
		t.Errorf("%s does not end with a newline: ...%q", path, b[max(0, len(b)-20):])
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// iOf returns the "i" field of each record.
func iOf(t *testing.T, recs []json.RawMessage) []int {
	t.Helper()
	var out []int
	for _, r := range recs {
		var v struct{ I int }
		if err := json.Unmarshal(r, &v); err != nil {
			t.Fatalf("record %s: %v", r, err)
		}
		out = append(out, v.I)
	}
	return out
}

// rec returns the record {"i": i}, padded with pad bytes.
func rec(i, pad int) map[string]any {
	return map[string]any{"i": i, "pad": strings.Repeat("x", pad)}
}

func TestOpenModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "user", "data")
	p := filepath.Join(dir, "x.jsonl")
	f := open(t, p, Options{})
	if err := f.Append(rec(0, 0)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, p: 0o600} {
		if fi, err := os.Stat(path); err != nil || fi.Mode() != want {
			t.Errorf("mode of %s = %v (%v), want %v", path, fi.Mode(), err, want)
		}
	}
	f.Close()

	// An existing file with a loose mode is tightened.
	os.Chmod(p, 0o644)
	open(t, p, Options{})
	if fi, _ := os.Stat(p); fi.Mode() != 0o600 {
		t.Errorf("mode of an existing file after Open = %v, want 0600", fi.Mode())
	}
}

func TestAppendAndTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{})
	if f.Path() != p {
		t.Errorf("Path() = %s, want %s", f.Path(), p)
	}
	for i := range 5 {
		if err := f.Append(map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := f.Tail(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0]) != `{"i":3}` || string(got[1]) != `{"i":4}` {
		t.Errorf("Tail(2) = %s, want [{i:3} {i:4}]", got)
	}
	if all, _ := f.Tail(0); fmt.Sprint(iOf(t, all)) != "[0 1 2 3 4]" {
		t.Errorf("Tail(0) = %s, want all five", all)
	}
	if f.Count() != 5 {
		t.Errorf("Count() = %d, want 5", f.Count())
	}
	if err := f.Append(make(chan int)); err == nil {
		t.Error("Append(chan) = nil, want an encoding error")
	}
}

// TestTailSkipsMalformed: malformed and blank lines count as lines but Tail
// skips them, reading older lines in their place.
func TestTailSkipsMalformed(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	content := "{\"i\":1}\nnot json\n\n  {\"i\":2}  \r\n{\"i\":\n{\"i\":3}\n"
	os.WriteFile(p, []byte(content), 0o600)
	f := open(t, p, Options{})
	if f.Count() != 6 {
		t.Errorf("Count() = %d, want the 6 lines counted on open", f.Count())
	}
	for n, want := range map[int]string{1: "[3]", 2: "[2 3]", 3: "[1 2 3]", 10: "[1 2 3]", 0: "[1 2 3]"} {
		got, err := f.Tail(n)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(iOf(t, got)) != want {
			t.Errorf("Tail(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestOpenRepairsTornLine: a last line without its newline (a crash in the
// middle of a write) is dropped on open when it is a fragment, and ended
// when it is a whole JSON value, so every line of the file is a record.
func TestOpenRepairsTornLine(t *testing.T) {
	tests := []struct {
		name, content string
		want          string // the file after open and Append({"i":3})
		count         int    // Count() right after open
	}{
		{"fragment", `{"i":1}` + "\n" + `{"i":2,"to`, `{"i":1}` + "\n" + `{"i":3}` + "\n", 1},
		{"whole value", `{"i":1}` + "\n" + `{"i":2}`, `{"i":1}` + "\n" + `{"i":2}` + "\n" + `{"i":3}` + "\n", 2},
		{"only a fragment", `{"i":`, `{"i":3}` + "\n", 0},
		{"blank tail", `{"i":1}` + "\n  ", `{"i":1}` + "\n" + `{"i":3}` + "\n", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.jsonl")
			os.WriteFile(p, []byte(tt.content), 0o600)
			f := open(t, p, Options{})
			if f.Count() != tt.count {
				t.Errorf("Count() after open = %d, want %d", f.Count(), tt.count)
			}
			if err := f.Append(map[string]int{"i": 3}); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(p); string(b) != tt.want {
				t.Errorf("file after open and one append = %q, want %q", b, tt.want)
			}
		})
	}
}

// TestTailAcrossChunks: Tail reads backwards in chunks, lines crossing
// chunk boundaries included.
func TestTailAcrossChunks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{})
	for i := range 300 {
		f.Append(rec(i, 1000+i)) // ~300 KB: several 64 KB chunks
	}
	f.Append(rec(300, 200_000)) // a line longer than a chunk
	for _, n := range []int{1, 2, 63, 64, 65, 200, 301, 500} {
		got, err := f.Tail(n)
		if err != nil {
			t.Fatal(err)
		}
		want := min(n, 301)
		if len(got) != want {
			t.Fatalf("Tail(%d) = %d records, want %d", n, len(got), want)
		}
		for k, i := range iOf(t, got) {
			if idx := 301 - want + k; i != idx {
				t.Fatalf("Tail(%d)[%d] = record %d, want %d", n, k, i, idx)
			}
		}
		if long, _ := json.Marshal(rec(300, 200_000)); !bytes.Equal(got[len(got)-1], long) {
			t.Fatalf("Tail(%d) ends with %d bytes, want the %d of the long record", n, len(got[len(got)-1]), len(long))
		}
	}
}

func TestScanBackward(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(p, []byte("a\n\n  b \nc\n"), 0o600)
	f := open(t, p, Options{})
	var seen []string
	f.ScanBackward(func(line []byte) bool {
		seen = append(seen, string(line))
		return len(seen) < 2
	})
	if strings.Join(seen, ",") != "c,b" {
		t.Errorf("ScanBackward stopping after 2 saw %q, want c,b (trimmed, newest first)", seen)
	}
}

// TestCompaction: the file stays within MaxRecords × CompactFactor lines,
// compaction keeps the newest MaxRecords, atomically (0600, no temp file
// left), and Compact does it on demand.
func TestCompaction(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{MaxRecords: 10, CompactFactor: 1.5})
	for i := range 100 {
		if err := f.Append(rec(i, 0)); err != nil {
			t.Fatal(err)
		}
		if n := len(fileLines(t, p)); n > 15 || n != f.Count() {
			t.Fatalf("after %d appends the file has %d lines, Count() %d, want at most 15 and equal", i+1, n, f.Count())
		}
	}
	// Each compaction, at 16 lines, leaves 10: the file holds 10..15.
	all, _ := f.Tail(0)
	got := iOf(t, all)
	if len(got) < 10 || len(got) > 15 || got[len(got)-1] != 99 {
		t.Errorf("after compaction: records %v, want 10..15 ending at 99", got)
	}
	for k := 1; k < len(got); k++ {
		if got[k] != got[k-1]+1 {
			t.Errorf("records after compaction are not contiguous: %v", got)
			break
		}
	}
	if err := f.Compact(); err != nil {
		t.Fatal(err)
	}
	if all, _ := f.Tail(0); fmt.Sprint(iOf(t, all)) != "[90 91 92 93 94 95 96 97 98 99]" || f.Count() != 10 {
		t.Errorf("after Compact(): %s, Count %d, want the newest 10", all, f.Count())
	}
	if fi, _ := os.Stat(p); fi.Mode() != 0o600 {
		t.Errorf("mode after compaction = %v, want 0600", fi.Mode())
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf("directory after compaction holds %d files, want only x.jsonl (no temp files)", len(entries))
	}
}

// TestCompactionDefaults: the zero Options keep 20,000 records and compact
// past 25,000.
func TestCompactionDefaults(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{})
	lines := make([][]byte, 25_000)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, `{"i":%d}`, i)
	}
	if err := f.AppendBatch(lines); err != nil {
		t.Fatal(err)
	}
	if f.Count() != 25_000 {
		t.Fatalf("Count() after 25,000 lines = %d, want no compaction yet", f.Count())
	}
	f.Append(map[string]int{"i": 25_000})
	if n := len(fileLines(t, p)); n != 20_000 || f.Count() != 20_000 {
		t.Errorf("after 25,001 lines the file has %d (Count %d), want 20,000", n, f.Count())
	}
	if first, _ := f.Tail(20_000); iOf(t, first[:1])[0] != 5001 {
		t.Errorf("oldest kept record = %s, want 5001", first[0])
	}
}

// TestReopenKeepsBound: the line count survives a restart, so does the
// bound.
func TestReopenKeepsBound(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	opts := Options{MaxRecords: 10, CompactFactor: 1.5}
	f := open(t, p, opts)
	for i := range 14 {
		f.Append(rec(i, 0))
	}
	f.Close()

	f = open(t, p, opts)
	if f.Count() != 14 {
		t.Fatalf("reopened Count() = %d, want 14", f.Count())
	}
	f.Append(rec(14, 0))
	if n := len(fileLines(t, p)); n != 15 {
		t.Fatalf("after reopen and one append: %d lines, want 15", n)
	}
	f.Append(rec(15, 0)) // 16 > 15: compacts to 10
	if n := len(fileLines(t, p)); n != 10 {
		t.Errorf("after reopen, 16 lines compacted to %d, want 10 (the bound must survive a restart)", n)
	}
	if got, _ := f.Tail(3); fmt.Sprint(iOf(t, got)) != "[13 14 15]" {
		t.Errorf("Tail(3) after reopen = %s, want [13 14 15]", got)
	}
}

// TestCompactionRetriesAfterFailure: a failed compaction is reported with
// ErrCompact (the line is written) and tried again only after another round
// of growth, not on every append.
func TestCompactionRetriesAfterFailure(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{MaxRecords: 10, CompactFactor: 1.5}) // compacts past 15
	tries := 0
	createTemp = func(dir, pattern string) (*os.File, error) {
		tries++
		return nil, errors.New("disk full")
	}
	defer func() { createTemp = os.CreateTemp }()
	for i := range 15 {
		if err := f.Append(rec(i, 0)); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	err := f.Append(rec(15, 0))
	if !errors.Is(err, ErrCompact) || tries != 1 {
		t.Fatalf("append past the bound with compaction failing = %v after %d tries, want ErrCompact after 1", err, tries)
	}
	if f.Count() != 16 || len(fileLines(t, p)) != 16 {
		t.Errorf("after a failed compaction Count() = %d, want the line written (16)", f.Count())
	}
	// The next round of growth is limit-max = 5 lines: no try before 21.
	for i := 16; i < 20; i++ {
		if err := f.Append(rec(i, 0)); err != nil {
			t.Errorf("append %d before the retry point = %v, want nil (no new try)", i, err)
		}
	}
	if tries != 1 {
		t.Errorf("compaction tried %d times before the retry point, want 1", tries)
	}
	createTemp = os.CreateTemp
	if err := f.Append(rec(20, 0)); err != nil { // line 21
		t.Fatalf("append at the retry point = %v, want a successful compaction", err)
	}
	if f.Count() != 10 {
		t.Errorf("Count() after the retried compaction = %d, want 10", f.Count())
	}
	if got, _ := f.Tail(1); fmt.Sprint(iOf(t, got)) != "[20]" {
		t.Errorf("newest record = %s, want 20", got)
	}
}

// TestAppendBatch: a batch is written with one write, in order; a bad line
// refuses the batch.
func TestAppendBatch(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{})
	var lines [][]byte
	for i := range 100 {
		l := fmt.Appendf(nil, `{"i":%d}`, i)
		if i%2 == 0 {
			l = append(l, '\n') // a trailing newline is optional
		}
		lines = append(lines, l)
	}
	before := f.writes
	if err := f.AppendBatch(lines); err != nil {
		t.Fatal(err)
	}
	if w := f.writes - before; w != 1 {
		t.Errorf("AppendBatch(100 lines) made %d writes, want 1", w)
	}
	all, _ := f.Tail(0)
	if got := iOf(t, all); len(got) != 100 || got[0] != 0 || got[99] != 99 || f.Count() != 100 {
		t.Errorf("after AppendBatch: %d records, Count %d, want 100 in order", len(got), f.Count())
	}
	// Lines cut from one buffer are written from it, without a copy; a
	// line that keeps its own newline there still gets only one.
	buf := []byte("{\"i\":100}\n{\"i\":101}\n\n{\"i\":102}\n")
	if err := f.AppendBatch([][]byte{buf[:9], buf[10:20], buf[21:30]}); err != nil {
		t.Fatal(err)
	}
	if lines := fileLines(t, p); len(lines) != 103 || strings.Join(lines[100:], ",") != `{"i":100},{"i":101},{"i":102}` {
		t.Errorf("lines from one buffer: %q, want the three records", lines[100:])
	}
	for _, bad := range [][]byte{nil, []byte("\n"), []byte("{\"a\":\n1}")} {
		if err := f.AppendBatch([][]byte{[]byte(`{"ok":1}`), bad}); err == nil {
			t.Errorf("AppendBatch with line %q = nil, want an error", bad)
		}
	}
	if f.Count() != 103 || len(fileLines(t, p)) != 103 {
		t.Errorf("refused batches wrote lines: Count %d", f.Count())
	}
	if err := f.AppendBatch(nil); err != nil || f.writes-before != 2 {
		t.Errorf("AppendBatch(nil) = %v, want nil without a write", err)
	}
}

// TestFailedWriteLeavesNoTornLine: a write cut short is taken back whole
// (the file is truncated to where it was), so a failed AppendBatch adds
// nothing, the count stays true and the next write is clean.
func TestFailedWriteLeavesNoTornLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{})
	f.Append(rec(1, 0))
	writeFile = func(file *os.File, b []byte) (int, error) {
		n, _ := file.Write(b[:len(b)*2/3]) // one whole line and part of the next
		return n, syscall.ENOSPC
	}
	err := f.AppendBatch([][]byte{[]byte(`{"i":2}`), []byte(`{"i":3,"pad":"xxxxxxxxxxxxxxxx"}`)})
	writeFile = (*os.File).Write
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("AppendBatch with a failing write = %v, want ENOSPC", err)
	}
	if lines := fileLines(t, p); f.Count() != 1 || len(lines) != 1 {
		t.Errorf("after a cut write: lines %q, Count() %d; want only the first record", lines, f.Count())
	}
	if st := f.Status(); st.LastError == nil || st.LastErrorAt.IsZero() || !st.Failing {
		t.Errorf("Status() after a failed write = %+v, want the error, its time and Failing", st)
	}
	f.Append(rec(4, 0))
	if got, _ := f.Tail(0); fmt.Sprint(iOf(t, got)) != "[1 4]" || f.Count() != 2 {
		t.Errorf("Tail(0) = %s (Count %d), want [1 4]", got, f.Count())
	}
	if st := f.Status(); st.Failing || st.LastWriteAt.IsZero() {
		t.Errorf("Status() after a good write = %+v, want not failing", st)
	}
}

// TestFullDisk: on a real filesystem that runs out of space, appends fail
// with ENOSPC and leave no partial line, and once space is freed appends
// work again and every line of the file is a whole record.
func TestFullDisk(t *testing.T) {
	dir := fulldisk.Mount(t, 1<<20)
	p := filepath.Join(dir, "x.jsonl")
	f := open(t, p, Options{})
	for i := range 10 {
		if err := f.Append(rec(i, 100)); err != nil {
			t.Fatal(err)
		}
	}
	free := fulldisk.Fill(t, dir)
	// The file's last page may still have room for a few lines.
	var err error
	next := 10
	for ; next < 1000 && err == nil; next++ {
		err = f.Append(rec(next, 100))
	}
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("appending to a full disk: %v after %d records, want ENOSPC", err, next)
	}
	written := next - 1 // the last one failed
	b, _ := os.ReadFile(p)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.Errorf("after a failed append the file ends in a partial line: ...%q", b[max(0, len(b)-40):])
	}
	if f.Count() != written {
		t.Errorf("Count() = %d, want %d", f.Count(), written)
	}
	if st := f.Status(); !st.Failing || !errors.Is(st.LastError, syscall.ENOSPC) {
		t.Errorf("Status() on a full disk = %+v, want failing with ENOSPC", st)
	}
	free()
	if err := f.Append(rec(next, 100)); err != nil {
		t.Fatalf("append after freeing space: %v", err)
	}
	for i, l := range fileLines(t, p) {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d is not a whole record: %q", i+1, l)
		}
	}
	if got, _ := f.Tail(0); len(got) != written+1 || f.Count() != written+1 {
		t.Errorf("records after recovery = %d (Count %d), want %d", len(got), f.Count(), written+1)
	}
	if st := f.Status(); st.Failing {
		t.Errorf("Status() after recovery = %+v, want not failing", st)
	}
}

// TestConcurrentAppend: lines and batches from many goroutines never
// interleave.
func TestConcurrentAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{MaxRecords: 100_000})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				f.Append(map[string]any{"g": g, "i": i, "pad": strings.Repeat("x", 300)})
				batch := [][]byte{fmt.Appendf(nil, `{"g":%d,"b":%d,"k":0}`, g, i), fmt.Appendf(nil, `{"g":%d,"b":%d,"k":1}`, g, i)}
				f.AppendBatch(batch)
			}
		})
	}
	wg.Wait()
	all, _ := f.Tail(0)
	if len(all) != 2400 || f.Count() != 2400 {
		t.Fatalf("concurrent appends: %d valid lines, Count %d, want 2400", len(all), f.Count())
	}
	for k, r := range all {
		if bytes.HasSuffix(r, []byte(`"k":0}`)) && (k+1 == len(all) || !bytes.Equal(bytes.Replace(r, []byte(`"k":0`), []byte(`"k":1`), 1), all[k+1])) {
			t.Fatalf("batch line %s is not followed by its pair", r)
		}
	}
}

func TestClear(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f := open(t, p, Options{})
	for i := range 5 {
		f.Append(rec(i, 0))
	}
	if err := f.Clear(); err != nil {
		t.Fatal(err)
	}
	f.Append(rec(9, 0))
	if lines := fileLines(t, p); len(lines) != 1 || f.Count() != 1 {
		t.Errorf("after Clear and one append: %q, Count %d, want one line", lines, f.Count())
	}
}

func TestClose(t *testing.T) {
	f := open(t, filepath.Join(t.TempDir(), "x.jsonl"), Options{})
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}
	for name, err := range map[string]error{
		"Append":       f.Append(1),
		"AppendBatch":  f.AppendBatch([][]byte{[]byte("1")}),
		"Compact":      f.Compact(),
		"Clear":        f.Clear(),
		"ScanBackward": f.ScanBackward(func([]byte) bool { return true }),
	} {
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s after Close = %v, want os.ErrClosed", name, err)
		}
	}
	if _, err := f.Tail(1); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Tail after Close = %v, want os.ErrClosed", err)
	}
}

// TestContiguous: lines cut from one buffer, each followed by a newline, are
// recognized as one span to write as it is; anything else is not.
func TestContiguous(t *testing.T) {
	buf := []byte("{\"a\":1}\n{\"b\":2}\n[3]\nx")
	if got := contiguous([][]byte{buf[0:7], buf[8:15], buf[16:19]}); string(got) != "{\"a\":1}\n{\"b\":2}\n[3]\n" {
		t.Errorf("contiguous(lines of one buffer) = %q, want the span with newlines", got)
	}
	for name, lines := range map[string][][]byte{
		"separate arrays":      {buf[0:7], []byte("{\"b\":2}\nxx")[:7]},
		"a gap":                {buf[0:7], buf[9:15]},
		"no newline after":     {buf[0:6]},
		"a line's own newline": {buf[0:8], buf[8:15]},
		"last without room":    {buf[0:7:7]},
		"not in order":         {buf[8:15], buf[0:7]},
	} {
		if got := contiguous(lines); got != nil {
			t.Errorf("contiguous(%s) = %q, want nil", name, got)
		}
	}
}
