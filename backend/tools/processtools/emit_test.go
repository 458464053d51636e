package processtools

import (
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

func TestEmitEntriesBatchesByLevel(t *testing.T) {
	var got []protocol.Event
	call := registry.NewCall("req_1", protocol.ClientInfo{Caller: protocol.CallerCLI}, nil, func(ev protocol.Event) { got = append(got, ev) })
	line := func(stream, text string) process.LogEntry { return process.LogEntry{Stream: stream, Text: text} }
	emitEntries(call, []process.LogEntry{
		line(process.StreamStdout, "a"), line(process.StreamStdout, "b"), line(process.StreamSystem, "started"),
		line(process.StreamStderr, "oops"), line(process.StreamStderr, "again"), line(process.StreamStdout, "c"),
	})
	want := []struct {
		level protocol.LogLevel
		msg   string
	}{
		{protocol.LevelInfo, "a\nb\n[system] started"},
		{protocol.LevelWarn, "[stderr] oops\n[stderr] again"},
		{protocol.LevelInfo, "c"},
	}
	if len(got) != len(want) {
		t.Fatalf("emitEntries gave %d events %+v, want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if got[i].Level != w.level || got[i].Message != w.msg {
			t.Errorf("event %d = %s %q, want %s %q", i, got[i].Level, got[i].Message, w.level, w.msg)
		}
	}
	// A flood is cut into events of at most maxEventBytes.
	got = nil
	long := make([]process.LogEntry, 20000)
	for i := range long {
		long[i] = line(process.StreamStdout, strings.Repeat("x", 99))
	}
	emitEntries(call, long)
	lines := 0
	for _, ev := range got {
		if len(ev.Message) > maxEventBytes {
			t.Fatalf("an event of %d bytes", len(ev.Message))
		}
		lines += strings.Count(ev.Message, "\n") + 1
	}
	if lines != len(long) || len(got) < 2 {
		t.Errorf("%d events carrying %d lines, want all %d lines in several events", len(got), lines, len(long))
	}
}
