package lsp

import (
	"os"
	"path/filepath"
	"strings"
)

// Server is a language server meith knows how to start.
type Server struct {
	// Name identifies the server: one process runs per (workspace root,
	// Name), shared by the languages that name it.
	Name string
	// Command is looked up on the search path ([Options.SearchPath]); Args
	// make it speak LSP over stdio.
	Command string
	Args    []string
	// InstallHint is the command that installs it, shown when it is
	// missing.
	InstallHint string
	// Missing reports what else the server needs and lacks for root (the
	// workspace root) given the server's resolved path, "" when nothing;
	// nil means nothing else is needed.
	Missing func(root, command string) string
}

// Language maps file extensions to an LSP languageId and a server.
type Language struct {
	// Name is what get_diagnostics reports ("go", "typescript", …).
	Name string
	// Extensions maps each extension (with its dot, lower case) to the
	// languageId sent in textDocument/didOpen.
	Extensions map[string]string
	// Server checks the language's files; nil when meith knows none.
	Server *Server
}

// The servers of [DefaultLanguages].
var (
	gopls = &Server{Name: "gopls", Command: "gopls",
		InstallHint: "go install golang.org/x/tools/gopls@latest"}
	typescriptLanguageServer = &Server{Name: "typescript-language-server", Command: "typescript-language-server",
		Args: []string{"--stdio"}, InstallHint: "npm i -g typescript typescript-language-server",
		Missing: typescriptMissing}
	pyright = &Server{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"},
		InstallHint: "npm i -g pyright"}
	rustAnalyzer = &Server{Name: "rust-analyzer", Command: "rust-analyzer",
		InstallHint: "rustup component add rust-analyzer"}
	svelteServer = &Server{Name: "svelteserver", Command: "svelteserver", Args: []string{"--stdio"},
		InstallHint: "npm i -g svelte-language-server"}
)

// DefaultLanguages is the table get_diagnostics uses: a language per row,
// with the server that checks it. Add a row (and a [Server]) to support
// another language.
var DefaultLanguages = []Language{
	{Name: "go", Extensions: map[string]string{".go": "go"}, Server: gopls},
	{Name: "typescript", Extensions: map[string]string{
		".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
	}, Server: typescriptLanguageServer},
	{Name: "javascript", Extensions: map[string]string{
		".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
	}, Server: typescriptLanguageServer},
	{Name: "python", Extensions: map[string]string{".py": "python", ".pyi": "python"}, Server: pyright},
	{Name: "rust", Extensions: map[string]string{".rs": "rust"}, Server: rustAnalyzer},
	{Name: "svelte", Extensions: map[string]string{".svelte": "svelte"}, Server: svelteServer},
}

// languageOf returns the row of langs for path's extension and the
// languageId to send, or ok false.
func languageOf(langs []Language, path string) (lang *Language, languageID string, ok bool) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return nil, "", false
	}
	for i := range langs {
		if id, found := langs[i].Extensions[ext]; found {
			return &langs[i], id, true
		}
	}
	return nil, "", false
}

// lookPath finds an executable regular file named command in the folders
// of dirs (in order), or "". A command with a slash is taken as it is.
func lookPath(command string, dirs []string) string {
	if strings.ContainsRune(command, '/') {
		if isExecutable(command) {
			return command
		}
		return ""
	}
	for _, d := range dirs {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, command)
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// typescriptMissing: typescript-language-server runs the TypeScript
// compiler's tsserver, from the project (node_modules/typescript) or
// installed beside the server (npm i -g typescript).
func typescriptMissing(root, command string) string {
	for dir := root; ; {
		if isFile(filepath.Join(dir, "node_modules", "typescript", "lib", "tsserver.js")) {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	// A global install: <prefix>/bin/typescript-language-server links to
	// <prefix>/lib/node_modules/typescript-language-server/lib/cli.mjs.
	if real, err := filepath.EvalSymlinks(command); err == nil {
		for dir := filepath.Dir(real); dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
			if filepath.Base(dir) != "node_modules" {
				continue
			}
			if isFile(filepath.Join(dir, "typescript", "lib", "tsserver.js")) ||
				isFile(filepath.Join(dir, "typescript-language-server", "node_modules", "typescript", "lib", "tsserver.js")) {
				return ""
			}
			break
		}
	}
	return "typescript-language-server needs TypeScript: neither the project (node_modules/typescript) nor the global npm folder has it"
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
