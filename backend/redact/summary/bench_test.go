package summary

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchInputs are typical summaries: what app_ping sends and returns, a
// browser call with a secret header, a file write with a text payload, and a
// large nested result.
var benchInputs = []struct {
	name string
	in   json.RawMessage
}{
	{"empty_args", json.RawMessage(`{}`)},
	{"ping_result", json.RawMessage(`{"ok":true,"content":{"pong":true,"pid":12345,"version":"0.1.0-dev","protocolVersion":1,"elapsedMs":0,"caller":"cli","sessionId":"socket:2b7d0c4e-54a3-4f7e-9d51-0c1f7b2a9e11"}}`)},
	{"browser_args", json.RawMessage(`{"url":"https://example.com/api/v1/items?page=2","method":"POST","headers":{"Authorization":"Bearer abcdefghijklmnop","Content-Type":"application/json","X-Request-Id":"req_0123456789ab"},"timeoutMs":30000}`)},
	{"write_args", json.RawMessage(`{"path":"/home/user/project/src/main.go","content":"` + strings.Repeat(`package main\n\nfunc main() {}\n`, 40) + `","createDirs":true}`)},
	{"large_result", json.RawMessage(`{"ok":true,"content":{"items":[` + strings.TrimSuffix(strings.Repeat(`{"id":"btab_0123456789","title":"Example Domain — a page title","url":"https://example.com/some/long/path?query=value&other=1","active":false,"lastAccessed":1767225600000},`, 80), ",") + `]}}`)},
}

// BenchmarkSummarize summarizes typical arguments and results (Of).
func BenchmarkSummarize(b *testing.B) {
	for _, in := range benchInputs {
		b.Run(in.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Of(in.in)
			}
		})
	}
}
