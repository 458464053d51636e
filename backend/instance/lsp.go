package instance

import (
	"path/filepath"
	"strings"

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
