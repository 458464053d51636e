package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
	"github.com/meith-dev/meith/backend/protocol"
)

// readLimits bound a transcript read (the original's display read).
type readLimits struct {
	MaxBytes        int64 // of the file's tail that is read (default 5 MiB)
	MaxRecords      int   // records of that tail (default 500)
	MaxMessages     int   // newest messages kept (default 20)
	MaxMessageChars int   // per message, over its text parts (default 20,000)
	MaxTotalChars   int   // over all messages (default 50,000)
}

// Read defaults (the original's display read).
const (
	defaultReadBytes        = 5 << 20
	defaultReadRecords      = 500
	defaultReadMessages     = 20
	defaultReadMessageChars = 20_000
	defaultReadTotalChars   = 50_000
)

// omittedPrefix starts the first message of a read that left something out.
const omittedPrefix = "[Earlier content omitted]"

// Compaction thresholds and clipping sizes; variables so tests can lower them.
var (
	// compactBytes: a transcript larger than this is compacted on read.
	compactBytes int64 = 25 << 20
	// compactMinRecords and compactRecordFactor: a transcript with more than
	// max(compactMinRecords, compactRecordFactor × message records) records
	// is compacted on read.
	compactMinRecords   = 100
	compactRecordFactor = 3
	// clipToolBytes bounds each tool call's Args, Output and result data in
	// a bounded read.
	clipToolBytes = 4 << 10
	// maxOpenTranscripts is how many transcript files stay open for
	// appending; beyond it idle ones are closed (and reopened on demand).
	maxOpenTranscripts = 32
)

// Index and transcript file names.
const (
	indexFile     = "sessions.json"
	transcriptDir = "sessions"
	indexVersion  = 1
)

// Transcript record kinds.
const (
	recordMessage = "message"
	recordPatch   = "patch"
)

// messageLinePrefix starts every message record the store writes (the
// record's fields are marshalled in declaration order); counting records
// matches it instead of parsing each line.
const messageLinePrefix = `{"t":"message"`

var sessionIDPattern = regexp.MustCompile(`^sess_[A-Za-z0-9_-]{1,64}$`)

// validateSessionID refuses an id that is not "sess_" and 1–64 letters,
// digits, "_" or "-": such an id could name a file outside the transcript
// folder.
func validateSessionID(id string) error {
	if sessionIDPattern.MatchString(id) {
		return nil
	}
	shown := id
	if len(shown) > 80 {
		shown = shown[:80] + "…"
	}
	return protocol.Errorf(protocol.CodeValidation,
		"invalid session id %q: want %s_ followed by 1–64 letters, digits, _ or -", shown, SessionPrefix)
}

// indexDoc is the on-disk shape of sessions.json.
type indexDoc struct {
	Version  int       `json:"version"`
	Sessions []Session `json:"sessions"`
}

// record is one line of a transcript.
type record struct {
	T       string   `json:"t"`
	Message *Message `json:"message,omitempty"`
	Patch   *Patch   `json:"patch,omitempty"`
}

// store persists sessions: the index <dir>/sessions.json (0600, written
// atomically) and one transcript <dir>/sessions/<id>.jsonl per session
// (0600, dirs 0700) of message and patch records. Safe for concurrent use.
//
// mu guards the index (sessions);
// fmu guards the files map and closed; each transcriptFile's own mu is the
// per-session lock held for appends, reads, compaction and deletion. Lock
// order: a transcriptFile's mu may be held while taking fmu, never the
// reverse (fmu holders only TryLock a transcriptFile).
type store struct {
	dir  string
	logf func(format string, args ...any)

	mu    sync.Mutex
	index map[string]Session

	fmu    sync.Mutex
	files  map[string]*transcriptFile
	closed bool
	// open counts the transcript files open for appending.
	open atomic.Int64
}

// transcriptFile is the per-session state of a transcript.
type transcriptFile struct {
	mu sync.Mutex
	// f is the file open for appending, nil when closed.
	f *os.File
	// countSize is the file size the record counts were taken at, -1 when
	// unknown; records and messages count lines and message records.
	countSize         int64
	records, messages int
	malformedLogged   bool
}

