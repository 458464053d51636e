// Package filetools registers the workspace file tools over the file
// engine (backend/files) and its packages: workspace_read_file,
// workspace_write_file, workspace_apply_patch, workspace_undo (the
// original's), and workspace_rename_path, workspace_delete_path and
// workspace_make_dir (beyond it) in edit.go; workspace_list_files,
// workspace_search and workspace_watch (backend/files/find and
// backend/files/fswatch) in find.go; get_diagnostics (the language
// servers of backend/lsp) in diagnostics.go.
//
// Every tool takes cwd, the workspace folder its paths are resolved
// against (resolved with registry.Call.Path, so "." and "~" work from the
// CLI), and allowOutside. The boundary model is [files.Boundary]: cwd must
// be a known workspace root or a folder inside one unless allowOutside;
// targets are canonicalised and must stay inside it; agents are confined
// to their session's folder whatever they ask. A path the boundary refuses,
// or an argument the engine refuses, is VALIDATION_ERROR naming the
// argument; a binary file, a change on disk, a full disk is TOOL_FAILED
// with details.reason (the engine's [files.ErrorKind]).
package filetools

import (
	"errors"
	"time"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/lsp"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Deps is what the file tools need.
type Deps struct {
	// Files is the file engine; it holds the boundary.
	Files *files.Engine
	// Watch is the file watcher: workspace_watch holds its cwd on it.
	// Nil gives the tools a hub of their own.
	Watch *fswatch.Hub
	// Diagnostics runs the language servers of get_diagnostics.
	Diagnostics *lsp.Manager
	// OpenFiles returns the files open in the editor tabs of the workspace
	// at root (absolute paths; those of tabs whose folder is root or
	// inside it). nil means none.
	OpenFiles func(root string) []string
}

// DiagnosticsTimeout is get_diagnostics' (idle) timeout: a first gopls
// load can take a while, and its progress keeps the call alive.
const DiagnosticsTimeout = 2 * time.Minute

// watchTimeout is workspace_watch's idle timeout: it follows a workspace
// until cancelled.
const watchTimeout = 365 * 24 * time.Hour

// deleteTimeout bounds a delete: a large folder moved to a trash on
// another file system is copied.
const deleteTimeout = 5 * time.Minute

// Register adds the file tools to r.
func Register(r *registry.Registry, d Deps) {
	if d.Watch == nil {
		d.Watch = fswatch.New(fswatch.Options{})
	}
	t := &tools{d: d}
	diag := &diagnostics{boundary: d.Files.Boundary(), servers: d.Diagnostics, openFiles: d.OpenFiles}
	writesFiles := protocol.WritesFiles()
	registry.RegisterAll(r, []registry.Def{
		{Name: "workspace_read_file", Description: "Read a UTF-8 text file inside the workspace (at most 2 MB: a longer file comes back cut at a character boundary with truncated: true). Returns its content, size, modification time (mtimeMs, for expectedMtimeMs) and mode. Binary files and paths outside the workspace boundary are refused.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.readFile)},
		{Name: "workspace_write_file", Description: "Write (create or replace) a UTF-8 text file inside the workspace, atomically (a temporary file renamed into place; an existing file keeps its mode). Pass expectedMtimeMs (from a read) to refuse overwriting a change made on disk since. Returns undo metadata; workspace_undo reverts it.",
			Capabilities: writesFiles, Handler: registry.Handle(t.writeFile)},
		{Name: "workspace_apply_patch", Description: "Apply non-overlapping range edits {start, end, newText} to a text file; offsets count UTF-16 code units of the current content (as JavaScript does) and must not split a surrogate pair. The edits are validated and applied all or nothing, atomically. Returns the content before and after and undo metadata.",
			Capabilities: writesFiles, Handler: registry.Handle(t.applyPatch)},
		{Name: "workspace_undo", Description: "Revert the newest change made to a file through the file tools: a write or patch gets its previous content back (a file the write created is deleted), a rename is moved back, a delete is restored from meith's trash. Undo depth 50 per file, kept while the runtime runs. A file changed since by another program is left alone. Returns {undone: null} when there is nothing to undo.",
			Capabilities: writesFiles, Handler: registry.Handle(t.undo)},
		{Name: "workspace_rename_path", Description: "Rename or move a file, folder or symbolic link (the link itself) inside the workspace, making the new path's missing folders. An existing newPath is refused unless overwrite: true, which moves it to meith's trash first. workspace_undo on newPath moves it back.",
			Capabilities: writesFiles, Handler: registry.Handle(t.renamePath)},
		{Name: "workspace_delete_path", Description: "Delete a file, folder or symbolic link (the link itself) inside the workspace by moving it to meith's trash (<userData>/trash, kept 7 days and 500 MB); confirm must be true. workspace_undo on the path restores it.",
			Capabilities: protocol.Destructive(), Timeout: deleteTimeout, Handler: registry.Handle(t.deletePath)},
		{Name: "workspace_make_dir", Description: "Create a folder inside the workspace, with its missing parents; an existing folder is fine (created: false).",
			Capabilities: writesFiles, Handler: registry.Handle(t.makeDir)},
		{Name: "workspace_list_files", Description: "List the files and folders of a workspace folder, or everything below it (recursive, breadth first): folders first, then files, each in byte order; symbolic links, node_modules/.git/dist/… and what the repository's .gitignore files ignore are left out (git-tracked files stay) unless includeIgnored. Files of a non-recursive listing carry size and mtimeMs. Capped by maxEntries (truncated).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listFiles)},
		{Name: "workspace_search", Description: "Search the workspace's files for a text or a Go regular expression (RE2), case-insensitive unless caseSensitive, within one line: matches in path then line order with 1-based line, column and endColumn in UTF-16 units and the line's text. Skips what workspace_list_files leaves out, files over 1 MiB and binary files. Limit it with path (a folder or file) and glob (\"*.go\", \"src/**/*.{ts,tsx}\", \"!*_test.go\"). Capped by maxResults (truncated).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.search)},
		{Name: "workspace_watch", Description: "Follow a workspace folder's changes on disk and through the file tools: streams a log event (message \"files_changed\", path = the folder, text = one \"<kind> <path>\" line per change, kind write|create|delete|rename|mkdir; \"overflow .\" when changes were lost: re-read everything) per batch, until cancelled. Ignored folders are not watched.",
			Capabilities: protocol.ReadOnly(), Timeout: watchTimeout, Handler: registry.Handle(t.watch)},
		{Name: "get_diagnostics", Description: "Get the diagnostics (errors, warnings) of a file, or of the files open in the workspace's editor tabs, from the language server of its language (gopls, typescript-language-server, pyright-langserver, rust-analyzer, svelteserver); unsupported with an install hint when none is installed.",
			Capabilities: protocol.ReadOnly(), Timeout: DiagnosticsTimeout, MaxTimeout: 10 * time.Minute,
			Handler: registry.Handle(diag.get)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

// scope resolves the working folder of a call (cwd through call.Path, so
// relative to the caller's working directory, and "~").
func (t *tools) scope(call *registry.Call, cwd string, allowOutside bool) (files.Scope, error) {
	s, err := t.d.Files.Scope(call.Client, call.Path(cwd), allowOutside)
	return s, mapError(err)
}

// mapError maps the engine's errors: a refused path or argument is
// VALIDATION_ERROR naming it, a failure TOOL_FAILED with its reason.
func mapError(err error) error {
	return registry.MapError(err, func(err error) error {
		var pe *files.PathError
		var ae *files.ArgError
		var fe *files.Error
		switch { // a failure first: it may wrap the path error that caused it
		case errors.As(err, &fe):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: fe.Msg,
				Details: map[string]any{"reason": string(fe.Kind)}, Err: err}
		case errors.As(err, &pe):
			return registry.InvalidArg(pe.Field, pe.Error())
		case errors.As(err, &ae):
			return registry.InvalidArg(ae.Field, ae.Error())
		}
		return nil
	})
}
