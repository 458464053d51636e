package audit

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/redact/summary"
)

// Bounds of [Log.Query].
const (
	// DefaultQueryLimit is the page size when Query.Limit is 0.
	DefaultQueryLimit = 200
	// MaxQueryLimit is the largest page.
	MaxQueryLimit = 1000
	// MaxScanBytes bounds the bytes of entries one query examines; past it
	// the page ends early, with a cursor to go on from there.
	MaxScanBytes = 64 << 20
)

// Query selects audit entries. Empty fields select everything; the values
// of one list are alternatives, the fields together must all match.
type Query struct {
	// Callers, Tools and Decisions are exact values of the entries'
	// caller, toolName and decision (decisions are compared as strings).
	Callers   []string
	Tools     []string
	Decisions []string
	// SpaceID is the exact spaceId.
	SpaceID string
	// Since and Until bound the entries' time (inclusive); zero: unbounded.
	Since, Until time.Time
	// Search is a case-insensitive substring of the tool name, the
	// arguments summary or the result summary.
	Search string
	// Limit is the page size: 0 means DefaultQueryLimit, at most
	// MaxQueryLimit.
	Limit int
	// Cursor is a previous page's NextCursor: the page goes on with the
	// entries older than that page's last one.
	Cursor string
}

// Page is one answer of [Log.Query]: entries newest first, and the cursor
// of the next (older) page, "" when there are no more.
type Page struct {
	Entries    []Entry `json:"entries"`
	NextCursor string  `json:"nextCursor,omitempty"`
}

// QueryError is a query that cannot run: Field names the bad field.
type QueryError struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *QueryError) Error() string { return "audit query: " + e.Field + ": " + e.Reason }

// IsQueryError reports whether err is (or wraps) a [*QueryError].
func IsQueryError(err error) bool {
	var qe *QueryError
	return errors.As(err, &qe)
}

// sinceSlack is how far past Since (older) a query reads before it stops:
// entries are in the order they were recorded, which their times follow
// only roughly.
const sinceSlack = 5 * time.Minute

// segment is one file of the log as a query reads it.
type segment struct {
	key     string // the first entry's id (segmentKey)
	archive string // the archive's path; "" for the live file
	size    int64  // the live file's size when the query began
}

// Query returns the entries that match q, newest first, across the live
// file and its archives, a page at a time (see [Query.Cursor]). It reads
// at most MaxScanBytes of entries per call. Entries recorded before the
// call are written first, so it sees them.
func (l *Log) Query(ctx context.Context, q Query) (Page, error) {
	m, err := newMatcher(q)
	if err != nil {
		return Page{}, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultQueryLimit
	}
	var startKey string
	var startOff int64 = -1
	if q.Cursor != "" {
		if startKey, startOff, err = decodeCursor(q.Cursor); err != nil {
			return Page{}, err
		}
	}
	if err := l.Flush(ctx); err != nil {
		return Page{}, fmt.Errorf("audit query: %w", err)
	}
	if l.isClosed() {
		return Page{}, fmt.Errorf("audit query: %w", ErrClosed)
	}
	l.segMu.RLock()
	defer l.segMu.RUnlock()
	segs, err := l.segments()
	if err != nil {
		return Page{}, fmt.Errorf("audit query: %w", err)
	}
	if startOff >= 0 { // skip to the cursor's segment
		i := slices.IndexFunc(segs, func(s segment) bool { return s.key == startKey })
		if i < 0 {
			return Page{Entries: []Entry{}}, nil // that history is gone (retention, clear)
		}
		segs = segs[i:]
	}
	page := Page{Entries: []Entry{}}
	var done int64 // the bytes of the segments read before this one
	seek := m.seeker()
	for si, seg := range segs {
		r, end, err := l.openSegment(seg)
		if err != nil {
			l.report("audit: query: skip %s: %v", seg.archive, err)
			continue
		}
		if si == 0 && startOff >= 0 {
			end = min(end, startOff)
		}
		var stop, full bool
		var last int64
		lines := 0
		skipped := func(pos int64) bool {
			if done+end-pos >= MaxScanBytes || ctx.Err() != nil {
				full, last = true, pos
				return false
			}
			return true
		}
		serr := scanBackward(r, end, seek, skipped, func(line []byte, start int64) bool {
			if lines++; lines%1024 == 0 && ctx.Err() != nil {
				return false
			}
			e, ok, older := m.match(line)
			if older {
				stop = true
				return false
			}
			if ok {
				page.Entries = append(page.Entries, e)
				if len(page.Entries) >= limit {
					full, last = true, start
					return false
				}
			}
			if done+end-start >= MaxScanBytes {
				full, last = true, start
				return false
			}
			return true
		})
		done += end
		if c, ok := r.(io.Closer); ok {
			c.Close()
		}
		if err := ctx.Err(); err != nil {
			return Page{}, fmt.Errorf("audit query: %w", err)
		}
		if serr != nil {
			return Page{}, fmt.Errorf("audit query: %w", serr)
		}
		if stop {
			return page, nil
		}
		if full {
			if last > 0 || si+1 < len(segs) {
				page.NextCursor = encodeCursor(seg.key, last)
			}
			return page, nil
		}
	}
	return page, nil
}

