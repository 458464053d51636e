package protocol_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

// chunkReader returns its data in chunks whose sizes come from sizes (cycled).
type chunkReader struct {
	data  []byte
	sizes []byte
	i     int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := 1
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.i%len(c.sizes)]) + 1
		c.i++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

const fuzzSentinel = `{"type":"cancel_tool_call","requestId":"fuzz-sentinel"}`

// FuzzReader feeds random bytes, split into random chunks, to a Reader with a
// small frame limit. The reader must never panic or loop, and after the
// garbage, a newline and a valid frame, that frame must still come out.
func FuzzReader(f *testing.F) {
	seeds := []string{
		"",
		"\n",
		`{"type":"list_tools"}`,
		`{"type":"tool_call","requestId":"r","toolName":"x","arguments":{"a":[1,2,{"b":null}]}}` + "\n",
		`{"type":"tool_call","protocol":2,"requestId":"r","toolName":"x"}`,
		`{"type":"tool_result","requestId":"r","result":{"ok":false,"error":{"code":"TIMEOUT","message":"m"}}}`,
		`{"type":"tool_event","requestId":"r","event":{"kind":"progress","fraction":2}}`,
		`{"type":"error"}` + "\n\n\r\n",
		`{"type":`,
		"\xff\xfe\x00{\"",
		`[{"type":"list_tools"}]`,
		`{"type":"list_tools","protocol":1e400}`,
		`{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":1e3}`,
		string(bytes.Repeat([]byte("x"), 300)),
	}
	for i, s := range seeds {
		f.Add([]byte(s), []byte{byte(i), 3, 200})
	}
	f.Fuzz(func(t *testing.T, data, sizes []byte) {
		in := append(append(bytes.Clone(data), '\n'), fuzzSentinel+"\n"...)
		r := protocol.NewReaderSize(&chunkReader{data: in, sizes: sizes}, 256)
		var last protocol.Message
		for i := 0; ; i++ {
			if i > len(in)+2 {
				t.Fatalf("reader returned more results (%d) than there are bytes", i)
			}
			msg, err := r.Next()
			if err != nil {
				if protocol.IsFrameError(err) {
					continue
				}
				if !errors.Is(err, io.EOF) {
					t.Fatalf("Next() = %v, want a FrameError or io.EOF", err)
				}
				break
			}
			if msg == nil {
				t.Fatal("Next() returned a nil frame without an error")
			}
			// A decoded frame must encode again.
			if _, err := protocol.Encode(msg); err != nil {
				t.Fatalf("Encode(decoded frame) = %v", err)
			}
			last = msg
		}
		c, ok := last.(*protocol.CancelToolCall)
		if !ok || c.RequestID != "fuzz-sentinel" {
			t.Fatalf("last frame = %#v, want the sentinel cancel frame", last)
		}
		// Decode on its own never panics either.
		_, _ = protocol.Decode(data)
	})
}
