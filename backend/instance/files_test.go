package instance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// TestFileToolsFollowTheState: the file tools accept the folders of the
// spaces and workspace tabs as roots (and nothing else without
// allowOutside), announce their changes as files_changed hints, keep
// deleted files in the user data's trash, and confine an agent to its
// session's folder.
func TestFileToolsFollowTheState(t *testing.T) {
	inst := instancetest.New(t)
	base, _ := filepath.EvalSymlinks(t.TempDir())
	proj, other := filepath.Join(base, "proj"), filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(proj, "sub"), other} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(proj, "sub", "s.txt"), []byte("in sub"), 0o644)
	os.WriteFile(filepath.Join(other, "o.txt"), []byte("other"), 0o644)

	var mu sync.Mutex
	var got []hint.FilesChanged
	defer inst.Hints().Subscribe(func(p hint.Payload) {
		mu.Lock()
		got = append(got, p.(hint.FilesChanged))
		mu.Unlock()
	}, hint.TopicFiles)()

	call := func(who protocol.ClientInfo, tool string, args map[string]any) protocol.ToolResult {
		t.Helper()
		b, _ := json.Marshal(args)
		return inst.Registry().Call(context.Background(), registry.Request{ToolName: tool, Args: b, Client: who})
	}
	window := protocol.ClientInfo{Caller: protocol.CallerRenderer}
	ok := func(who protocol.ClientInfo, tool string, args map[string]any) map[string]any {
		t.Helper()
		res := call(who, tool, args)
		if !res.OK {
			t.Fatalf("%s(%v) = %+v", tool, args, res.Error)
		}
		var m map[string]any
		json.Unmarshal(res.Content, &m)
		return m
	}
	refused := func(who protocol.ClientInfo, tool string, args map[string]any, code protocol.ErrorCode) {
		t.Helper()
		if res := call(who, tool, args); res.OK || res.Error.Code != code {
			t.Fatalf("%s(%v) = %+v, want %s", tool, args, res, code)
		}
	}

	// Not a workspace yet.
	refused(window, "workspace_write_file", map[string]any{"cwd": proj, "path": "a.txt", "content": "x"}, protocol.CodeValidation)
	ok(window, "create_space", map[string]any{"name": "proj", "cwd": proj})
	w := ok(window, "workspace_write_file", map[string]any{"cwd": proj, "path": "a.txt", "content": "hello"})
	if w["created"] != true {
		t.Errorf("write = %v", w)
	}
	waitFor(t, "the files_changed hint", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(got, func(c hint.FilesChanged) bool {
			return c.Root == proj && slices.Equal(c.Paths, []string{"a.txt"}) && c.Count == 1
		})
	})

	// An open workspace tab's folder is a root too.
	refused(window, "workspace_read_file", map[string]any{"cwd": other, "path": "o.txt"}, protocol.CodeValidation)
	ok(window, "open_workspace_tab", map[string]any{"title": "other", "cwd": other, "kind": "editor"})
	if r := ok(window, "workspace_read_file", map[string]any{"cwd": other, "path": "o.txt"}); r["content"] != "other" {
		t.Errorf("read in a tab's folder = %v", r)
	}

	// Deleted files go to the user data's trash.
	d := ok(window, "workspace_delete_path", map[string]any{"cwd": proj, "path": "a.txt", "confirm": true})
	if to, _ := d["trashedTo"].(string); !strings.HasPrefix(to, filepath.Join(inst.UserData, instance.TrashDir)+"/") {
		t.Errorf("trashedTo = %v, want under %s", d["trashedTo"], inst.UserData)
	}
	ok(window, "workspace_undo", map[string]any{"cwd": proj, "path": "a.txt"})
	if b, _ := os.ReadFile(filepath.Join(proj, "a.txt")); string(b) != "hello" {
		t.Errorf("undone delete: a.txt = %q", b)
	}

	// An agent works in its session's folder only, even with allowOutside,
	// and needs the grant to write.
	sess, err := inst.Agents().Create(agent.CreateInput{Cwd: filepath.Join(proj, "sub")})
	if err != nil {
		t.Fatal(err)
	}
	ag := protocol.ClientInfo{Caller: protocol.CallerAgent, SessionID: sess.ID, Cwd: filepath.Join(proj, "sub")}
	if r := ok(ag, "workspace_read_file", map[string]any{"cwd": ".", "path": "s.txt"}); r["content"] != "in sub" {
		t.Errorf("agent read = %v", r)
	}
	refused(ag, "workspace_read_file", map[string]any{"cwd": proj, "path": "a.txt", "allowOutside": true}, protocol.CodeValidation)
	refused(ag, "workspace_read_file", map[string]any{"cwd": ".", "path": "../a.txt", "allowOutside": true}, protocol.CodeValidation)
	refused(ag, "workspace_read_file", map[string]any{"cwd": other, "path": "o.txt", "allowOutside": true}, protocol.CodeValidation)
	inst.Permissions().Grant(permission.Grant{Caller: protocol.CallerAgent, SessionID: sess.ID, Capabilities: []protocol.Capability{protocol.CapWritesFiles}})
	ok(ag, "workspace_write_file", map[string]any{"cwd": ".", "path": "by-agent.txt", "content": "a"})
	refused(ag, "workspace_write_file", map[string]any{"cwd": ".", "path": "../escape.txt", "content": "a", "allowOutside": true}, protocol.CodeValidation)
	if _, err := os.Stat(filepath.Join(proj, "escape.txt")); err == nil {
		t.Error("the agent wrote outside its session's folder")
	}

	// The CLI needs a grant (this runtime has none).
	refused(protocol.ClientInfo{Caller: protocol.CallerCLI, SessionID: "socket:1", Cwd: proj},
		"workspace_write_file", map[string]any{"cwd": ".", "path": "cli.txt", "content": "x"}, protocol.CodePermissionDenied)
}
