package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
)

type mode struct{ json, quiet, verbose bool }

func newPrinter(m mode) (*printer, *bytes.Buffer, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &printer{out: &out, err: &errb, json: m.json, quiet: m.quiet, verbose: m.verbose}, &out, &errb
}

func frac(f float64) *float64 { return &f }

func TestPrintResult(t *testing.T) {
	ok := func(content string) protocol.ToolResult {
		return protocol.ToolResult{OK: true, Content: json.RawMessage(content)}
	}
	failed := protocol.ToolResult{OK: false, Error: &protocol.ErrorInfo{
		Code: protocol.CodePermissionDenied, Message: `Tool "x" requires writes-files permission.`,
		Details: map[string]any{"required": []string{"writes-files"}},
	}}
	tests := []struct {
		name     string
		m        mode
		r        protocol.ToolResult
		render   renderer
		code     int
		out, err string
	}{
		{"string content is printed raw", mode{}, ok(`"line1\n\"two\"\ttab"`), nil, 0, "line1\n\"two\"\ttab\n", ""},
		{"a trailing newline is not doubled", mode{}, ok(`"done\n"`), nil, 0, "done\n", ""},
		{"object content is pretty JSON in key order", mode{}, ok(`{"z":1,"a":[1,{"b":null}],"m":{}}`), nil, 0,
			"{\n  \"z\": 1,\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"m\": {}\n}\n", ""},
		{"array content", mode{}, ok(`[1,2]`), nil, 0, "[\n  1,\n  2\n]\n", ""},
		{"number content", mode{}, ok(`12345678901234567890`), nil, 0, "12345678901234567890\n", ""},
		{"boolean content", mode{}, ok(`false`), nil, 0, "false\n", ""},
		{"null content is ok", mode{}, ok(`null`), nil, 0, "ok\n", ""},
		{"absent content is ok", mode{}, protocol.ToolResult{OK: true}, nil, 0, "ok\n", ""},
		{"--quiet drops ok", mode{quiet: true}, ok(`null`), nil, 0, "", ""},
		{"--quiet keeps content", mode{quiet: true}, ok(`"x"`), nil, 0, "x\n", ""},
		{"diagnostics go to stderr before the content", mode{},
			protocol.ToolResult{OK: true, Content: json.RawMessage(`"x"`), Diagnostics: []protocol.Diagnostic{{Level: "warn", Message: "slow"}, {Level: "info", Message: "fyi"}}},
			nil, 0, "x\n", "  [warn] slow\n  [info] fyi\n"},
		{"--quiet drops diagnostics", mode{quiet: true},
			protocol.ToolResult{OK: true, Diagnostics: []protocol.Diagnostic{{Level: "warn", Message: "slow"}}}, nil, 0, "", ""},
		{"a failure prints code, message and pretty details, exit 1", mode{}, failed, nil, 1, "",
			"error (PERMISSION_DENIED): Tool \"x\" requires writes-files permission.\n{\n  \"required\": [\n    \"writes-files\"\n  ]\n}\n"},
		{"--quiet still prints failures", mode{quiet: true},
			protocol.ErrorResult(protocol.CodeUnknownTool, "Unknown tool: nope", nil), nil, 1, "", "error (UNKNOWN_TOOL): Unknown tool: nope\n"},
		{"details are not HTML-escaped", mode{},
			protocol.ErrorResult(protocol.CodeValidation, "bad", map[string]any{"message": "must be <= 100 & > 0"}), nil, 1, "",
			"error (VALIDATION_ERROR): bad\n{\n  \"message\": \"must be <= 100 & > 0\"\n}\n"},
		{"--json envelopes are not HTML-escaped", mode{json: true}, ok(`"<a&b>"`), nil, 0, "{\n  \"ok\": true,\n  \"content\": \"<a&b>\"\n}\n", ""},
		{"a failure without an error", mode{}, protocol.ToolResult{OK: false}, nil, 1, "", "error (TOOL_FAILED): failed\n"},
		{"diagnostics of a failure come first", mode{},
			protocol.ToolResult{OK: false, Diagnostics: []protocol.Diagnostic{{Level: "error", Message: "boom"}}, Error: &protocol.ErrorInfo{Code: protocol.CodeToolFailed, Message: "bad"}},
			nil, 1, "", "  [error] boom\nerror (TOOL_FAILED): bad\n"},
		{"--json prints the envelope", mode{json: true},
			protocol.ToolResult{OK: true, Content: json.RawMessage(`{"z":1,"a":2}`), Diagnostics: []protocol.Diagnostic{{Level: "info", Message: "d"}}},
			nil, 0, "{\n  \"ok\": true,\n  \"content\": {\n    \"z\": 1,\n    \"a\": 2\n  },\n  \"diagnostics\": [\n    {\n      \"level\": \"info\",\n      \"message\": \"d\"\n    }\n  ]\n}\n", ""},
		{"--json with ok:false exits 1", mode{json: true}, protocol.ErrorResult(protocol.CodeTimeout, "late", nil), nil, 1,
			"{\n  \"ok\": false,\n  \"error\": {\n    \"code\": \"TIMEOUT\",\n    \"message\": \"late\"\n  }\n}\n", ""},
		{"path rendering prints content.path", mode{}, ok(`{"tabId":"t","path":"/tmp/s.png"}`), renderPath, 0, "/tmp/s.png\n", ""},
		{"path rendering falls back without a path", mode{}, ok(`{"tabId":"t"}`), renderPath, 0, "{\n  \"tabId\": \"t\"\n}\n", ""},
		{"--json ignores the renderer", mode{json: true}, ok(`{"path":"/p"}`), renderPath, 0, "{\n  \"ok\": true,\n  \"content\": {\n    \"path\": \"/p\"\n  }\n}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, out, errb := newPrinter(tt.m)
			code := p.result(tt.r, tt.render)
			if code != tt.code || out.String() != tt.out || errb.String() != tt.err {
				t.Errorf("result() = %d\nstdout:\n%q\nstderr:\n%q\nwant %d\nstdout:\n%q\nstderr:\n%q", code, out, errb, tt.code, tt.out, tt.err)
			}
		})
	}
}

