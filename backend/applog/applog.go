// Package applog is the runtime's structured log: entries appended to
// <userData>/logs.jsonl (bounded), mirrored to an optional writer, and read
// back with filters by the app_get_logs tool.
//
// Every entry goes through the value scanner of backend/redact on its way
// in ([Logger.Write], which [Logger.Logf] and [Logger.With] use): its
// message, tool name and every string in its data, so that no secret
// reaches logs.jsonl, the mirror or a subscriber. Entries read back
// ([Logger.Query]) are scanned again, since a file written by an older meith
// may hold secrets. Data values are written readably: an error as its
// Error() text, a time.Duration as "1.5s", a fmt.Stringer that would
// marshal as {} as its String() text; other values as JSON.
package applog

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/meith-dev/meith/backend/internal/jsonl"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
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

// Write records e, filling ID, TS and a default level, with its message,
// tool name and data redacted (see the package doc). e.Data is not changed:
// the entry gets a map of its own. Failures to write are not reported:
// logging must never break a call.
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
	e.Message = redact.String(e.Message)
	e.ToolName = redact.String(e.ToolName)
	e.Data = dataValues(e.Data)
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
		redactRead(&e)
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

// Clear removes every entry (Settings → Storage, "Clear logs") and returns
// the bytes and files it removed (logs.jsonl: one file, when it held
// anything).
func (l *Logger) Clear() (deletedBytes int64, deletedFiles int, err error) {
	if l == nil {
		return 0, 0, nil
	}
	if fi, err := os.Stat(l.file.Path()); err == nil && fi.Size() > 0 {
		deletedBytes, deletedFiles = fi.Size(), 1
	}
	if err := l.file.Clear(); err != nil {
		return 0, 0, fmt.Errorf("clear logs: %w", err)
	}
	return deletedBytes, deletedFiles, nil
}

// Close closes the log file.
func (l *Logger) Close() error {
	if l == nil {
		return nil
	}
	return l.file.Close()
}

// redactRead redacts an entry read back from the file, which an older
// meith may have written without redaction: its message, tool name and
// data (decoded from JSON, so [redact.Value] covers it).
func redactRead(e *Entry) {
	e.Message = redact.String(e.Message)
	e.ToolName = redact.String(e.ToolName)
	if len(e.Data) > 0 {
		e.Data = redact.Value(e.Data).(map[string]any)
	}
}

// dataValues returns the data of an entry as it is written: each value
// made readable and redacted ([dataValue]), under a key that looks secret
// ([redact.IsSecretKey]) [redact.Marker] whatever the value. It returns a
// new map (nil for none).
func dataValues(d map[string]any) map[string]any {
	if len(d) == 0 {
		return nil
	}
	out := make(map[string]any, len(d))
	for k, v := range d {
		if redact.IsSecretKey(k) {
			out[k] = redact.Marker
		} else {
			out[k] = dataValue(v)
		}
	}
	return out
}

// dataValue is a data value as it is written, redacted:
//
//   - strings, numbers, booleans and nil as they are (strings redacted);
//   - an error as its Error() text (errors.New has no exported field and
//     would marshal as {}; an *os.PathError as a struct with an errno);
//   - a time.Duration as its String() text ("1.5s", not nanoseconds);
//   - a fmt.Stringer as its String() text when its JSON would lose it: a
//     struct without exported fields, or a value encoding/json refuses;
//   - anything else as its JSON, decoded and redacted ([redact.Value]);
//     a value that cannot be marshalled as its fmt %v text.
func dataValue(v any) any {
	switch x := v.(type) {
	case nil, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64, json.Number:
		return v
	case string:
		return redact.String(x)
	case []string:
		return redact.Args(x)
	case time.Duration:
		return x.String()
	case error:
		if isNilPointer(v) {
			return nil
		}
		return redact.String(x.Error())
	case json.Marshaler, encoding.TextMarshaler:
		return jsonValue(v)
	case fmt.Stringer:
		if isNilPointer(v) {
			return nil
		}
		if marshalsPoorly(v) {
			return redact.String(x.String())
		}
	}
	return jsonValue(v)
}

// jsonValue is v marshalled, decoded and redacted, or its %v text (redacted)
// when it cannot be marshalled.
func jsonValue(v any) any {
	b, err := json.Marshal(v)
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber() // numbers keep their text
		var out any
		if dec.Decode(&out) == nil {
			return redact.Value(out)
		}
	}
	return redact.String(fmt.Sprintf("%v", v))
}

// isNilPointer reports whether v is a nil pointer (whose methods may
// panic).
func isNilPointer(v any) bool {
	rv := reflect.ValueOf(v)
	return rv.Kind() == reflect.Pointer && rv.IsNil()
}

// marshalsPoorly reports whether encoding/json would lose v: a struct (or a
// pointer to one) without exported fields marshals as {}, and channels,
// functions and complex numbers do not marshal at all.
func marshalsPoorly(v any) bool {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				return false
			}
		}
		return true
	case reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return true
	}
	return false
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
