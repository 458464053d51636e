package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/internal/jsonl"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Defaults of [Options].
const (
	// DefaultRotateBytes is the size past which audit.jsonl is moved to a
	// compressed archive beside it and a new file is started.
	DefaultRotateBytes = 8 << 20
	// DefaultQueueLen is how many entries may wait for the writer before
	// [Log.Record] blocks.
	DefaultQueueLen = 4096
	// DefaultMaxRetainedBytes bounds the entries kept in memory while the
	// file cannot be written.
	DefaultMaxRetainedBytes = 8 << 20
)

// Retry delays of the writer after a failed write: the first retry waits
// retryInterval, each later one twice as long, up to maxRetryInterval.
const (
	retryInterval    = time.Second
	maxRetryInterval = 30 * time.Second
)

// GapToolName is the toolName of the entry that records how many entries
// were lost while the file could not be written (more than
// Options.MaxRetainedBytes of them); it names no tool.
const GapToolName = "audit_gap"

// WriteError is the error of [Log.Writable] while audit.jsonl cannot be
// written: the cause of the last failed write (errors.Is syscall.ENOSPC for
// a full disk) and since when writes fail.
type WriteError struct {
	Path  string
	Err   error
	Since time.Time
}

// Error implements error.
func (e *WriteError) Error() string {
	return fmt.Sprintf("audit log %s cannot be written: %s", e.Path, e.Reason())
}

// Unwrap returns the cause.
func (e *WriteError) Unwrap() error { return e.Err }

// Reason is the cause in the system's words ("no space left on device"),
// without the paths of the wrapping errors.
func (e *WriteError) Reason() string {
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		return errno.Error()
	}
	return e.Err.Error()
}

// IsWriteError reports whether err is (or wraps) a [*WriteError].
func IsWriteError(err error) bool {
	var we *WriteError
	return errors.As(err, &we)
}

// WriteStatus is how the writes of audit.jsonl fare.
type WriteStatus struct {
	// Failing is true when the last write failed; LastError says why.
	Failing bool
	// LastError is the error of the last failed write, kept after later
	// writes succeed; nil when none failed.
	LastError error
	// LastErrorAt is when LastError happened; FailingSince when the
	// current run of failures began (zero when not failing).
	LastErrorAt, FailingSince time.Time
	// LastWriteAt is when entries were last written (zero: not yet).
	LastWriteAt time.Time
	// Retained is how many entries wait in memory for the file to work.
	Retained int
	// Lost is how many entries were dropped (over MaxRetainedBytes) and
	// are not yet recorded by a gap entry.
	Lost uint64
}

// ErrClosed is returned (or reported) for use of a closed [Log].
var ErrClosed = errors.New("audit log is closed")

// Options configures a [Log]. The zero value uses the defaults.
type Options struct {
	// RotateBytes is the size of audit.jsonl past which the writer moves
	// it to a compressed archive (see [Log.Files]); 0 means
	// DefaultRotateBytes.
	RotateBytes int64
	// Retention bounds the archives by age and total size; the zero value
	// means [DefaultRetention]. [Log.SetRetention] changes it later.
	Retention Retention
	// QueueLen bounds the entries waiting for the writer: once that many
	// wait, [Log.Record] and [Log.Audit] block until the writer takes
	// them (entries are never dropped); 0 means DefaultQueueLen.
	QueueLen int
	// MaxRetainedBytes bounds the entries kept in memory while the file
	// cannot be written (0: DefaultMaxRetainedBytes); beyond it the oldest
	// are dropped and counted, and a gap entry records how many once writes
	// work again.
	MaxRetainedBytes int
	// Logf, when set, receives failures of [Log.Record], which never reach
	// the tool call: the first failed write of a run of failures, the first
	// good write after it, and entries that could not be written before
	// Close. They are reported from the writer goroutine, so Logf must not
	// wait for the writer (Flush, Tail, Clear, Close).
	Logf func(format string, args ...any)

	// beforeWrite, when set, runs in the writer before each batch (tests
	// hold the writer with it).
	beforeWrite func()
}