func TestPrintEvents(t *testing.T) {
	events := []protocol.Event{
		protocol.Progress("starting", 0.1),
		{Kind: protocol.EventProgress, Message: "third", Fraction: frac(1.0 / 3)},
		{Kind: protocol.EventProgress, Message: "no fraction"},
		{Kind: protocol.EventProgress},
		protocol.Log(protocol.LevelWarn, "careful"),
		{Kind: protocol.EventLog, Message: "default level"},
		protocol.PartialText("partial "),
		protocol.PartialText("text"),
		{Kind: protocol.EventArtifact, MimeType: "image/png", Name: "shot.png", Path: "/tmp/shot.png"},
	}
	final := protocol.ToolResult{OK: true, Content: json.RawMessage(`"final"`)}
	tests := []struct {
		name     string
		m        mode
		out, err string
	}{
		{"text mode", mode{},
			"partial text\nfinal\n",
			"… starting 10%\n… third 33%\n… no fraction\n… working\n… artifact shot.png: /tmp/shot.png\n"},
		{"--verbose adds log events", mode{verbose: true},
			"partial text\nfinal\n",
			"… starting 10%\n… third 33%\n… no fraction\n… working\n  [warn] careful\n  [info] default level\n… artifact shot.png: /tmp/shot.png\n"},
		{"--quiet shows no events", mode{quiet: true, verbose: true}, "final\n", ""},
		{"--json shows no events", mode{json: true, verbose: true}, "{\n  \"ok\": true,\n  \"content\": \"final\"\n}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, out, errb := newPrinter(tt.m)
			for _, ev := range events {
				p.event(ev)
			}
			p.result(final, nil)
			if out.String() != tt.out || errb.String() != tt.err {
				t.Errorf("stdout:\n%q\nstderr:\n%q\nwant stdout:\n%q\nstderr:\n%q", out, errb, tt.out, tt.err)
			}
		})
	}
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		ev   protocol.Event
		want string
	}{
		{protocol.Progress("x", 0), "… x 0%"},
		{protocol.Progress("x", 0.005), "… x 1%"},
		{protocol.Progress("x", 0.994), "… x 99%"},
		{protocol.Progress("x", 1), "… x 100%"},
		{protocol.Progress("x", -1), "… x"},
		{protocol.Progress("", 0.5), "… working 50%"},
	}
	for _, tt := range tests {
		if got := progressLine(tt.ev); got != tt.want {
			t.Errorf("progressLine(%+v) = %q, want %q", tt.ev, got, tt.want)
		}
	}
}

