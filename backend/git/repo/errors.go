package repo

import (
	"errors"
	"strings"
)

// ArgumentError says that an argument of a git operation is missing, out
// of range or malformed. It is the one argument error of the git packages
// (history, stage, checkpoint): the tools report it as VALIDATION_ERROR.
type ArgumentError struct {
	// Field names the argument ("limit", "message"); empty when the
	// reason names it itself.
	Field  string
	Reason string
}

// Error implements error: "<field> <reason>", or the reason alone.
func (e *ArgumentError) Error() string {
	if e.Field == "" {
		return e.Reason
	}
	return e.Field + " " + e.Reason
}

// IsArgumentError reports whether err is an *ArgumentError.
func IsArgumentError(err error) bool {
	var ae *ArgumentError
	return errors.As(err, &ae)
}

// UnmergedError says that paths have unresolved merge conflicts in the
// index, which the operation cannot go past.
type UnmergedError struct {
	// Paths are the conflicted paths, repository-relative.
	Paths []string
	// WholeIndex is set when the operation needs an index without
	// conflicts (a commit, a branch switch); otherwise it refused to change
	// the conflicted paths it was given (restoring them, applying a patch
	// to them), which git words "path 'x' is unmerged".
	WholeIndex bool
}

// Error implements error.
func (e *UnmergedError) Error() string {
	if e.WholeIndex {
		return "the index has unresolved merge conflicts in: " + strings.Join(e.Paths, ", ")
	}
	if len(e.Paths) == 1 {
		return "path '" + e.Paths[0] + "' is unmerged"
	}
	return "paths '" + strings.Join(e.Paths, "', '") + "' are unmerged"
}

// IsUnmerged reports whether err is an *UnmergedError.
func IsUnmerged(err error) bool {
	var ue *UnmergedError
	return errors.As(err, &ue)
}
