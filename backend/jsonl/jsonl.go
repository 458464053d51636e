// Package jsonl is a bounded append-only JSON Lines file: one JSON value per
// line, appended with one write each, read from the tail, and compacted in
// place (temp file + rename) when it grows past its bound.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// Options bound a [File]. The zero value keeps 20,000 records and compacts
// at 1.25× that.
type Options struct {
	// MaxRecords is how many records compaction keeps (default 20,000).
	MaxRecords int
	// CompactFactor: compaction runs when the record count passes
	// MaxRecords × CompactFactor (default 1.25, minimum 1).
	CompactFactor float64
}

// File is an open JSON Lines file, safe for concurrent use.
type File struct {
	mu    sync.Mutex
	path  string
	f     *os.File
	count int
	max   int
	limit int
}

// Open opens or creates path with mode 0600 (its directory 0700 when it has
// to be created), fixes the mode of an existing file to 0600, and counts its
// lines so the bound holds across restarts.
func Open(path string, opts Options) (*File, error) {
	if opts.MaxRecords <= 0 {
		opts.MaxRecords = 20_000
	}
	if opts.CompactFactor < 1 {
		opts.CompactFactor = 1.25
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("jsonl: create dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("jsonl: open %s: %w", path, err)
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("jsonl: chmod %s: %w", path, err)
	}
	n, err := countLines(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("jsonl: read %s: %w", path, err)
	}
	return &File{path: path, f: f, count: n, max: opts.MaxRecords,
		limit: int(float64(opts.MaxRecords) * opts.CompactFactor)}, nil
}

func countLines(f *os.File) (int, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, err
	}
	n := 0
	buf := make([]byte, 64*1024)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// Path returns the file's path.
func (j *File) Path() string { return j.path }

// Append writes v as one line, compacting first when the bound is passed.
func (j *File) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("jsonl: encode: %w", err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return os.ErrClosed
	}
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("jsonl: append %s: %w", j.path, err)
	}
	j.count++
	if j.count > j.limit {
		return j.compactLocked()
	}
	return nil
}

// Count returns the number of lines in the file.
func (j *File) Count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.count
}

// Tail returns up to n of the newest valid lines, oldest first; malformed
// lines are skipped. n <= 0 means all.
func (j *File) Tail(n int) ([]json.RawMessage, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil, os.ErrClosed
	}
	return readTail(j.path, n)
}

func readTail(path string, n int) ([]json.RawMessage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || !json.Valid(line) {
			continue
		}
		lines = append(lines, append(json.RawMessage(nil), line...))
		if n > 0 && len(lines) > 2*n {
			lines = append(lines[:0], lines[len(lines)-n:]...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines, nil
}

// Compact rewrites the file keeping the newest MaxRecords lines.
func (j *File) Compact() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.compactLocked()
}

func (j *File) compactLocked() error {
	keep, err := readTail(j.path, j.max)
	if err != nil {
		return fmt.Errorf("jsonl: compact %s: %w", j.path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(j.path), "."+filepath.Base(j.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("jsonl: compact %s: %w", j.path, err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	for _, l := range keep {
		w.Write(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return fmt.Errorf("jsonl: compact %s: %w", j.path, err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		return fmt.Errorf("jsonl: compact %s: %w", j.path, err)
	}
	f, err := os.OpenFile(j.path, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("jsonl: reopen %s: %w", j.path, err)
	}
	j.f.Close()
	j.f = f
	j.count = len(keep)
	return nil
}

// Close closes the file; later calls fail with os.ErrClosed.
func (j *File) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}
