// Package jsonl is a bounded append-only JSON Lines file: one JSON value per
// line, appended under a lock with one write per call (a batch of lines too),
// read backwards from the end, and compacted (temp file + rename) when it
// grows past its bound.
//
// Every line of the file is a whole record. A write cut short (a full disk)
// is taken back by truncating the file to where it was, so a failed append
// adds nothing; a partial last line left by a crash is dropped on open (or
// ended, when it is a whole JSON value). [File.Status] tells whether the
// last append failed, with the error and when.
//
// The file is private to its user: it is created with mode 0600 (an existing
// one is tightened to 0600) in a directory created with mode 0700. One
// process owns a file: two processes appending to the same file would both
// compact it.
package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Defaults of [Options].
const (
	// DefaultMaxRecords is how many records compaction keeps when
	// Options.MaxRecords is 0.
	DefaultMaxRecords = 20_000
	// DefaultCompactFactor is the growth allowed before compaction when
	// Options.CompactFactor is below 1.
	DefaultCompactFactor = 1.25
)

// ErrCompact marks an error of compaction, as opposed to one of the write
// that preceded it: when [File.Append] or [File.AppendBatch] returns an error
// that wraps ErrCompact, the lines were written and only compaction failed.
// Compaction is tried again after another round of growth.
var ErrCompact = errors.New("jsonl: compaction failed")

// Options bound a [File]. The zero value keeps 20,000 records and compacts
// at 1.25× that.
type Options struct {
	// MaxRecords is how many of the newest lines compaction keeps
	// (default 20,000).
	MaxRecords int
	// CompactFactor: compaction runs when the line count passes
	// MaxRecords × CompactFactor (default 1.25, minimum 1).
	CompactFactor float64
}

// Hooks replaced by tests to simulate failures.
var (
	writeFile  = (*os.File).Write
	createTemp = os.CreateTemp
)

// chunkSize is how much the backward readers read at a time.
const chunkSize = 64 * 1024

// File is an open JSON Lines file, safe for concurrent use.
type File struct {
	path  string
	max   int // lines kept by compaction
	limit int // compaction runs once count > limit

	mu     sync.Mutex
	f      *os.File // O_RDWR|O_APPEND; nil once closed
	count  int      // newline-terminated lines in the file
	retry  int      // after a failed compaction, the count to try again at
	size   int64    // bytes in the file: the end of its last line
	torn   bool     // a failed write left a partial last line it could not take back
	buf    []byte   // the batch being written, reused
	writes int      // write calls made, for tests
	status Status
}

// Status is the outcome of a [File]'s appends: when the last one succeeded,
// and the error of the last failed one.
type Status struct {
	// Failing is true when the last append failed (LastError is its error).
	Failing bool
	// LastError is the error of the last failed append, kept after later
	// appends succeed; nil when none failed since Open.
	LastError error
	// LastErrorAt is when LastError happened.
	LastErrorAt time.Time
	// LastWriteAt is when an append last succeeded (zero: none yet).
	LastWriteAt time.Time
}

// AppendError is the error of an append whose write failed. Written lines
// of the batch reached the file: 0, unless the partial write could not be
// taken back (then a later write starts on a new line, and the partial line
// stays, skipped by readers). It unwraps to the write's error (errors.Is
// syscall.ENOSPC for a full disk).
type AppendError struct {
	Path    string
	Written int
	Err     error
}

// Error implements error.
func (e *AppendError) Error() string { return fmt.Sprintf("jsonl: append %s: %v", e.Path, e.Err) }

// Unwrap returns the write's error.
func (e *AppendError) Unwrap() error { return e.Err }

// IsAppendError reports whether err is (or wraps) an [*AppendError].
func IsAppendError(err error) bool {
	var ae *AppendError
	return errors.As(err, &ae)
}

