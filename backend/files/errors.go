package files

import (
	"errors"
	"fmt"
)

// ArgError reports an argument other than a path that a call may not use:
// an edit out of bounds, content over the size limit, a missing
// confirmation. The tools answer VALIDATION_ERROR naming Field. See
// [IsArgError].
type ArgError struct {
	Field  string // the argument ("edits[2].start", "content", "confirm")
	Reason string
}

// Error implements error.
func (e *ArgError) Error() string { return e.Field + ": " + e.Reason }

// IsArgError reports whether err is an *[ArgError].
func IsArgError(err error) bool {
	var ae *ArgError
	return errors.As(err, &ae)
}

// ErrorKind says what kind of failure an [*Error] is.
type ErrorKind string

// The kinds of [Error].
const (
	// KindNotFound: the file or folder does not exist.
	KindNotFound ErrorKind = "not_found"
	// KindExists: the destination exists (rename without overwrite, a
	// folder where a file is).
	KindExists ErrorKind = "exists"
	// KindBinary: the file is not UTF-8 text.
	KindBinary ErrorKind = "binary"
	// KindConflict: the file changed on disk since the caller read it (or
	// since the edit an undo would revert), or while the operation ran.
	KindConflict ErrorKind = "conflict"
	// KindTooLarge: the file is over a limit of the operation.
	KindTooLarge ErrorKind = "too_large"
	// KindNotUndoable: the newest change of the file cannot be undone (its
	// previous content was too large to keep, or its trashed copy is gone).
	KindNotUndoable ErrorKind = "not_undoable"
	// KindIO: the system refused (permissions, a full disk, …).
	KindIO ErrorKind = "io"
)

// Error is a failure of a file operation that is not the caller's
// argument: a binary file, a change on disk, a missing file, a full disk.
// Msg is written for a person and says what to do; the tools answer
// TOOL_FAILED with it. See [IsKind].
type Error struct {
	Kind ErrorKind
	Msg  string
	Err  error // the underlying error, if any
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// IsKind reports whether err is an *[Error] of kind k.
func IsKind(err error, k ErrorKind) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Kind == k
}

// IsBinary reports whether err says the file is not text.
func IsBinary(err error) bool { return IsKind(err, KindBinary) }

// IsConflict reports whether err says the file changed on disk.
func IsConflict(err error) bool { return IsKind(err, KindConflict) }

// IsNotFound reports whether err says the file does not exist.
func IsNotFound(err error) bool { return IsKind(err, KindNotFound) }

// failf makes an *Error of kind k.
func failf(k ErrorKind, err error, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ioFail makes the KindIO error of an operation on rel.
func ioFail(op, rel string, err error) *Error {
	return failf(KindIO, err, "%s %s: %s", op, rel, pathErrText(err))
}