// Log is an append-only audit.jsonl (a jsonl.File) that is rotated into
// compressed archives beside it (audit-<UTC time>-<first id>.jsonl.gz) once
// it passes Options.RotateBytes; the archives are removed by age and total
// size ([Retention]), never the live file. [Log.Query] reads across the
// live file and the archives. It is safe for concurrent use.
//
// A write that fails (a full disk) leaves nothing in the file (jsonl takes
// a partial write back): the writer keeps the entries in memory (up to
// MaxRetainedBytes), retries with back-off, and writes them first once the
// file works again, so a passing failure loses no entry. Meanwhile
// [Log.Writable] reports the failure, which the instance uses to refuse
// calls that change something (see docs/decisions).
//
// Recording is asynchronous: [Log.Record] and [Log.Audit] put the entry or
// outcome on a bounded queue and return; one writer goroutine builds the
// entries (the summaries are made there, off the caller's path), encodes
// them and appends everything queued with one write. Entries reach the file
// in the order of the calls that recorded them. [Log.Flush] waits for the
// file to catch up; [Log.Tail] and [Log.Clear] flush first, and
// [Log.Close] writes everything queued before it closes the file.
type Log struct {
	file        *jsonl.File
	sums        summaryCache // the writer's
	logf        func(format string, args ...any)
	queueLen    int
	beforeWrite func()

	mu      sync.Mutex
	queue   []item        // recorded, not yet taken by the writer
	spare   []item        // the writer's last batch, for reuse as queue
	idle    bool          // the writer waits for wake
	wake    chan struct{} // tells an idle writer that there is work (cap 1)
	linger  *time.Timer   // wakes the writer lingerDelay after the first entry of an idle period
	room    chan struct{} // closed when the queue empties; nil if nobody waits
	done    chan struct{} // closed when a batch is written; nil if nobody waits
	queued  uint64        // items ever queued
	written uint64        // items the writer has finished with
	closed  bool
	exited  chan struct{} // closed when the writer has returned

	failing  atomic.Bool // the last write failed (read without the lock by Writable)
	retryDue bool        // the writer should try again now, queue or not
	attempts uint64      // batches the writer has finished with
	retry    *time.Timer // the next retry after a failed write
	status   WriteStatus

	// The writer's own: entries that could not be written, oldest first
	// (copies), their bytes, the failures in a row, and entries dropped
	// since the last gap entry.
	maxRetained   int
	retained      [][]byte
	retainedBytes int
	failures      int
	lost          uint64

	// segMu orders the segments' changes with their readers: appends and
	// queries hold it shared, rotation and Clear exclusively (so a query
	// never sees an entry twice or misses one while the file moves).
	segMu       sync.RWMutex
	rotateBytes int64
	rotateAfter time.Time // after a failed rotation, when to try again
	retMu       sync.Mutex
	retention   Retention

	subMu   sync.Mutex
	subs    map[int]func([]Entry)
	nextSub int

	cacheMu sync.Mutex
	cache   archiveCache // the last archive a query decompressed
}

// item is one queued record: an outcome to build an entry from, or (from
// Record, off the hot path) an entry.
type item struct {
	outcome registry.Outcome
	now     time.Time // the end of an outcome whose start is unset
	entry   *Entry    // set by Record
}

// Open opens (creating it if needed) the audit log at path and starts its
// writer. The file gets mode 0600, also when it already exists with another
// mode; a missing parent directory is created with mode 0700. The existing
// lines count towards the bound, and a torn last line is ended so the next
// entry starts on a line of its own.
func Open(path string, opts Options) (*Log, error) {
	if opts.RotateBytes <= 0 {
		opts.RotateBytes = DefaultRotateBytes
	}
	if opts.Retention == (Retention{}) {
		opts.Retention = DefaultRetention
	}
	if opts.QueueLen <= 0 {
		opts.QueueLen = DefaultQueueLen
	}
	if opts.MaxRetainedBytes <= 0 {
		opts.MaxRetainedBytes = DefaultMaxRetainedBytes
	}
	// The file is never compacted: it is rotated (see rotate.go).
	f, err := jsonl.Open(path, jsonl.Options{MaxRecords: neverCompact})
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	l := &Log{
		file:        f,
		logf:        opts.Logf,
		queueLen:    opts.QueueLen,
		beforeWrite: opts.beforeWrite,
		wake:        make(chan struct{}, 1),
		exited:      make(chan struct{}),
		maxRetained: opts.MaxRetainedBytes,
		rotateBytes: opts.RotateBytes,
		retention:   opts.Retention.normalized(),
	}
	l.recoverRotation()
	l.applyRetention(time.Now())
	l.linger = time.AfterFunc(time.Hour, l.poke)
	l.linger.Stop()
	go l.run()
	return l, nil
}

// Path returns the file's path.
func (l *Log) Path() string { return l.file.Path() }

