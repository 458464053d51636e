package protocol

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// FrameError is a non-fatal decoding failure of one frame: the frame is
// skipped and the connection keeps working. Code is always PROTOCOL_ERROR and
// Message is what the server sends back in an [ErrorFrame].
type FrameError struct {
	RequestID string // echoed when the frame carried one (version errors, oversized frames)
	Message   string
	// Oversize is set when the frame exceeded the reader's limit and was
	// discarded; Type and RequestID then come from the frame's first bytes
	// when they could be read there ("" otherwise).
	Oversize bool
	Type     FrameType
}

// Error implements error.
func (e *FrameError) Error() string { return e.Message }

// IsFrameError reports whether err is a non-fatal *[FrameError].
func IsFrameError(err error) bool {
	var fe *FrameError
	return errors.As(err, &fe)
}

// Frame returns the error frame that reports e to the peer.
func (e *FrameError) Frame() *ErrorFrame { return NewError(e.RequestID, e.Message) }

// Encode marshals msg as one NDJSON line (with the trailing newline). It
// stamps protocol: 1 on msg unless it already carries a protocol value, so a
// frame must not be encoded from two goroutines at once. HTML characters are
// not escaped ("<" stays "<").
func Encode(msg Message) ([]byte, error) {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	if err := encodeTo(buf, msg); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// encodeBuffers recycles the buffers frames are encoded into.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 64*1024 { // do not keep the buffer of a huge frame
		encodeBuffers.Put(b)
	}
}

func encodeTo(buf *bytes.Buffer, msg Message) error {
	buf.Reset()
	if msg.version() == nil {
		msg.setVersion(ProtocolVersion)
	}
	if ok, err := appendFrame(buf, msg); ok || err != nil {
		if err != nil {
			return fmt.Errorf("encode %s frame: %w", msg.FrameType(), err)
		}
		return nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil { // Encode ends the line
		return fmt.Errorf("encode %s frame: %w", msg.FrameType(), err)
	}
	return nil
}

// FrameTooLargeError reports a frame that [Writer.Write] refused to send
// because it is longer than the peer may read (see [MaxFrameBytes]); nothing
// was written and the stream is intact.
type FrameTooLargeError struct {
	Type FrameType
	Size int // the encoded frame's length, newline excluded
	Max  int
}

// Error implements error.
func (e *FrameTooLargeError) Error() string {
	return fmt.Sprintf("%s frame of %d bytes exceeds MAX_FRAME_BYTES (%d bytes); not sent", e.Type, e.Size, e.Max)
}

// IsFrameTooLarge reports whether err is a *[FrameTooLargeError].
func IsFrameTooLarge(err error) bool {
	var fe *FrameTooLargeError
	return errors.As(err, &fe)
}

// Writer writes frames to an io.Writer, one Write call per frame; it is safe
// for concurrent use. It never sends a frame longer than its limit
// ([MaxFrameBytes] unless made with [NewWriterSize]): such a frame is
// refused with a *[FrameTooLargeError], since the peer would discard it.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	max int
}

// NewWriter returns a Writer on w with the [MaxFrameBytes] limit.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w, max: MaxFrameBytes} }

// NewWriterSize returns a Writer with a custom frame limit (for tests).
func NewWriterSize(w io.Writer, maxFrame int) *Writer { return &Writer{w: w, max: maxFrame} }

// Write encodes and writes one frame. A frame over the limit is not
// written: the error is a *[FrameTooLargeError].
func (w *Writer) Write(msg Message) error {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	if err := encodeTo(buf, msg); err != nil {
		return err
	}
	if n := buf.Len() - 1; n > w.max { // the newline is not part of the frame
		return &FrameTooLargeError{Type: msg.FrameType(), Size: n, Max: w.max}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.w.Write(buf.Bytes())
	return err
}

// Reader reads NDJSON frames from a stream. It never panics on its input:
// several frames in one read, a frame split across reads and blank lines are
// all handled; a bad frame gives a *[FrameError] and reading goes on.
type Reader struct {
	br      *bufio.Reader
	max     int
	line    []byte
	discard bool // inside an oversized frame: drop bytes up to the next newline
}

// NewReader returns a Reader on r with the [MaxFrameBytes] limit.
func NewReader(r io.Reader) *Reader { return NewReaderSize(r, MaxFrameBytes) }

// NewReaderSize returns a Reader with a custom frame limit (for tests).
func NewReaderSize(r io.Reader, maxFrame int) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64*1024), max: maxFrame}
}

