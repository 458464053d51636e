package protocol_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/meith-dev/meith/backend/protocol"
)

// readAll drains r, returning the frames and the frame errors in order.
func readAll(t *testing.T, r *protocol.Reader) (frames []protocol.Message, ferrs []*protocol.FrameError) {
	t.Helper()
	for i := 0; i < 10_000; i++ {
		msg, err := r.Next()
		if err != nil {
			var fe *protocol.FrameError
			if errors.As(err, &fe) {
				ferrs = append(ferrs, fe)
				continue
			}
			if !errors.Is(err, io.EOF) {
				t.Fatalf("Next() = %v, want io.EOF at the end", err)
			}
			return frames, ferrs
		}
		frames = append(frames, msg)
	}
	t.Fatal("reader did not reach EOF")
	return nil, nil
}

func mustDecode(t *testing.T, line string) protocol.Message {
	t.Helper()
	msg, err := protocol.Decode([]byte(line))
	if err != nil {
		t.Fatalf("Decode(%s) = %v", line, err)
	}
	return msg
}

func decodeErr(t *testing.T, line string) *protocol.FrameError {
	t.Helper()
	msg, err := protocol.Decode([]byte(line))
	if err == nil {
		t.Fatalf("Decode(%s) = %#v, want a FrameError", line, msg)
	}
	var fe *protocol.FrameError
	if !errors.As(err, &fe) {
		t.Fatalf("Decode(%s) error = %T %v, want *FrameError", line, err, err)
	}
	if !protocol.IsFrameError(err) {
		t.Errorf("IsFrameError(%v) = false", err)
	}
	if f := fe.Frame(); f.Code != protocol.CodeProtocol || f.Message != fe.Message || f.RequestID != fe.RequestID {
		t.Errorf("Frame() = %+v, want PROTOCOL_ERROR with the error's message and requestId", f)
	}
	return fe
}