// Open opens or creates path with mode 0600 (its directory 0700 when it has
// to be created), fixes the mode of an existing file to 0600, counts its
// lines so the bound holds across restarts, and repairs a torn last line
// (left by a crash in the middle of a write): a fragment is cut off, a whole
// JSON value without its newline gets one.
func Open(path string, opts Options) (*File, error) {
	if opts.MaxRecords <= 0 {
		opts.MaxRecords = DefaultMaxRecords
	}
	if opts.CompactFactor < 1 {
		opts.CompactFactor = DefaultCompactFactor
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("jsonl: create dir: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("jsonl: open %s: %w", path, err)
	}
	j := &File{
		path:  path,
		max:   opts.MaxRecords,
		limit: max(opts.MaxRecords, int(float64(opts.MaxRecords)*opts.CompactFactor)),
		f:     f,
	}
	if err := j.init(); err != nil {
		f.Close()
		return nil, fmt.Errorf("jsonl: open %s: %w", path, err)
	}
	return j, nil
}

// maxKeptFragment bounds the torn last line Open inspects: a longer one is
// cut off without checking whether it is a whole JSON value.
const maxKeptFragment = 1 << 20

// init fixes the mode, counts the lines and repairs a torn last line.
func (j *File) init() error {
	if err := j.f.Chmod(0o600); err != nil {
		return err
	}
	var (
		buf    = make([]byte, chunkSize)
		off    int64
		lineAt int64  // where the last line starts
		frag   []byte // the bytes after the last newline, up to maxKeptFragment
	)
	for {
		n, err := j.f.ReadAt(buf, off)
		if n > 0 {
			b := buf[:n]
			j.count += bytes.Count(b, []byte{'\n'})
			if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
				lineAt = off + int64(i) + 1
				frag = frag[:0]
				b = b[i+1:]
			}
			if len(frag)+len(b) <= maxKeptFragment {
				frag = append(frag, b...)
			}
			off += int64(n)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	j.size = off
	if off == lineAt {
		return nil
	}
	// A torn last line: keep it when it is a whole value, else cut it off.
	if whole := bytes.TrimSpace(frag); off-lineAt <= maxKeptFragment && len(whole) > 0 && json.Valid(whole) {
		if _, err := j.f.Write([]byte{'\n'}); err != nil {
			return err
		}
		j.count++
		j.size++
		return nil
	}
	if err := j.f.Truncate(lineAt); err != nil {
		return err
	}
	j.size = lineAt
	return nil
}

// Path returns the file's path.
func (j *File) Path() string { return j.path }

// Append writes v, encoded with encoding/json, as one line with one write,
// and compacts the file when it has grown past its bound.
func (j *File) Append(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("jsonl: encode: %w", err)
	}
	b = append(b, '\n')
	return j.AppendBatch([][]byte{b[:len(b)-1]}) // followed by its newline: no copy
}

// AppendBatch writes lines, each one JSON value already encoded (a trailing
// newline is optional), in order and with a single write, then compacts the
// file when it has grown past its bound. Lines that lie one after the other
// in one buffer, each followed by a newline, are written from that buffer
// without a copy. A line that is empty or holds a newline inside is refused
// and nothing is written. AppendBatch does not check that the lines are
// valid JSON; [File.Tail] skips those that are not.
func (j *File) AppendBatch(lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return os.ErrClosed
	}
	for i, l := range lines {
		if l = bytes.TrimSuffix(l, []byte{'\n'}); len(l) == 0 || bytes.IndexByte(l, '\n') >= 0 {
			return fmt.Errorf("jsonl: append %s: line %d of %d is empty or holds a newline", j.path, i+1, len(lines))
		}
	}
	n := len(lines)
	buf := contiguous(lines)
	if buf == nil || j.torn {
		buf = j.buf[:0]
		if j.torn {
			buf = append(buf, '\n') // end the partial line first
			n++
		}
		for _, l := range lines {
			buf = append(buf, bytes.TrimSuffix(l, []byte{'\n'})...)
			buf = append(buf, '\n')
		}
		if cap(buf) <= 1<<20 { // keep a small buffer for the next batch
			j.buf = buf[:0]
		}
	}
	j.writes++
	w, err := writeFile(j.f, buf)
	if err != nil {
		return j.failedLocked(buf, w, err, n-len(lines))
	}
	j.torn = false
	j.count += n
	j.size += int64(len(buf))
	j.status.Failing = false
	j.status.LastWriteAt = time.Now()
	if j.count > j.limit && j.count >= j.retry {
		if err := j.compactLocked(); err != nil {
			// Try again only after another round of growth.
			j.retry = j.count + max(j.limit-j.max, 1)
			return fmt.Errorf("%w: %s: %w", ErrCompact, j.path, err)
		}
		j.retry = 0
	}
	return nil
}

// failedLocked handles a write of buf that failed after w bytes: it takes
// them back by truncating the file to its size before the write, so the
// file keeps only whole lines. When that fails too, it counts the lines
// that reached the file and remembers a partial last line, so the next
// write starts on a new line. prefix is 1 when buf starts with the newline
// that ends an earlier partial line.
func (j *File) failedLocked(buf []byte, w int, err error, prefix int) error {
	j.status.Failing = true
	j.status.LastError = err
	j.status.LastErrorAt = time.Now()
	ae := &AppendError{Path: j.path, Err: err}
	if w <= 0 {
		return ae
	}
	if terr := j.f.Truncate(j.size); terr == nil {
		return ae
	}
	nl := bytes.Count(buf[:w], []byte{'\n'})
	j.count += nl
	j.size += int64(w)
	j.torn = buf[w-1] != '\n'
	ae.Written = max(0, nl-prefix)
	return ae
}

// contiguous returns the bytes of lines with their newlines when they lie
// one after the other in one array, each followed by a newline (as an
// encoder appending line after line to one buffer leaves them), so they
// can be written without a copy; otherwise nil.
func contiguous(lines [][]byte) []byte {
	total := 0
	for k, l := range lines {
		end := len(l)
		// l without a newline of its own, the newline after l, and the
		// next line right after that.
		if l[end-1] == '\n' || cap(l) <= end || l[:end+1][end] != '\n' {
			return nil
		}
		if k+1 < len(lines) && (cap(l) <= end+1 || &l[:end+2][end+1] != &lines[k+1][0]) {
			return nil
		}
		total += end + 1
	}
	if total > cap(lines[0]) {
		return nil
	}
	return lines[0][:total]
}

