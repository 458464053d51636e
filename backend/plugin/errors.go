package plugin

import (
	"errors"
	"fmt"
)

// Code is the kind of a plugin [Error], as the original's PluginError
// codes. The tools map PERMISSION_DENIED to PERMISSION_DENIED and the rest
// to TOOL_FAILED (reference §3.9).
type Code string

// The codes of [Error].
const (
	// CodeInvalid: a manifest, a folder, an archive or a URL that breaks
	// the rules of reference §8.
	CodeInvalid Code = "INVALID"
	// CodeNotFound: no such plugin, folder, archive, or a dev server that
	// does not answer.
	CodeNotFound Code = "NOT_FOUND"
	// CodeNotEnabled: the plugin is installed but disabled.
	CodeNotEnabled Code = "NOT_ENABLED"
	// CodePermissionDenied: enabling a plugin whose requested API scopes
	// are not all approved.
	CodePermissionDenied Code = "PERMISSION_DENIED"
)

// Error is an error of the plugin service. Msg is for people and never
// quotes file contents.
type Error struct {
	Code Code
	Msg  string
	Err  error // the cause, if any
}

// Error implements error.
func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// CodeOf returns the code of err's [*Error], or "" when it has none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func invalidf(format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Msg: fmt.Sprintf(format, args...)}
}

func notFoundf(format string, args ...any) *Error {
	return &Error{Code: CodeNotFound, Msg: fmt.Sprintf(format, args...)}
}

// notInstalled is the error for an id that names no installed plugin.
func notInstalled(id string) *Error {
	return notFoundf("Plugin %s is not installed (list_plugins lists the installed plugins)", id)
}

// ErrNoTabs is the error of [Service.OpenTab] while no tab layer is wired
// ([Service.SetTabs]).
var ErrNoTabs = errors.New("plugin tabs are not available yet in this build of meith")
