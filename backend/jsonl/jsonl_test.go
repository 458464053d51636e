package jsonl

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestAppendTailAndMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "x.jsonl")
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
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
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(p))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode = %v, want 0700", di.Mode().Perm())
	}
}

func TestMalformedLinesSkippedAndCountedOnOpen(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(p, []byte("{\"a\":1}\nnot json\n\n{\"a\":2}\n"), 0o644)
	f, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Count() != 4 {
		t.Errorf("Count() = %d, want 4 lines counted on open", f.Count())
	}
	got, _ := f.Tail(0)
	if len(got) != 2 {
		t.Errorf("Tail(0) = %s, want the 2 valid lines", got)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("existing file mode = %v, want fixed to 0600", fi.Mode().Perm())
	}
}

func TestCompactionKeepsNewestAndStaysBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f, err := Open(p, Options{MaxRecords: 10, CompactFactor: 1.5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := f.Append(map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
		if c := f.Count(); c > 15 {
			t.Fatalf("after %d appends Count() = %d, want <= 15", i+1, c)
		}
	}
	all, _ := f.Tail(0)
	var last struct{ I int }
	json.Unmarshal(all[len(all)-1], &last)
	if last.I != 99 || len(all) > 15 || len(all) < 10 {
		t.Errorf("after compaction: %d records, last %d; want 10..15 records ending at 99", len(all), last.I)
	}
	f.Close()
	// A restart keeps the bound: reopen counts the lines.
	f, _ = Open(p, Options{MaxRecords: 10, CompactFactor: 1.5})
	defer f.Close()
	if f.Count() != len(all) {
		t.Errorf("reopened Count() = %d, want %d", f.Count(), len(all))
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("compaction left %s", e.Name())
		}
	}
}

func TestConcurrentAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f, _ := Open(p, Options{MaxRecords: 100_000})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				f.Append(map[string]any{"g": g, "i": i, "pad": strings.Repeat("x", 300)})
			}
		}()
	}
	wg.Wait()
	all, _ := f.Tail(0)
	if len(all) != 1600 || f.Count() != 1600 {
		t.Errorf("concurrent appends: %d valid lines, Count %d, want 1600", len(all), f.Count())
	}
	f.Close()
	if err := f.Append(1); err == nil {
		t.Error("Append after Close = nil, want an error")
	}
}