// segments lists the segments newest first: the live file, then the
// archives. The caller holds segMu.
func (l *Log) segments() ([]segment, error) {
	var segs []segment
	if fi, err := os.Stat(l.file.Path()); err == nil && fi.Size() > 0 {
		segs = append(segs, segment{key: segmentKey(l.firstID()), size: fi.Size()})
	}
	arcs, err := l.archives()
	if err != nil {
		return nil, err
	}
	for i := len(arcs) - 1; i >= 0; i-- {
		segs = append(segs, segment{key: arcs[i].firstID, archive: arcs[i].path})
	}
	return segs, nil
}

// openSegment returns a reader of seg's uncompressed bytes and their end.
func (l *Log) openSegment(seg segment) (io.ReaderAt, int64, error) {
	if seg.archive == "" {
		f, err := os.Open(l.file.Path())
		if err != nil {
			return nil, 0, err
		}
		return f, seg.size, nil
	}
	data, err := l.readArchive(seg.archive)
	if err != nil {
		return nil, 0, err
	}
	return memSegment(data), int64(len(data)), nil
}

// readArchive decompresses an archive (at most maxArchiveBytes), through a
// cache of the last one read (paging reads the same archive again).
func (l *Log) readArchive(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	l.cacheMu.Lock()
	if l.cache.path == path && l.cache.mod.Equal(fi.ModTime()) && l.cache.size == fi.Size() {
		data := l.cache.data
		l.cacheMu.Unlock()
		return data, nil
	}
	l.cacheMu.Unlock()
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	limit := l.maxArchiveBytes()
	data, err := io.ReadAll(io.LimitReader(zr, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("decompresses to more than %d MiB", limit>>20)
	}
	l.cacheMu.Lock()
	l.cache = archiveCache{path: path, mod: fi.ModTime(), size: fi.Size(), data: data}
	l.cacheMu.Unlock()
	return data, nil
}

// archiveCache is the last archive a query decompressed.
type archiveCache struct {
	path string
	mod  time.Time
	size int64
	data []byte
}

// Backward scanning.
const (
	firstScanChunk = 64 << 10 // the first read; each next one is twice as large
	maxScanChunk   = 4 << 20
	maxLineBytes   = 1 << 20 // longer lines are skipped
)

// memSegment is an archive's content in memory: scanned without copies.
type memSegment []byte

// ReadAt implements io.ReaderAt.
func (m memSegment) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// scanBackward calls fn with each whole line of r[0:end] (without its
// newline) and the offset where it starts, last line first, until fn
// returns false. Bytes after the last newline (a line being written) are
// not a line; lines longer than maxLineBytes are skipped.
//
// With seek (optional), lines that cannot match are passed over without
// fn: seek returns the indexes in its argument where a match could be (a
// needle's start; no needle holds a newline), in ascending order, and
// skipped is told each position the scan has passed (everything from
// there to end was seen); it returns false to stop.
func scanBackward(r io.ReaderAt, end int64, seek func([]byte) []int, skipped func(pos int64) bool, fn func(line []byte, start int64) bool) error {
	var data []byte // r[base : base+len(data)], not yet passed to fn
	base := end
	partial := true // data's tail is not a whole line yet
	chunk := int64(firstScanChunk)
	for base > 0 {
		if m, ok := r.(memSegment); ok {
			data, base = m[:end], 0 // all of it at once, no copy
		} else {
			n := min(chunk, base)
			chunk = min(2*chunk, maxScanChunk)
			buf := make([]byte, int(n)+len(data))
			if _, err := r.ReadAt(buf[:n], base-n); err != nil && !errors.Is(err, io.EOF) {
				return err
			}
			copy(buf[n:], data)
			base -= n
			data = buf
		}
		if partial {
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 {
				if len(data) > maxLineBytes {
					data = data[:0:0]
				}
				continue
			}
			data, partial = data[:i+1], false
		}
		lineEnd := len(data) - 1 // the newline ending the next line
		var cands []int
		if seek != nil {
			cands = seek(data[:lineEnd])
		}
		for {
			if seek != nil {
				for len(cands) > 0 && cands[len(cands)-1] >= lineEnd {
					cands = cands[:len(cands)-1] // in lines already seen
				}
				if len(cands) == 0 {
					// No match in the whole lines here; the first, partial,
					// line may still hold one that starts in earlier bytes.
					f := bytes.IndexByte(data[:lineEnd], '\n')
					if f >= 0 {
						lineEnd = f
						if !skipped(base + int64(f) + 1) {
							return nil
						}
					}
					break
				} else if k := cands[len(cands)-1]; bytes.IndexByte(data[k:lineEnd], '\n') >= 0 {
					i := bytes.IndexByte(data[k:lineEnd], '\n')
					lineEnd = k + i // the end of the line that holds the candidate
					if !skipped(base + int64(lineEnd) + 1) {
						return nil
					}
				}
			}
			j := bytes.LastIndexByte(data[:lineEnd], '\n')
			if j < 0 {
				break
			}
			if !fn(data[j+1:lineEnd], base+int64(j)+1) {
				return nil
			}
			lineEnd = j
		}
		data = data[:lineEnd+1]
		if len(data) > maxLineBytes { // an overlong line: skip to its start
			data, partial = data[:0:0], true
		}
	}
	if !partial && len(data) > 1 {
		fn(data[:len(data)-1], 0)
	}
	return nil
}

// matcher applies a query to lines: a cheap test of the raw bytes first
// (the lines are written by appendEntry, so a field's value appears
// encoded as appendEntry encodes it), then the exact test of the decoded
// entry.
type matcher struct {
	q            Query
	groups       map[string][][]byte // by field: one of its needles must be in the line
	since, until string              // in TimeLayout, for the raw test
	stopBefore   string              // an entry older than this ends the query
	search       string              // lower case
	rawSearch    []byte              // for the raw test; nil: decode every line
}

// newMatcher checks q and prepares its tests.
func newMatcher(q Query) (*matcher, error) {
	if q.Limit < 0 || q.Limit > MaxQueryLimit {
		return nil, &QueryError{Field: "limit", Reason: fmt.Sprintf("must be between 1 and %d", MaxQueryLimit)}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && q.Until.Before(q.Since) {
		return nil, &QueryError{Field: "until", Reason: "must not be before since"}
	}
	m := &matcher{q: q, search: strings.ToLower(q.Search), groups: map[string][][]byte{}}
	add := func(field string, values []string) {
		if len(values) == 0 {
			return
		}
		var g [][]byte
		for _, v := range values {
			n := append([]byte(`"`+field+`":`), summary.AppendJSONString(nil, v, true)...)
			g = append(g, n)
		}
		m.groups[field] = g
	}
	add("caller", q.Callers)
	add("toolName", q.Tools)
	add("decision", q.Decisions)
	if q.SpaceID != "" {
		add("spaceId", []string{q.SpaceID})
	}
	if !q.Since.IsZero() {
		m.since = q.Since.UTC().Format(TimeLayout)
		m.stopBefore = q.Since.Add(-sinceSlack).UTC().Format(TimeLayout)
	}
	if !q.Until.IsZero() {
		m.until = q.Until.UTC().Format(TimeLayout)
	}
	if s := m.search; s != "" && plainASCII(s) {
		m.rawSearch = []byte(s)
	}
	return m, nil
}

// seeker returns the seek function of scanBackward for the query: the
// last place one of the needles of the most selective field starts (a
// space, then tools, decisions, callers). Nil without such a field, or
// with Since (which stops the scan at the first entry well before it, and
// so needs every line's time).
func (m *matcher) seeker() func([]byte) []int {
	if m.since != "" {
		return nil
	}
	var g [][]byte
	for _, field := range []string{"caller", "decision", "toolName", "spaceId"} {
		if n, ok := m.groups[field]; ok {
			g = n
		}
	}
	if g == nil {
		return nil
	}
	return func(data []byte) []int {
		var at []int
		for _, n := range g {
			// Look for the value without its opening quote (JSON is full
			// of `"`, which makes a poor first byte), then check the key
			// before it: `"key":"` + value.
			colon := bytes.IndexByte(n, ':')
			key, value := n[:colon+2], n[colon+2:]
			for off := 0; ; {
				i := bytes.Index(data[off:], value)
				if i < 0 {
					break
				}
				if start := off + i - len(key); start >= 0 && bytes.Equal(data[start:off+i], key) {
					at = append(at, start)
				}
				off += i + len(value)
			}
		}
		if len(g) > 1 {
			slices.Sort(at)
		}
		return at
	}
}

// plainASCII reports whether s is printable ASCII that JSON writes as it
// is (also inside a summary, which is a JSON string in a JSON string).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// tsPrefix comes before an entry's time in its line.
var tsPrefix = []byte(`"ts":"`)

// match tests one line: the entry and whether it matches, and older when
// the entry is older than Since by more than the slack (nothing further
// back can match).
func (m *matcher) match(line []byte) (e Entry, ok, older bool) {
	if m.since != "" || m.until != "" {
		if i := bytes.Index(line, tsPrefix); i >= 0 && len(line) >= i+len(tsPrefix)+len(TimeLayout) {
			ts := string(line[i+len(tsPrefix) : i+len(tsPrefix)+len(TimeLayout)])
			if m.stopBefore != "" && ts < m.stopBefore {
				return Entry{}, false, true
			}
			if m.since != "" && ts < m.since || m.until != "" && ts > m.until {
				return Entry{}, false, false
			}
		}
	}
	for _, g := range m.groups {
		if !slices.ContainsFunc(g, func(n []byte) bool { return bytes.Contains(line, n) }) {
			return Entry{}, false, false
		}
	}
	if m.rawSearch != nil && !containsFoldASCII(line, m.rawSearch) {
		return Entry{}, false, false
	}
	e, ok = decodeLine(line)
	if !ok {
		return Entry{}, false, false
	}
	return e, m.exact(&e), false
}

// exact tests a decoded entry against every field of the query.
func (m *matcher) exact(e *Entry) bool {
	q := &m.q
	if len(q.Callers) > 0 && !slices.Contains(q.Callers, string(e.Caller)) ||
		len(q.Tools) > 0 && !slices.Contains(q.Tools, e.ToolName) ||
		len(q.Decisions) > 0 && !slices.Contains(q.Decisions, string(e.Decision)) ||
		q.SpaceID != "" && e.SpaceID != q.SpaceID {
		return false
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		t, err := time.Parse(time.RFC3339Nano, e.TS)
		if err != nil || !q.Since.IsZero() && t.Before(q.Since.Truncate(time.Millisecond)) || !q.Until.IsZero() && t.After(q.Until) {
			return false
		}
	}
	if m.search != "" {
		return strings.Contains(strings.ToLower(e.ToolName), m.search) ||
			strings.Contains(strings.ToLower(e.ArgsSummary), m.search) ||
			strings.Contains(strings.ToLower(e.ResultSummary), m.search)
	}
	return true
}

// containsFoldASCII reports whether s contains sub (lower case ASCII),
// ignoring the case of ASCII letters.
func containsFoldASCII(s, sub []byte) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	c0, u0 := sub[0], sub[0]
	if 'a' <= c0 && c0 <= 'z' {
		u0 = c0 - 'a' + 'A'
	}
	for i := 0; i+n <= len(s); i++ {
		if b := s[i]; b != c0 && b != u0 {
			continue
		}
		k := 1
		for ; k < n; k++ {
			b := s[i+k]
			if 'A' <= b && b <= 'Z' {
				b += 'a' - 'A'
			}
			if b != sub[k] {
				break
			}
		}
		if k == n {
			return true
		}
	}
	return false
}

// cursorKey matches a cursor's segment key.
var cursorKey = regexp.MustCompile(`^[A-Za-z0-9_]{1,64}$`)

// encodeCursor names the position before start in the segment key.
func encodeCursor(key string, start int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte(key + ":" + strconv.FormatInt(start, 10)))
}

