package protocol

import (
	"encoding/json"
	"io"
	"testing"
)

// The socket's hot path: one app_ping tool_call in, one tool_result out.
var (
	benchCall   = []byte(`{"type":"tool_call","protocol":1,"requestId":"req_0123456789ab","toolName":"app_ping","arguments":{},"clientInfo":{"caller":"cli","cwd":"/home/user/project"}}`)
	benchResult = NewToolResult("req_0123456789ab", OKResult(json.RawMessage(`{"pong":true,"pid":12345,"version":"v0.1.0-dev","protocolVersion":1,"elapsedMs":0,"caller":"cli","sessionId":"socket:5f2b6c1e-3c1d-4a8e-9d55-0a0a1e2b3c4d"}`)))
)

func BenchmarkDecodeToolCall(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(benchCall); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteToolResult(b *testing.B) {
	w := NewWriter(io.Discard)
	b.ReportAllocs()
	for b.Loop() {
		if err := w.Write(NewToolResult("req_0123456789ab", benchResult.Result)); err != nil {
			b.Fatal(err)
		}
	}
}
