package instance

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// editorRootsOwner is the name the instance holds the editor tabs' roots
// under on the file watcher.
const editorRootsOwner = "editor-tabs"

// newFileWatch builds the file watcher of open workspaces.
func (i *Instance) newFileWatch() *fswatch.Hub {
	return fswatch.New(fswatch.Options{Logf: func(format string, args ...any) {
		i.log.Logf(protocol.LevelWarn, "files", format, args...)
	}})
}

// followEditorRoots keeps the file watcher on the folder of every open
// editor tab (its cwd, or its space's folder) as the state changes, on a
// goroutine of its own (watching a large folder takes a walk: the call
// that opened the tab does not wait for it). stop ends it.
func (i *Instance) followEditorRoots() (stop func()) {
	kick := make(chan struct{}, 1)
	done := make(chan struct{})
	ended := make(chan struct{})
	poke := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	cancel := i.state.Subscribe(func(c state.Change) {
		if c.Kind == state.ChangeTabs || c.Kind == state.ChangeSpaces {
			poke()
		}
	})
	go func() {
		defer close(ended)
		for {
			select {
			case <-done:
				return
			case <-kick:
				i.fileWatch.SetRoots(editorRootsOwner, editorRoots(i.state.Get()))
			}
		}
	}()
	poke()
	return func() {
		cancel()
		close(done)
		<-ended
	}
}

// editorRoots lists the folders of the open editor tabs.
func editorRoots(st state.State) []string {
	spaceCwd := map[string]string{}
	for _, sp := range st.Spaces {
		spaceCwd[sp.ID] = sp.Cwd
	}
	var roots []string
	for _, t := range st.WorkspaceTabs {
		if t.Kind != state.KindEditor {
			continue
		}
		root := t.Cwd
		if root == "" {
			root = spaceCwd[t.SpaceID]
		}
		if root != "" && filepath.IsAbs(root) && !slices.Contains(roots, root) {
			roots = append(roots, root)
		}
	}
	return roots
}

// reportFilesChange announces a change the file tools made under root
// (paths relative to it; for kind "rename" the old path, then the new
// one) through the file watcher, which drops its own echo of it: the hint
// bus and workspace_watch hear of every change once. The file engine's
// change notice is routed here.
func (i *Instance) reportFilesChange(root, kind string, paths []string) {
	changes := make([]fswatch.Change, 0, len(paths))
	for n, p := range paths {
		k := kind
		if kind == fswatch.KindRename && n > 0 {
			// The new name: a file or a folder, as the watcher says it.
			k = fswatch.KindCreate
			if fi, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil && fi.IsDir() {
				k = fswatch.KindMkdir
			}
		}
		changes = append(changes, fswatch.Change{Kind: k, Path: p})
	}
	i.fileWatch.Report(root, changes...)
}

// FileWatch returns the watcher of open workspaces: the window holds the
// roots it shows with Watch, and hears their changes as "files_changed".
func (i *Instance) FileWatch() *fswatch.Hub { return i.fileWatch }
