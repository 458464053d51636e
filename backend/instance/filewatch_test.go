package instance_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// TestEditorTabFolderIsWatched: opening an editor tab watches its folder;
// a change on disk there reaches the bus as files_changed, and closing the
// tab stops the watch. The file tools are registered and see the folder
// as a workspace root.
func TestEditorTabFolderIsWatched(t *testing.T) {
	inst := instancetest.New(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []hint.FilesChanged
	defer inst.Hints().Subscribe(func(p hint.Payload) {
		mu.Lock()
		got = append(got, p.(hint.FilesChanged))
		mu.Unlock()
	}, hint.TopicFiles)()
	renderer := protocol.ClientInfo{Caller: protocol.CallerRenderer, SessionID: "renderer"}
	do := func(tool, args string) json.RawMessage {
		t.Helper()
		res := inst.Registry().Call(context.Background(), registry.Request{RequestID: "req_t", ToolName: tool, Args: json.RawMessage(args), Client: renderer})
		if !res.OK {
			t.Fatalf("%s = %+v", tool, res.Error)
		}
		return res.Content
	}
	var tab struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(do("open_workspace_tab", `{"title":"editor","cwd":"`+dir+`","kind":"editor"}`), &tab); err != nil || tab.ID == "" {
		t.Fatalf("open_workspace_tab: %v %+v", err, tab)
	}
	waitFor(t, "the editor tab's folder to be watched", func() bool { return inst.FileWatch().Watching(dir) })
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "files_changed for a.txt", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(got, func(f hint.FilesChanged) bool {
			return f.Root == dir && slices.Contains(f.Paths, "a.txt") && f.Count == 1
		})
	})
	var list struct {
		Entries []struct {
			Path string `json:"path"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(do("workspace_list_files", `{"cwd":"`+dir+`"}`), &list); err != nil || len(list.Entries) != 1 || list.Entries[0].Path != "a.txt" {
		t.Errorf("workspace_list_files: %v %+v", err, list)
	}
	do("close_workspace_tab", `{"tabId":"`+tab.ID+`"}`)
	waitFor(t, "the folder to be let go", func() bool { return !inst.FileWatch().Watching(dir) })
}
