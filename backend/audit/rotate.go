package audit

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// neverCompact is the jsonl bound of audit.jsonl: high enough that the
// file is rotated long before it would be compacted.
const neverCompact = 1 << 40

// Defaults and limits of [Retention] (Settings → Storage; the settings
// tool validates the same limits).
const (
	DefaultRetentionDays = 90
	DefaultMaxMB         = 200
	MinRetentionDays     = 1
	MaxRetentionDays     = 3650
	MinMaxMB             = 1
	MaxMaxMB             = 10_000
)

// DefaultRetention keeps archives for 90 days and 200 MB.
var DefaultRetention = Retention{Days: DefaultRetentionDays, MaxMB: DefaultMaxMB}

// Retention bounds the archives of audit.jsonl: an archive rotated more
// than Days days ago is removed, and the oldest archives are removed while
// the live file and the archives together take more than MaxMB megabytes
// (10^6 bytes). The live file is never removed.
type Retention struct {
	Days  int
	MaxMB int
}

// normalized brings r within the limits (0: the default).
func (r Retention) normalized() Retention {
	if r.Days <= 0 {
		r.Days = DefaultRetentionDays
	}
	if r.MaxMB <= 0 {
		r.MaxMB = DefaultMaxMB
	}
	r.Days = min(max(r.Days, MinRetentionDays), MaxRetentionDays)
	r.MaxMB = min(max(r.MaxMB, MinMaxMB), MaxMaxMB)
	return r
}

// archiveTimeLayout is the rotation time in an archive's name: sortable,
// UTC, with nanoseconds.
const archiveTimeLayout = "20060102T150405.000000000Z"

// archiveName matches an archive's base name: the rotation time and the id
// of the archive's first entry (which names the segment in cursors).
var archiveName = regexp.MustCompile(`^audit-(\d{8}T\d{6}\.\d{9}Z)-([A-Za-z0-9_]{1,64})\.jsonl\.gz$`)

// archive is one rotated segment of the log.
type archive struct {
	path    string
	rotated time.Time
	firstID string
}

// maxArchiveBytes bounds what one archive decompresses to when it is read
// (a rotated file is a little more than RotateBytes).
func (l *Log) maxArchiveBytes() int64 { return 4*l.rotateBytes + 16<<20 }

// archives lists the archives beside the live file, oldest first. Files
// that are not archives (temporary files of a rotation) are skipped.
func (l *Log) archives() ([]archive, error) {
	dir := filepath.Dir(l.file.Path())
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list audit archives: %w", err)
	}
	var out []archive
	for _, de := range ents {
		m := archiveName.FindStringSubmatch(de.Name())
		if m == nil || !de.Type().IsRegular() {
			continue
		}
		t, err := time.Parse(archiveTimeLayout, m[1])
		if err != nil {
			continue
		}
		out = append(out, archive{path: filepath.Join(dir, de.Name()), rotated: t, firstID: m[2]})
	}
	slices.SortFunc(out, func(a, b archive) int { return strings.Compare(filepath.Base(a.path), filepath.Base(b.path)) })
	return out, nil
}

// Files returns the live file and its archives (oldest first), the files
// of the "audit" storage collection.
func (l *Log) Files() []string {
	out := []string{l.file.Path()}
	arcs, _ := l.archives()
	for _, a := range arcs {
		out = append(out, a.path)
	}
	return out
}

// SetRetention changes the retention (applied live: the archives beyond it
// are removed now). Values outside the limits are brought within them.
func (l *Log) SetRetention(r Retention) {
	l.retMu.Lock()
	l.retention = r.normalized()
	l.retMu.Unlock()
	l.applyRetention(time.Now())
}

// currentRetention returns the retention in force.
func (l *Log) currentRetention() Retention {
	l.retMu.Lock()
	defer l.retMu.Unlock()
	return l.retention
}

// firstID returns the id of the live file's first entry, "" when it has
// none. The caller holds segMu.
func (l *Log) firstID() string {
	f, err := os.Open(l.file.Path())
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(io.LimitReader(f, maxFirstLine), 4096).ReadSlice('\n')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) && len(line) == 0 {
		return ""
	}
	if e, ok := decodeLine(trimNewline(line)); ok {
		return e.ID
	}
	return ""
}

// maxFirstLine bounds the read of the live file's first line.
const maxFirstLine = 64 << 10

// trimNewline drops a trailing newline.
func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// segmentKey is what names a segment in archive names and cursors: its
// first entry's id when that is a plain id, else "x".
func segmentKey(id string) string {
	if id == "" || len(id) > 64 || strings.IndexFunc(id, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) >= 0 {
		return "x"
	}
	return id
}

// rotateRetry is how long the writer waits before it tries a failed
// rotation again.
const rotateRetry = time.Minute

// maybeRotate rotates the live file once it has passed RotateBytes. It
// runs in the writer after a good write.
func (l *Log) maybeRotate() {
	fi, err := os.Stat(l.file.Path())
	if err != nil || fi.Size() < l.rotateBytes || time.Now().Before(l.rotateAfter) {
		return
	}
	if err := l.rotate(time.Now()); err != nil {
		l.rotateAfter = time.Now().Add(rotateRetry)
		l.report("audit: rotate %s: %v (tried again in %s)", l.file.Path(), err, rotateRetry)
		return
	}
	l.applyRetention(time.Now())
}

