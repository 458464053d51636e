package history

import (
	"errors"
	"fmt"
	"strings"
)

// InvalidBranchNameError says that a name is not a valid branch name, by
// the rules of `git check-ref-format --branch`.
type InvalidBranchNameError struct {
	Name   string
	Reason string
}

// Error implements error.
func (e *InvalidBranchNameError) Error() string {
	return fmt.Sprintf("%q is not a valid branch name: %s", e.Name, e.Reason)
}

// IsInvalidBranchName reports whether err is an *InvalidBranchNameError.
func IsInvalidBranchName(err error) bool { return isType[*InvalidBranchNameError](err) }

// BranchExistsError says that a branch to be created already exists (or a
// ref of that name would clash with an existing one).
type BranchExistsError struct {
	Name string
	// Conflict is set when an existing ref blocks the name as a directory
	// or a file (refs/heads/a blocks refs/heads/a/b and the other way round).
	Conflict string
}

// Error implements error.
func (e *BranchExistsError) Error() string {
	if e.Conflict != "" {
		return fmt.Sprintf("cannot create branch %q: it clashes with the existing branch %q", e.Name, e.Conflict)
	}
	return fmt.Sprintf("a branch named %q already exists", e.Name)
}

// IsBranchExists reports whether err is a *BranchExistsError.
func IsBranchExists(err error) bool { return isType[*BranchExistsError](err) }

// UnknownRevisionError says that a branch, tag or commit could not be found.
type UnknownRevisionError struct{ Rev string }

// Error implements error.
func (e *UnknownRevisionError) Error() string {
	return fmt.Sprintf("%q is not a branch, tag or commit in this repository", e.Rev)
}

// IsUnknownRevision reports whether err is an *UnknownRevisionError.
func IsUnknownRevision(err error) bool { return isType[*UnknownRevisionError](err) }

// BranchCheckedOutError says that a branch is already checked out in
// another worktree, which git refuses (two worktrees on one branch would
// fight over it).
type BranchCheckedOutError struct {
	Branch string
	Path   string
}

// Error implements error.
func (e *BranchCheckedOutError) Error() string {
	return fmt.Sprintf("branch %q is already checked out at %s", e.Branch, e.Path)
}

// IsBranchCheckedOut reports whether err is a *BranchCheckedOutError.
func IsBranchCheckedOut(err error) bool { return isType[*BranchCheckedOutError](err) }

// WouldOverwriteError refuses a switch that would overwrite local changes
// (staged, unstaged or untracked) to the listed files.
type WouldOverwriteError struct{ Files []string }

// Error implements error, in the words git uses.
func (e *WouldOverwriteError) Error() string {
	return "Your local changes to the following files would be overwritten by checkout:\n\t" +
		strings.Join(e.Files, "\n\t") +
		"\nPlease commit your changes or stash them before you switch branches."
}

// IsWouldOverwrite reports whether err is a *WouldOverwriteError.
func IsWouldOverwrite(err error) bool { return isType[*WouldOverwriteError](err) }

// DirtyWorktreeError refuses to remove a worktree with local changes
// unless the caller confirms.
type DirtyWorktreeError struct {
	Path  string
	Files []string
}

// Error implements error.
func (e *DirtyWorktreeError) Error() string {
	shown := e.Files
	more := ""
	if len(shown) > 10 {
		more = fmt.Sprintf("\n\t… and %d more", len(shown)-10)
		shown = shown[:10]
	}
	return fmt.Sprintf("worktree %s has local changes (pass confirm to remove it anyway):\n\t%s%s",
		e.Path, strings.Join(shown, "\n\t"), more)
}

// IsDirtyWorktree reports whether err is a *DirtyWorktreeError.
func IsDirtyWorktree(err error) bool { return isType[*DirtyWorktreeError](err) }

// WorktreeError refuses a worktree operation (the main worktree, a path
// that is not a worktree, a locked worktree, a non-empty target directory).
type WorktreeError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *WorktreeError) Error() string { return fmt.Sprintf("worktree %s: %s", e.Path, e.Reason) }

// IsWorktreeError reports whether err is a *WorktreeError.
func IsWorktreeError(err error) bool { return isType[*WorktreeError](err) }

// NoIdentityError says that no commit identity is configured.
type NoIdentityError struct{ Missing string }

// Error implements error.
func (e *NoIdentityError) Error() string {
	what := "user.name and user.email are"
	if e.Missing != "" {
		what = e.Missing + " is"
	}
	return "No commit identity: " + what + " not set. Set an identity profile in Settings → Git " +
		"or run git config --global user.email \"you@example.com\" and git config --global user.name \"Your Name\"."
}

// IsNoIdentity reports whether err is a *NoIdentityError.
func IsNoIdentity(err error) bool { return isType[*NoIdentityError](err) }

// ErrNothingToCommit is returned when the index matches HEAD.
var ErrNothingToCommit = errors.New("Nothing to commit: stage changes first")

// IsNothingToCommit reports whether err says that nothing is staged.
func IsNothingToCommit(err error) bool { return errors.Is(err, ErrNothingToCommit) }

// LockedError says that another git process holds a lock file.
type LockedError struct{ Path string }

// Error implements error.
func (e *LockedError) Error() string {
	return fmt.Sprintf("%s exists: another git process seems to be running in this repository; "+
		"if not, remove the file and try again", e.Path)
}

// IsLocked reports whether err is a *LockedError.
func IsLocked(err error) bool { return isType[*LockedError](err) }

// StaleRefError says that a ref moved while it was being updated.
type StaleRefError struct{ Ref string }

// Error implements error.
func (e *StaleRefError) Error() string {
	return fmt.Sprintf("%s changed while it was being updated; try again", e.Ref)
}

// IsStaleRef reports whether err is a *StaleRefError.
func IsStaleRef(err error) bool { return isType[*StaleRefError](err) }

// LineRangeError refuses a blame line range outside the file.
type LineRangeError struct {
	Path       string
	Start, End int
	Lines      int
}

// Error implements error.
func (e *LineRangeError) Error() string {
	return fmt.Sprintf("line range %d-%d is outside %s, which has %d lines", e.Start, e.End, e.Path, e.Lines)
}

// IsLineRange reports whether err is a *LineRangeError.
func IsLineRange(err error) bool { return isType[*LineRangeError](err) }

// FileNotFoundError says that a path to blame is not in the worktree or
// in HEAD.
type FileNotFoundError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *FileNotFoundError) Error() string { return fmt.Sprintf("%s: %s", e.Path, e.Reason) }

// IsFileNotFound reports whether err is a *FileNotFoundError.
func IsFileNotFound(err error) bool { return isType[*FileNotFoundError](err) }

// UnsupportedError says that the repository uses a feature these tools do
// not implement (so they refuse rather than corrupt it).
type UnsupportedError struct{ Feature string }

// Error implements error.
func (e *UnsupportedError) Error() string {
	return "this repository uses " + e.Feature + ", which meith's git engine does not support"
}

// IsUnsupported reports whether err is an *UnsupportedError.
func IsUnsupported(err error) bool { return isType[*UnsupportedError](err) }

func isType[T error](err error) bool {
	var target T
	return errors.As(err, &target)
}
