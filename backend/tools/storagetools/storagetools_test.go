package storagetools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/storage"
)

// runtime is a real runtime whose CLI calls may delete data, with a client.
func runtime(t *testing.T) (*instancetest.Instance, *client.Client) {
	t.Helper()
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapDestructive))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, inst.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return inst, c
}

// call calls tool with args and decodes the content into out (when set).
func call(t *testing.T, c *client.Client, tool, args string, out any) protocol.ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := c.Call(ctx, tool, json.RawMessage(args), client.CallOptions{})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	if out != nil && res.OK {
		if err := json.Unmarshal(res.Content, out); err != nil {
			t.Fatalf("%s content %s: %v", tool, res.Content, err)
		}
	}
	return res
}

func write(t *testing.T, path, content string, mtime time.Time) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput: destructive tools need a literal confirm:true, an unknown
// collection names the known ones, and nothing is deleted on a refusal.
func TestBadInput(t *testing.T) {
	inst, c := runtime(t)
	art := filepath.Join(inst.UserData, storage.ArtifactsDir, "keep.json")
	write(t, art, "{}", time.Now())
	tests := []struct {
		tool, args, field, msg string
	}{
		{"storage_clear_collection", `{"name":"artifacts"}`, "confirm", "missing required argument \"confirm\""},
		{"storage_clear_collection", `{"name":"artifacts","confirm":false}`, "confirm", "confirm: must be true"},
		{"storage_clear_collection", `{"name":"artifacts","confirm":"true"}`, "confirm", ""},
		{"storage_clear_collection", `{"name":"state","confirm":true}`, "name", "logs"},
		{"storage_delete_old_screenshots", `{"olderThanDays":30}`, "confirm", "missing required argument \"confirm\""},
		{"storage_delete_old_screenshots", `{"olderThanDays":0,"confirm":true}`, "olderThanDays", ""},
		{"storage_delete_old_screenshots", `{"olderThanDays":3651,"confirm":true}`, "olderThanDays", ""},
		{"storage_prune_stale_agent_sessions", `{"olderThanDays":30}`, "confirm", "missing required argument \"confirm\""},
		{"storage_read_collection", `{"name":"nope"}`, "name", "known collections: state, logs, audit, artifacts, screenshots"},
		{"storage_read_collection", `{"name":"state","limit":5001}`, "limit", ""},
		{"storage_export_support_bundle", `{"logsLimit":2001}`, "logsLimit", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.args, func(t *testing.T) {
			res := call(t, c, tt.tool, tt.args, nil)
			if res.OK || res.Error.Code != protocol.CodeValidation {
				t.Fatalf("%s %s = %+v, want VALIDATION_ERROR", tt.tool, tt.args, res)
			}
			details, _ := json.Marshal(res.Error.Details)
			if !strings.Contains(string(details), `"path":"`+tt.field) && !strings.Contains(string(details), `"path":"/`+tt.field) {
				t.Errorf("details %s do not name %s", details, tt.field)
			}
			if !strings.Contains(res.Error.Message, tt.msg) {
				t.Errorf("message %q lacks %q", res.Error.Message, tt.msg)
			}
		})
	}
	if _, err := os.Stat(art); err != nil {
		t.Errorf("a refused call deleted an artifact: %v", err)
	}
}

// TestListReadExport: the read-only tools over a real runtime's folder.
func TestListReadExport(t *testing.T) {
	inst, c := runtime(t)
	var list struct {
		DataDirectory string
		Collections   []storage.Info
	}
	call(t, c, "storage_list_collections", `{}`, &list)
	if list.DataDirectory != inst.UserData || len(list.Collections) != len(storage.Table) {
		t.Fatalf("storage_list_collections = %+v", list)
	}
	for _, col := range list.Collections {
		if col.Name == "state" && (!col.Exists || col.SizeBytes == 0) {
			t.Errorf("state collection = %+v, want it on disk", col)
		}
	}
	var read struct {
		Name    string
		Records []map[string]any
	}
	call(t, c, "storage_read_collection", `{"name":"audit","limit":1}`, &read)
	if read.Name != "audit" || len(read.Records) != 1 || read.Records[0]["toolName"] != "storage_list_collections" {
		t.Errorf("storage_read_collection audit = %+v, want the list call", read)
	}
	var exp struct {
		StateVersion  int
		DataDirectory string
		State         struct{ Spaces []any }
	}
	call(t, c, "storage_export_state", `{}`, &exp)
	if exp.StateVersion == 0 || exp.DataDirectory != inst.UserData || len(exp.State.Spaces) == 0 {
		t.Errorf("storage_export_state = %+v", exp)
	}
	var bundle struct {
		Path   string
		Bytes  int64
		Bundle struct{ Schema string }
	}
	res := call(t, c, "storage_export_support_bundle", `{"logsLimit":5}`, &bundle)
	fi, err := os.Stat(bundle.Path)
	if !res.OK || err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != bundle.Bytes || bundle.Bundle.Schema != storage.BundleSchema {
		t.Errorf("storage_export_support_bundle = %+v (%v, %v)", bundle, fi, err)
	}
}