// openStore loads the index in dir (a missing file is empty; a corrupt one
// is moved aside to sessions.json.corrupt-<ms> and logged) and resets
// sessions left "running" by a crash to "idle".
func openStore(dir string, logf func(string, ...any)) (*store, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if dir == "" {
		return nil, errors.New("open agent store: empty directory")
	}
	s := &store{
		dir:   dir,
		logf:  logf,
		index: map[string]Session{},
		files: map[string]*transcriptFile{},
	}
	for _, d := range []string{dir, filepath.Join(dir, transcriptDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("open agent store: %w", err)
		}
		if err := os.Chmod(d, 0o700); err != nil {
			return nil, fmt.Errorf("open agent store: %w", err)
		}
	}
	if err := s.loadIndex(); err != nil {
		return nil, err
	}
	return s, nil
}

// loadIndex reads sessions.json; a corrupt one is moved aside. Sessions a
// crash left running become idle and the index is rewritten.
func (s *store) loadIndex() error {
	path := filepath.Join(s.dir, indexFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open agent store: %w", err)
	}
	var doc indexDoc
	err = json.Unmarshal(data, &doc)
	if err == nil && doc.Version != indexVersion {
		err = fmt.Errorf("unsupported version %d", doc.Version)
	}
	if err != nil {
		aside := fmt.Sprintf("%s.corrupt-%d", path, time.Now().UnixMilli())
		if rerr := os.Rename(path, aside); rerr != nil {
			return fmt.Errorf("open agent store: index %s is unreadable (%v) and cannot be moved aside: %w", path, err, rerr)
		}
		s.logf("agent store: index %s is unreadable (%v); moved it to %s and started empty", path, err, aside)
		return nil
	}
	reset := false
	for _, sess := range doc.Sessions {
		if validateSessionID(sess.ID) != nil {
			s.logf("agent store: dropping index entry with invalid id %q", sess.ID)
			reset = true
			continue
		}
		if sess.Status == StatusRunning {
			sess.Status = StatusIdle
			reset = true
		}
		s.index[sess.ID] = sess
	}
	if reset {
		if err := s.writeIndexLocked(); err != nil {
			return fmt.Errorf("open agent store: %w", err)
		}
	}
	return nil
}

// sortedLocked returns copies of the sessions, newest UpdatedAt first (then
// newest CreatedAt, then id, so the order is stable).
func (s *store) sortedLocked() []Session {
	out := make([]Session, 0, len(s.index))
	for _, sess := range s.index {
		out = append(out, cloneSession(sess))
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.UpdatedAt != b.UpdatedAt {
			return a.UpdatedAt > b.UpdatedAt
		}
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt > b.CreatedAt
		}
		return a.ID < b.ID
	})
	return out
}

func (s *store) writeIndexLocked() error {
	data, err := json.MarshalIndent(indexDoc{Version: indexVersion, Sessions: s.sortedLocked()}, "", "  ")
	if err != nil {
		return fmt.Errorf("write session index: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(s.dir, indexFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("write session index: %w", err)
	}
	return nil
}

// cloneSession copies sess so callers never share its pointers.
func cloneSession(sess Session) Session {
	if sess.SpaceID != nil {
		v := *sess.SpaceID
		sess.SpaceID = &v
	}
	if sess.Usage != nil {
		u := *sess.Usage
		sess.Usage = &u
	}
	return sess
}

// sessions returns every session, newest UpdatedAt first.
func (s *store) sessions() []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedLocked()
}

// session returns the session with id.
func (s *store) session(id string) (Session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.index[id]
	if !ok {
		return Session{}, false
	}
	return cloneSession(sess), true
}

