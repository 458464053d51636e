package checkpoint

import (
	"errors"
	"fmt"
	"strings"
)

// UnknownCheckpointError says that no checkpoint (or revision) has the
// given name.
type UnknownCheckpointError struct{ ID string }

// Error implements error.
func (e *UnknownCheckpointError) Error() string { return "Unknown checkpoint: " + e.ID }

// IsUnknownCheckpoint reports whether err is an *UnknownCheckpointError.
func IsUnknownCheckpoint(err error) bool {
	var ue *UnknownCheckpointError
	return errors.As(err, &ue)
}

// InProgressError says that a checkpoint cannot be taken, or restored,
// while a merge, rebase, cherry-pick, revert or am is in progress or the
// index has unmerged paths: a checkpoint records the merged index entries
// and the worktree only, so restoring it would lose the operation's state
// (MERGE_HEAD and the like) and the conflict stages.
type InProgressError struct {
	// Operation is "merge", "rebase", "cherry-pick", "revert", "am",
	// "cherry-pick or revert sequence", or "" for unmerged paths without
	// any of them.
	Operation string
	// Marker is the file or directory of the git directory that shows the
	// operation ("MERGE_HEAD", "rebase-merge", …).
	Marker string
	// Unmerged are the unmerged paths (the first ones).
	Unmerged []string
	// More counts the unmerged paths beyond Unmerged.
	More int
	// Restore says the refused call was a restore.
	Restore bool
	// Then is what to do once the operation is over ("" for "take the
	// checkpoint", or "restore" for a restore).
	Then string
}

// Error implements error.
func (e *InProgressError) Error() string {
	var b strings.Builder
	if e.Operation == "" {
		b.WriteString("The index has unmerged paths")
	} else {
		fmt.Fprintf(&b, "A %s is in progress (%s exists", e.Operation, e.Marker)
	}
	if len(e.Unmerged) > 0 {
		if e.Operation == "" {
			b.WriteString(" (")
		} else {
			b.WriteString("; unmerged: ")
		}
		b.WriteString(strings.Join(e.Unmerged, ", "))
		if e.More > 0 {
			fmt.Fprintf(&b, " and %d more", e.More)
		}
		b.WriteString(")")
	} else if e.Operation != "" {
		b.WriteString(")")
	}
	var state string
	switch {
	case e.Operation == "":
		state = "the conflict stages"
	case len(e.Unmerged) == 0:
		state = "the " + e.Operation + " state (" + e.Marker + ")"
	default:
		state = "the " + e.Operation + " state (" + e.Marker + ") and the conflict stages"
	}
	if e.Restore {
		fmt.Fprintf(&b, ": restoring a checkpoint replaces the index and the files, which would lose %s, "+
			"and the checkpoint of the present state taken first could not keep that. Nothing was changed. ", state)
	} else {
		fmt.Fprintf(&b, ": a checkpoint records only the worktree and the merged index entries, so restoring it would lose %s. "+
			"No checkpoint was taken. ", state)
	}
	b.WriteString(e.advice())
	return b.String()
}

// advice says how to leave the state.
func (e *InProgressError) advice() string {
	then := e.Then
	switch {
	case then != "":
	case e.Restore:
		then = "restore"
	default:
		then = "take the checkpoint"
	}
	switch e.Operation {
	case "merge":
		return "Conclude the merge first (resolve the conflicts, stage the files and commit) or abort it (git merge --abort), then " + then + "."
	case "rebase":
		return "Finish the rebase first (resolve, stage, git rebase --continue) or abort it (git rebase --abort), then " + then + "."
	case "am":
		return "Finish applying the patches first (git am --continue) or abort (git am --abort), then " + then + "."
	case "cherry-pick", "revert":
		return "Conclude the " + e.Operation + " first (resolve, stage, git " + e.Operation + " --continue) or abort it (git " + e.Operation + " --abort), then " + then + "."
	case "cherry-pick or revert sequence":
		return "Continue it (git cherry-pick --continue or git revert --continue) or end it (--quit or --abort), then " + then + "."
	}
	return "Resolve the conflicts and stage the files first, then " + then + "."
}

// IsInProgress reports whether err is an *InProgressError.
func IsInProgress(err error) bool {
	var e *InProgressError
	return errors.As(err, &e)
}