func TestEncodeStampsProtocolAndNewline(t *testing.T) {
	b, err := protocol.Encode(protocol.NewListTools(&protocol.ClientInfo{Caller: protocol.CallerCLI}))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(b, []byte("\n")) || bytes.Count(b, []byte("\n")) != 1 {
		t.Fatalf("Encode = %q, want exactly one trailing newline", b)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["protocol"] != float64(1) || m["type"] != "list_tools" {
		t.Errorf("Encode = %s, want type list_tools and protocol 1", b)
	}
}

func TestEncodeKeepsExplicitProtocol(t *testing.T) {
	v := protocol.Version(99)
	f := protocol.NewCancel("req_1")
	f.Protocol = &v
	b, err := protocol.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"protocol":99`) {
		t.Errorf("Encode = %s, want protocol 99 kept", b)
	}
}

func TestWriterOneWritePerFrame(t *testing.T) {
	var cw countingWriter
	w := protocol.NewWriter(&cw)
	for i := 0; i < 3; i++ {
		if err := w.Write(protocol.NewCancel("req_x")); err != nil {
			t.Fatal(err)
		}
	}
	if cw.calls != 3 || bytes.Count(cw.buf.Bytes(), []byte("\n")) != 3 {
		t.Errorf("writes = %d, lines = %q; want 3 writes of one line each", cw.calls, cw.buf.String())
	}
}

type countingWriter struct {
	buf   bytes.Buffer
	calls int
}

func (c *countingWriter) Write(p []byte) (int, error) { c.calls++; return c.buf.Write(p) }

func TestReaderSeveralFramesInOneRead(t *testing.T) {
	in := `{"type":"list_tools"}` + "\n" + `{"type":"cancel_tool_call","requestId":"a"}` + "\n" +
		`{"type":"cancel_tool_call","requestId":"b"}` + "\n"
	frames, ferrs := readAll(t, protocol.NewReader(strings.NewReader(in)))
	if len(frames) != 3 || len(ferrs) != 0 {
		t.Fatalf("got %d frames, %d errors; want 3, 0", len(frames), len(ferrs))
	}
	if c, ok := frames[2].(*protocol.CancelToolCall); !ok || c.RequestID != "b" {
		t.Errorf("frame 3 = %#v, want cancel b", frames[2])
	}
}

func TestReaderPartialFrameBufferedAcrossReads(t *testing.T) {
	in := `{"type":"tool_call","requestId":"r1","toolName":"echo","arguments":{"text":"héllo"}}` + "\n" +
		`{"type":"list_tools"}` + "\n"
	frames, ferrs := readAll(t, protocol.NewReader(iotest.OneByteReader(strings.NewReader(in))))
	if len(frames) != 2 || len(ferrs) != 0 {
		t.Fatalf("got %d frames, %d errors; want 2, 0", len(frames), len(ferrs))
	}
	call := frames[0].(*protocol.ToolCall)
	if string(call.Arguments) != `{"text":"héllo"}` {
		t.Errorf("arguments = %s", call.Arguments)
	}
}

func TestReaderPartialFrameOverPipe(t *testing.T) {
	pr, pw := io.Pipe()
	r := protocol.NewReader(pr)
	got := make(chan protocol.Message, 1)
	go func() {
		m, err := r.Next()
		if err != nil {
			t.Error(err)
		}
		got <- m
	}()
	_, _ = pw.Write([]byte(`{"type":"cancel_tool_call",`))
	select {
	case m := <-got:
		t.Fatalf("frame %#v returned before its newline", m)
	default:
	}
	_, _ = pw.Write([]byte(`"requestId":"r9"}` + "\n"))
	if c := (<-got).(*protocol.CancelToolCall); c.RequestID != "r9" {
		t.Errorf("requestId = %q", c.RequestID)
	}
	pw.Close()
}

func TestReaderLastFrameWithoutNewline(t *testing.T) {
	frames, _ := readAll(t, protocol.NewReader(strings.NewReader(`{"type":"list_tools"}`)))
	if len(frames) != 1 {
		t.Fatalf("got %d frames, want 1", len(frames))
	}
}

func TestReaderIgnoresBlankLines(t *testing.T) {
	in := "\n\n  \r\n" + `{"type":"list_tools"}` + "\n\t\n\n" + `{"type":"list_tools"}` + "\n\n"
	frames, ferrs := readAll(t, protocol.NewReader(strings.NewReader(in)))
	if len(frames) != 2 || len(ferrs) != 0 {
		t.Fatalf("got %d frames, %d errors; want 2, 0", len(frames), len(ferrs))
	}
}

func TestReaderMalformedFrameSkipped(t *testing.T) {
	in := `{"type":"list_tools"` + "\n" + `{"type":"cancel_tool_call","requestId":"ok"}` + "\n"
	frames, ferrs := readAll(t, protocol.NewReader(strings.NewReader(in)))
	if len(ferrs) != 1 || len(frames) != 1 {
		t.Fatalf("got %d frames, %d errors; want 1, 1", len(frames), len(ferrs))
	}
	if !strings.HasPrefix(ferrs[0].Message, "Malformed JSON frame ignored: ") || ferrs[0].RequestID != "" {
		t.Errorf("error = %+v", ferrs[0])
	}
	if c := frames[0].(*protocol.CancelToolCall); c.RequestID != "ok" {
		t.Errorf("frame = %#v", c)
	}
}

func TestToolCallDefaults(t *testing.T) {
	call := mustDecode(t, `{"type":"tool_call","requestId":"r1","toolName":"get_tabs"}`).(*protocol.ToolCall)
	if string(call.Arguments) != `{}` {
		t.Errorf("arguments = %s, want {}", call.Arguments)
	}
	if call.ClientInfo != (protocol.ClientInfo{Caller: protocol.CallerCLI}) {
		t.Errorf("clientInfo = %+v, want {caller:cli}", call.ClientInfo)
	}
	if call.TimeoutMs != 0 || call.Protocol != nil {
		t.Errorf("timeoutMs = %d, protocol = %v; want unset", call.TimeoutMs, call.Protocol)
	}
	call = mustDecode(t, `{"type":"tool_call","protocol":1,"requestId":"r1","toolName":"x","arguments":{"a":1},`+
		`"clientInfo":{"caller":"plugin","cwd":"/w","sessionId":"s","spaceId":"sp","tabId":"t"},"timeoutMs":5}`).(*protocol.ToolCall)
	want := protocol.ClientInfo{Caller: protocol.CallerPlugin, Cwd: "/w", SessionID: "s", SpaceID: "sp", TabID: "t"}
	if call.ClientInfo != want || call.TimeoutMs != 5 || string(call.Arguments) != `{"a":1}` {
		t.Errorf("call = %+v", call)
	}
	lt := mustDecode(t, `{"type":"list_tools","clientInfo":{}}`).(*protocol.ListTools)
	if lt.ClientInfo.Caller != protocol.CallerCLI {
		t.Errorf("list_tools caller = %q, want cli", lt.ClientInfo.Caller)
	}
}

func TestCancelAccepted(t *testing.T) {
	c := mustDecode(t, `{"type":"cancel_tool_call","protocol":1,"requestId":"req_ab12cd34"}`).(*protocol.CancelToolCall)
	if c.RequestID != "req_ab12cd34" {
		t.Errorf("requestId = %q", c.RequestID)
	}
}

func TestInvalidFramesRejected(t *testing.T) {
	tests := []struct{ name, line, want string }{
		{"unknown type", `{"type":"launch_missiles"}`, `Invalid message: unknown message type "launch_missiles"`},
		{"missing type", `{"protocol":1}`, `Invalid message: missing field "type"`},
		{"not an object", `[1,2]`, `Invalid message: a frame must be a JSON object`},
		{"scalar", `42`, `Invalid message: a frame must be a JSON object`},
		{"no requestId", `{"type":"tool_call","toolName":"x"}`, `Invalid message: field "requestId" must be a non-empty string`},
		{"no toolName", `{"type":"tool_call","requestId":"r"}`, `Invalid message: field "toolName" must be a non-empty string`},
		{"arguments array", `{"type":"tool_call","requestId":"r","toolName":"x","arguments":[1]}`, `Invalid message: field "arguments" must be an object`},
		{"bad caller", `{"type":"tool_call","requestId":"r","toolName":"x","clientInfo":{"caller":"root"}}`, `Invalid message: clientInfo.caller "root" is not one of cli|renderer|agent|plugin|internal`},
		{"zero timeout", `{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":0}`, `Invalid message: field "timeoutMs" must be a positive integer`},
		{"negative timeout", `{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":-5}`, `Invalid message: field "timeoutMs" must be a positive integer`},
		{"huge timeout", `{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":99999999999999999999}`, `Invalid message: field "timeoutMs" is out of range or not an integer`},
		{"fractional timeout", `{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":1.5}`, `Invalid message: field "timeoutMs" is out of range or not an integer`},
		{"requestId number", `{"type":"cancel_tool_call","requestId":7}`, `Invalid message: field "requestId" must be a string, got number`},
		{"cancel without id", `{"type":"cancel_tool_call"}`, `Invalid message: field "requestId" must be a non-empty string`},
		{"result without ok", `{"type":"tool_result","requestId":"r","result":{}}`, `Invalid message: field "result.ok" is required`},
		{"result bad code", `{"type":"tool_result","requestId":"r","result":{"ok":false,"error":{"code":"NOPE","message":"m"}}}`, `Invalid message: unknown error code "NOPE"`},
		{"event bad kind", `{"type":"tool_event","requestId":"r","event":{"kind":"explode"}}`, `Invalid message: unknown event kind "explode"`},
		{"event bad fraction", `{"type":"tool_event","requestId":"r","event":{"kind":"progress","fraction":1.5}}`, `Invalid message: progress fraction 1.5 is outside 0..1`},
		{"artifact without mime", `{"type":"tool_event","requestId":"r","event":{"kind":"artifact"}}`, `Invalid message: artifact event needs a mimeType`},
		{"tools not array", `{"type":"tools_list"}`, `Invalid message: field "tools" must be an array`},
		{"error bad code", `{"type":"error","code":"WAT","message":"m"}`, `Invalid message: unknown error code "WAT"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fe := decodeErr(t, tt.line); fe.Message != tt.want {
				t.Errorf("Decode(%s) = %q, want %q", tt.line, fe.Message, tt.want)
			}
		})
	}
}

func TestServerFramesValidate(t *testing.T) {
	res := mustDecode(t, `{"type":"tool_result","protocol":1,"requestId":"req_ab12cd34","result":{"ok":true,"content":{"id":"btab_123"}}}`).(*protocol.ToolResultFrame)
	if !res.Result.OK || string(res.Result.Content) != `{"id":"btab_123"}` || res.RequestID != "req_ab12cd34" {
		t.Errorf("tool_result = %+v", res)
	}
	fail := mustDecode(t, `{"type":"tool_result","requestId":"r","result":{"ok":false,"error":{"code":"TIMEOUT","message":"late"},"diagnostics":[{"level":"warn","message":"w"}]}}`).(*protocol.ToolResultFrame)
	if err := fail.Result.Err(); !protocol.IsTimeout(err) {
		t.Errorf("Err() = %v, want TIMEOUT", err)
	}
	ev := mustDecode(t, `{"type":"tool_event","protocol":1,"requestId":"req_ab12cd34","event":{"kind":"progress","message":"starting","fraction":0.1}}`).(*protocol.ToolEvent)
	if ev.Event.Kind != protocol.EventProgress || ev.Event.Message != "starting" || ev.Event.Fraction == nil || *ev.Event.Fraction != 0.1 {
		t.Errorf("tool_event = %+v", ev.Event)
	}
	logEv := mustDecode(t, `{"type":"tool_event","requestId":"r","event":{"kind":"log","message":"hi"}}`).(*protocol.ToolEvent)
	if logEv.Event.Level != protocol.LevelInfo {
		t.Errorf("log level = %q, want info by default", logEv.Event.Level)
	}
	list := mustDecode(t, `{"type":"tools_list","tools":[{"name":"a","description":"d","inputSchema":{},"capabilities":["read-only"]}]}`).(*protocol.ToolsList)
	if len(list.Tools) != 1 || list.Tools[0].Capabilities[0] != protocol.CapReadOnly {
		t.Errorf("tools_list = %+v", list)
	}
}

func TestErrorFrameDefaultsCode(t *testing.T) {
	e := mustDecode(t, `{"type":"error","message":"boom"}`).(*protocol.ErrorFrame)
	if e.Code != protocol.CodeProtocol || e.Message != "boom" {
		t.Errorf("error = %+v, want code PROTOCOL_ERROR", e)
	}
}

func TestUnsupportedProtocolVersion(t *testing.T) {
	fe := decodeErr(t, `{"type":"tool_call","protocol":2,"requestId":"req_v2","toolName":"x"}`)
	if fe.Message != "Unsupported protocol version 2; server requires 1" || fe.RequestID != "req_v2" {
		t.Errorf("error = %+v", fe)
	}
	// The version is checked before the type and shape.
	fe = decodeErr(t, `{"type":"nonsense","protocol":999}`)
	if fe.Message != "Unsupported protocol version 999; server requires 1" || fe.RequestID != "" {
		t.Errorf("error = %+v", fe)
	}
	fe = decodeErr(t, `{"type":"list_tools","protocol":"one"}`)
	if fe.Message != `Invalid message: field "protocol" must be an integer` {
		t.Errorf("error = %+v", fe)
	}
	if m := mustDecode(t, `{"type":"list_tools","protocol":null}`); m.FrameType() != protocol.TypeListTools {
		t.Errorf("protocol null: %#v", m)
	}
}

func TestOversizedFrameSmallLimit(t *testing.T) {
	in := `{"type":"cancel_tool_call","requestId":"` + strings.Repeat("x", 200) + `"}` + "\n" +
		`{"type":"list_tools"}` + "\n"
	for _, name := range []string{"one read", "one byte reads"} {
		t.Run(name, func(t *testing.T) {
			var src io.Reader = strings.NewReader(in)
			if name == "one byte reads" {
				src = iotest.OneByteReader(src)
			}
			frames, ferrs := readAll(t, protocol.NewReaderSize(src, 64))
			if len(ferrs) != 1 || len(frames) != 1 || frames[0].FrameType() != protocol.TypeListTools {
				t.Fatalf("got %d frames, %d errors; want the list_tools frame after one error", len(frames), len(ferrs))
			}
			if !strings.HasPrefix(ferrs[0].Message, "Frame exceeds MAX_FRAME_BYTES (64 bytes)") {
				t.Errorf("error = %q", ferrs[0].Message)
			}
		})
	}
}

func TestFrameAtExactLimit(t *testing.T) {
	line := `{"type":"list_tools"}`
	frames, ferrs := readAll(t, protocol.NewReaderSize(strings.NewReader(line+"\n"), len(line)))
	if len(frames) != 1 || len(ferrs) != 0 {
		t.Fatalf("a frame of exactly the limit: got %d frames, %d errors", len(frames), len(ferrs))
	}
	frames, ferrs = readAll(t, protocol.NewReaderSize(strings.NewReader(line+"\n"), len(line)-1))
	if len(frames) != 0 || len(ferrs) != 1 {
		t.Fatalf("a frame one byte over the limit: got %d frames, %d errors", len(frames), len(ferrs))
	}
}

func TestOversizedFrameRealLimit(t *testing.T) {
	big := bytes.Repeat([]byte("a"), protocol.MaxFrameBytes+1)
	in := io.MultiReader(bytes.NewReader(big), strings.NewReader("\n"+`{"type":"cancel_tool_call","requestId":"after"}`+"\n"))
	frames, ferrs := readAll(t, protocol.NewReader(in))
	if len(ferrs) != 1 || len(frames) != 1 {
		t.Fatalf("got %d frames, %d errors; want 1, 1", len(frames), len(ferrs))
	}
	if c := frames[0].(*protocol.CancelToolCall); c.RequestID != "after" {
		t.Errorf("frame = %#v", c)
	}
	// Oversized at EOF: one error, then EOF.
	_, ferrs = readAll(t, protocol.NewReader(bytes.NewReader(big)))
	if len(ferrs) != 1 {
		t.Errorf("oversized at EOF: %d errors, want 1", len(ferrs))
	}
}

func TestReaderPropagatesReadErrors(t *testing.T) {
	boom := errors.New("boom")
	r := protocol.NewReader(iotest.ErrReader(boom))
	if _, err := r.Next(); !errors.Is(err, boom) || protocol.IsFrameError(err) {
		t.Errorf("Next() = %v, want the read error", err)
	}
}

func TestRoundTrip(t *testing.T) {
	frac := 0.5
	frames := []protocol.Message{
		protocol.NewListTools(&protocol.ClientInfo{Caller: protocol.CallerPlugin}),
		protocol.NewToolCall("req_1", "echo", json.RawMessage(`{"text":"hi"}`), protocol.ClientInfo{Cwd: "/w"}, 1500),
		protocol.NewCancel("req_1"),
		protocol.NewToolsList(nil),
		protocol.NewToolEvent("req_1", protocol.Event{Kind: protocol.EventProgress, Message: "m", Fraction: &frac}),
		protocol.NewToolResult("req_1", protocol.ErrorResult(protocol.CodeCancelled, "stop", map[string]any{"k": "v"})),
		protocol.NewError("", "oops"),
	}
	var buf bytes.Buffer
	w := protocol.NewWriter(&buf)
	for _, f := range frames {
		if err := w.Write(f); err != nil {
			t.Fatal(err)
		}
	}
	got, ferrs := readAll(t, protocol.NewReader(&buf))
	if len(ferrs) != 0 || len(got) != len(frames) {
		t.Fatalf("got %d frames, %d errors", len(got), len(ferrs))
	}
	for i := range frames {
		a, _ := json.Marshal(frames[i])
		b, _ := json.Marshal(got[i])
		if !bytes.Equal(a, b) {
			t.Errorf("frame %d: wrote %s, read %s", i, a, b)
		}
	}
}

func TestDecodeEchoesRequestIDOnRefusedCalls(t *testing.T) {
	tests := []struct {
		in, wantID, wantMsg string
	}{
		{`{"type":"tool_call","requestId":"r1","toolName":""}`, "r1", `Invalid message: field "toolName" must be a non-empty string`},
		{`{"type":"tool_call","requestId":"r2","toolName":"x","arguments":[1]}`, "r2", `Invalid message: field "arguments" must be an object`},
		{`{"type":"cancel_tool_call","requestId":"r3","protocol":"one"}`, "r3", `Invalid message: field "protocol" must be an integer`},
		{`{"type":"list_tools","requestId":"r4","clientInfo":{"caller":"root"}}`, "", `Invalid message: clientInfo.caller "root" is not one of cli|renderer|agent|plugin|internal`},
	}
	for _, tt := range tests {
		_, err := protocol.Decode([]byte(tt.in))
		fe, ok := err.(*protocol.FrameError)
		if !ok || fe.RequestID != tt.wantID || fe.Message != tt.wantMsg {
			t.Errorf("protocol.Decode(%s) = %v, want FrameError{%q, %q}", tt.in, err, tt.wantID, tt.wantMsg)
		}
	}
}

func TestDecodeAcceptsProtocolOneAsAnyNumber(t *testing.T) {
	for _, in := range []string{`{"type":"list_tools","protocol":1}`, `{"type":"list_tools","protocol":1.0}`, `{"type":"list_tools","protocol":null}`} {
		if _, err := protocol.Decode([]byte(in)); err != nil {
			t.Errorf("protocol.Decode(%s) = %v, want a list_tools frame", in, err)
		}
	}
	if _, err := protocol.Decode([]byte(`{"type":"list_tools","protocol":1.5}`)); err == nil || err.Error() != "Unsupported protocol version 1.5; server requires 1" {
		t.Errorf("protocol.Decode(protocol 1.5) = %v, want unsupported version", err)
	}
}

func TestNewID(t *testing.T) {
	re := regexp.MustCompile(`^req_[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := protocol.NewID("req")
		if !re.MatchString(id) || seen[id] {
			t.Fatalf("NewID(req) = %q: want req_<12 hex>, unique", id)
		}
		seen[id] = true
	}
}
