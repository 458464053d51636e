package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
)

// Exit codes of [Main].
const (
	exitOK          = 0
	exitFailure     = 1
	exitInterrupted = 130 // 128 + SIGINT, as shells report Ctrl+C
)

// printer renders events and results (reference §5.5). It is safe for
// concurrent use: events may arrive on the client's reader goroutine.
type printer struct {
	mu      sync.Mutex
	out     io.Writer
	err     io.Writer
	json    bool // print envelopes, no event chatter
	quiet   bool // no progress, diagnostics or "ok"
	verbose bool // show log events
	// openLine is set while streamed partial text has not ended its line.
	openLine bool
}

// stdout writes a line to stdout (after closing any open partial line).
func (p *printer) stdout(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeLine()
	fmt.Fprintf(p.out, format+"\n", args...)
}

// raw writes text to stdout as it is.
func (p *printer) raw(text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeLine()
	io.WriteString(p.out, text)
}

// stderr writes a line to stderr. It never writes to stdout, not even to
// end a partial line: stdout may be a file that must get the text raw.
func (p *printer) stderr(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.err, format+"\n", args...)
}

func (p *printer) closeLine() {
	if p.openLine {
		io.WriteString(p.out, "\n")
		p.openLine = false
	}
}

// event renders one streamed event in text mode: progress on stderr as
// "… message NN%", partial text raw on stdout, log events on stderr as
// "  [level] message" with --verbose, artifacts on stderr. Nothing is shown
// with --json or --quiet (only the result is printed).
func (p *printer) event(ev protocol.Event) {
	if p.json || p.quiet {
		return
	}
	switch ev.Kind {
	case protocol.EventPartialText:
		if ev.Text == "" {
			return
		}
		p.mu.Lock()
		io.WriteString(p.out, ev.Text)
		p.openLine = !strings.HasSuffix(ev.Text, "\n")
		p.mu.Unlock()
	case protocol.EventProgress:
		p.stderr("%s", progressLine(ev))
	case protocol.EventLog:
		if !p.verbose {
			return
		}
		level := ev.Level
		if level == "" {
			level = protocol.LevelInfo
		}
		p.stderr("  [%s] %s", level, ev.Message)
	case protocol.EventArtifact:
		name := ev.Name
		if name == "" {
			name = ev.MimeType
		}
		if ev.Path != "" {
			p.stderr("… artifact %s: %s", name, ev.Path)
		} else {
			p.stderr("… artifact %s (%d bytes, base64)", name, len(ev.DataBase64))
		}
	}
}

// progressLine formats a progress event: "… message NN%", or "… message"
// when the fraction is absent; a missing message reads "working".
func progressLine(ev protocol.Event) string {
	msg := ev.Message
	if msg == "" {
		msg = "working"
	}
	if ev.Fraction == nil {
		return "… " + msg
	}
	return fmt.Sprintf("… %s %d%%", msg, int(math.Round(*ev.Fraction*100)))
}

// renderer turns successful content into text; ok false means "use the
// default rendering". The text is printed followed by a newline, unless it
// ends with one (a file's content is printed as it is).
type renderer func(content json.RawMessage) (text string, ok bool)

// renderPath prints only content.path (screenshots, bug reports).
func renderPath(content json.RawMessage) (string, bool) {
	var c struct {
		Path string `json:"path"`
	}
	if json.Unmarshal(content, &c) != nil || c.Path == "" {
		return "", false
	}
	return c.Path, true
}