// putSession adds or replaces a session and writes the index; when the write fails the
// index in memory is left as it was.
func (s *store) putSession(sess Session) error {
	if err := validateSessionID(sess.ID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.index[sess.ID]
	s.index[sess.ID] = cloneSession(sess)
	if err := s.writeIndexLocked(); err != nil {
		if had {
			s.index[sess.ID] = old
		} else {
			delete(s.index, sess.ID)
		}
		return err
	}
	return nil
}

// deleteSession removes the session from the index and deletes its
// transcript. An unknown id is not an error.
func (s *store) deleteSession(id string) error {
	if err := validateSessionID(id); err != nil {
		return err
	}
	s.mu.Lock()
	if old, ok := s.index[id]; ok {
		delete(s.index, id)
		if err := s.writeIndexLocked(); err != nil {
			s.index[id] = old
			s.mu.Unlock()
			return err
		}
	}
	s.mu.Unlock()

	tf, err := s.file(id)
	if err != nil {
		return err
	}
	tf.mu.Lock()
	defer tf.mu.Unlock()
	s.closeFile(tf)
	tf.countSize = -1
	if err := os.Remove(s.transcriptPath(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("delete transcript of %s: %w", id, err)
	}
	return nil
}

// transcriptPath is the transcript of a validated id.
func (s *store) transcriptPath(id string) string {
	return filepath.Join(s.dir, transcriptDir, id+".jsonl")
}

// file returns the per-session state of id (validated by the caller).
func (s *store) file(id string) (*transcriptFile, error) {
	s.fmu.Lock()
	defer s.fmu.Unlock()
	if s.closed {
		return nil, errors.New("agent store is closed")
	}
	tf := s.files[id]
	if tf == nil {
		tf = &transcriptFile{countSize: -1}
		s.files[id] = tf
	}
	return tf, nil
}

// closeFile closes tf's append handle (tf.mu held).
func (s *store) closeFile(tf *transcriptFile) error {
	if tf.f == nil {
		return nil
	}
	err := tf.f.Close()
	tf.f = nil
	s.open.Add(-1)
	return err
}

// evictIdle closes open transcript files other than keep, while more than
// maxOpenTranscripts are open, skipping those in use right now.
func (s *store) evictIdle(keep *transcriptFile) {
	if s.open.Load() <= int64(maxOpenTranscripts) {
		return
	}
	s.fmu.Lock()
	defer s.fmu.Unlock()
	for _, tf := range s.files {
		if s.open.Load() <= int64(maxOpenTranscripts) {
			return
		}
		if tf == keep || !tf.mu.TryLock() {
			continue
		}
		if err := s.closeFile(tf); err != nil {
			s.logf("agent store: close transcript: %v", err)
		}
		tf.mu.Unlock()
	}
}

// appendMessage appends a full message record to the session's transcript.
func (s *store) appendMessage(id string, m Message) error {
	return s.appendRecord(id, record{T: recordMessage, Message: &m})
}

// appendPatch appends a patch record.
func (s *store) appendPatch(id string, p Patch) error {
	return s.appendRecord(id, record{T: recordPatch, Patch: &p})
}

// appendRecord writes rec as one line with a single write, under the
// session's lock.
func (s *store) appendRecord(id string, rec record) error {
	if err := validateSessionID(id); err != nil {
		return err
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("append to transcript of %s: %w", id, err)
	}
	line = append(line, '\n')
	tf, err := s.file(id)
	if err != nil {
		return err
	}
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.f == nil {
		f, err := os.OpenFile(s.transcriptPath(id), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("append to transcript of %s: %w", id, err)
		}
		tf.f = f
		s.open.Add(1)
		s.evictIdle(tf)
	}
	n, err := tf.f.Write(line)
	if err != nil {
		// A short write leaves a partial line; reads skip it as malformed.
		tf.countSize = -1
		s.closeFile(tf)
		return fmt.Errorf("append to transcript of %s: %w", id, err)
	}
	if tf.countSize >= 0 {
		tf.countSize += int64(n)
		tf.records++
		if rec.T == recordMessage {
			tf.messages++
		}
	}
	return nil
}

// close flushes and closes open transcript files.
func (s *store) close() error {
	s.fmu.Lock()
	s.closed = true
	files := make([]*transcriptFile, 0, len(s.files))
	for _, tf := range s.files {
		files = append(files, tf)
	}
	s.fmu.Unlock()
	var errs []error
	for _, tf := range files {
		tf.mu.Lock()
		if err := s.closeFile(tf); err != nil {
			errs = append(errs, err)
		}
		tf.mu.Unlock()
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close agent store: %w", err)
	}
	return nil
}

// withDefaults fills lim's zero (or negative) fields with the defaults.
func (lim readLimits) withDefaults() readLimits {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = defaultReadBytes
	}
	if lim.MaxRecords <= 0 {
		lim.MaxRecords = defaultReadRecords
	}
	if lim.MaxMessages <= 0 {
		lim.MaxMessages = defaultReadMessages
	}
	if lim.MaxMessageChars <= 0 {
		lim.MaxMessageChars = defaultReadMessageChars
	}
	if lim.MaxTotalChars <= 0 {
		lim.MaxTotalChars = defaultReadTotalChars
	}
	return lim
}

// transcript reads the session's messages (patches applied), bounded by
// lim (zero fields take the defaults), oldest first. Compaction happens
// here when the file exceeds 25 MiB or holds more than max(100, 3 ×
// messages) records: it is rewritten as full message records.
//
// It holds the session's lock throughout, so it never sees a record half
// written by an append.
//
// What it leaves out, in order: records before the last lim.MaxBytes of
// the file (a partial first line is skipped) and before the last
// lim.MaxRecords records of that tail; patches whose message is not in
// that window; messages before the last lim.MaxMessages; text and thought
// beyond lim.MaxMessageChars characters per message (the start is kept,
// then "[… N characters clipped]"); whole messages, oldest first, beyond
// lim.MaxTotalChars characters of text and thought in all (the message
// that crosses the limit is clipped to what is left); tool call Args,
// Output and result data beyond clipToolBytes each (JSON becomes the JSON
// string "[clipped N bytes]"). When anything was left out Omitted is true
// and the first returned message's first text part starts with
// "[Earlier content omitted]\n" (a text part is inserted when it has
// none). The returned messages are for display and prompts; they must not
// be appended back to the transcript.
func (s *store) transcript(id string, lim readLimits) (Transcript, error) {
	if err := validateSessionID(id); err != nil {
		return Transcript{}, err
	}
	lim = lim.withDefaults()
	tf, err := s.file(id)
	if err != nil {
		return Transcript{}, err
	}
	tf.mu.Lock()
	defer tf.mu.Unlock()
	path := s.transcriptPath(id)
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return Transcript{Messages: []Message{}}, nil
	}
	if err != nil {
		return Transcript{}, fmt.Errorf("read transcript of %s: %w", id, err)
	}
	compact, err := s.needsCompaction(tf, path, fi.Size())
	if err != nil {
		return Transcript{}, fmt.Errorf("read transcript of %s: %w", id, err)
	}
	if compact {
		if err := s.compact(tf, id, path); err != nil {
			s.logf("agent store: compact transcript of %s: %v", id, err)
		}
	}
	return s.readTail(tf, id, path, lim)
}