func TestPrintFail(t *testing.T) {
	p, out, errb := newPrinter(mode{quiet: true})
	if code := p.fail("/s.sock", errors.New("connection lost")); code != 1 {
		t.Errorf("fail() = %d, want 1", code)
	}
	if out.Len() != 0 || errb.String() != "error: connection lost\nsocket: /s.sock\n" {
		t.Errorf("stdout %q, stderr %q", out, errb)
	}
}

func TestRenderLogEntries(t *testing.T) {
	ts := "2026-01-02T03:04:05.678Z"
	local := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC).Local().Format("2006-01-02 15:04:05.000")
	got, ok := renderLogEntries(json.RawMessage(`[{"ts":"` + ts + `","level":"info","source":"socket","message":"hello"},{"ts":"` + ts + `","level":"error","source":"registry","message":"bad"}]`))
	want := local + " info  socket: hello\n" + local + " error registry: bad"
	if !ok || got != want {
		t.Errorf("renderLogEntries = %q, %v; want %q", got, ok, want)
	}
	if got, ok := renderLogEntries(json.RawMessage(`[]`)); !ok || got != "No log entries." {
		t.Errorf("empty: %q, %v", got, ok)
	}
	for _, bad := range []string{`{"entries":[]}`, `[{"message":"x"}]`, `"text"`} {
		if _, ok := renderLogEntries(json.RawMessage(bad)); ok {
			t.Errorf("renderLogEntries(%s) rendered; want the default rendering", bad)
		}
	}
}

func TestFormatInstances(t *testing.T) {
	if got := formatInstances(nil); got != "No running meith instances.\n" {
		t.Errorf("empty: %q", got)
	}
	at := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	started := at.Local().Format("2006-01-02 15:04:05")
	got := formatInstances([]discovery.Record{
		{PID: 4242, StartedAt: at.UnixMilli(), AppVersion: "0.1.0", Label: "work"},
		{PID: 123456789, StartedAt: at.UnixMilli(), AppVersion: "10.20.30-beta", Label: ""},
	})
	want := "PID     STARTED              VERSION   LABEL\n" +
		"4242    " + started + "  0.1.0     work\n" +
		"123456789 " + started + "  10.20.30-beta \n"
	if got != want {
		t.Errorf("formatInstances =\n%q\nwant\n%q", got, want)
	}
}

// TestPartialTextStaysRawAroundProgress: progress and log lines go to
// stderr without touching stdout, so `meith call … > file` gets the streamed
// text exactly.
func TestPartialTextStaysRawAroundProgress(t *testing.T) {
	p, out, errb := newPrinter(mode{verbose: true})
	p.event(protocol.PartialText("abc"))
	p.event(protocol.Progress("half", 0.5))
	p.event(protocol.Log(protocol.LevelInfo, "note"))
	p.event(protocol.PartialText("def\n"))
	if out.String() != "abcdef\n" {
		t.Errorf("stdout = %q, want %q", out.String(), "abcdef\n")
	}
	if !strings.Contains(errb.String(), "half 50%") || !strings.Contains(errb.String(), "[info] note") {
		t.Errorf("stderr = %q, want the progress and log lines", errb.String())
	}
}