// Audit queues the outcome of a registry call; it is the registry's
// Options.Audit hook. The entry is built by the writer: o's slices (the
// arguments, the result's content) and the result's error details must not
// change after Audit returns, which the registry guarantees.
func (l *Log) Audit(o registry.Outcome) {
	if l == nil {
		return
	}
	it := item{outcome: o}
	if o.Started.IsZero() {
		it.now = time.Now()
	}
	if !l.enqueue(&it) {
		l.report("audit: record %s call: %v", o.ToolName, ErrClosed)
	}
}

// Record queues e to be appended as one JSON line. It does not wait for
// the write, except when the queue is full. Write failures never reach the
// caller: the entry is kept and written once the file works again (see
// [Log.Writable] and Options.MaxRetainedBytes), and the failure is
// reported to Options.Logf. The writer compacts the file when it has grown
// past the bound.
func (l *Log) Record(e Entry) {
	if l == nil {
		return
	}
	if !l.enqueue(&item{entry: &e}) {
		l.report("audit: record %s: %v", e.ID, ErrClosed)
	}
}

// enqueue adds it to the queue, waiting while the queue is full. It
// returns false when the log is closed.
func (l *Log) enqueue(it *item) bool {
	l.mu.Lock()
	for !l.closed && len(l.queue) >= l.queueLen {
		if l.room == nil {
			l.room = make(chan struct{})
		}
		room := l.room
		l.mu.Unlock()
		<-room
		l.mu.Lock()
	}
	if l.closed {
		l.mu.Unlock()
		return false
	}
	l.queue = append(l.queue, *it)
	l.queued++
	wake := l.idle
	l.idle = false
	burst := len(l.queue) == lingerBatch
	l.mu.Unlock()
	// The first entry of an idle period does not wake the writer at once: a
	// wake-up costs the caller a hand-off on the tool call's path. The timer
	// gathers what follows into one batch; a burst of lingerBatch entries
	// wakes the writer at once.
	switch {
	case burst:
		l.poke()
	case wake:
		l.linger.Reset(lingerDelay)
	}
	return true
}

// lingerDelay bounds how long an entry waits in the queue while the writer
// gathers a batch; lingerBatch entries wake it at once.
const (
	lingerDelay = 2 * time.Millisecond
	lingerBatch = 64
)

// poke wakes the writer; the channel holds one wake-up, more are dropped.
func (l *Log) poke() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run is the writer: it takes everything queued, writes it as one batch
// (after the entries a failed write left, if any), and repeats until the
// log is closed and the queue is empty.
func (l *Log) run() {
	defer close(l.exited)
	var buf []byte // the encoded batch, reused
	var lines [][]byte
	finalTry := false
	for {
		l.mu.Lock()
		for len(l.queue) == 0 && !l.closed && !l.retryDue {
			l.idle = true
			l.mu.Unlock()
			<-l.wake
			l.mu.Lock()
		}
		l.idle = false
		retry := l.retryDue
		l.retryDue = false
		if len(l.queue) == 0 && !retry { // closed and drained
			if len(l.retained) == 0 || finalTry {
				l.mu.Unlock()
				if n := len(l.retained); n > 0 {
					l.report("audit: %d entries could not be written to %s before it was closed (%d lost before them)",
						n, l.file.Path(), l.lost)
				}
				return
			}
			finalTry = true // one last try for the kept entries
		}
		batch := l.queue
		l.queue, l.spare = l.spare[:0], nil
		if l.room != nil {
			close(l.room)
			l.room = nil
		}
		l.mu.Unlock()

		if l.beforeWrite != nil {
			l.beforeWrite()
		}
		buf, lines = l.write(batch, buf[:0], lines[:0])
		if cap(buf) > maxKeptBuf {
			buf, lines = nil, nil
		}
		clear(batch) // drop the references to the outcomes' data

		l.mu.Lock()
		l.written += uint64(len(batch))
		l.attempts++
		l.status.Retained, l.status.Lost = len(l.retained), l.lost
		if cap(batch) <= 2*l.queueLen { // a full queue, give or take append's rounding
			l.spare = batch[:0]
		}
		if l.done != nil {
			close(l.done)
			l.done = nil
		}
		l.mu.Unlock()
	}
}

// maxKeptBuf is the largest encoding buffer the writer keeps between
// batches (a burst may use more, then it is let go).
const maxKeptBuf = 4 << 20

