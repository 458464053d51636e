package checkpoint

import (
	"os"
	"path/filepath"

	"github.com/meith-dev/meith/backend/git/status"
)

// operationMarkers are the files and directories of a worktree's git
// directory that show an operation in progress. A rebase comes first: it
// is the operation to finish even when one of its steps stopped as a
// merge or a pick would.
var operationMarkers = []struct{ marker, operation string }{
	{"rebase-merge", "rebase"},
	{"rebase-apply/applying", "am"},
	{"rebase-apply", "rebase"},
	{"MERGE_HEAD", "merge"},
	{"CHERRY_PICK_HEAD", "cherry-pick"},
	{"REVERT_HEAD", "revert"},
	{"sequencer", "cherry-pick or revert sequence"},
}

// maxNamedUnmerged is how many unmerged paths an InProgressError names.
const maxNamedUnmerged = 5

// checkNoOperation refuses (with an *InProgressError) when an operation is
// in progress in r's worktree or ix has unmerged paths. Only the presence
// of the markers is checked (Lstat), never their content.
func checkNoOperation(gitDir string, ix *status.Index, restore bool) error {
	e := &InProgressError{Restore: restore}
	for _, m := range operationMarkers {
		if _, err := os.Lstat(filepath.Join(gitDir, filepath.FromSlash(m.marker))); err == nil {
			e.Operation, e.Marker = m.operation, m.marker
			break
		}
	}
	if ix != nil {
		for i, en := range ix.Entries {
			if en.Stage == 0 || i > 0 && ix.Entries[i-1].Path == en.Path {
				continue
			}
			if len(e.Unmerged) < maxNamedUnmerged {
				e.Unmerged = append(e.Unmerged, en.Path)
			} else {
				e.More++
			}
		}
	}
	if e.Operation == "" && len(e.Unmerged) == 0 {
		return nil
	}
	return e
}
