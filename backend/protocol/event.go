package protocol

import "fmt"

// EventKind discriminates a streamed [Event].
type EventKind string

// The event kinds of the spec.
const (
	EventProgress    EventKind = "progress"
	EventLog         EventKind = "log"
	EventPartialText EventKind = "partial_text"
	EventArtifact    EventKind = "artifact"
)

// LogLevel is the level of a log event or log entry.
type LogLevel string

// The log levels.
const (
	LevelDebug LogLevel = "debug"
	LevelInfo  LogLevel = "info"
	LevelWarn  LogLevel = "warn"
	LevelError LogLevel = "error"
)

// Valid reports whether l is one of the four levels.
func (l LogLevel) Valid() bool {
	switch l {
	case LevelDebug, LevelInfo, LevelWarn, LevelError:
		return true
	}
	return false
}

// Event is one streamed event of a call. Which fields are set depends on Kind:
//
//   - progress: Message (optional), Fraction (optional, 0..1)
//   - log: Level (default info), Message
//   - partial_text: Text
//   - artifact: MimeType, and optionally Name, DataBase64, Path
type Event struct {
	Kind       EventKind `json:"kind"`
	Message    string    `json:"message,omitempty"`
	Fraction   *float64  `json:"fraction,omitempty"`
	Level      LogLevel  `json:"level,omitempty"`
	Text       string    `json:"text,omitempty"`
	MimeType   string    `json:"mimeType,omitempty"`
	Name       string    `json:"name,omitempty"`
	DataBase64 string    `json:"dataBase64,omitempty"`
	Path       string    `json:"path,omitempty"`
}

// Progress returns a progress event. A negative fraction means "unknown" and
// is left out of the frame; others are clamped to 0..1.
func Progress(message string, fraction float64) Event {
	ev := Event{Kind: EventProgress, Message: message}
	if fraction >= 0 {
		f := min(fraction, 1)
		ev.Fraction = &f
	}
	return ev
}

// Log returns a log event.
func Log(level LogLevel, message string) Event {
	return Event{Kind: EventLog, Level: level, Message: message}
}

// PartialText returns a partial_text event.
func PartialText(text string) Event { return Event{Kind: EventPartialText, Text: text} }

// Validate checks the event against the rules of its kind.
func (e Event) Validate() error {
	switch e.Kind {
	case EventProgress:
		if e.Fraction != nil && (*e.Fraction < 0 || *e.Fraction > 1) {
			return fmt.Errorf("progress fraction %v is outside 0..1", *e.Fraction)
		}
	case EventLog:
		if e.Level != "" && !e.Level.Valid() {
			return fmt.Errorf("log level %q is not one of debug|info|warn|error", e.Level)
		}
	case EventPartialText:
	case EventArtifact:
		if e.MimeType == "" {
			return fmt.Errorf("artifact event needs a mimeType")
		}
	default:
		return fmt.Errorf("unknown event kind %q", e.Kind)
	}
	return nil
}
