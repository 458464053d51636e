package protocol

import (
	"encoding/json"
	"reflect"
	"testing"
)

// scanSeeds are client frames of the plain shape and near misses that must
// take the encoding/json path.
var scanSeeds = []string{
	`{"type":"tool_call","protocol":1,"requestId":"req_0123456789ab","toolName":"app_ping","arguments":{},"clientInfo":{"caller":"cli","cwd":"/home/user/project"}}`,
	`{"type":"tool_call","requestId":"r","toolName":"echo","arguments":{"text":"a \"quoted\" } ] { ["},"timeoutMs":250}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","arguments":{"a":[1,{"b":null}],"c":"é"},"clientInfo":{"caller":"plugin","sessionId":"s","spaceId":"sp","tabId":"t"}}`,
	` { "type" : "cancel_tool_call" , "requestId" : "r" } `,
	`{"type":"list_tools","protocol":1,"clientInfo":{"caller":"cli"}}`,
	`{"type":"tool_call","protocol":1.0,"requestId":"r","toolName":"x"}`,
	`{"type":"tool_call","protocol":2,"requestId":"r","toolName":"x"}`,
	`{"type":"tool_call","requestId":"r","requestId":"s","toolName":"x"}`,
	`{"type":"tool_call","requestId":"r\u0041","toolName":"x"}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","arguments":{]}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","arguments":{"a":1,}}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":01}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":1e3}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","timeoutMs":99999999999999999999}`,
	`{"Type":"tool_call","requestId":"r","toolName":"x"}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","clientInfo":null}`,
	`{"type":"tool_call","requestId":"r","toolName":"x"} trailing`,
	`{"type":"tool_call","requestId":"\xff","toolName":"x"}`,
	`{"type":"tool_call","requestId":"r","toolName":"x","extra":1}`,
}

// FuzzScanClient: whatever frame the scanner accepts, it decodes exactly as
// json.Unmarshal does.
func FuzzScanClient(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := scanClient(raw)
		if !ok {
			return
		}
		var want wireClient
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("scanClient accepted %q, which json.Unmarshal refuses: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("scanClient(%q)\n = %+v\nwant %+v", raw, got, want)
		}
	})
}

// TestScanClientTakesThePlainShapeOnly: the frames a client writes are
// scanned; anything else is left to encoding/json.
func TestScanClientTakesThePlainShapeOnly(t *testing.T) {
	for i, s := range scanSeeds {
		_, got := scanClient([]byte(s))
		want := i < 5
		if got != want {
			t.Errorf("scanClient(%s) ok = %v, want %v", s, got, want)
		}
	}
}

// TestScannedArgumentsAreCopied: the scanned arguments do not alias the
// reader's buffer, which the next frame overwrites.
func TestScannedArgumentsAreCopied(t *testing.T) {
	raw := []byte(scanSeeds[1])
	w, ok := scanClient(raw)
	if !ok {
		t.Fatal("not scanned")
	}
	before := string(w.Arguments)
	for i := range raw {
		raw[i] = 'x'
	}
	if string(w.Arguments) != before {
		t.Errorf("arguments changed with the buffer: %s", w.Arguments)
	}
}
