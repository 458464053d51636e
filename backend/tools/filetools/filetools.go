// Package filetools registers the workspace file tools (reference §3.6):
// reading, writing, patching, undoing, listing, searching and the
// diagnostics of the file's language server (get_diagnostics). Every tool
// takes cwd and resolves it and its paths through the boundary
// ([files.Boundary]): a path outside it is a VALIDATION_ERROR naming the
// field.
package filetools

import (
	"time"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/lsp"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Deps is what the file tools need.
type Deps struct {
	// Boundary decides which paths a call may touch.
	Boundary files.Boundary
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

// Register adds the file tools to r.
func Register(r *registry.Registry, d Deps) {
	diag := &diagnostics{boundary: d.Boundary, servers: d.Diagnostics, openFiles: d.OpenFiles}
	registry.RegisterAll(r, []registry.Def{
		{Name: "get_diagnostics", Description: "Get the diagnostics (errors, warnings) of a file, or of the files open in the workspace's editor tabs, from the language server of its language (gopls, typescript-language-server, pyright-langserver, rust-analyzer, svelteserver); unsupported with an install hint when none is installed.",
			Capabilities: protocol.ReadOnly(), Timeout: DiagnosticsTimeout, MaxTimeout: 10 * time.Minute,
			Handler: registry.Handle(diag.get)},
	})
}
