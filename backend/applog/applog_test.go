package applog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// fileLines returns the entries of the log file as written.
func fileLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// opaque has no exported field (it marshals as {}) but a String method.
type opaque struct{ name string }

func (o opaque) String() string { return "opaque " + o.name }

// plain marshals fine and has a String method too: the JSON is kept.
type plain struct{ Name string }

func (p plain) String() string { return "plain" }

// TestValuesAreWrittenReadably: errors, durations and Stringers that would
// marshal as {} are written as their text, values that marshal fine stay
// JSON, and every string is redacted (S2 of the 2026-12-01 attack).
func TestValuesAreWrittenReadably(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.jsonl")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, statErr := os.Stat(filepath.Join(t.TempDir(), "missing"))
	var nilErr *os.PathError
	l.With("socket")(protocol.LevelWarn, "tool socket peer refused",
		"err", errors.New("peer uid 1001 does not own this runtime"),
		"wrapped", fmt.Errorf("accept: %w", statErr),
		"pathErr", statErr,
		"retryIn", 1500*time.Millisecond,
		"opaque", opaque{"x"},
		"plain", plain{"p"},
		"when", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"n", 3, "ok", true, "nilErr", nilErr, "nothing", nil,
	)
	got := fileLines(t, path)[0]["data"].(map[string]any)
	want := map[string]any{
		"err":     "peer uid 1001 does not own this runtime",
		"wrapped": "accept: stat " + filepath.Join(filepath.Dir(statErr.(*os.PathError).Path), "missing") + ": no such file or directory",
		"pathErr": statErr.Error(),
		"retryIn": "1.5s",
		"opaque":  "opaque x",
		"plain":   map[string]any{"Name": "p"},
		"when":    "2026-12-01T00:00:00Z",
		"n":       float64(3), "ok": true, "nilErr": nil, "nothing": nil,
	}
	for k, w := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(w) {
			t.Errorf("data[%q] = %#v, want %#v", k, got[k], w)
		}
	}
}

// TestSecretsAreRedacted: messages and values are scanned when written,
// and entries an older meith wrote are scanned when read back.
func TestSecretsAreRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs.jsonl")
	old := `{"id":"log_1","ts":"2026-11-30T10:00:00.000Z","level":"info","source":"process","message":"started: GITHUB_TOKEN=ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5 npm run dev","toolName":"TOKEN=x","data":{"apiKey":"k","cmd":"DB_PASSWORD=hunter2"}}` + "\n"
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	var mirror bytes.Buffer
	l, err := Open(path, &mirror)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var seen []Entry
	l.Subscribe(func(e Entry) { seen = append(seen, e) })
	l.Logf(protocol.LevelInfo, "process", "dev server started: %s", "DB_PASSWORD=hunter2 npm run dev")
	l.With("socket")(protocol.LevelInfo, "fetch https://u:hunter2@h/?token=tok3nv4lue",
		"url", "https://u:hunter2@h/", "token", "hunter2", "argv", []string{"--password", "hunter2"},
		"err", errors.New("bad key sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDc"))
	l.Write(Entry{Source: "registry", Message: "x", ToolName: "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5",
		Data: map[string]any{"nested": map[string]any{"password": "hunter2", "u": "TOKEN=hunter2"}}})

	raw, _ := os.ReadFile(path)
	newLines := strings.TrimPrefix(string(raw), old)
	entries, err := l.Query(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	searched, err := l.Query(Filter{Search: "hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	read, _ := json.Marshal(entries)
	subs, _ := json.Marshal(seen)
	for name, text := range map[string]string{"logs.jsonl": newLines, "Query": string(read), "mirror": mirror.String(), "subscribers": string(subs)} {
		for _, secret := range []string{"hunter2", "ghp_aB3dE5fG7hJ9", "sk-proj-Zx9Y", "tok3nv4lue", `"k"`} {
			if strings.Contains(text, secret) {
				t.Errorf("%s holds %q:\n%s", name, secret, text)
			}
		}
		if !strings.Contains(text, "[REDACTED]") {
			t.Errorf("%s has no [REDACTED]: the entries did not reach it\n%s", name, text)
		}
	}
	if len(entries) != 4 || !strings.Contains(entries[0].Message, "GITHUB_TOKEN=[REDACTED] npm run dev") {
		t.Errorf("Query = %+v, want the old entry redacted and three new ones", entries)
	}
	if len(searched) != 0 {
		t.Errorf("Query(Search: a secret) = %+v, want nothing: search sees the redacted text", searched)
	}
}