// write builds, encodes and appends the entries of batch with one write,
// after the entries earlier failures left (and a gap entry when some of
// those were dropped), and deals with a failure. buf and lines are scratch
// space, returned for reuse.
func (l *Log) write(batch []item, buf []byte, lines [][]byte) ([]byte, [][]byte) {
	var written []Entry // for the subscribers, when there are any
	watched := l.watched()
	if watched {
		written = make([]Entry, 0, len(batch))
	}
	var built Entry
	for i := range batch {
		it := &batch[i]
		e := it.entry
		if e == nil {
			built = entryAt(it.outcome, it.now, &l.sums)
			e = &built
		}
		buf = appendEntry(buf, e)
		if watched {
			written = append(written, *e)
		}
	}
	// Cut the lines once buf has stopped growing: they then lie one after
	// the other in one array, and jsonl writes them without a copy.
	for start := 0; start < len(buf); {
		end := start + bytes.IndexByte(buf[start:], '\n')
		lines = append(lines, buf[start:end])
		start = end + 1
	}
	out, gap := lines, 0
	if len(l.retained) > 0 || l.lost > 0 {
		out = make([][]byte, 0, 1+len(l.retained)+len(lines))
		if l.lost > 0 {
			out = append(out, l.gapEntry())
			gap = 1
		}
		out = append(append(out, l.retained...), lines...)
	}
	if len(out) == 0 {
		return buf, lines
	}
	if watched && len(out) > len(lines) { // kept entries of earlier failures come first
		var kept []Entry
		for _, line := range out[:len(out)-len(lines)] {
			if e, ok := decodeLine(line); ok {
				kept = append(kept, e)
			}
		}
		written = append(kept, written...)
	}
	l.segMu.RLock()
	err := l.file.AppendBatch(out)
	l.segMu.RUnlock()
	var ae *jsonl.AppendError
	switch {
	case err == nil || errors.Is(err, jsonl.ErrCompact):
		if err != nil {
			l.report("audit: compact %s: %v", l.file.Path(), err)
		}
		l.wrote(len(out) - len(lines) - gap)
		l.maybeRotate()
		l.publish(written)
	case errors.As(err, &ae):
		if gap > 0 && ae.Written > 0 {
			l.lost = 0 // the gap entry made it
		}
		l.failed(out, max(gap, ae.Written), gap+len(l.retained), err)
	default:
		l.report("audit: record %d entries: %v", len(batch), err)
	}
	return buf, lines
}

// wrote records a good write that carried kept entries from earlier
// failures.
func (l *Log) wrote(kept int) {
	failures, lost := l.failures, l.lost
	l.retained, l.retainedBytes, l.failures, l.lost = nil, 0, 0, 0
	l.failing.Store(false)
	l.mu.Lock()
	l.status.Failing = false
	l.status.FailingSince = time.Time{}
	l.status.LastWriteAt = time.Now()
	if l.retry != nil {
		l.retry.Stop()
	}
	l.mu.Unlock()
	if failures > 0 {
		l.report("audit: %s is written again (after %d failed writes): %d kept entries were written, %d were lost",
			l.file.Path(), failures, kept, lost)
	}
}

// failed keeps the lines of out from index from on, which did not reach
// the file (those before keptEnd are kept lines already, the others are
// copied out of the reused buffer), drops the oldest beyond maxRetained
// (the newest is always kept), marks the log as failing, reports the first
// failure of a run and arms a retry.
func (l *Log) failed(out [][]byte, from, keptEnd int, err error) {
	kept := make([][]byte, 0, len(out)-min(from, len(out)))
	size := 0
	for i := from; i < len(out); i++ {
		line := out[i]
		if i >= keptEnd {
			line = bytes.Clone(line)
		}
		kept = append(kept, line)
		size += len(line)
	}
	for len(kept) > 1 && size > l.maxRetained {
		size -= len(kept[0])
		kept[0] = nil
		kept = kept[1:]
		l.lost++
	}
	l.retained, l.retainedBytes = kept, size
	l.failures++
	l.failing.Store(true)
	now := time.Now()
	l.mu.Lock()
	if !l.status.Failing {
		l.status.FailingSince = now
	}
	l.status.Failing = true
	l.status.LastError = err
	l.status.LastErrorAt = now
	if !l.closed {
		delay := min(maxRetryInterval, retryInterval<<min(l.failures-1, 16))
		if l.retry == nil {
			l.retry = time.AfterFunc(delay, l.retryNow)
		} else {
			l.retry.Reset(delay)
		}
	}
	l.mu.Unlock()
	if l.failures == 1 {
		l.report("audit: cannot write %s (%v); entries are kept in memory (up to %d MiB) and written when it works again",
			l.file.Path(), err, l.maxRetained>>20)
	}
}

// retryNow makes the writer try the kept entries again.
func (l *Log) retryNow() {
	l.mu.Lock()
	l.retryDue = true
	l.mu.Unlock()
	l.poke()
}