// decodeCursor reads a cursor of encodeCursor.
func decodeCursor(c string) (string, int64, error) {
	bad := &QueryError{Field: "cursor", Reason: "is not a cursor of an earlier page (pass nextCursor as it came)"}
	if len(c) > 200 {
		return "", 0, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", 0, bad
	}
	key, off, ok := strings.Cut(string(b), ":")
	n, err := strconv.ParseInt(off, 10, 64)
	if !ok || err != nil || n < 0 || !cursorKey.MatchString(key) {
		return "", 0, bad
	}
	return key, n, nil
}

// Filter tests single entries against a query's fields (its Limit and
// Cursor do not apply): what audit_watch streams.
type Filter struct{ m *matcher }

// NewFilter checks q as [Log.Query] does and returns its filter.
func NewFilter(q Query) (*Filter, error) {
	q.Limit, q.Cursor = 0, ""
	m, err := newMatcher(q)
	if err != nil {
		return nil, err
	}
	return &Filter{m: m}, nil
}

// Match reports whether e matches every field of the filter's query.
func (f *Filter) Match(e *Entry) bool { return f.m.exact(e) }

// Line is e encoded as its line of audit.jsonl, without the newline.
func Line(e *Entry) []byte { return trimNewline(appendEntry(nil, e)) }
