package instance

import (
	"path/filepath"
	"strings"

	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/lsp"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// newLanguageServers builds the language server manager of
// get_diagnostics (servers start on the first check of their language);
// their log lines and stderr go to the app log.
func (i *Instance) newLanguageServers() *lsp.Manager {
	return lsp.New(lsp.Options{Logf: func(level, format string, args ...any) {
		i.log.Logf(protocol.LogLevel(level), "lsp", format, args...)
	}})
}

// fileBoundary is the boundary of the file tools: the spaces' folders and
// the open workspace tabs' folders are the roots; an agent is confined to
// its session's folder.
func (i *Instance) fileBoundary() files.Boundary {
	return files.Boundary{
		Roots: func() []string {
			st := i.state.Get()
			var roots []string
			for _, sp := range st.Spaces {
				if sp.Cwd != "" {
					roots = append(roots, sp.Cwd)
				}
			}
			for _, t := range st.WorkspaceTabs {
				if t.Cwd != "" {
					roots = append(roots, t.Cwd)
				}
			}
			return roots
		},
		SessionFolder: func(id string) (string, bool) {
			sess, err := i.agents.Session(id)
			if err != nil {
				return "", false
			}
			return sess.Cwd, sess.Cwd != ""
		},
	}
}

// editorOpenFiles lists the files open in the editor tabs whose folder is
// root or inside it (absolute paths, in tab order).
func (i *Instance) editorOpenFiles(root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range i.state.Get().WorkspaceTabs {
		if t.Kind != state.KindEditor || !filepath.IsAbs(t.Cwd) {
			continue
		}
		dir := filepath.Clean(t.Cwd)
		if canon, err := filepath.EvalSymlinks(dir); err == nil {
			dir = canon
		}
		if dir != root && !strings.HasPrefix(dir, root+string(filepath.Separator)) {
			continue
		}
		for _, p := range t.OpenFilePaths {
			abs := p
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(dir, p)
			}
			if abs = filepath.Clean(abs); !seen[abs] {
				seen[abs] = true
				out = append(out, abs)
			}
		}
	}
	return out
}
