// Package files is the workspace file engine behind the file tools: the
// boundary that decides which paths a call may touch, and (in the files
// of this package) reading, writing, patching, undoing, renaming, deleting,
// listing and searching workspace files, each change announced to the
// runtime.
//
// The boundary model (reference §3.6, refined):
//
//   - A call names a cwd. Without allowOutside it must be a known workspace
//     root (a space's folder or an open workspace tab's folder) or a folder
//     inside one; that root is the boundary. With allowOutside any folder is
//     accepted and the boundary is dropped.
//   - An agent caller is confined to its session's folder whatever it asks:
//     the session folder is the boundary and allowOutside is ignored.
//   - A target is resolved against the cwd (absolute paths are taken as
//     they are) and canonicalised: the deepest existing ancestor is resolved
//     with realpath (symbolic links followed) and the rest appended, so a
//     link that leads out of the boundary, or a new file under a linked
//     folder that does, is refused like "../..".
//   - Paths with NUL bytes, and targets that are not inside the boundary,
//     are refused with a *PathError (VALIDATION_ERROR for the tools).
package files

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/meith-dev/meith/backend/protocol"
)

// Boundary decides which paths a file tool call may touch. Its funcs are
// read at each call, so roots follow the state as it changes.
type Boundary struct {
	// Roots lists the known workspace roots: the spaces' folders and the
	// open workspace tabs' folders (absolute; they need not exist).
	Roots func() []string
	// SessionFolder returns the folder of an agent session; ok false for an
	// unknown session (its calls are refused).
	SessionFolder func(sessionID string) (folder string, ok bool)
}

// Scope is what a call may touch, resolved once per call by
// [Boundary.Scope]: its working folder and the boundary around it.
type Scope struct {
	// Cwd is the call's working folder, canonical.
	Cwd string
	// Root is the boundary: the canonical workspace root that holds Cwd
	// (the agent session's folder for an agent); "" when allowOutside
	// dropped it.
	Root string
}

// Target is a path resolved inside a [Scope].
type Target struct {
	// Abs is the canonical absolute path (symbolic links of its existing
	// ancestors resolved).
	Abs string
	// Rel is Abs relative to the scope's Root (or Cwd without a root),
	// with forward slashes; "." for the root itself.
	Rel string
}

// PathError reports a path a call may not use: outside the boundary,
// malformed, or an unknown workspace. See [IsPathError].
type PathError struct {
	Field  string // the argument ("cwd", "path", "newPath")
	Reason string
}

// Error implements error.
func (e *PathError) Error() string { return e.Field + ": " + e.Reason }

// IsPathError reports whether err is a *[PathError].
func IsPathError(err error) bool {
	var pe *PathError
	return errors.As(err, &pe)
}

// Scope resolves the working folder of a call by caller (its Caller and
// SessionID decide agent confinement). cwd must be absolute (resolve it
// with registry.Call.Path first).
func (b Boundary) Scope(caller protocol.ClientInfo, cwd string, allowOutside bool) (Scope, error) {
	if cwd == "" {
		return Scope{}, &PathError{Field: "cwd", Reason: "is required: the workspace folder the path is resolved against"}
	}
	if strings.IndexByte(cwd, 0) >= 0 {
		return Scope{}, &PathError{Field: "cwd", Reason: "contains a NUL byte"}
	}
	if !filepath.IsAbs(cwd) {
		return Scope{}, &PathError{Field: "cwd", Reason: "must be an absolute folder"}
	}
	canon, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Scope{}, &PathError{Field: "cwd", Reason: "no such folder: " + cwd}
		}
		return Scope{}, &PathError{Field: "cwd", Reason: "cannot be read: " + pathErrText(err)}
	}
	if fi, err := os.Stat(canon); err != nil || !fi.IsDir() {
		return Scope{}, &PathError{Field: "cwd", Reason: "is not a folder: " + cwd}
	}

	if caller.Caller == protocol.CallerAgent {
		folder, ok := "", false
		if b.SessionFolder != nil {
			folder, ok = b.SessionFolder(caller.SessionID)
		}
		if !ok || folder == "" {
			return Scope{}, &PathError{Field: "cwd", Reason: "the agent session has no folder: file tools are confined to it"}
		}
		root, err := filepath.EvalSymlinks(folder)
		if err != nil {
			return Scope{}, &PathError{Field: "cwd", Reason: "the agent session's folder cannot be read: " + pathErrText(err)}
		}
		if !within(root, canon) {
			return Scope{}, &PathError{Field: "cwd", Reason: fmt.Sprintf("is outside the agent session's folder %s (agents are confined to it)", root)}
		}
		return Scope{Cwd: canon, Root: root}, nil
	}

	if root := b.rootOf(canon); root != "" {
		return Scope{Cwd: canon, Root: root}, nil
	}
	if allowOutside {
		return Scope{Cwd: canon}, nil
	}
	return Scope{}, &PathError{Field: "cwd", Reason: "Untracked workspace cwd: " + cwd +
		" is not a space's folder or an open workspace tab's folder (open it as a space, or pass allowOutside: true)"}
}