// Status returns the outcome of the appends so far.
func (j *File) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.status
}

// Count returns the number of lines in the file.
func (j *File) Count() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.count
}

// Tail returns up to n of the newest valid lines, oldest first; malformed
// lines are skipped and older lines are read in their place. n <= 0 means
// all. The file is read backwards in chunks, so a small n reads only the end
// of a large file.
func (j *File) Tail(n int) ([]json.RawMessage, error) {
	var newest []json.RawMessage
	err := j.ScanBackward(func(line []byte) bool {
		if json.Valid(line) {
			newest = append(newest, append(json.RawMessage(nil), line...))
		}
		return n <= 0 || len(newest) < n
	})
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(newest))
	for i, l := range newest {
		out[len(newest)-1-i] = l
	}
	return out, nil
}

// ScanBackward calls fn with each non-blank line of the file, newest first,
// without its newline and surrounding whitespace, until fn returns false or
// the first line is reached. The line is valid only during the call. The
// file is locked meanwhile: fn must not call the File's methods.
func (j *File) ScanBackward(fn func(line []byte) bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return os.ErrClosed
	}
	fi, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("jsonl: read %s: %w", j.path, err)
	}
	var (
		end   = fi.Size()
		carry []byte // the start of a line whose beginning is not read yet
	)
	for end > 0 {
		start := max(0, end-chunkSize)
		buf := make([]byte, end-start, int(end-start)+len(carry))
		if _, err := j.f.ReadAt(buf, start); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("jsonl: read %s: %w", j.path, err)
		}
		buf = append(buf, carry...)
		end = start
		// buf holds whole lines, except its first one while end > 0: that
		// one may begin in the previous chunk.
		for len(buf) > 0 {
			body := bytes.TrimSuffix(buf, []byte{'\n'})
			i := bytes.LastIndexByte(body, '\n')
			if i < 0 && end > 0 {
				break
			}
			if line := bytes.TrimSpace(body[i+1:]); len(line) > 0 && !fn(line) {
				return nil
			}
			buf = buf[:i+1]
		}
		carry = buf
	}
	return nil
}

// Compact rewrites the file keeping its newest MaxRecords lines.
func (j *File) Compact() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return os.ErrClosed
	}
	if err := j.compactLocked(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrCompact, j.path, err)
	}
	return nil
}

// compactLocked rewrites the file with its newest j.max lines, atomically: a
// 0600 temporary file in the same directory is written, synced and renamed
// over it. A partial last line (see torn) is kept as it is: the next append
// ends it.
func (j *File) compactLocked() error {
	fi, err := j.f.Stat()
	if err != nil {
		return err
	}
	size := fi.Size()
	start, err := j.keepFromLocked(size)
	if err != nil || start == 0 {
		return err
	}
	tmp, err := createTemp(filepath.Dir(j.path), "."+filepath.Base(j.path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := io.Copy(tmp, io.NewSectionReader(j.f, start, size-start)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// Open the new handle before the rename, so that a successful rename
	// always leaves appends going to the file at j.path. (This step, and
	// copying from the open file, is why compaction does not use
	// atomicfile.WriteFile.)
	f, err := os.OpenFile(tmp.Name(), os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), j.path); err != nil {
		f.Close()
		return err
	}
	j.f.Close()
	j.f = f
	j.count = j.max
	j.size = size - start
	return nil
}

// keepFromLocked returns the offset of the oldest of the newest j.max lines
// of the file's first size bytes, reading backwards; 0 when it has no more
// lines than that.
func (j *File) keepFromLocked(size int64) (int64, error) {
	if j.count <= j.max {
		return 0, nil
	}
	// The newline ending the line before the kept ones is newline number
	// j.max+1 counted from the end.
	need, total := j.max+1, 0
	buf := make([]byte, chunkSize)
	for end := size; end > 0; {
		start := max(0, end-chunkSize)
		b := buf[:end-start]
		if _, err := j.f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if c := bytes.Count(b, []byte{'\n'}); c < need {
			need -= c
			total += c
			end = start
			continue
		}
		for {
			i := bytes.LastIndexByte(b, '\n')
			if need--; need == 0 {
				return start + int64(i) + 1, nil
			}
			b = b[:i]
		}
	}
	// Fewer lines than counted (the file was changed behind our back):
	// keep them all and count them right.
	j.count = total
	return 0, nil
}

// Clear removes every line.
func (j *File) Clear() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return os.ErrClosed
	}
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("jsonl: clear %s: %w", j.path, err)
	}
	j.count, j.retry, j.torn, j.size = 0, 0, false, 0
	return nil
}

// Close closes the file; later calls fail with os.ErrClosed, and later
// calls to Close return nil.
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