// needsCompaction reports whether the transcript at path (of size bytes)
// exceeds compactBytes while holding patch records (a file of full
// message records only would be rewritten as it is, on every read), or
// holds more than max(compactMinRecords, compactRecordFactor × message
// records) records. The counts are cached and kept up to date by appends;
// a size change behind the store's back makes it count again.
func (s *store) needsCompaction(tf *transcriptFile, path string, size int64) (bool, error) {
	if tf.countSize != size {
		f, err := os.Open(path)
		if err != nil {
			return false, err
		}
		records, messages, err := countRecords(f)
		f.Close()
		if err != nil {
			return false, err
		}
		tf.countSize, tf.records, tf.messages = size, records, messages
	}
	if size > compactBytes && tf.records > tf.messages {
		return true, nil
	}
	return tf.records > max(compactMinRecords, compactRecordFactor*tf.messages), nil
}

// countRecords counts r's non-empty lines and message records.
func countRecords(r io.Reader) (records, messages int, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	continued := false
	for {
		line, isPrefix, err := br.ReadLine()
		if err == io.EOF {
			return records, messages, nil
		}
		if err != nil {
			return 0, 0, err
		}
		if !continued {
			if t := bytes.TrimSpace(line); len(t) > 0 || isPrefix {
				records++
				if bytes.HasPrefix(t, []byte(messageLinePrefix)) {
					messages++
				}
			}
		}
		continued = isPrefix
	}
}

// compact rewrites the whole transcript as one full message record per
// message (patches applied), through a temporary file renamed over it.
func (s *store) compact(tf *transcriptFile, id, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	msgs, _ := s.rebuild(tf, id, splitLines(data))
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	for i := range msgs {
		if err := enc.Encode(record{T: recordMessage, Message: &msgs[i]}); err != nil {
			return err
		}
	}
	if err := s.closeFile(tf); err != nil {
		s.logf("agent store: close transcript of %s: %v", id, err)
	}
	if err := atomicfile.WriteFile(path, out.Bytes(), 0o600); err != nil {
		tf.countSize = -1
		return err
	}
	tf.countSize, tf.records, tf.messages = int64(out.Len()), len(msgs), len(msgs)
	s.logf("agent store: compacted transcript of %s: %d → %d bytes, %d messages", id, len(data), out.Len(), len(msgs))
	return nil
}

