package project

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/meith-dev/meith/backend/process"
)

// FolderError is a project folder that cannot be used: Problem says why
// ("does not exist", "is not a folder", …).
type FolderError struct {
	Path    string
	Problem string
	Err     error
}

func (e *FolderError) Error() string {
	if e.Err != nil {
		return e.Path + " " + e.Problem + ": " + e.Err.Error()
	}
	return e.Path + " " + e.Problem
}

func (e *FolderError) Unwrap() error { return e.Err }

// UnknownProjectError is a project id that names no project.
type UnknownProjectError struct{ ID string }

func (e *UnknownProjectError) Error() string {
	return "Project " + e.ID + " not found (project_list lists the projects)"
}

// UnknownSpaceError is a space id that names no space.
type UnknownSpaceError struct{ ID string }

func (e *UnknownSpaceError) Error() string { return "Space " + e.ID + " not found" }

// SpaceTakenError is an open into a space that already holds another
// project.
type SpaceTakenError struct{ SpaceID, Project string }

func (e *SpaceTakenError) Error() string {
	return "space " + e.SpaceID + " already holds project " + e.Project + ": open the folder without spaceId to give it a space of its own"
}

// NoCommandError is a project with nothing to run.
type NoCommandError struct{ Project string }

func (e *NoCommandError) Error() string {
	return "no dev or start command found in " + e.Project + ": add one in Settings → Run (project_set_run_config)"
}

// InputError is an argument the service refuses: Field names it, Msg says
// what is wrong (never quoting the value).
type InputError struct{ Field, Msg string }

func (e *InputError) Error() string { return e.Field + " " + e.Msg }

// IsFolder reports whether err is a *FolderError.
func IsFolder(err error) bool { var e *FolderError; return errors.As(err, &e) }

// IsUnknownProject reports whether err is an *UnknownProjectError.
func IsUnknownProject(err error) bool { var e *UnknownProjectError; return errors.As(err, &e) }

// IsSpaceTaken reports whether err is a *SpaceTakenError.
func IsSpaceTaken(err error) bool { var e *SpaceTakenError; return errors.As(err, &e) }

// IsNoCommand reports whether err is a *NoCommandError.
func IsNoCommand(err error) bool { var e *NoCommandError; return errors.As(err, &e) }

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// ExitedAtOnceError is a run whose command ended with a failure within
// [StartGrace] of starting (a typo, a missing package, a port in use):
// the dev server stays listed (errored, with its output) so Output and
// Retry work, and the call that started it fails with the reason.
type ExitedAtOnceError struct {
	Server process.DevServer
	// Tail is the last lines of its output (secrets already redacted by
	// the process engine's log); LastOutput the last line the command
	// printed itself.
	Tail, LastOutput string
}

func (e *ExitedAtOnceError) Error() string {
	how := "failed"
	switch {
	case e.Server.ExitCode != nil:
		how = fmt.Sprintf("exited with code %d", *e.Server.ExitCode)
	case e.Server.Signal != nil:
		how = "was killed by " + *e.Server.Signal
	}
	msg := fmt.Sprintf("the run command %s at once (dev server %s)", how, e.Server.ID)
	if last := lastLine(e.LastOutput); last != "" {
		msg += ": " + last
	}
	return msg + "; see its output (get_process_logs) and fix the command in Settings → Run"
}

// IsExitedAtOnce reports whether err is an *ExitedAtOnceError.
func IsExitedAtOnce(err error) bool {
	var e *ExitedAtOnceError
	return errors.As(err, &e)
}

// lastLine is the last non-blank line of s, at most 200 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = strings.ToValidUTF8(l[:200], "") + "…"
	}
	return l
}
