package instance

import (
	"path/filepath"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/tools/filetools"
)

// TrashDir is the folder under the user data dir that workspace_delete_path
// moves deleted files and folders to (kept 7 days and 500 MB).
const TrashDir = "trash"

// newFiles builds the file engine behind the file tools. Its boundary
// follows the state (every space's folder and every workspace tab's
// folder are workspace roots) and the agent sessions (an agent is confined
// to its session's folder); each change it makes is published as a
// files_changed hint. The trash a previous run left is pruned.
func (i *Instance) newFiles() *files.Engine {
	e := files.New(files.Options{
		Boundary: files.Boundary{Roots: i.workspaceRoots, SessionFolder: i.sessionFolder},
		TrashDir: filepath.Join(i.paths.UserData, TrashDir),
		OnChange: i.publishFilesChange,
	})
	e.PruneTrash() // what a previous run left: 7 days and 500 MB
	return e
}

// workspaceRoots lists the folders of the spaces and of the workspace tabs.
func (i *Instance) workspaceRoots() []string {
	snap := i.state.Get()
	roots := make([]string, 0, len(snap.Spaces)+len(snap.WorkspaceTabs))
	for _, sp := range snap.Spaces {
		if sp.Cwd != "" {
			roots = append(roots, sp.Cwd)
		}
	}
	for _, t := range snap.WorkspaceTabs {
		if t.Cwd != "" {
			roots = append(roots, t.Cwd)
		}
	}
	return roots
}

// sessionFolder is the folder of an agent session.
func (i *Instance) sessionFolder(sessionID string) (string, bool) {
	if i.agents == nil {
		return "", false
	}
	s, err := i.agents.Session(sessionID)
	if err != nil || s.Cwd == "" {
		return "", false
	}
	return s.Cwd, true
}

// publishFilesChange is the file engine's OnChange: the change goes
// through the file watcher (reportFilesChange), which publishes it once as
// a files_changed hint and to workspace_watch, and drops its own echo.
func (i *Instance) publishFilesChange(c files.Change) {
	i.reportFilesChange(c.Root, c.Kind, c.Paths)
}

// registerFileTools adds the workspace file tools.
func (i *Instance) registerFileTools() {
	filetools.Register(i.reg, filetools.Deps{Files: i.files, Watch: i.fileWatch, Diagnostics: i.lsp, OpenFiles: i.editorOpenFiles})
}

// Files returns the file engine behind the workspace file tools.
func (i *Instance) Files() *files.Engine { return i.files }