// splitLines returns data's non-empty lines.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// rebuild parses records into messages in order of first appearance: a
// message record adds the message (or replaces an earlier record of it), a
// patch applies to its message. Malformed records are skipped (logged once
// per session); orphan reports a patch whose message was not found.
func (s *store) rebuild(tf *transcriptFile, id string, lines [][]byte) (msgs []Message, orphan bool) {
	msgs = []Message{}
	pos := map[string]int{}
	malformed := 0
	for _, line := range lines {
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			malformed++
			continue
		}
		switch {
		case rec.T == recordMessage && rec.Message != nil && rec.Message.ID != "":
			m := *rec.Message
			if i, ok := pos[m.ID]; ok {
				msgs[i] = m
			} else {
				pos[m.ID] = len(msgs)
				msgs = append(msgs, m)
			}
		case rec.T == recordPatch && rec.Patch != nil:
			i, ok := pos[rec.Patch.MessageID]
			if !ok {
				orphan = true
				continue
			}
			rec.Patch.Apply(&msgs[i])
		default:
			malformed++
		}
	}
	if malformed > 0 && !tf.malformedLogged {
		tf.malformedLogged = true
		s.logf("agent store: transcript of %s: skipped %d malformed record(s)", id, malformed)
	}
	return msgs, orphan
}

// readTail is the bounded read of [store.transcript].
func (s *store) readTail(tf *transcriptFile, id, path string, lim readLimits) (Transcript, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Transcript{Messages: []Message{}}, nil
	}
	if err != nil {
		return Transcript{}, fmt.Errorf("read transcript of %s: %w", id, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Transcript{}, fmt.Errorf("read transcript of %s: %w", id, err)
	}
	size := fi.Size()
	omitted := false
	off := int64(0)
	if size > lim.MaxBytes {
		// Read one byte before the window: a newline there means the
		// window starts on a whole record.
		off = size - lim.MaxBytes - 1
		omitted = true
	}
	buf := make([]byte, size-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return Transcript{}, fmt.Errorf("read transcript of %s: %w", id, err)
	}
	if off > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			buf = nil
		} else {
			buf = buf[i+1:]
		}
	}
	lines := splitLines(buf)
	if len(lines) > lim.MaxRecords {
		lines = lines[len(lines)-lim.MaxRecords:]
		omitted = true
	}
	msgs, orphan := s.rebuild(tf, id, lines)
	omitted = omitted || orphan
	if len(msgs) > lim.MaxMessages {
		msgs = msgs[len(msgs)-lim.MaxMessages:]
		omitted = true
	}
	msgs, clipped := clipMessages(msgs, lim)
	omitted = omitted || clipped
	if omitted && len(msgs) > 0 {
		markOmitted(&msgs[0])
	}
	return Transcript{Messages: msgs, Omitted: omitted}, nil
}

// markOmitted prefixes m's first text part with omittedPrefix, or inserts
// one when m has no text part.
func markOmitted(m *Message) {
	for i := range m.Parts {
		if m.Parts[i].Type == PartText {
			m.Parts[i].Text = omittedPrefix + "\n" + m.Parts[i].Text
			return
		}
	}
	m.Parts = append([]Part{{Type: PartText, Text: omittedPrefix}}, m.Parts...)
}

// clipMessages applies the per-message and total character limits and
// clips tool call data; clipped reports that something was cut.
func clipMessages(msgs []Message, lim readLimits) (_ []Message, clipped bool) {
	for i := range msgs {
		if clipMessageText(&msgs[i], lim.MaxMessageChars) {
			clipped = true
		}
		if clipToolCalls(&msgs[i]) {
			clipped = true
		}
	}
	// Keep the newest messages within the total; the one that crosses it
	// is clipped to what is left (dropped when that is little).
	budget := lim.MaxTotalChars
	for i := len(msgs) - 1; i >= 0; i-- {
		n := messageChars(msgs[i])
		if n <= budget {
			budget -= n
			continue
		}
		clipped = true
		if budget >= min(200, lim.MaxTotalChars) && budget > 0 {
			clipMessageText(&msgs[i], budget)
			return msgs[i:], true
		}
		return msgs[i+1:], true
	}
	return msgs, clipped
}

// messageChars counts the characters of m's text and thought parts.
func messageChars(m Message) int {
	n := 0
	for _, p := range m.Parts {
		if p.Type == PartText || p.Type == PartThought {
			n += utf8.RuneCountInString(p.Text)
		}
	}
	return n
}

