package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

// slowEncode is what encoding/json writes for msg (as Encode did before the
// hand-written frames).
func slowEncode(t testing.TB, msg Message) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestFastEncodingMatchesEncodingJSON(t *testing.T) {
	half := 0.5
	odd := "quote\" back\\slash <html> & tab\t nl\n ctl\x01 é ☃ \u2028 \xff"
	frames := []Message{
		NewToolResult("req_1", OKResult(map[string]any{"pong": true, "n": 1, "html": "<a&b>"})),
		NewToolResult("req_2", ToolResult{OK: true}),
		NewToolResult(odd, ToolResult{OK: true, Content: json.RawMessage(" { \"a\" : [1, 2] , \"b\":\"<x>\" } ")}),
		NewToolResult("req_3", ErrorResult(CodeValidation, odd, map[string]any{"issues": []any{map[string]string{"path": "a", "message": "<b>"}}})),
		NewToolResult("req_4", ErrorResult(CodeTimeout, "Tool \"x\" timed out", nil)),
		NewToolResult("req_5", ToolResult{OK: true, Content: json.RawMessage(`"s"`), Meta: map[string]any{"truncated": true, "z": 1, "a": "<"},
			Diagnostics: []Diagnostic{{Level: "warn", Message: odd}, {Level: "info", Message: "two"}}}),
		NewToolResult("req_6", ToolResult{OK: false, Diagnostics: []Diagnostic{{Level: "error", Message: "d"}}, Error: &ErrorInfo{Code: CodeToolFailed, Message: "m"}}),
		NewToolEvent("req_7", Progress("working", -1)),
		NewToolEvent("req_8", Progress("half", half)),
		NewToolEvent("req_9", Log(LevelWarn, odd)),
		NewToolEvent("req_10", PartialText(odd)),
		NewToolEvent("req_11", Event{Kind: EventArtifact, MimeType: "image/png", Name: "n", Path: "/p", DataBase64: "AAA="}),
	}
	for i, msg := range frames {
		var fast bytes.Buffer
		msg.setVersion(ProtocolVersion)
		ok, err := appendFrame(&fast, msg)
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		want := slowEncode(t, msg)
		if !ok {
			fast.Write(want) // not a fast frame (an event with a fraction)
		}
		if !bytes.Equal(fast.Bytes(), want) {
			t.Errorf("frame %d:\n fast %s\n want %s", i, fast.Bytes(), want)
		}
	}
	// Content replaced after OKResult is checked again.
	res := OKResult("x")
	res.Content = json.RawMessage(" [1, 2] ")
	var fast bytes.Buffer
	if _, err := appendFrame(&fast, NewToolResult("r", res)); err != nil || !bytes.Contains(fast.Bytes(), []byte(`"content":[1,2]`)) {
		t.Errorf("replaced content: %s, %v", fast.Bytes(), err)
	}
	// Invalid content is an error, not a broken frame.
	var buf bytes.Buffer
	if _, err := appendFrame(&buf, NewToolResult("r", ToolResult{OK: true, Content: json.RawMessage(`{`)})); err == nil {
		t.Error("invalid content encoded without an error")
	}
	if buf.Len() != 0 {
		t.Errorf("a failed encoding left %q in the buffer", buf.Bytes())
	}
}

// FuzzAppendString: any string is written as encoding/json writes it.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\", "<&>", "\x00\x1f\x7f", "é☃", "\u2028\u2029", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var got, want bytes.Buffer
		appendString(&got, s)
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got.String() != string(bytes.TrimSuffix(want.Bytes(), []byte("\n"))) {
			t.Fatalf("appendString(%q) = %s, want %s", s, got.Bytes(), want.Bytes())
		}
	})
}