// Next returns the next frame. A *[FrameError] reports one bad frame and is
// not fatal; any other error (io.EOF included) ends the stream.
func (r *Reader) Next() (Message, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return Decode(line)
	}
}

// readLine returns the next line without its newline, or a *FrameError for
// an oversized frame (whose remaining bytes are then skipped).
func (r *Reader) readLine() ([]byte, error) {
	if cap(r.line) > 64*1024 {
		r.line = nil // do not hold a big frame's buffer for the connection's life
	}
	r.line = r.line[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if r.discard {
			switch {
			case err == nil: // the end of the oversized frame
				r.discard = false
			case errors.Is(err, bufio.ErrBufferFull):
			default:
				return nil, err
			}
			continue
		}
		n := len(r.line) + len(chunk)
		if err == nil {
			n-- // the newline is not part of the frame
		}
		if n > r.max {
			// Over the limit: report once, then drop the rest of this frame.
			fe := &FrameError{Oversize: true, Message: fmt.Sprintf(
				"Frame exceeds MAX_FRAME_BYTES (%d bytes) without newline; frame discarded", r.max)}
			fe.Type, fe.RequestID = frameIdentity(r.line, chunk)
			r.line = r.line[:0]
			r.discard = errors.Is(err, bufio.ErrBufferFull)
			return nil, fe
		}
		r.line = append(r.line, chunk...)
		switch {
		case err == nil:
			return r.line[:len(r.line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(r.line)) > 0:
			// A last frame without its newline is still a frame.
			line := r.line
			r.line = nil
			return line, nil
		default:
			return nil, err
		}
	}
}

// identityPrefix is how many first bytes of a discarded frame are searched
// for its type and requestId (both come first in the frames this protocol's
// writers produce).
const identityPrefix = 1024

// frameIdentity reads the "type" and "requestId" string fields from the
// first bytes of a frame that is head followed by tail, without decoding it
// (it is too large to be decoded). Either is "" when not found there.
func frameIdentity(head, tail []byte) (FrameType, string) {
	prefix := head
	if len(prefix) > identityPrefix {
		prefix = prefix[:identityPrefix]
	}
	if len(prefix) < identityPrefix {
		rest := tail[:min(len(tail), identityPrefix-len(prefix))]
		prefix = append(append(make([]byte, 0, len(prefix)+len(rest)), prefix...), rest...)
	}
	return FrameType(stringField(prefix, "type")), stringField(prefix, "requestId")
}

// stringField finds "key":"value" (JSON whitespace allowed around the colon)
// in b and returns value when it is a plain string without escapes.
func stringField(b []byte, key string) string {
	pat := []byte(`"` + key + `"`)
	for {
		i := bytes.Index(b, pat)
		if i < 0 {
			return ""
		}
		b = b[i+len(pat):]
		rest := bytes.TrimLeft(b, " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		if len(rest) == 0 || rest[0] != '"' {
			continue
		}
		rest = rest[1:]
		end := bytes.IndexAny(rest, `"\`)
		if end < 0 || rest[end] != '"' {
			return ""
		}
		return string(rest[:end])
	}
}

// envelope is the first, loose decoding pass of a frame.
type envelope struct {
	Type      *string         `json:"type"`
	Protocol  json.RawMessage `json:"protocol"`
	RequestID json.RawMessage `json:"requestId"`
}

// Decode parses one frame (without its newline). It returns a *[FrameError]
// for malformed JSON ("Malformed JSON frame ignored: …"), for a protocol other
// than [ProtocolVersion] ("Unsupported protocol version N; server requires 1",
// echoing the requestId) and for valid JSON of an unknown type or shape
// ("Invalid message: …").
func Decode(line []byte) (Message, error) {
	trimmed := bytes.TrimSpace(line)
	if m, ok := decodeClientFast(trimmed); ok {
		return m, nil
	}
	var env envelope
	if err := json.Unmarshal(trimmed, &env); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || !json.Valid(trimmed) {
			return nil, &FrameError{Message: "Malformed JSON frame ignored: " + err.Error()}
		}
		// Valid JSON of the wrong shape: not an object, or "type" not a string.
		if len(trimmed) == 0 || trimmed[0] != '{' {
			return nil, invalid("a frame must be a JSON object")
		}
		return nil, invalid(describeJSONError(err))
	}
	if trimmed[0] != '{' {
		return nil, invalid("a frame must be a JSON object")
	}
	var reqID string
	_ = json.Unmarshal(env.RequestID, &reqID)
	if len(env.Protocol) > 0 && string(env.Protocol) != "null" && string(env.Protocol) != "1" {
		var v json.Number
		if c := env.Protocol[0]; (c != '-' && (c < '0' || c > '9')) || json.Unmarshal(env.Protocol, &v) != nil {
			return nil, withID(invalid(`field "protocol" must be an integer`), reqID)
		}
		// 1.0 and 1e0 are the number 1, as a JavaScript peer would see them.
		if f, err := v.Float64(); err != nil || f != ProtocolVersion {
			return nil, &FrameError{RequestID: reqID,
				Message: fmt.Sprintf("Unsupported protocol version %s; server requires %d", v.String(), ProtocolVersion)}
		}
	}
	if env.Type == nil {
		return nil, invalid(`missing field "type"`)
	}
	var msg Message
	switch FrameType(*env.Type) {
	case TypeListTools:
		msg = &ListTools{}
	case TypeToolCall:
		m, err := decodeToolCall(trimmed)
		if err != nil {
			return nil, withID(err, reqID)
		}
		return m, nil
	case TypeCancelToolCall:
		msg = &CancelToolCall{}
	case TypeToolsList:
		msg = &ToolsList{}
	case TypeToolEvent:
		msg = &ToolEvent{}
	case TypeToolResult:
		msg = &ToolResultFrame{}
	case TypeError:
		msg = &ErrorFrame{}
	default:
		return nil, invalid(fmt.Sprintf("unknown message type %q", *env.Type))
	}
	if err := json.Unmarshal(trimmed, msg); err != nil {
		return nil, withID(invalid(describeJSONError(err)), cancelID(msg, reqID))
	}
	if err := check(msg, trimmed); err != nil {
		return nil, withID(invalid(err.Error()), cancelID(msg, reqID))
	}
	return msg, nil
}

// withID attaches the frame's requestId to a frame error, so that a client
// whose tool_call was refused learns which call failed instead of waiting.
func withID(err error, requestID string) error {
	var fe *FrameError
	if errors.As(err, &fe) && fe.RequestID == "" {
		fe.RequestID = requestID
	}
	return err
}

// cancelID keeps the requestId of a refused cancel_tool_call only; other
// client frames carry none and server frames are answered without one.
func cancelID(msg Message, requestID string) string {
	if _, ok := msg.(*CancelToolCall); ok {
		return requestID
	}
	return ""
}

// wireClient is every field of the client frames, decoded in one pass.
type wireClient struct {
	Type       string          `json:"type"`
	Protocol   *Version        `json:"protocol"`
	RequestID  string          `json:"requestId"`
	ToolName   string          `json:"toolName"`
	Arguments  json.RawMessage `json:"arguments"`
	ClientInfo *ClientInfo     `json:"clientInfo"`
	TimeoutMs  *int64          `json:"timeoutMs"`
}

// decodeClientFast is the socket's hot path: a well-formed client frame
// (tool_call, cancel_tool_call, list_tools) of protocol 1 is decoded with a
// single json.Unmarshal. Anything else — server frames, other versions, any
// error — reports ok false and goes through the careful path in Decode,
// which gives the precise error.
func decodeClientFast(raw []byte) (Message, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	w, ok := scanClient(raw)
	if !ok {
		w = wireClient{}
		if json.Unmarshal(raw, &w) != nil || (w.Protocol != nil && *w.Protocol != ProtocolVersion) {
			return nil, false
		}
	}
	var m Message
	switch FrameType(w.Type) {
	case TypeToolCall:
		tc, err := w.toolCall(raw)
		if err != nil {
			return nil, false
		}
		return tc, true
	case TypeCancelToolCall:
		m = &CancelToolCall{Header: Header{Type: TypeCancelToolCall, Protocol: w.Protocol}, RequestID: w.RequestID}
	case TypeListTools:
		m = &ListTools{Header: Header{Type: TypeListTools, Protocol: w.Protocol}, ClientInfo: w.ClientInfo}
	default:
		return nil, false
	}
	if check(m, raw) != nil {
		return nil, false
	}
	return m, true
}

// toolCall builds and checks the tool_call that w holds.
func (w *wireClient) toolCall(raw []byte) (*ToolCall, error) {
	tc := &ToolCall{Header: Header{Type: TypeToolCall, Protocol: w.Protocol}, RequestID: w.RequestID,
		ToolName: w.ToolName, Arguments: w.Arguments}
	if w.ClientInfo != nil {
		tc.ClientInfo = *w.ClientInfo
	}
	if w.TimeoutMs != nil {
		if *w.TimeoutMs <= 0 {
			return nil, errors.New(`field "timeoutMs" must be a positive integer`)
		}
		tc.TimeoutMs = *w.TimeoutMs
	}
	if err := check(tc, raw); err != nil {
		return nil, err
	}
	return tc, nil
}

// decodeToolCall decodes a tool_call that the fast path refused, for the
// precise reason.
func decodeToolCall(raw []byte) (*ToolCall, error) {
	var w wireClient
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, invalid(describeJSONError(err))
	}
	tc, err := w.toolCall(raw)
	if err != nil {
		return nil, invalid(err.Error())
	}
	return tc, nil
}

func invalid(reason string) *FrameError { return &FrameError{Message: "Invalid message: " + reason} }

func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		// encoding/json appends the literal of a number that does not fit
		// ("number 99999999999999999999"); say what is wrong without it.
		kind, literal, _ := strings.Cut(te.Value, " ")
		field := te.Field
		switch {
		case field == "" && literal != "":
			return fmt.Sprintf("expected %s, got a %s out of range or not an integer", te.Type, kind)
		case field == "":
			return fmt.Sprintf("expected %s, got %s", te.Type, kind)
		case literal != "":
			return fmt.Sprintf("field %q is out of range or not an integer", field)
		}
		return fmt.Sprintf("field %q must be %s, got %s", field, jsonKind(te.Type.Kind().String()), kind)
	}
	return err.Error()
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "float64", "float32", "uint", "uint64":
		return "a number"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return goKind
}

// check applies the per-type rules and defaults the schema asks for.
func check(msg Message, raw []byte) error {
	switch m := msg.(type) {
	case *ListTools:
		if m.ClientInfo != nil {
			return checkClientInfo(m.ClientInfo)
		}
	case *ToolCall:
		if m.RequestID == "" {
			return errors.New(`field "requestId" must be a non-empty string`)
		}
		if m.ToolName == "" {
			return errors.New(`field "toolName" must be a non-empty string`)
		}
		args := bytes.TrimSpace(m.Arguments)
		switch {
		case len(args) == 0:
			m.Arguments = json.RawMessage(`{}`)
		case args[0] != '{':
			return errors.New(`field "arguments" must be an object`)
		}
		if err := checkClientInfo(&m.ClientInfo); err != nil {
			return err
		}
		if m.TimeoutMs < 0 {
			return errors.New(`field "timeoutMs" must be a positive integer`)
		}
	case *CancelToolCall:
		if m.RequestID == "" {
			return errors.New(`field "requestId" must be a non-empty string`)
		}
	case *ToolsList:
		if m.Tools == nil {
			return errors.New(`field "tools" must be an array`)
		}
	case *ToolEvent:
		if m.RequestID == "" {
			return errors.New(`field "requestId" must be a non-empty string`)
		}
		if m.Event.Kind == EventLog && m.Event.Level == "" {
			m.Event.Level = LevelInfo
		}
		return m.Event.Validate()
	case *ToolResultFrame:
		if m.RequestID == "" {
			return errors.New(`field "requestId" must be a non-empty string`)
		}
		if !hasNestedField(raw, "result", "ok") {
			return errors.New(`field "result.ok" is required`)
		}
		if m.Result.Error != nil && !m.Result.Error.Code.Valid() {
			return fmt.Errorf("unknown error code %q", m.Result.Error.Code)
		}
	case *ErrorFrame:
		if m.Code == "" {
			m.Code = CodeProtocol
		}
		if !m.Code.Valid() {
			return fmt.Errorf("unknown error code %q", m.Code)
		}
	}
	return nil
}

func checkClientInfo(ci *ClientInfo) error {
	if ci.Caller == "" {
		ci.Caller = CallerCLI
	}
	if !ci.Caller.Valid() {
		return fmt.Errorf("clientInfo.caller %q is not one of %s", ci.Caller, joinCallers())
	}
	return nil
}

func joinCallers() string {
	s := make([]string, len(Callers))
	for i, c := range Callers {
		s[i] = string(c)
	}
	return strings.Join(s, "|")
}

func hasField(raw []byte, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

func hasNestedField(raw []byte, outer, inner string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return false
	}
	return hasField(m[outer], inner)
}
