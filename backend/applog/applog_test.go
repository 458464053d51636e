package applog

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/protocol"
)

func TestQueryFilters(t *testing.T) {
	var mirror bytes.Buffer
	l, err := Open(filepath.Join(t.TempDir(), "logs.jsonl"), &mirror)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Write(Entry{Level: protocol.LevelDebug, Source: "socket", Message: "dropped while debug is off"})
	l.Write(Entry{Level: protocol.LevelInfo, Source: "socket", Message: "client connected", Caller: "cli", SessionID: "socket:1"})
	l.Write(Entry{Level: protocol.LevelWarn, Source: "registry", Message: "slow tool", ToolName: "app_ping"})
	l.Write(Entry{Level: protocol.LevelError, Source: "registry", Message: "tool failed", ToolName: "app_ping", Caller: "agent"})
	l.SetDebug(true)
	l.Write(Entry{Level: protocol.LevelDebug, Source: "socket", Message: "frame read"})

	tests := []struct {
		name string
		f    Filter
		want string
	}{
		{"all", Filter{}, "client connected|slow tool|tool failed|frame read"},
		{"limit keeps newest", Filter{Limit: 2}, "tool failed|frame read"},
		{"min level warn", Filter{Level: protocol.LevelWarn}, "slow tool|tool failed"},
		{"source", Filter{Source: "socket"}, "client connected|frame read"},
		{"caller", Filter{Caller: "agent"}, "tool failed"},
		{"session", Filter{SessionID: "socket:1"}, "client connected"},
		{"tool", Filter{ToolName: "app_ping"}, "slow tool|tool failed"},
		{"search is case-insensitive", Filter{Search: "SLOW"}, "slow tool"},
	}
	for _, tt := range tests {
		got, err := l.Query(tt.f)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, e := range got {
			msgs = append(msgs, e.Message)
			if !strings.HasPrefix(e.ID, "log_") || e.TS == "" {
				t.Errorf("%s: entry %+v lacks id/ts", tt.name, e)
			}
		}
		if s := strings.Join(msgs, "|"); s != tt.want {
			t.Errorf("%s: Query(%+v) = %q, want %q", tt.name, tt.f, s, tt.want)
		}
	}
	if !strings.Contains(mirror.String(), "registry: tool failed") {
		t.Errorf("mirror = %q, want the human line for each entry", mirror.String())
	}
}

func TestNilLoggerDiscards(t *testing.T) {
	var l *Logger
	l.Write(Entry{Message: "x"})
	l.With("s")(protocol.LevelInfo, "m", "k", 1)
	if got, err := l.Query(Filter{}); got != nil || err != nil {
		t.Errorf("nil Query = %v, %v", got, err)
	}
}

func TestSubscribe(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "logs.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got []string
	cancel := l.Subscribe(func(e Entry) { got = append(got, e.Message) })
	l.Logf(protocol.LevelInfo, "test", "one")
	l.Logf(protocol.LevelDebug, "test", "dropped: debug is off")
	l.Logf(protocol.LevelWarn, "test", "two")
	cancel()
	l.Logf(protocol.LevelInfo, "test", "after cancel")
	if fmt.Sprint(got) != "[one two]" {
		t.Errorf("subscriber saw %v, want [one two]", got)
	}
	var nilLog *Logger
	nilLog.Subscribe(func(Entry) {})() // a nil logger accepts and cancels a subscription
}