// rotate moves the live file's entries to a new compressed archive
// (written to a temporary file, synced, then renamed: an archive is whole
// or absent) and empties the live file.
func (l *Log) rotate(now time.Time) error {
	l.segMu.Lock()
	defer l.segMu.Unlock()
	path := l.file.Path()
	id := segmentKey(l.firstID())
	name := fmt.Sprintf("audit-%s-%s.jsonl.gz", now.UTC().Format(archiveTimeLayout), id)
	final := filepath.Join(filepath.Dir(path), name)
	if err := writeArchive(path, final); err != nil {
		return err
	}
	if err := l.file.Clear(); err != nil {
		// The entries would be in both files: take the archive back.
		os.Remove(final)
		return fmt.Errorf("empty the live file: %w", err)
	}
	return nil
}

// writeArchive compresses src into dst atomically, with mode 0600.
func writeArchive(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".audit-rotate-*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	zw, _ := gzip.NewWriterLevel(tmp, gzip.BestSpeed)
	if _, err = io.Copy(zw, in); err != nil {
		return err
	}
	if err = zw.Close(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), dst); err != nil {
		return err
	}
	if d, derr := os.Open(filepath.Dir(dst)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// recoverRotation finishes a rotation a crash interrupted between the
// archive's rename and the emptying of the live file: when the newest
// archive starts with the live file's first entry, the live file's entries
// are in it, and the live file is emptied.
func (l *Log) recoverRotation() {
	arcs, err := l.archives()
	if err != nil || len(arcs) == 0 {
		return
	}
	id := l.firstID()
	if id == "" || segmentKey(id) != arcs[len(arcs)-1].firstID || segmentKey(id) == "x" {
		return
	}
	if err := l.file.Clear(); err != nil {
		l.report("audit: finish the interrupted rotation of %s: %v", l.file.Path(), err)
	}
}

// applyRetention removes the archives rotated before now − Days, then the
// oldest archives while everything takes more than MaxMB.
func (l *Log) applyRetention(now time.Time) {
	r := l.currentRetention()
	l.segMu.Lock()
	defer l.segMu.Unlock()
	arcs, err := l.archives()
	if err != nil {
		l.report("audit: retention: %v", err)
		return
	}
	cutoff := now.Add(-time.Duration(r.Days) * 24 * time.Hour)
	var total int64
	if fi, err := os.Stat(l.file.Path()); err == nil {
		total = fi.Size()
	}
	sizes := make([]int64, len(arcs))
	for i, a := range arcs {
		if fi, err := os.Stat(a.path); err == nil {
			sizes[i] = fi.Size()
			total += fi.Size()
		}
	}
	limit := int64(r.MaxMB) * 1_000_000
	for i, a := range arcs { // oldest first
		if !a.rotated.Before(cutoff) && total <= limit {
			break
		}
		if err := os.Remove(a.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			l.report("audit: retention: remove %s: %v", filepath.Base(a.path), err)
			continue
		}
		total -= sizes[i]
	}
}

// Clear removes the live file's entries and every archive, and writes
// first as the first entry of the new file (the entry that records the
// clear itself). It returns the bytes and files removed (the live file
// counts as one when it held entries). Entries recorded before the call
// are written first, so they are removed too.
func (l *Log) Clear(first Entry) (deletedBytes int64, deletedFiles int, err error) {
	if err := l.Flush(context.Background()); err != nil {
		return 0, 0, fmt.Errorf("clear audit log: %w", err)
	}
	if l.isClosed() {
		return 0, 0, fmt.Errorf("clear audit log: %w", ErrClosed)
	}
	l.segMu.Lock()
	defer l.segMu.Unlock()
	arcs, err := l.archives()
	if err != nil {
		return 0, 0, fmt.Errorf("clear audit log: %w", err)
	}
	for _, a := range arcs {
		fi, serr := os.Stat(a.path)
		if rerr := os.Remove(a.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return deletedBytes, deletedFiles, fmt.Errorf("clear audit log: remove %s: %w", filepath.Base(a.path), rerr)
		}
		deletedFiles++
		if serr == nil {
			deletedBytes += fi.Size()
		}
	}
	if fi, serr := os.Stat(l.file.Path()); serr == nil && fi.Size() > 0 {
		deletedBytes += fi.Size()
		deletedFiles++
	}
	if err := l.file.Clear(); err != nil {
		if errors.Is(err, os.ErrClosed) {
			err = ErrClosed
		}
		return deletedBytes, deletedFiles, fmt.Errorf("clear audit log: %w", err)
	}
	if first.ID != "" {
		line := appendEntry(nil, &first)
		if err := l.file.AppendBatch([][]byte{line}); err != nil {
			return deletedBytes, deletedFiles, fmt.Errorf("clear audit log: write the first entry: %w", err)
		}
		l.publish([]Entry{first})
	}
	return deletedBytes, deletedFiles, nil
}
