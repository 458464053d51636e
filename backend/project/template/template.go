// Package template makes new projects from the templates embedded in meith
// and keeps a buffer of ready ones.
//
// PLACEHOLDER: a minimal version with the plan's exported API, so the
// projects service builds and is tested; the real package replaces it at
// merge.
package template

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Template is one project template.
type Template struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Description string `json:"description"`
}

// List returns the templates.
func List() []Template {
	return []Template{
		{Name: "app-basic", Kind: "app", Description: "A small web app with a dev server that prints its port"},
		{Name: "plugin-basic", Kind: "plugin", Description: "A meith plugin skeleton"},
	}
}

// Root is the folder new projects go to: $MEITH_PROJECTS_DIR, else
// ~/Documents/meith.
func Root() (string, error) {
	if d := os.Getenv("MEITH_PROJECTS_DIR"); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "Documents", "meith"), nil
}

// Slug turns a name into a folder name.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-")
	if s == "" {
		return "meith-app"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

const serverMJS = `import http from "node:http";
const server = http.createServer((req, res) => { res.writeHead(200, {"content-type": "text/html"}); res.end("<h1>hello from meith</h1>\n"); });
server.listen(Number(process.env.PORT || 0), "127.0.0.1", () => { console.log("Local: http://127.0.0.1:" + server.address().port + "/"); });
`

// Create writes a new project of template into root under a slug of name
// that does not exist yet, and returns its folder.
func Create(ctx context.Context, root, tmpl, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var kind string
	for _, t := range List() {
		if t.Name == tmpl {
			kind = t.Kind
		}
	}
	if kind == "" {
		return "", fmt.Errorf("unknown template %q", tmpl)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", err
	}
	slug := Slug(name)
	dir := filepath.Join(root, slug)
	for i := 2; ; i++ {
		if err := os.Mkdir(dir, 0o755); err == nil {
			break
		} else if !os.IsExist(err) {
			return "", err
		}
		dir = filepath.Join(root, fmt.Sprintf("%s-%d", slug, i))
	}
	if kind == "plugin" {
		m, _ := json.Marshal(map[string]any{"id": filepath.Base(dir), "name": name, "version": "0.1.0", "entry": "index.html", "permissions": []string{}})
		return dir, os.WriteFile(filepath.Join(dir, "meith-plugin.json"), m, 0o644)
	}
	pkg, _ := json.MarshalIndent(map[string]any{"name": filepath.Base(dir), "private": true,
		"scripts": map[string]string{"dev": "node server.mjs", "start": "node server.mjs"}}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "server.mjs"), []byte(serverMJS), 0o644)
}

// BufferOptions configure a prewarm buffer.
type BufferOptions struct {
	// Template is the template of the buffered projects (app-basic).
	Template string
	// Target is how many ready projects the buffer keeps (1).
	Target int
}

// BufferStatus is what a buffer holds.
type BufferStatus struct {
	Ready  int    `json:"ready"`
	Target int    `json:"target"`
	Dir    string `json:"dir"`
}

// Buffer keeps ready projects under <root>/.prewarm.
type Buffer struct {
	root string
	opts BufferOptions
	mu   sync.Mutex
}

// NewBuffer returns the buffer of root.
func NewBuffer(root string, opts BufferOptions) *Buffer {
	if opts.Template == "" {
		opts.Template = "app-basic"
	}
	if opts.Target <= 0 {
		opts.Target = 1
	}
	return &Buffer{root: root, opts: opts}
}

func (b *Buffer) dir() string { return filepath.Join(b.root, ".prewarm") }

func (b *Buffer) readyLocked() []string {
	ents, _ := os.ReadDir(b.dir())
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, filepath.Join(b.dir(), e.Name()))
		}
	}
	return out
}

// Fill makes ready projects until count are ready and returns how many are.
func (b *Buffer) Fill(ctx context.Context, count int) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if count > b.opts.Target {
		b.opts.Target = count
	}
	for n := len(b.readyLocked()); n < count; n++ {
		if _, err := Create(ctx, b.dir(), b.opts.Template, "ready"); err != nil {
			return n, err
		}
	}
	return len(b.readyLocked()), nil
}

// Status says how many projects are ready.
func (b *Buffer) Status() BufferStatus {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BufferStatus{Ready: len(b.readyLocked()), Target: b.opts.Target, Dir: b.dir()}
}

// Allocate hands out a project named name: a ready one renamed, else a new
// one.
func (b *Buffer) Allocate(ctx context.Context, name string) (string, bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ready := b.readyLocked()
	if len(ready) == 0 {
		dir, err := Create(ctx, b.root, b.opts.Template, name)
		return dir, false, err
	}
	slug := Slug(name)
	dir := filepath.Join(b.root, slug)
	for i := 2; ; i++ {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			break
		}
		dir = filepath.Join(b.root, fmt.Sprintf("%s-%d", slug, i))
	}
	if err := os.Rename(ready[0], dir); err != nil {
		return "", false, err
	}
	return dir, true, nil
}

// Close stops the buffer's background work.
func (b *Buffer) Close() error { return nil }