// gapEntry is the encoded entry that records the entries lost while the
// file could not be written.
func (l *Log) gapEntry() []byte {
	e := Entry{ID: protocol.NewID("audit"), TS: time.Now().UTC().Format(TimeLayout), Caller: protocol.CallerInternal,
		ToolName: GapToolName, Capabilities: []string{}, Decision: DecisionAllow, ArgsSummary: "{}",
		ResultSummary: fmt.Sprintf("%d audit entries were lost while %s could not be written", l.lost, filepath.Base(l.file.Path()))}
	b := appendEntry(nil, &e)
	return bytes.TrimSuffix(b, []byte{'\n'})
}

// Writable reports whether entries reach the file: nil when the last write
// succeeded. While writes fail it makes the writer try the kept entries
// again at once and waits for that attempt (or ctx), and returns a
// [*WriteError] when it failed too. It is cheap when nothing failed.
func (l *Log) Writable(ctx context.Context) error {
	if l == nil || !l.failing.Load() {
		return nil
	}
	l.mu.Lock()
	target := l.attempts + 1
	l.retryDue = true
	l.mu.Unlock()
	l.poke()
	l.mu.Lock()
	for l.attempts < target && !l.closed {
		if l.done == nil {
			l.done = make(chan struct{})
		}
		done := l.done
		l.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return l.writeError()
		}
		l.mu.Lock()
	}
	l.mu.Unlock()
	if l.failing.Load() {
		return l.writeError()
	}
	return nil
}

// writeError is the WriteError of the current failure.
func (l *Log) writeError() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &WriteError{Path: l.file.Path(), Err: l.status.LastError, Since: l.status.FailingSince}
}

// WriteStatus says how the writes of the file fare.
func (l *Log) WriteStatus() WriteStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status
}

// report sends a failure to Logf, if set.
func (l *Log) report(format string, args ...any) {
	if l.logf != nil {
		l.logf(format, args...)
	}
}

// Flush waits until every entry recorded before the call is written to the
// file (or its write has failed and been reported), or until ctx ends. On a
// closed log it returns at once: Close has written everything.
func (l *Log) Flush(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	target := l.queued
	for l.written < target {
		if l.done == nil {
			l.done = make(chan struct{})
		}
		done := l.done
		l.mu.Unlock()
		l.poke() // do not wait for the linger timer
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
		l.mu.Lock()
	}
	l.mu.Unlock()
	return nil
}

// isClosed reports whether Close was called.
func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// Tail returns the newest n entries of the live file (not of the archives:
// [Log.Query] reads those too), oldest first, after writing those recorded
// before the call. Lines that do not decode as an entry are
// skipped, and older lines are read in their place.
func (l *Log) Tail(n int) ([]Entry, error) {
	if n <= 0 {
		return []Entry{}, nil
	}
	if err := l.Flush(context.Background()); err != nil {
		return nil, fmt.Errorf("tail audit log: %w", err)
	}
	if l.isClosed() {
		return nil, fmt.Errorf("tail audit log: %w", ErrClosed)
	}
	var newest []Entry // newest first
	err := l.file.ScanBackward(func(line []byte) bool {
		if e, ok := decodeLine(line); ok {
			newest = append(newest, e)
		}
		return len(newest) < n
	})
	if errors.Is(err, os.ErrClosed) {
		err = ErrClosed
	}
	if err != nil {
		return nil, fmt.Errorf("tail audit log: %w", err)
	}
	out := make([]Entry, len(newest))
	for i, e := range newest {
		out[len(newest)-1-i] = e
	}
	return out, nil
}

// decodeLine decodes one line as an entry.
func decodeLine(line []byte) (Entry, bool) {
	if len(line) == 0 || line[0] != '{' {
		return Entry{}, false
	}
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil || e.ID == "" {
		return Entry{}, false
	}
	if e.Capabilities == nil {
		e.Capabilities = []string{}
	}
	return e, true
}

// Close writes every queued entry, stops the writer and closes the file.
// Later calls to Record are reported and dropped; later calls to Close
// return nil.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		<-l.exited
		return nil
	}
	l.closed = true
	l.idle = false
	if l.room != nil { // callers waiting for room give up
		close(l.room)
		l.room = nil
	}
	if l.retry != nil {
		l.retry.Stop()
	}
	l.mu.Unlock()
	// The writer may be waiting for the linger timer rather than be idle:
	// wake it either way.
	l.linger.Stop()
	l.poke()
	<-l.exited
	if err := l.file.Close(); err != nil {
		return fmt.Errorf("close audit log: %w", err)
	}
	return nil
}
