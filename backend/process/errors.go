package process

import (
	"errors"
	"fmt"
)

// unknownError says a process id is not one the Manager knows.
type unknownError struct{ id string }

func (e *unknownError) Error() string { return "Unknown process: " + e.id }

// invalidError says the caller's input cannot be acted on (a cwd that is
// not a directory, an empty command, an unknown signal, a bad size).
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// errClosed is returned by starts after [Manager.Shutdown].
var errClosed = errors.New("process: the process manager is shut down")

// IsUnknown reports whether err says a process id is unknown.
func IsUnknown(err error) bool {
	var u *unknownError
	return errors.As(err, &u)
}

// IsInvalid reports whether err says the input was invalid (a cwd that is
// not an existing directory, an empty command, an unknown signal, a bad
// terminal size): the caller should report a validation error.
func IsInvalid(err error) bool {
	var v *invalidError
	return errors.As(err, &v)
}
