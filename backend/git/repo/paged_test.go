package repo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestPagedFileReads(t *testing.T) {
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(p, MaxDataFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	pf := NewPagedFile(f, 4096)
	for _, c := range []struct {
		off int64
		n   int
	}{{0, 10}, {4090, 20}, {99_990, 10}, {12_000, 9000}} {
		got, err := pf.At(c.off, c.n)
		if err != nil || !bytes.Equal(got, data[c.off:c.off+int64(c.n)]) {
			t.Fatalf("At(%d, %d) = %v", c.off, c.n, err)
		}
		if cmp, err := pf.Compare(c.off, data[c.off:c.off+int64(c.n)]); err != nil || cmp != 0 {
			t.Fatalf("Compare(%d) = %d, %v", c.off, cmp, err)
		}
	}
	if _, err := pf.At(99_995, 10); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("At past the end: %v", err)
	}
	if _, err := pf.Uint32(-1); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("Uint32(-1): %v", err)
	}
}

// A mapped file truncated by someone else makes an access fault: the
// access fails with ErrFileChanged and the process lives on.
func TestPagedFileTruncatedUnderTheMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenRegular(p, MaxDataFileBytes)
	if err != nil {
		t.Fatal(err)
	}
	pf := NewPagedFile(f, 4096)
	if pf.m == nil {
		t.Skip("files are not mapped on this system")
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	var b [16]byte
	if err := pf.ReadAt(b[:], 900_000); !errors.Is(err, ErrFileChanged) {
		t.Fatalf("ReadAt after truncation: %v", err)
	}
	if _, err := pf.Compare(800_000, b[:]); !errors.Is(err, ErrFileChanged) {
		t.Fatalf("Compare after truncation: %v", err)
	}
	if _, err := pf.Uint32(500_000); !errors.Is(err, ErrFileChanged) {
		t.Fatalf("Uint32 after truncation: %v", err)
	}
	runtime.KeepAlive(pf)
}