// clipMessageText keeps the first limit characters of m's text and thought
// parts: the part that crosses the limit is cut and marked, later text and
// thought parts are removed (tool parts stay).
func clipMessageText(m *Message, limit int) bool {
	if messageChars(*m) <= limit {
		return false
	}
	left := limit
	parts := m.Parts[:0:0]
	for _, p := range m.Parts {
		if p.Type != PartText && p.Type != PartThought {
			parts = append(parts, p)
			continue
		}
		n := utf8.RuneCountInString(p.Text)
		switch {
		case n <= left:
			left -= n
			parts = append(parts, p)
		case left > 0:
			p.Text = cutRunes(p.Text, left) + fmt.Sprintf("\n[… %d characters clipped]", n-left)
			left = 0
			parts = append(parts, p)
		}
	}
	m.Parts = parts
	return true
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// cutBytes returns s cut to at most n bytes at a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clippedJSON is the JSON string that stands for n bytes left out.
func clippedJSON(n int) json.RawMessage {
	raw, _ := json.Marshal(fmt.Sprintf("[clipped %d bytes]", n))
	return raw
}

// clipRaw replaces raw with a clippedJSON marker when it exceeds
// clipToolBytes (see clipJSON).
func clipRaw(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) <= clipToolBytes {
		return raw, false
	}
	return clipJSON(raw, clipToolBytes), true
}

// keptFieldBytes is the largest field value clipJSON keeps of an object it
// clips: paths, line numbers and names, not contents.
const keptFieldBytes = 1 << 10

// clipJSON bounds raw (over limit, or not valid JSON) to a clippedJSON
// marker, except that an object keeps its small fields (each at most
// keptFieldBytes, together within limit) and has its large ones replaced by
// markers: a clipped write keeps the cwd and path the window opens it at.
func clipJSON(raw json.RawMessage, limit int) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || len(fields) == 0 {
		return clippedJSON(len(raw))
	}
	out := make(map[string]json.RawMessage, len(fields))
	size := 2
	for k, v := range fields {
		if len(v) > keptFieldBytes {
			v = clippedJSON(len(v))
		}
		size += len(k) + len(v) + 4
		out[k] = v
	}
	if size > limit {
		return clippedJSON(len(raw))
	}
	b, err := json.Marshal(out)
	if err != nil || len(b) > limit {
		return clippedJSON(len(raw))
	}
	return b
}

// clipString cuts s to clipToolBytes, noting how much was left out.
func clipString(s string) (string, bool) {
	if len(s) <= clipToolBytes {
		return s, false
	}
	kept := cutBytes(s, clipToolBytes)
	return kept + fmt.Sprintf("\n[clipped %d bytes]", len(s)-len(kept)), true
}

// clipToolCalls clips each tool call's Args, Output and result data to
// clipToolBytes.
func clipToolCalls(m *Message) (clipped bool) {
	for i := range m.ToolCalls {
		tc := &m.ToolCalls[i]
		var c bool
		if tc.Args, c = clipRaw(tc.Args); c {
			clipped = true
		}
		if tc.Output, c = clipString(tc.Output); c {
			clipped = true
		}
		if tc.Result != nil && clipStoredResult(tc.Result) {
			clipped = true
		}
	}
	return clipped
}

// clipStoredResult clips r's content, meta, diagnostics and error in place (r is
// a fresh copy decoded for this read).
func clipStoredResult(r *protocol.ToolResult) (clipped bool) {
	var c bool
	if r.Content, c = clipRaw(r.Content); c {
		clipped = true
	}
	if r.Meta != nil {
		if raw, err := json.Marshal(r.Meta); err == nil && len(raw) > clipToolBytes {
			r.Meta = map[string]any{"clipped": fmt.Sprintf("[clipped %d bytes]", len(raw))}
			clipped = true
		}
	}
	if len(r.Diagnostics) > 0 {
		if raw, err := json.Marshal(r.Diagnostics); err == nil && len(raw) > clipToolBytes {
			keep := r.Diagnostics[:0:0]
			used := 0
			for _, d := range r.Diagnostics {
				d.Message = cutBytes(d.Message, 512)
				if used += len(d.Message) + 32; used > clipToolBytes {
					break
				}
				keep = append(keep, d)
			}
			r.Diagnostics = keep
			clipped = true
		}
	}
	if e := r.Error; e != nil {
		if msg, c := clipString(e.Message); c {
			e.Message = msg
			clipped = true
		}
		if e.Details != nil {
			if raw, err := json.Marshal(e.Details); err == nil && len(raw) > clipToolBytes {
				e.Details = fmt.Sprintf("[clipped %d bytes]", len(raw))
				clipped = true
			}
		}
	}
	return clipped
}
