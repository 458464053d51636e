// Package applog is the runtime's structured log: entries appended to
// <userData>/logs.jsonl (bounded), mirrored to an optional writer, and read
// back with filters by the app_get_logs tool.
package applog

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meith-dev/meith/backend/jsonl"
	"github.com/meith-dev/meith/backend/protocol"
)

// Entry is one log record as stored in logs.jsonl.
type Entry struct {
	ID        string            `json:"id"`
	TS        string            `json:"ts"` // RFC 3339 UTC with milliseconds
	Level     protocol.LogLevel `json:"level"`
	Source    string            `json:"source"`
	Message   string            `json:"message"`
	Caller    string            `json:"caller,omitempty"`
	SessionID string            `json:"sessionId,omitempty"`
	ToolName  string            `json:"toolName,omitempty"`
	Data      map[string]any    `json:"data,omitempty"`
}

// Filter selects entries for [Logger.Query]. Zero fields match everything.
type Filter struct {
	Limit     int               // newest N matches (default 200)
	Level     protocol.LogLevel // minimum level
	Source    string
	Caller    string
	SessionID string
	ToolName  string
	Search    string // case-insensitive substring of message or source
}

// Logger writes entries; it is safe for concurrent use. A nil *Logger
// discards everything, so packages can log without checking.
type Logger struct {
	file   *jsonl.File
	mirror io.Writer
	mu     sync.Mutex // guards mirror writes
	debug  atomic.Bool

	subMu  sync.RWMutex
	subs   map[int]func(Entry)
	nextID int
}

// Subscribe calls fn after every entry is written, in the writer's
// goroutine: fn must return quickly (a window coalesces these into a small
// "logs appended" hint). It returns a func that cancels the subscription.
func (l *Logger) Subscribe(fn func(Entry)) (cancel func()) {
	if l == nil {
		return func() {}
	}
	l.subMu.Lock()
	defer l.subMu.Unlock()
	if l.subs == nil {
		l.subs = map[int]func(Entry){}
	}
	id := l.nextID
	l.nextID++
	l.subs[id] = fn
	return func() {
		l.subMu.Lock()
		delete(l.subs, id)
		l.subMu.Unlock()
	}
}

// Open opens (or creates) the log file at path. mirror, if non-nil, gets a
// one-line human rendering of each entry (meith serve prints to stderr).
func Open(path string, mirror io.Writer) (*Logger, error) {
	f, err := jsonl.Open(path, jsonl.Options{MaxRecords: 20_000})
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return &Logger{file: f, mirror: mirror}, nil
}

// SetDebug turns debug mode on or off; debug entries are kept only while on.
func (l *Logger) SetDebug(on bool) {
	if l != nil {
		l.debug.Store(on)
	}
}

// Debug reports whether debug mode is on.
func (l *Logger) Debug() bool { return l != nil && l.debug.Load() }

// Path returns the log file's path.
func (l *Logger) Path() string {
	if l == nil {
		return ""
	}
	return l.file.Path()
}

// WriteStatus says how the writes of logs.jsonl fare (the storage check of
// app_health shows it).
func (l *Logger) WriteStatus() jsonl.Status {
	if l == nil {
		return jsonl.Status{}
	}
	return l.file.Status()
}

// Write records e, filling ID, TS and a default level. Failures to write are
// not reported: logging must never break a call.
func (l *Logger) Write(e Entry) {
	if l == nil {
		return
	}
	if e.Level == "" {
		e.Level = protocol.LevelInfo
	}
	if e.Level == protocol.LevelDebug && !l.Debug() {
		return
	}
	if e.ID == "" {
		e.ID = protocol.NewID("log")
	}
	if e.TS == "" {
		e.TS = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	}
	_ = l.file.Append(e)
	if l.mirror != nil {
		l.mu.Lock()
		fmt.Fprintf(l.mirror, "%s %-5s %s: %s%s\n", e.TS[11:23], e.Level, e.Source, e.Message, renderData(e.Data))
		l.mu.Unlock()
	}
	l.subMu.RLock()
	for _, fn := range l.subs {
		fn(e)
	}
	l.subMu.RUnlock()
}

// Logf records a message at level from source with key/value pairs.
func (l *Logger) Logf(level protocol.LogLevel, source, format string, args ...any) {
	l.Write(Entry{Level: level, Source: source, Message: fmt.Sprintf(format, args...)})
}

// With returns a logging function bound to source, in the shape the socket
// server takes (message then key/value pairs).
func (l *Logger) With(source string) func(level protocol.LogLevel, msg string, kv ...any) {
	return func(level protocol.LogLevel, msg string, kv ...any) {
		if l == nil || (level == protocol.LevelDebug && !l.Debug()) {
			return // dropped anyway: do not build the entry
		}
		var data map[string]any
		for i := 0; i+1 < len(kv); i += 2 {
			if data == nil {
				data = map[string]any{}
			}
			data[fmt.Sprint(kv[i])] = kv[i+1]
		}
		l.Write(Entry{Level: level, Source: source, Message: msg, Data: data})
	}
}

// Query returns the newest entries matching f, oldest first.
func (l *Logger) Query(f Filter) ([]Entry, error) {
	if l == nil {
		return nil, nil
	}
	if f.Limit <= 0 {
		f.Limit = 200
	}
	min := levelRank(f.Level)
	search := strings.ToLower(f.Search)
	var out []Entry
	// Read from the newest line back, only as far as the limit needs.
	err := l.file.ScanBackward(func(line []byte) bool {
		var e Entry
		if json.Unmarshal(line, &e) != nil {
			return true
		}
		if levelRank(e.Level) < min ||
			(f.Source != "" && e.Source != f.Source) ||
			(f.Caller != "" && e.Caller != f.Caller) ||
			(f.SessionID != "" && e.SessionID != f.SessionID) ||
			(f.ToolName != "" && e.ToolName != f.ToolName) ||
			(search != "" && !strings.Contains(strings.ToLower(e.Message+" "+e.Source), search)) {
			return true
		}
		out = append(out, e)
		return len(out) < f.Limit
	})
	if err != nil {
		return nil, fmt.Errorf("read logs: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Close closes the log file.
func (l *Logger) Close() error {
	if l == nil {
		return nil
	}
	return l.file.Close()
}

func levelRank(l protocol.LogLevel) int {
	switch l {
	case protocol.LevelInfo:
		return 1
	case protocol.LevelWarn:
		return 2
	case protocol.LevelError:
		return 3
	}
	return 0
}

func renderData(d map[string]any) string {
	if len(d) == 0 {
		return ""
	}
	b, err := json.Marshal(d)
	if err != nil {
		return ""
	}
	return " " + string(b)
}
