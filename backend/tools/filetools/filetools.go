// Package filetools registers the workspace file tools: reading, writing,
// patching, undoing, renaming, deleting, listing, searching and watching
// the files of a workspace (backend/files and its packages). Every tool
// takes cwd, resolved with the caller's working directory (call.Path),
// which must be a known workspace root or a folder inside one unless
// allowOutside; agents are confined to their session's folder
// (files.Boundary). A path the boundary refuses is a VALIDATION_ERROR
// naming its argument.
package filetools

import (
	"time"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Deps is what the file tools need.
type Deps struct {
	// Boundary decides which folders and files a call may use.
	Boundary files.Boundary
	// Watch is the file watcher: workspace_watch holds its cwd on it.
	// Nil gives the tools a hub of their own.
	Watch *fswatch.Hub
}

// watchTimeout is workspace_watch's idle timeout: it follows a workspace
// until cancelled.
const watchTimeout = 365 * 24 * time.Hour

// Register adds the file tools to r.
func Register(r *registry.Registry, d Deps) {
	if d.Watch == nil {
		d.Watch = fswatch.New(fswatch.Options{})
	}
	t := &tools{d: d}
	registry.RegisterAll(r, []registry.Def{
		{Name: "workspace_list_files", Description: "List the files and folders of a workspace folder, or everything below it (recursive, breadth first): folders first, then files, each in byte order; symbolic links, node_modules/.git/dist/… and what the repository's .gitignore files ignore are left out (git-tracked files stay) unless includeIgnored. Files of a non-recursive listing carry size and mtimeMs. Capped by maxEntries (truncated).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listFiles)},
		{Name: "workspace_search", Description: "Search the workspace's files for a text or a Go regular expression (RE2), case-insensitive unless caseSensitive, within one line: matches in path then line order with 1-based line, column and endColumn in UTF-16 units and the line's text. Skips what workspace_list_files leaves out, files over 1 MiB and binary files. Limit it with path (a folder or file) and glob (\"*.go\", \"src/**/*.{ts,tsx}\", \"!*_test.go\"). Capped by maxResults (truncated).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.search)},
		{Name: "workspace_watch", Description: "Follow a workspace folder's changes on disk and through the file tools: streams a log event (message \"files_changed\", path = the folder, text = one \"<kind> <path>\" line per change, kind write|create|delete|rename|mkdir; \"overflow .\" when changes were lost: re-read everything) per batch, until cancelled. Ignored folders are not watched.",
			Capabilities: protocol.ReadOnly(), Timeout: watchTimeout, Handler: registry.Handle(t.watch)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }
