package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
)

// storeTestLog collects a store's log lines.
type storeTestLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *storeTestLog) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *storeTestLog) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, substr) {
			n++
		}
	}
	return n
}

func openTestStore(t *testing.T, dir string) (*store, *storeTestLog) {
	t.Helper()
	log := &storeTestLog{}
	st, err := openStore(dir, log.logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.close() })
	return st, log
}

// setStoreVar sets a package variable for the test's duration.
func setStoreVar[T any](t *testing.T, p *T, v T) {
	t.Helper()
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

func storeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readEverything reads everything.
var readEverything = readLimits{MaxBytes: 1 << 30, MaxRecords: 1 << 30, MaxMessages: 1 << 30, MaxMessageChars: 1 << 30, MaxTotalChars: 1 << 30}

func storeTranscriptLines(t *testing.T, dir, id string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "sessions", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func testTextMessage(id, role, text string) Message {
	return Message{ID: id, Role: role, CreatedAt: 1, Parts: []Part{{Type: PartText, Text: text}}}
}

func TestStoreRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st, _ := openTestStore(t, dir)
	space := "space_1"
	sess := Session{
		ID: "sess_abc123", Title: DefaultTitle, Cwd: "/tmp/x", SpaceID: &space, Adapter: "claude",
		Model: "m", Status: StatusIdle, CreatedAt: 10, UpdatedAt: 20, Usage: &Usage{InputTokens: 5},
	}
	if err := st.putSession(sess); err != nil {
		t.Fatal(err)
	}

	user := testTextMessage("msg_u", RoleUser, "Fix login crash")
	asst := Message{ID: "msg_a", Role: RoleAssistant, CreatedAt: 2, Status: MessageStreaming}
	call := ToolCall{ID: "call_1", Name: "git_status", Source: SourceMeith, Status: ToolRunning, Args: json.RawMessage(`{"cwd":"/tmp/x"}`), StartedAt: 3}
	done := call
	done.Status = ToolCompleted
	done.EndedAt = 4
	res := protocol.OKResult(map[string]any{"clean": true})
	done.Result = &res
	patches := []Patch{
		{MessageID: "msg_a", AppendText: &Part{Type: PartThought, Text: "Let me "}},
		{MessageID: "msg_a", AppendText: &Part{Type: PartThought, Text: "look."}},
		{MessageID: "msg_a", AppendText: &Part{Type: PartText, Text: "Checking "}},
		{MessageID: "msg_a", AppendText: &Part{Type: PartText, Text: "git."}},
		{MessageID: "msg_a", ToolCall: &call},
		{MessageID: "msg_a", ToolCall: &done},
		{MessageID: "msg_a", AppendText: &Part{Type: PartText, Text: "Clean."}},
		{MessageID: "msg_a", Plan: []PlanEntry{{Content: "check", Status: "completed"}}},
		{MessageID: "msg_a", Usage: &Usage{OutputTokens: 7}, Status: MessageDone, StopReason: "end_turn"},
	}
	if err := st.appendMessage(sess.ID, user); err != nil {
		t.Fatal(err)
	}
	if err := st.appendMessage(sess.ID, asst); err != nil {
		t.Fatal(err)
	}
	want := asst
	for _, p := range patches {
		if err := st.appendPatch(sess.ID, p); err != nil {
			t.Fatal(err)
		}
		p.Apply(&want)
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}

	st2, _ := openTestStore(t, dir)
	got, ok := st2.session(sess.ID)
	if !ok || storeJSON(t, got) != storeJSON(t, sess) {
		t.Fatalf("session after reopen = %+v, %v; want %+v", got, ok, sess)
	}
	tr, err := st2.transcript(sess.ID, readLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Omitted || len(tr.Messages) != 2 {
		t.Fatalf("transcript = %+v", tr)
	}
	if g, w := storeJSON(t, tr.Messages[0]), storeJSON(t, user); g != w {
		t.Errorf("user message = %s, want %s", g, w)
	}
	a := tr.Messages[1]
	if g, w := storeJSON(t, a), storeJSON(t, want); g != w {
		t.Errorf("assistant message = %s\nwant %s", g, w)
	}
	// Patch.Apply semantics survive the round trip: appends merge into the
	// last part of the same type, the tool call is upserted.
	wantParts := []Part{
		{Type: PartThought, Text: "Let me look."},
		{Type: PartText, Text: "Checking git."},
		{Type: PartTool, ToolCallID: "call_1"},
		{Type: PartText, Text: "Clean."},
	}
	if storeJSON(t, a.Parts) != storeJSON(t, wantParts) {
		t.Errorf("parts = %+v, want %+v", a.Parts, wantParts)
	}
	if len(a.ToolCalls) != 1 || a.ToolCalls[0].Status != ToolCompleted || a.ToolCalls[0].Result == nil || !a.ToolCalls[0].Result.OK {
		t.Errorf("tool calls = %+v", a.ToolCalls)
	}
	if a.Status != MessageDone || a.StopReason != "end_turn" || a.Usage == nil || a.Usage.OutputTokens != 7 || len(a.Plan) != 1 {
		t.Errorf("assistant = %+v", a)
	}
	if a.Text() != "Checking git.Clean." {
		t.Errorf("Text() = %q", a.Text())
	}
}

func TestStoreSessionsOrderAndDelete(t *testing.T) {
	dir := t.TempDir()
	st, _ := openTestStore(t, dir)
	for i, upd := range []int64{200, 300, 100} {
		id := fmt.Sprintf("sess_%d", i)
		if err := st.putSession(Session{ID: id, Title: id, UpdatedAt: upd, Status: StatusIdle}); err != nil {
			t.Fatal(err)
		}
		if err := st.appendMessage(id, testTextMessage("msg_1", RoleUser, "hi")); err != nil {
			t.Fatal(err)
		}
	}
	order := func(st *store) string {
		var ids []string
		for _, s := range st.sessions() {
			ids = append(ids, s.ID)
		}
		return strings.Join(ids, ",")
	}
	if got := order(st); got != "sess_1,sess_0,sess_2" {
		t.Fatalf("Sessions() order = %s", got)
	}
	// Replacing updates in place and reorders.
	if err := st.putSession(Session{ID: "sess_2", Title: "renamed", UpdatedAt: 400}); err != nil {
		t.Fatal(err)
	}
	if got := order(st); got != "sess_2,sess_1,sess_0" {
		t.Fatalf("Sessions() order after update = %s", got)
	}
	if err := st.deleteSession("sess_1"); err != nil {
		t.Fatal(err)
	}
	if _, ok := st.session("sess_1"); ok {
		t.Error("deleted session still in the index")
	}
	if _, err := os.Stat(filepath.Join(dir, "sessions", "sess_1.jsonl")); !os.IsNotExist(err) {
		t.Errorf("deleted transcript still on disk: %v", err)
	}
	if err := st.deleteSession("sess_unknown"); err != nil {
		t.Errorf("deleting an unknown session: %v", err)
	}
	tr, err := st.transcript("sess_1", readLimits{})
	if err != nil || len(tr.Messages) != 0 || tr.Omitted {
		t.Errorf("transcript of a deleted session = %+v, %v", tr, err)
	}
	st.close()

	st2, _ := openTestStore(t, dir)
	if got := order(st2); got != "sess_2,sess_0" {
		t.Fatalf("after reopen = %s", got)
	}
	if s, _ := st2.session("sess_2"); s.Title != "renamed" {
		t.Errorf("title after reopen = %q", s.Title)
	}
}

func TestStoreRunningBecomesIdleOnOpen(t *testing.T) {
	dir := t.TempDir()
	idx := `{"version":1,"sessions":[` +
		`{"id":"sess_run","title":"a","cwd":"/","spaceId":null,"adapter":"claude","autoAccept":false,"status":"running","createdAt":1,"updatedAt":2},` +
		`{"id":"sess_err","title":"b","cwd":"/","spaceId":null,"adapter":"claude","autoAccept":false,"status":"error","createdAt":1,"updatedAt":1,"lastError":"boom"}]}`
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), []byte(idx), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := openTestStore(t, dir)
	if s, _ := st.session("sess_run"); s.Status != StatusIdle {
		t.Errorf("running session status after open = %q, want idle", s.Status)
	}
	if s, _ := st.session("sess_err"); s.Status != StatusError || s.LastError != "boom" {
		t.Errorf("error session = %+v", s)
	}
	// The index on disk was rewritten.
	var doc indexDoc
	data, _ := os.ReadFile(filepath.Join(dir, "sessions.json"))
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 1 || len(doc.Sessions) != 2 || doc.Sessions[0].ID != "sess_run" || doc.Sessions[0].Status != StatusIdle {
		t.Errorf("index on disk = %s", data)
	}
}

func TestStoreCorruptIndexMovedAside(t *testing.T) {
	for _, content := range []string{`{"version":1,"sessions":[`, `not json`, `{"version":99,"sessions":[]}`} {
		t.Run(content, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "sessions.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			st, log := openTestStore(t, dir)
			if n := len(st.sessions()); n != 0 {
				t.Errorf("sessions after a corrupt index = %d", n)
			}
			aside, _ := filepath.Glob(path + ".corrupt-*")
			if len(aside) != 1 {
				t.Fatalf("moved-aside files = %v", aside)
			}
			if data, _ := os.ReadFile(aside[0]); string(data) != content {
				t.Errorf("moved-aside content = %q", data)
			}
			if log.count("moved it to") != 1 {
				t.Errorf("log = %v", log.lines)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("corrupt index still in place: %v", err)
			}
			// The store works and writes a fresh index.
			if err := st.putSession(Session{ID: "sess_new"}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestStoreRejectsBadIDs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	st, _ := openTestStore(t, dir)
	for _, id := range []string{
		"", "sess_", "sess", "abc", "foo_abc", "sess_../../x", "../sess_x", "sess_a/b", `sess_a\b`,
		"sess_a.b", "sess_a b", "sess_a\x00", "sess_" + strings.Repeat("a", 65), "SESS_abc",
	} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			calls := map[string]error{
				"PutSession":    st.putSession(Session{ID: id}),
				"AppendMessage": st.appendMessage(id, testTextMessage("msg_1", RoleUser, "x")),
				"AppendPatch":   st.appendPatch(id, Patch{MessageID: "msg_1"}),
				"DeleteSession": st.deleteSession(id),
			}
			_, err := st.transcript(id, readLimits{})
			calls["Transcript"] = err
			for name, err := range calls {
				if !protocol.IsValidation(err) {
					t.Errorf("%s(%q) = %v, want a VALIDATION_ERROR", name, id, err)
				}
			}
		})
	}
	if n := len(st.sessions()); n != 0 {
		t.Errorf("sessions = %d", n)
	}
	// Nothing was written outside the store's folder, nor into it.
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("parent folder holds %v", entries)
	}
	files, _ := os.ReadDir(filepath.Join(dir, "sessions"))
	if len(files) != 0 {
		t.Errorf("transcripts folder holds %v", files)
	}
	// The longest valid id is accepted.
	if err := st.appendMessage("sess_"+strings.Repeat("a", 64), testTextMessage("msg_1", RoleUser, "x")); err != nil {
		t.Error(err)
	}
}

func TestStoreFileModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "agent")
	st, _ := openTestStore(t, dir)
	if err := st.putSession(Session{ID: "sess_m"}); err != nil {
		t.Fatal(err)
	}
	if err := st.appendMessage("sess_m", testTextMessage("msg_1", RoleUser, "x")); err != nil {
		t.Fatal(err)
	}
	setStoreVar(t, &compactMinRecords, 1)
	for i := 0; i < 5; i++ {
		if err := st.appendPatch("sess_m", Patch{MessageID: "msg_1", AppendText: &Part{Type: PartText, Text: "y"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.transcript("sess_m", readLimits{}); err != nil { // compacts
		t.Fatal(err)
	}
	if n := len(storeTranscriptLines(t, dir, "sess_m")); n != 1 {
		t.Fatalf("not compacted: %d lines", n)
	}
	for path, want := range map[string]os.FileMode{
		dir:                                 0o700 | os.ModeDir,
		filepath.Join(dir, "sessions"):      0o700 | os.ModeDir,
		filepath.Join(dir, "sessions.json"): 0o600,
		filepath.Join(dir, "sessions", "sess_m.jsonl"): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("mode of %s = %v, want %v", path, fi.Mode(), want)
		}
	}
}

func TestStoreBoundedRead(t *testing.T) {
	const id = "sess_b"
	type check func(t *testing.T, tr Transcript)
	firstText := func(tr Transcript) string {
		for _, p := range tr.Messages[0].Parts {
			if p.Type == PartText {
				return p.Text
			}
		}
		return ""
	}
	wantOmitted := func(t *testing.T, tr Transcript) {
		t.Helper()
		if !tr.Omitted {
			t.Error("Omitted = false")
		}
		if len(tr.Messages) > 0 && !strings.HasPrefix(firstText(tr), "[Earlier content omitted]\n") &&
			firstText(tr) != "[Earlier content omitted]" {
			t.Errorf("first text = %.60q, want the omitted prefix", firstText(tr))
		}
	}
	bigArgs := json.RawMessage(`{"cwd":"/w","path":"a.go","content":"` + strings.Repeat("x", 10_000) + `"}`)
	bigRes := protocol.OKResult(map[string]string{"data": strings.Repeat("r", 10_000)})
	bigErr := protocol.ErrorResult(protocol.CodeToolFailed, strings.Repeat("e", 10_000), map[string]string{"d": strings.Repeat("d", 10_000)})

	cases := []struct {
		name  string
		write func(t *testing.T, st *store)
		lim   readLimits
		check check
	}{{
		name: "small transcript is whole",
		write: func(t *testing.T, st *store) {
			for i := 0; i < 3; i++ {
				st.appendMessage(id, testTextMessage(fmt.Sprintf("msg_%d", i), RoleUser, "hello"))
			}
		},
		check: func(t *testing.T, tr Transcript) {
			if tr.Omitted || len(tr.Messages) != 3 || firstText(tr) != "hello" {
				t.Errorf("transcript = %+v", tr)
			}
		},
	}, {
		name: "last 20 messages by default",
		write: func(t *testing.T, st *store) {
			for i := 0; i < 30; i++ {
				st.appendMessage(id, testTextMessage(fmt.Sprintf("msg_%d", i), RoleUser, fmt.Sprintf("m%d", i)))
			}
		},
		check: func(t *testing.T, tr Transcript) {
			wantOmitted(t, tr)
			if len(tr.Messages) != 20 || tr.Messages[0].ID != "msg_10" || tr.Messages[19].ID != "msg_29" {
				t.Fatalf("got %d messages, %s…", len(tr.Messages), tr.Messages[0].ID)
			}
			if firstText(tr) != "[Earlier content omitted]\nm10" {
				t.Errorf("first text = %q", firstText(tr))
			}
		},
	}, {
		name: "per-message chars keep the start",
		write: func(t *testing.T, st *store) {
			st.appendMessage(id, Message{ID: "msg_1", Role: RoleAssistant, Parts: []Part{
				{Type: PartThought, Text: strings.Repeat("t", 50)},
				{Type: PartText, Text: strings.Repeat("é", 100)},
				{Type: PartTool, ToolCallID: "call_1"},
				{Type: PartText, Text: "tail"},
			}, ToolCalls: []ToolCall{{ID: "call_1", Name: "x", Status: ToolCompleted}}})
		},
		lim: readLimits{MaxMessageChars: 80},
		check: func(t *testing.T, tr Transcript) {
			wantOmitted(t, tr)
			m := tr.Messages[0]
			if len(m.Parts) != 3 || m.Parts[1].Type != PartText || m.Parts[2].Type != PartTool {
				t.Fatalf("parts = %+v", m.Parts)
			}
			if m.Parts[0].Text != strings.Repeat("t", 50) {
				t.Errorf("thought = %q", m.Parts[0].Text)
			}
			if want := "[Earlier content omitted]\n" + strings.Repeat("é", 30) + "\n[… 70 characters clipped]"; m.Parts[1].Text != want {
				t.Errorf("text = %q, want %q", m.Parts[1].Text, want)
			}
		},
	}, {
		name: "total chars keep the newest",
		write: func(t *testing.T, st *store) {
			for i := 0; i < 5; i++ {
				st.appendMessage(id, testTextMessage(fmt.Sprintf("msg_%d", i), RoleUser, strings.Repeat(fmt.Sprint(i), 15_000)))
			}
		},
		check: func(t *testing.T, tr Transcript) {
			wantOmitted(t, tr)
			if len(tr.Messages) != 4 || tr.Messages[0].ID != "msg_1" {
				t.Fatalf("got %d messages from %s", len(tr.Messages), tr.Messages[0].ID)
			}
			total := 0
			for i, m := range tr.Messages {
				total += messageChars(m)
				if i > 0 && m.Text() != strings.Repeat(fmt.Sprint(i+1), 15_000) {
					t.Errorf("message %d was changed", i+1)
				}
			}
			if !strings.HasPrefix(firstText(tr), "[Earlier content omitted]\n11111") || total > 50_000+100 {
				t.Errorf("first text %.40q…, total %d", firstText(tr), total)
			}
		},
	}, {
		name: "byte window skips the partial first line and orphan patches",
		write: func(t *testing.T, st *store) {
			st.appendMessage(id, testTextMessage("msg_old", RoleUser, strings.Repeat("o", 2000)))
			st.appendMessage(id, testTextMessage("msg_new", RoleAssistant, "n"))
			st.appendPatch(id, Patch{MessageID: "msg_old", AppendText: &Part{Type: PartText, Text: "late"}})
			st.appendPatch(id, Patch{MessageID: "msg_new", AppendText: &Part{Type: PartText, Text: "ew"}})
		},
		lim: readLimits{MaxBytes: 1000},
		check: func(t *testing.T, tr Transcript) {
			wantOmitted(t, tr)
			if len(tr.Messages) != 1 || tr.Messages[0].ID != "msg_new" || tr.Messages[0].Text() != "[Earlier content omitted]\nnew" {
				t.Errorf("messages = %+v", tr.Messages)
			}
		},
	}, {
		name: "record window",
		write: func(t *testing.T, st *store) {
			st.appendMessage(id, testTextMessage("msg_1", RoleUser, "a"))
			st.appendMessage(id, Message{ID: "msg_2", Role: RoleAssistant})
			st.appendPatch(id, Patch{MessageID: "msg_1", AppendText: &Part{Type: PartText, Text: "b"}})
			st.appendPatch(id, Patch{MessageID: "msg_2", ToolCall: &ToolCall{ID: "call_1", Name: "t", Status: ToolRunning}})
			st.appendPatch(id, Patch{MessageID: "msg_2", ToolCall: &ToolCall{ID: "call_1", Name: "t", Status: ToolCompleted}})
		},
		lim: readLimits{MaxRecords: 4},
		check: func(t *testing.T, tr Transcript) {
			wantOmitted(t, tr)
			m := tr.Messages
			if len(m) != 1 || m[0].ID != "msg_2" || len(m[0].ToolCalls) != 1 || m[0].ToolCalls[0].Status != ToolCompleted {
				t.Fatalf("messages = %+v", m)
			}
			// No text part: one is inserted for the prefix.
			if len(m[0].Parts) != 2 || m[0].Parts[0] != (Part{Type: PartText, Text: "[Earlier content omitted]"}) {
				t.Errorf("parts = %+v", m[0].Parts)
			}
		},
	}, {
		name: "tool call data is clipped to valid JSON",
		write: func(t *testing.T, st *store) {
			st.appendMessage(id, testTextMessage("msg_1", RoleUser, "go"))
			st.appendMessage(id, Message{ID: "msg_2", Role: RoleAssistant, ToolCalls: []ToolCall{
				{ID: "call_1", Name: "write_file", Args: bigArgs, Result: &bigRes, Status: ToolCompleted},
				{ID: "call_2", Name: "bash", Output: "a" + strings.Repeat("ö", 6000), Result: &bigErr, Status: ToolFailed},
				{ID: "call_3", Name: "small", Args: json.RawMessage(`{"a":1}`), Output: "ok", Status: ToolCompleted},
			}})
		},
		check: func(t *testing.T, tr Transcript) {
			wantOmitted(t, tr)
			tcs := tr.Messages[1].ToolCalls
			// The small fields stay (the window opens the file they name).
			if got := string(tcs[0].Args); got != `{"content":"[clipped 10002 bytes]","cwd":"/w","path":"a.go"}` {
				t.Errorf("args = %s", got)
			}
			if c := tcs[0].Result.Content; !json.Valid(c) || len(c) > clipToolBytes || !bytes.Contains(c, []byte("clipped")) {
				t.Errorf("result content = %.80s", c)
			}
			if o := tcs[1].Output; len(o) > clipToolBytes+40 || !strings.Contains(o, "[clipped 7906 bytes]") || !strings.HasPrefix(o, "aööö") || !utf8.ValidString(o) {
				t.Errorf("output = %.40q… (%d bytes)", o, len(o))
			}
			if e := tcs[1].Result.Error; len(e.Message) > clipToolBytes+40 || e.Details != "[clipped 10008 bytes]" {
				t.Errorf("error = %.60q, details %v", e.Message, e.Details)
			}
			if string(tcs[2].Args) != `{"a":1}` || tcs[2].Output != "ok" {
				t.Errorf("small call clipped: %+v", tcs[2])
			}
			if !json.Valid([]byte(storeJSON(t, tr))) {
				t.Error("transcript is not valid JSON")
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st, _ := openTestStore(t, dir)
			tc.write(t, st)
			tr, err := st.transcript(id, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, tr)
			// Reads do not change the file's content (no compaction here).
			tr2, err := st.transcript(id, tc.lim)
			if err != nil || storeJSON(t, tr2) != storeJSON(t, tr) {
				t.Errorf("second read differs: %v", err)
			}
		})
	}
}

func TestStoreTranscriptMissingAndMalformed(t *testing.T) {
	dir := t.TempDir()
	st, log := openTestStore(t, dir)
	tr, err := st.transcript("sess_none", readLimits{})
	if err != nil || tr.Omitted || len(tr.Messages) != 0 || tr.Messages == nil {
		t.Fatalf("missing transcript = %+v, %v", tr, err)
	}
	st.appendMessage("sess_bad", testTextMessage("msg_1", RoleUser, "a"))
	f, err := os.OpenFile(filepath.Join(dir, "sessions", "sess_bad.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n\n{\"t\":\"other\"}\n")
	f.Close()
	st.appendPatch("sess_bad", Patch{MessageID: "msg_1", AppendText: &Part{Type: PartText, Text: "b"}})
	for i := 0; i < 2; i++ {
		tr, err := st.transcript("sess_bad", readLimits{})
		if err != nil || len(tr.Messages) != 1 || tr.Messages[0].Text() != "ab" {
			t.Fatalf("transcript = %+v, %v", tr, err)
		}
	}
	if n := log.count("malformed"); n != 1 {
		t.Errorf("malformed logged %d times: %v", n, log.lines)
	}
}

func TestStoreCompaction(t *testing.T) {
	const id = "sess_c"
	// Writes a user message and an assistant message streamed in n patches;
	// returns the messages as applied in memory.
	stream := func(t *testing.T, st *store, n int) []Message {
		user := testTextMessage("msg_u", RoleUser, "hello")
		asst := Message{ID: "msg_a", Role: RoleAssistant, Status: MessageStreaming}
		if err := st.appendMessage(id, user); err != nil {
			t.Fatal(err)
		}
		if err := st.appendMessage(id, asst); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			p := Patch{MessageID: "msg_a", AppendText: &Part{Type: PartText, Text: fmt.Sprintf("w%d ", i)}}
			if i%10 == 5 {
				p = Patch{MessageID: "msg_a", ToolCall: &ToolCall{ID: fmt.Sprintf("call_%d", i/20), Name: "t", Status: ToolRunning}}
			}
			if err := st.appendPatch(id, p); err != nil {
				t.Fatal(err)
			}
			p.Apply(&asst)
		}
		done := Patch{MessageID: "msg_a", Status: MessageDone}
		st.appendPatch(id, done)
		done.Apply(&asst)
		return []Message{user, asst}
	}
	allRecordsAreMessages := func(t *testing.T, dir string, want int) {
		t.Helper()
		lines := storeTranscriptLines(t, dir, id)
		if len(lines) != want {
			t.Errorf("compacted file has %d records, want %d", len(lines), want)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, `{"t":"message","message":`) {
				t.Errorf("record is not a message: %.60s", l)
			}
		}
	}

	t.Run("record count", func(t *testing.T) {
		dir := t.TempDir()
		st, log := openTestStore(t, dir)
		want := stream(t, st, 60) // 63 records ≤ 100: no compaction
		tr, err := st.transcript(id, readEverything)
		if err != nil || storeJSON(t, tr.Messages) != storeJSON(t, want) {
			t.Fatalf("before: %v\n%s\nwant %s", err, storeJSON(t, tr.Messages), storeJSON(t, want))
		}
		if n := len(storeTranscriptLines(t, dir, id)); n != 63 {
			t.Fatalf("compacted below the threshold: %d lines", n)
		}
		want = stream(t, st, 60) // the same ids again: 126 records, 4 of them messages
		tr, err = st.transcript(id, readEverything)
		if err != nil || storeJSON(t, tr.Messages) != storeJSON(t, want) {
			t.Fatalf("compacting read: %v\n%s\nwant %s", err, storeJSON(t, tr.Messages), storeJSON(t, want))
		}
		allRecordsAreMessages(t, dir, 2)
		if log.count("compacted") != 1 {
			t.Errorf("log = %v", log.lines)
		}
		// Appends after compaction land in the new file.
		extra := testTextMessage("msg_x", RoleUser, "after")
		if err := st.appendMessage(id, extra); err != nil {
			t.Fatal(err)
		}
		st.close()
		st2, _ := openTestStore(t, dir)
		tr, err = st2.transcript(id, readEverything)
		if err != nil || storeJSON(t, tr.Messages) != storeJSON(t, append(want, extra)) {
			t.Fatalf("after reopen: %v %s", err, storeJSON(t, tr.Messages))
		}
	})

	t.Run("size, with a whole-file read under small limits", func(t *testing.T) {
		setStoreVar(t, &compactBytes, 4096)
		dir := t.TempDir()
		st, log := openTestStore(t, dir)
		var want []Message
		for i := 0; i < 40; i++ {
			m := testTextMessage(fmt.Sprintf("msg_%02d", i), RoleUser, strings.Repeat("z", 100))
			st.appendMessage(id, m)
			want = append(want, m)
		}
		// Records equal messages, so only the size triggers compaction.
		st.appendPatch(id, Patch{MessageID: "msg_00", AppendText: &Part{Type: PartText, Text: "!"}})
		Patch{MessageID: "msg_00", AppendText: &Part{Type: PartText, Text: "!"}}.Apply(&want[0])
		tr, err := st.transcript(id, readLimits{MaxRecords: 3, MaxMessages: 2})
		if err != nil || len(tr.Messages) != 2 || !tr.Omitted || tr.Messages[1].ID != "msg_39" {
			t.Fatalf("bounded read = %+v, %v", tr, err)
		}
		// The compaction kept every message, including those outside the
		// bounded window and the patch of the first.
		allRecordsAreMessages(t, dir, 40)
		tr, err = st.transcript(id, readEverything)
		if err != nil || storeJSON(t, tr.Messages) != storeJSON(t, want) {
			t.Fatalf("after compaction: %v", err)
		}
		// The file is still over the size but holds no patch: it is not
		// rewritten again.
		if n := log.count("compacted"); n != 1 {
			t.Errorf("compacted %d times", n)
		}
	})
}

func TestStoreConcurrentAppends(t *testing.T) {
	setStoreVar(t, &compactMinRecords, 20)
	setStoreVar(t, &maxOpenTranscripts, 3)
	dir := t.TempDir()
	st, _ := openTestStore(t, dir)
	const sessions, patches = 8, 150
	var wg sync.WaitGroup
	errs := make(chan error, sessions*3)
	for s := 0; s < sessions; s++ {
		id := fmt.Sprintf("sess_%d", s)
		wg.Add(2)
		go func() { // writer: a message streamed by patches
			defer wg.Done()
			if err := st.putSession(Session{ID: id, UpdatedAt: int64(s)}); err != nil {
				errs <- err
				return
			}
			if err := st.appendMessage(id, Message{ID: "msg_a", Role: RoleAssistant}); err != nil {
				errs <- err
				return
			}
			for i := 0; i < patches; i++ {
				if err := st.appendPatch(id, Patch{MessageID: "msg_a", AppendText: &Part{Type: PartText, Text: fmt.Sprintf("%d,", i)}}); err != nil {
					errs <- err
					return
				}
			}
		}()
		go func() { // reader: compacts while the writer appends
			defer wg.Done()
			for i := 0; i < 20; i++ {
				if _, err := st.transcript(id, readLimits{}); err != nil {
					errs <- err
					return
				}
				st.sessions()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 0; i < patches; i++ {
		fmt.Fprintf(&want, "%d,", i)
	}
	for s := 0; s < sessions; s++ {
		id := fmt.Sprintf("sess_%d", s)
		tr, err := st.transcript(id, readLimits{})
		if err != nil || len(tr.Messages) != 1 || tr.Messages[0].Text() != want.String() {
			t.Errorf("%s: %v %+v", id, err, tr)
		}
	}
	if n := len(st.sessions()); n != sessions {
		t.Errorf("sessions = %d", n)
	}
	if err := st.close(); err != nil {
		t.Fatal(err)
	}
	if err := st.appendMessage("sess_0", Message{ID: "msg_z"}); err == nil {
		t.Error("append after Close succeeded")
	}
}