// renderLogEntries prints app log entries one per line:
// "2006-01-02 15:04:05.000 level source: message" (local time).
func renderLogEntries(content json.RawMessage) (string, bool) {
	var entries []struct {
		TS       string `json:"ts"`
		Level    string `json:"level"`
		Source   string `json:"source"`
		Message  string `json:"message"`
		ToolName string `json:"toolName"`
	}
	if json.Unmarshal(content, &entries) != nil {
		return "", false
	}
	if len(entries) == 0 {
		return "No log entries.", true
	}
	var b strings.Builder
	for i, e := range entries {
		ts, err := time.Parse(time.RFC3339Nano, e.TS)
		if err != nil || e.Message == "" {
			return "", false
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s %-5s %s: %s", ts.Local().Format("2006-01-02 15:04:05.000"), e.Level, e.Source, e.Message)
	}
	return b.String(), true
}

// result renders a final result and returns the exit code: in --json mode
// the envelope (exit 1 when ok is false); otherwise diagnostics on stderr,
// then the content on stdout (strings raw, other JSON pretty, null as "ok";
// or as render has it) or the error on stderr as "error (CODE): message"
// plus pretty details.
func (p *printer) result(r protocol.ToolResult, render renderer) int {
	if p.json {
		p.jsonValue(r)
		if !r.OK {
			return exitFailure
		}
		return exitOK
	}
	p.diagnostics(r.Diagnostics)
	if !r.OK {
		p.toolError(r.Error)
		return exitFailure
	}
	if render != nil {
		if text, ok := render(r.Content); ok {
			if strings.HasSuffix(text, "\n") {
				p.raw(text)
			} else {
				p.stdout("%s", text)
			}
			return exitOK
		}
	}
	p.content(r.Content)
	return exitOK
}

// diagnostics prints a result's diagnostics on stderr (not with --quiet).
func (p *printer) diagnostics(ds []protocol.Diagnostic) {
	if p.quiet {
		return
	}
	for _, d := range ds {
		p.stderr("  [%s] %s", d.Level, d.Message)
	}
}

// toolError prints a tool failure to stderr.
func (p *printer) toolError(e *protocol.ErrorInfo) {
	if e == nil {
		e = &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Message: "failed"}
	}
	code := e.Code
	if code == "" {
		code = protocol.CodeToolFailed
	}
	p.stderr("error (%s): %s", code, e.Message)
	if e.Details != nil && !onlySuggestion(e.Details) {
		if b, err := marshalPretty(e.Details); err == nil && string(b) != "null" {
			p.stderr("%s", b)
		}
	}
}

// content prints a successful content value.
func (p *printer) content(raw json.RawMessage) {
	c := bytes.TrimSpace(raw)
	if len(c) == 0 || string(c) == "null" {
		if !p.quiet {
			p.stdout("ok")
		}
		return
	}
	if c[0] == '"' {
		var s string
		if json.Unmarshal(c, &s) == nil {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.closeLine()
			io.WriteString(p.out, s)
			if !strings.HasSuffix(s, "\n") {
				io.WriteString(p.out, "\n")
			}
			return
		}
	}
	p.stdout("%s", prettyJSON(c))
}

// jsonValue prints v as pretty JSON on stdout. json.RawMessage parts keep
// their key order.
func (p *printer) jsonValue(v any) {
	b, err := marshalPretty(v)
	if err != nil {
		p.stderr("error: cannot encode output: %v", err)
		return
	}
	p.stdout("%s", b)
}

// marshalPretty is json.MarshalIndent with two spaces and without HTML
// escaping ("<" stays "<", not "\u003c").
func marshalPretty(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return unescapeHTML(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// unescapeHTML undoes json.Marshal's HTML escaping in JSON text: the
// escapes \u003c, \u003e and \u0026 inside strings become "<", ">" and "&"
// again (the runtime's results keep json.Marshal's escapes; the same JSON
// value reads better without them). Every other byte, escaped backslashes
// included, stays as it is.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(b):
			if i+5 < len(b) && b[i+1] == 'u' {
				switch strings.ToLower(string(b[i+2 : i+6])) {
				case "003c":
					out = append(out, '<')
					i += 5
					continue
				case "003e":
					out = append(out, '>')
					i += 5
					continue
				case "0026":
					out = append(out, '&')
					i += 5
					continue
				}
			}
			out = append(out, c, b[i+1]) // an escape pair, kept
			i++
			continue
		}
		out = append(out, c)
	}
	return out
}

// prettyJSON indents raw JSON with two spaces, keeping key order; invalid
// JSON is returned as is.
func prettyJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return string(unescapeHTML(buf.Bytes()))
}

// fail prints a transport or other runtime failure: "error: message" and,
// when known, "socket: path", on stderr. It returns exitFailure.
func (p *printer) fail(socket string, err error) int {
	p.stderr("error: %s", err)
	if socket != "" {
		p.stderr("socket: %s", socket)
	}
	return exitFailure
}

// usage prints a usage error ("error: message") on stderr and returns
// exitFailure.
func (p *printer) usage(format string, args ...any) int {
	p.stderr("error: "+format, args...)
	return exitFailure
}

// onlySuggestion reports details that hold just the runtime's "did you
// mean" suggestion, which the CLI prints as a sentence instead.
func onlySuggestion(details any) bool {
	d, ok := details.(map[string]any)
	_, has := d["suggestion"]
	return ok && has && len(d) == 1
}