// rootOf returns the innermost known root that holds dir (canonical), or "".
func (b Boundary) rootOf(dir string) string {
	if b.Roots == nil {
		return ""
	}
	best := ""
	for _, r := range b.Roots() {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		canon, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if within(canon, dir) && len(canon) > len(best) {
			best = canon
		}
	}
	return best
}

// Resolve resolves path (relative to the scope's Cwd, or absolute) for
// field, canonicalised and checked against the boundary. The target need
// not exist.
func (s Scope) Resolve(field, path string) (Target, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return Target{}, &PathError{Field: field, Reason: "contains a NUL byte"}
	}
	p := path
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Cwd, p)
	}
	abs, err := canonical(filepath.Clean(p))
	if err != nil {
		return Target{}, &PathError{Field: field, Reason: "cannot be resolved: " + pathErrText(err)}
	}
	base := s.Root
	if base == "" {
		base = s.Cwd
	}
	if s.Root != "" && !within(s.Root, abs) {
		return Target{}, &PathError{Field: field, Reason: fmt.Sprintf("%s is outside the workspace %s", path, s.Root)}
	}
	rel, err := filepath.Rel(base, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		rel = abs // outside the cwd with allowOutside: keep it absolute
	}
	return Target{Abs: abs, Rel: filepath.ToSlash(rel)}, nil
}

// ResolveLink is Resolve without following a symbolic link in the last
// component: the link itself is the target (for renaming or deleting it).
// Links among the ancestors are still followed and checked.
func (s Scope) ResolveLink(field, path string) (Target, error) {
	if strings.IndexByte(path, 0) >= 0 {
		return Target{}, &PathError{Field: field, Reason: "contains a NUL byte"}
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.Cwd, p)
	}
	p = filepath.Clean(p)
	dir, err := s.Resolve(field, filepath.Dir(p))
	if err != nil {
		return Target{}, err
	}
	abs := filepath.Join(dir.Abs, filepath.Base(p))
	if s.Root != "" && (abs == s.Root || !within(s.Root, abs)) {
		return Target{}, &PathError{Field: field, Reason: fmt.Sprintf("%s is outside the workspace %s", path, s.Root)}
	}
	rel := filepath.Base(p)
	if dir.Rel != "." {
		rel = dir.Rel + "/" + rel
	}
	return Target{Abs: abs, Rel: rel}, nil
}

// canonical resolves the deepest existing ancestor of p with realpath and
// appends the rest, so links anywhere on the way are followed.
func canonical(p string) (string, error) {
	var rest []string
	cur := p
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// within reports whether p is root or inside it (both canonical).
func within(root, p string) bool {
	if root == p {
		return true
	}
	if root == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// pathErrText is an error's text without its Op (the paths it names are
// the caller's own).
func pathErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
