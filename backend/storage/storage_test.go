package storage_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/storage"
)

// token is a GitHub token the value scanner recognises.
const token = "ghp_0123456789abcdefghijABCDEFGHIJ012345"

// engine is a storage engine over a fresh user data folder with a real
// state, log and audit.
type engine struct {
	*storage.Store
	dir   string
	state *state.Store
	logs  *applog.Logger
	audit *audit.Log
}

func newEngine(t *testing.T) *engine {
	t.Helper()
	dir := t.TempDir()
	st, err := state.Open(filepath.Join(dir, storage.StateFile), state.Options{Debounce: -1})
	if err != nil {
		t.Fatal(err)
	}
	logs, err := applog.Open(filepath.Join(dir, storage.LogsFile), nil)
	if err != nil {
		t.Fatal(err)
	}
	al, err := audit.Open(filepath.Join(dir, storage.AuditFile), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { al.Close(); logs.Close(); st.Close() })
	return &engine{Store: storage.New(storage.Options{UserData: dir, State: st, Logs: logs, Audit: al}),
		dir: dir, state: st, logs: logs, audit: al}
}

func writeFile(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if !mtime.IsZero() {
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEveryUserDataEntryIsCovered walks the user data folder of a real
// runtime (after calls that write artifacts, agent sessions and the trash)
// and fails on any top-level entry no collection of the table covers; the
// instance's own file names must be covered too, also those made lazily.
func TestEveryUserDataEntryIsCovered(t *testing.T) {
	inst := instancetest.New(t)
	ctx := context.Background()
	if _, err := inst.Agents().Create(agent.CreateInput{Cwd: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	st := storage.New(storage.Options{UserData: inst.UserData, State: inst.State(), Logs: inst.Logger()})
	if _, err := st.ExportSupportBundle(ctx, 10); err != nil {
		t.Fatal(err)
	}
	if err := inst.State().Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(inst.UserData)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		if slices.Contains(storage.NotCollections, e.Name()) {
			continue
		}
		if len(storage.Covers(e.Name())) == 0 {
			t.Errorf("user data entry %q is in no storage collection: add it to storage.Table", e.Name())
		}
	}
	for _, want := range []string{storage.StateFile, storage.LogsFile, storage.AuditFile, storage.ArtifactsDir, storage.AgentDir} {
		if !slices.Contains(names, want) {
			t.Errorf("user data holds %v, want %s too (the walk saw too little to be a test)", names, want)
		}
	}
	for _, name := range []string{instance.AuditFile, instance.LogsFile, instance.StateFile, instance.ProcessesFile,
		instance.AgentDir, instance.TrashDir, instance.ApprovalRulesFile, instance.PluginsDir, "browser", "terminal-scrollback", "shell-init"} {
		if len(storage.Covers(name)) == 0 {
			t.Errorf("the instance's %q is in no storage collection", name)
		}
	}
}

// TestListSizes: sizes count every file of a collection, the screenshots
// only the screenshot PNGs, and a missing collection exists false.
func TestListSizes(t *testing.T) {
	e := newEngine(t)
	art := filepath.Join(e.dir, storage.ArtifactsDir)
	writeFile(t, filepath.Join(art, "app-1.png"), "12345", time.Time{})
	writeFile(t, filepath.Join(art, "screenshots", "btab_1-2.png"), "123", time.Time{})
	writeFile(t, filepath.Join(art, "bug-report-1.json"), "1234567", time.Time{})
	writeFile(t, filepath.Join(art, "downloads", "f.zip"), "12", time.Time{})
	got := map[string]storage.Info{}
	for _, in := range e.List() {
		got[in.Name] = in
	}
	if len(got) != len(storage.Table) {
		t.Fatalf("List returned %d collections, want %d", len(got), len(storage.Table))
	}
	for _, tt := range []struct {
		name  string
		bytes int64
		files int
	}{{"artifacts", 17, 4}, {"screenshots", 8, 2}, {"downloads", 2, 1}} {
		if c := got[tt.name]; c.SizeBytes != tt.bytes || c.Files != tt.files || !c.Exists {
			t.Errorf("%s = %d bytes in %d files (exists %v), want %d in %d", tt.name, c.SizeBytes, c.Files, c.Exists, tt.bytes, tt.files)
		}
	}
	if c := got["trash"]; c.Exists || c.SizeBytes != 0 {
		t.Errorf("trash = %+v, want it missing and empty", c)
	}
	if c := got["audit"]; !c.Exists || !c.Clearable || c.Kind != storage.KindJSONL {
		t.Errorf("audit = %+v, want an existing clearable jsonl", c)
	}
}

// TestUnknownCollection: an unknown name is an UnknownCollectionError that
// names the known collections, never the name asked for; a collection
// that cannot be cleared names the clearable ones.
func TestUnknownCollection(t *testing.T) {
	e := newEngine(t)
	if err := e.state.Update(func(s *state.State) error { s.Spaces[0].Name = "kept"; return nil }); err != nil {
		t.Fatal(err)
	}
	_, err := e.Read(context.Background(), "nope-"+token, 0)
	if !storage.IsUnknownCollection(err) || !strings.Contains(err.Error(), "state, logs, audit, artifacts") || strings.Contains(err.Error(), "nope") {
		t.Errorf("Read(unknown) error = %v, want the known collections and not the name", err)
	}
	_, err = e.Clear(context.Background(), "state", audit.Entry{})
	if !storage.IsUnknownCollection(err) || !strings.Contains(err.Error(), "logs, audit, artifacts") {
		t.Errorf("Clear(state) error = %v, want the clearable collections", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.dir, storage.StateFile)); len(b) == 0 {
		t.Errorf("Clear(state) emptied state.json")
	}
}

// TestRead: the state, the newest log and audit records, a directory's
// files newest first.
func TestRead(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	for i := range 5 {
		e.logs.Logf(protocol.LevelInfo, "test", "entry %d", i)
		e.audit.Record(audit.Entry{ID: protocol.NewID("audit"), ToolName: "tool_" + string(rune('a'+i)), Decision: audit.DecisionAllow})
	}
	writeFile(t, filepath.Join(e.dir, storage.TrashDir, "old"), "x", time.Now().Add(-time.Hour))
	writeFile(t, filepath.Join(e.dir, storage.TrashDir, "new"), "y", time.Now())

	r, err := e.Read(ctx, "state", 0)
	if err != nil || r.State == nil || len(r.State.Spaces) == 0 {
		t.Fatalf("Read(state) = %+v, %v; want the state", r, err)
	}
	r, err = e.Read(ctx, "logs", 2)
	if logs, ok := r.Records.([]applog.Entry); err != nil || !ok || len(logs) != 2 || logs[1].Message != "entry 4" || !r.Truncated {
		t.Errorf("Read(logs, 2) = %+v, %v; want entries 3 and 4", r, err)
	}
	r, err = e.Read(ctx, "audit", 3)
	if entries, ok := r.Records.([]audit.Entry); err != nil || !ok || len(entries) != 3 || entries[2].ToolName != "tool_e" {
		t.Errorf("Read(audit, 3) = %+v, %v; want the newest 3", r, err)
	}
	r, err = e.Read(ctx, "trash", 0)
	if err != nil || len(r.Files) != 2 || r.Files[0].Path != "new" || r.Truncated {
		t.Errorf("Read(trash) = %+v, %v; want new then old", r.Files, err)
	}
}

// TestClearArtifactsStaysInside: clearing the artifacts empties the folder
// and removes links inside it, never what they point at.
func TestClearArtifactsStaysInside(t *testing.T) {
	e := newEngine(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "keep.txt"), "precious", time.Time{})
	writeFile(t, filepath.Join(outside, "sub", "keep2.txt"), "precious", time.Time{})
	art := filepath.Join(e.dir, storage.ArtifactsDir)
	writeFile(t, filepath.Join(art, "a.png"), "12345", time.Time{})
	writeFile(t, filepath.Join(art, "downloads", "b.zip"), "123", time.Time{})
	if err := os.Symlink(outside, filepath.Join(art, "link-dir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "keep.txt"), filepath.Join(art, "downloads", "link-file")); err != nil {
		t.Fatal(err)
	}
	r, err := e.Clear(context.Background(), "artifacts", audit.Entry{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Collection != "artifacts" || r.DeletedFiles != 4 || r.DeletedBytes < 8 {
		t.Errorf("Clear(artifacts) = %+v, want 4 files (2 files, 2 links) and at least 8 bytes", r)
	}
	if ents, _ := os.ReadDir(art); len(ents) != 0 {
		t.Errorf("artifacts still holds %d entries", len(ents))
	}
	for _, p := range []string{filepath.Join(outside, "keep.txt"), filepath.Join(outside, "sub", "keep2.txt")} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "precious" {
			t.Errorf("%s outside the artifacts = %q, %v; want it kept", p, b, err)
		}
	}
}

// TestClearLogsAndAudit: clearing the logs empties logs.jsonl; clearing the
// audit leaves the given entry as the only one.
func TestClearLogsAndAudit(t *testing.T) {
	e := newEngine(t)
	ctx := context.Background()
	for i := range 3 {
		e.logs.Logf(protocol.LevelInfo, "test", "entry %d", i)
		e.audit.Record(audit.Entry{ID: protocol.NewID("audit"), ToolName: "before", Decision: audit.DecisionAllow})
	}
	r, err := e.Clear(ctx, "logs", audit.Entry{})
	if err != nil || r.DeletedFiles != 1 || r.DeletedBytes == 0 {
		t.Errorf("Clear(logs) = %+v, %v; want one file's bytes", r, err)
	}
	if logs, _ := e.logs.Query(applog.Filter{}); len(logs) != 0 {
		t.Errorf("logs after the clear = %d entries, want 0", len(logs))
	}
	first := audit.Entry{ID: protocol.NewID("audit"), ToolName: "storage_clear_collection", Decision: audit.DecisionAllow}
	r, err = e.Clear(ctx, "audit", first)
	if err != nil || r.DeletedFiles != 1 || r.DeletedBytes == 0 {
		t.Errorf("Clear(audit) = %+v, %v; want one file's bytes", r, err)
	}
	got, err := e.audit.Tail(10)
	if err != nil || len(got) != 1 || got[0].ID != first.ID {
		t.Errorf("audit after the clear = %+v, %v; want only the clear's entry", got, err)
	}
}

// TestDeleteOldScreenshots: only screenshot PNGs older than the cutoff go;
// newer ones, other artifacts and links stay.
func TestDeleteOldScreenshots(t *testing.T) {
	e := newEngine(t)
	old, recent := time.Now().Add(-40*24*time.Hour), time.Now().Add(-time.Hour)
	art := filepath.Join(e.dir, storage.ArtifactsDir)
	writeFile(t, filepath.Join(art, "app-old.png"), "12345", old)
	writeFile(t, filepath.Join(art, "screenshot-btab-old.png"), "123", old)
	writeFile(t, filepath.Join(art, "screenshots", "btab_1-1.png"), "12", old)
	writeFile(t, filepath.Join(art, "app-new.png"), "1", recent)
	writeFile(t, filepath.Join(art, "bug-report-old.json"), "1", old)
	writeFile(t, filepath.Join(art, "downloads", "app-old.png"), "1", old)
	outside := filepath.Join(t.TempDir(), "target.png")
	writeFile(t, outside, "precious", old)
	if err := os.Symlink(outside, filepath.Join(art, "screenshot-link.png")); err != nil {
		t.Fatal(err)
	}
	r, err := e.DeleteOldScreenshots(context.Background(), 30)
	if err != nil || r.DeletedFiles != 3 || r.DeletedBytes != 10 || r.Cutoff == "" {
		t.Fatalf("DeleteOldScreenshots(30) = %+v, %v; want 3 files, 10 bytes", r, err)
	}
	for _, kept := range []string{"app-new.png", "bug-report-old.json", "downloads/app-old.png", "screenshot-link.png"} {
		if _, err := os.Lstat(filepath.Join(art, kept)); err != nil {
			t.Errorf("%s: %v, want it kept", kept, err)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("the link's target = %q, want it kept", b)
	}
}

// TestSupportBundleRedacts: the bundle is a 0600 artifact holding the
// state, logs and audit, and a token in the state or in logs.jsonl does not
// reach it.
func TestSupportBundleRedacts(t *testing.T) {
	e := newEngine(t)
	if err := e.state.Update(func(s *state.State) error { s.Spaces[0].Name = "deploy " + token; return nil }); err != nil {
		t.Fatal(err)
	}
	// A line written by another hand (an older build): the logger redacts on
	// read too.
	f, err := os.OpenFile(filepath.Join(e.dir, storage.LogsFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]any{"id": "log_1", "ts": "2026-12-01T00:00:00.000Z", "level": "info", "source": "x",
		"message": "pushed with " + token, "data": map[string]any{"authorization": "Bearer abc"}})
	f.Write(append(line, '\n'))
	f.Close()
	e.audit.Record(audit.Entry{ID: protocol.NewID("audit"), ToolName: "t", Decision: audit.DecisionAllow, ArgsSummary: `{"x":"` + token + `"}`})

	r, err := e.ExportSupportBundle(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(r.Path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != r.Bytes {
		t.Fatalf("bundle %s: %v, %v; want mode 0600 and %d bytes", r.Path, fi, err, r.Bytes)
	}
	if filepath.Dir(r.Path) != filepath.Join(e.dir, storage.ArtifactsDir) || !strings.HasPrefix(filepath.Base(r.Path), "support-bundle-") {
		t.Errorf("bundle path %s, want artifacts/support-bundle-*.json", r.Path)
	}
	b, _ := os.ReadFile(r.Path)
	if strings.Contains(string(b), token) || strings.Contains(string(b), "Bearer abc") {
		t.Errorf("the bundle holds a secret:\n%s", b)
	}
	for _, want := range []string{`"schema": "meith-support-bundle/v1"`, `"deploy `, "pushed with", `"collections"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the bundle lacks %s", want)
		}
	}
}

// TestPruneAgentSessions: sessions not changed since the cutoff are deleted
// with their transcripts through the agent service; newer ones stay.
func TestPruneAgentSessions(t *testing.T) {
	inst := instancetest.New(t)
	var ids []string
	for range 2 {
		s, err := inst.Agents().Create(agent.CreateInput{Cwd: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.ID)
	}
	ctx := context.Background()
	// Seen from 10 days on, both are 10 days old: a 30-day prune keeps them.
	later := storage.New(storage.Options{UserData: inst.UserData, Agents: inst.Agents(),
		Now: func() time.Time { return time.Now().Add(10 * 24 * time.Hour) }})
	if r, err := later.PruneAgentSessions(ctx, 30); err != nil || r.DeletedSessions != 0 {
		t.Fatalf("prune of 10-day-old sessions = %+v, %v; want none deleted", r, err)
	}
	// Touch one now, then prune from 40 days on with 35 days: the other goes.
	title := "kept"
	time.Sleep(2 * time.Millisecond)
	if _, err := inst.Agents().Update(ctx, ids[1], agent.UpdateInput{Title: &title}, true); err != nil {
		t.Fatal(err)
	}
	cut := inst.Agents().Sessions("", "")
	t.Logf("sessions: %d", len(cut))
	older := storage.New(storage.Options{UserData: inst.UserData, Agents: inst.Agents(),
		Now: func() time.Time { return time.UnixMilli(cut[0].UpdatedAt).Add(30 * 24 * time.Hour) }})
	r, err := older.PruneAgentSessions(ctx, 30)
	if err != nil || r.DeletedSessions != 1 || r.Collection != "agent_sessions" {
		t.Fatalf("prune = %+v, %v; want 1 session deleted", r, err)
	}
	if _, err := inst.Agents().Session(ids[0]); err == nil {
		t.Errorf("session %s is still there", ids[0])
	}
	if _, err := inst.Agents().Session(ids[1]); err != nil {
		t.Errorf("session %s was deleted: %v", ids[1], err)
	}
}