// TestClearAudit: the cleared audit begins with the entry that records the
// clear, followed by the call's own entry.
func TestClearAudit(t *testing.T) {
	inst, c := runtime(t)
	for range 3 {
		call(t, c, "app_ping", `{}`, nil)
	}
	var r storage.ClearResult
	if res := call(t, c, "storage_clear_collection", `{"name":"audit","confirm":true}`, &r); !res.OK || r.DeletedFiles != 1 || r.DeletedBytes == 0 {
		t.Fatalf("clear audit = %+v %+v", res, r)
	}
	var read struct{ Records []map[string]any }
	call(t, c, "storage_read_collection", `{"name":"audit"}`, &read)
	if len(read.Records) != 2 || read.Records[0]["toolName"] != "storage_clear_collection" || read.Records[0]["caller"] != "cli" ||
		read.Records[1]["toolName"] != "storage_clear_collection" {
		t.Errorf("audit after the clear = %v, want the clear's entry first, then the call's", read.Records)
	}
	b, _ := os.ReadFile(filepath.Join(inst.UserData, storage.AuditFile))
	if strings.Contains(string(b), "app_ping") {
		t.Errorf("audit.jsonl still holds the pings")
	}
}

// TestClearArtifactsAndScreenshots: the artifacts clear and the screenshot
// age over real files, a link out of the artifacts kept whole.
func TestClearArtifactsAndScreenshots(t *testing.T) {
	inst, c := runtime(t)
	art := filepath.Join(inst.UserData, storage.ArtifactsDir)
	old := time.Now().Add(-60 * 24 * time.Hour)
	write(t, filepath.Join(art, "app-1.png"), "12345", old)
	write(t, filepath.Join(art, "app-2.png"), "1", time.Now())
	var shots storage.ScreenshotsResult
	call(t, c, "storage_delete_old_screenshots", `{"olderThanDays":30,"confirm":true}`, &shots)
	if shots.DeletedFiles != 1 || shots.DeletedBytes != 5 {
		t.Errorf("delete old screenshots = %+v, want app-1.png", shots)
	}
	outside := t.TempDir()
	write(t, filepath.Join(outside, "keep"), "precious", time.Now())
	if err := os.Symlink(outside, filepath.Join(art, "out")); err != nil {
		t.Fatal(err)
	}
	var r storage.ClearResult
	call(t, c, "storage_clear_collection", `{"name":"artifacts","confirm":true}`, &r)
	if r.Collection != "artifacts" || r.DeletedFiles != 2 {
		t.Errorf("clear artifacts = %+v, want 2 files (app-2.png and the link)", r)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "keep")); err != nil || string(b) != "precious" {
		t.Errorf("the file behind the link = %q, %v", b, err)
	}
}

// TestPruneKeepsRecent: a session changed today survives the prune.
func TestPruneKeepsRecent(t *testing.T) {
	inst, c := runtime(t)
	s, err := inst.Agents().Create(agent.CreateInput{Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var r storage.PruneResult
	call(t, c, "storage_prune_stale_agent_sessions", `{"olderThanDays":1,"confirm":true}`, &r)
	if r.Collection != "agent_sessions" || r.DeletedSessions != 0 || r.Cutoff == "" {
		t.Errorf("prune = %+v, want nothing deleted", r)
	}
	if _, err := inst.Agents().Session(s.ID); err != nil {
		t.Errorf("the recent session is gone: %v", err)
	}
}
