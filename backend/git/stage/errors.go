package stage

import (
	"errors"
	"fmt"
	"strings"
)

// PathspecError says that a path argument matched nothing the operation
// could act on, or names something it cannot handle.
type PathspecError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *PathspecError) Error() string { return fmt.Sprintf("pathspec '%s' %s", e.Path, e.Reason) }

// IsPathspecError reports whether err is a *PathspecError.
func IsPathspecError(err error) bool {
	var pe *PathspecError
	return errors.As(err, &pe)
}

// IgnoredError says that paths named explicitly are ignored by a
// .gitignore (or info/exclude, core.excludesFile) and not tracked, so they
// were not staged. As with `git add`, the other paths were staged.
type IgnoredError struct{ Paths []string }

// Error implements error.
func (e *IgnoredError) Error() string {
	return "the following paths are ignored by one of your .gitignore files and were not staged: " +
		strings.Join(e.Paths, ", ")
}

// IsIgnoredError reports whether err is an *IgnoredError.
func IsIgnoredError(err error) bool {
	var ie *IgnoredError
	return errors.As(err, &ie)
}
