// Package template makes new projects from the templates embedded in the
// binary: `app-basic` (a small web app whose dependency-free Node server
// prints the port it listens on) and `plugin-basic` (a meith plugin
// skeleton).
//
// [Create] writes a project into the projects root ([Root]): it renders the
// template into a temporary folder under the root and renames it into place,
// so a project folder never appears half-written, and it never reuses a
// folder: "My App" goes to my-app, then my-app-2, and so on. The project's
// name reaches package.json and the plugin manifest through encoding/json and
// the HTML pages through html/template, never pasted into the text.
//
// A [Buffer] keeps projects ready under <root>/.prewarm so that "new project"
// is a rename: [Buffer.Allocate] hands one out under its final name and
// refills the buffer in the background.
//
// The package is a leaf: it imports nothing of meith's.
package template

import (
	"bytes"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

//go:embed all:templates
var files embed.FS

// Template describes one embedded project template.
type Template struct {
	// Name identifies the template: "app-basic" or "plugin-basic".
	Name string `json:"name"`
	// Kind is the kind of project it makes: "app" or "plugin".
	Kind string `json:"kind"`
	// Description says in one sentence what the template makes.
	Description string `json:"description"`
}

// The templates' names.
const (
	// AppBasic is a small web app: a Node server without dependencies that
	// serves a page and prints `Local: http://127.0.0.1:<port>/`.
	AppBasic = "app-basic"
	// PluginBasic is a meith plugin skeleton: a manifest and a page using
	// the plugin bridge.
	PluginBasic = "plugin-basic"
)

// MaxNameRunes bounds the project name given to [Create] and
// [Buffer.Allocate], in characters.
const MaxNameRunes = 200

// templates lists the embedded templates in the order List returns them;
// defaultName is the project name used when none is given.
var templates = []struct {
	Template
	defaultName string
}{
	{Template{AppBasic, "app", "A small web app: a Node server with no dependencies that serves a page and prints its port."}, "meith-app"},
	{Template{PluginBasic, "plugin", "A meith plugin: a manifest and a page that uses the plugin bridge."}, "meith-plugin"},
}

// List returns the embedded templates, apps first.
func List() []Template {
	out := make([]Template, len(templates))
	for i, t := range templates {
		out[i] = t.Template
	}
	return out
}

// Lookup returns the template called name and whether there is one.
func Lookup(name string) (Template, bool) {
	for _, t := range templates {
		if t.Name == name {
			return t.Template, true
		}
	}
	return Template{}, false
}

func defaultName(template string) string {
	for _, t := range templates {
		if t.Name == template {
			return t.defaultName
		}
	}
	return "meith-app"
}

// unknownTemplateError says a template name is not one of [List]'s.
type unknownTemplateError struct{}

func (unknownTemplateError) Error() string {
	names := make([]string, len(templates))
	for i, t := range templates {
		names[i] = t.Name
	}
	return "unknown template: use one of " + strings.Join(names, ", ")
}

// IsUnknownTemplate reports whether err says the template name is not one of
// [List]'s: the caller should report a validation error.
func IsUnknownTemplate(err error) bool {
	var e unknownTemplateError
	return errors.As(err, &e)
}

// invalidError says an argument cannot be acted on (a name too long, a
// relative root, a count out of range).
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }

// IsInvalid reports whether err says an argument was invalid (a name longer
// than [MaxNameRunes], a projects root that is not absolute, a prewarm count
// out of range): the caller should report a validation error.
func IsInvalid(err error) bool {
	var e *invalidError
	return errors.As(err, &e)
}

// Create makes a project from template under root, named after name (empty
// means the template's default name, "meith-app" or "meith-plugin"), and
// returns its folder: root/Slug(name), or root/Slug(name)-2, -3, … when taken.
// root is created when missing and must be absolute. The project appears
// whole or not at all: it is written into a temporary folder under root and
// renamed into place.
func Create(ctx context.Context, root, template, name string) (string, error) {
	p, err := prepare(root, template, name)
	if err != nil {
		return "", err
	}
	tmp, err := makeTemp(root)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return place(ctx, tmp, root, p, func(p params) error {
		return render(tmp, template, p, false)
	})
}

// params are what a template's files are rendered with.
type params struct {
	Name string // the name for people, as given (cleaned)
	Slug string // the folder's name, written where a package name goes
}

// prepare validates Create's arguments and makes the root.
func prepare(root, template, name string) (params, error) {
	if _, ok := Lookup(template); !ok {
		return params{}, unknownTemplateError{}
	}
	if !filepath.IsAbs(root) {
		return params{}, &invalidError{"the projects folder must be an absolute path"}
	}
	if utf8.RuneCountInString(name) > MaxNameRunes {
		return params{}, &invalidError{fmt.Sprintf("the project name is longer than %d characters", MaxNameRunes)}
	}
	display := cleanName(name)
	if display == "" {
		display = defaultName(template)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return params{}, fmt.Errorf("create the projects folder: %w", err)
	}
	return params{Name: display, Slug: Slug(display)}, nil
}

// cleanName makes a name fit for display: valid UTF-8, control characters
// as spaces, no surrounding space.
func cleanName(name string) string {
	name = strings.ToValidUTF8(name, "")
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, name)
	return strings.TrimSpace(name)
}

// tempPrefix starts the names of the folders projects are written in before
// they are renamed into place; NewBuffer removes stale ones.
const tempPrefix = ".meith-new-"

// makeTemp makes an empty folder under root to write a project in.
func makeTemp(root string) (string, error) {
	tmp, err := os.MkdirTemp(root, tempPrefix+"*")
	if err != nil {
		return "", fmt.Errorf("create a temporary project folder: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("create a temporary project folder: %w", err)
	}
	return tmp, nil
}

// maxAttempts bounds the folder names place tries (name, name-2, …).
const maxAttempts = 10_000

// place moves the complete project in tmp to the first free folder among
// root/slug, root/slug-2, …: it reserves the folder with an exclusive mkdir,
// lets fill write the files that carry the folder's name into tmp, then
// renames tmp over the reserved (still empty) folder. A folder that exists,
// or that someone wrote into meanwhile, is never touched.
func place(ctx context.Context, tmp, root string, p params, fill func(params) error) (string, error) {
	for i := 1; i <= maxAttempts; i++ {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		folder := p.Slug
		if i > 1 {
			folder += "-" + strconv.Itoa(i)
		}
		dest := filepath.Join(root, folder)
		if err := os.Mkdir(dest, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			return "", fmt.Errorf("create the project folder: %w", err)
		}
		if err := fill(params{Name: p.Name, Slug: folder}); err != nil {
			os.Remove(dest)
			return "", err
		}
		// rename(2) itself, not os.Rename, which refuses any existing
		// folder: the reserved one is replaced only while it is empty.
		if err := syscall.Rename(tmp, dest); err != nil {
			if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
				continue // someone wrote into the reserved folder: leave it to them
			}
			os.Remove(dest)
			return "", fmt.Errorf("move the project into place: %w", &os.LinkError{Op: "rename", Old: tmp, New: dest, Err: err})
		}
		syncDir(root)
		return dest, nil
	}
	return "", fmt.Errorf("create the project folder: %d folders with this name already exist", maxAttempts)
}

// render writes template's files into dir with p. With onlyNamed it writes
// only the files that carry the project's name (to rename a prewarmed
// project).
func render(dir, template string, p params, onlyNamed bool) error {
	base := "templates/" + template
	return fs.WalkDir(files, base, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, base), "/")
		if rel == "" {
			return nil
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if d.IsDir() {
			if onlyNamed {
				return nil
			}
			if err := os.Mkdir(target, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("write the project: %w", err)
			}
			return nil
		}
		src, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		out, named, err := renderFile(rel, src, p)
		if err != nil {
			return fmt.Errorf("write the project: %s: %w", rel, err)
		}
		if onlyNamed && !named {
			return nil
		}
		target = strings.TrimSuffix(target, ".tmpl")
		if err := writeFile(target, out); err != nil {
			return fmt.Errorf("write the project: %w", err)
		}
		return nil
	})
}

// manifestFields says which top-level JSON fields of which files in a
// template's root take the project's name.
var manifestFields = map[string]func(p params) []field{
	"package.json": func(p params) []field {
		return []field{{"name", p.Slug}}
	},
	"plugin.json": func(p params) []field {
		return []field{{"id", "local." + p.Slug}, {"name", p.Name}}
	},
}

// renderFile returns the content of the template file rel rendered with p,
// and whether it depends on p.
func renderFile(rel string, src []byte, p params) ([]byte, bool, error) {
	if strings.HasSuffix(rel, ".tmpl") {
		// html/template escapes the name for HTML; Markdown shows the
		// escaped characters as themselves.
		t, err := htmltemplate.New(rel).Option("missingkey=error").Parse(string(src))
		if err != nil {
			return nil, false, err
		}
		var b bytes.Buffer
		if err := t.Execute(&b, p); err != nil {
			return nil, false, err
		}
		return b.Bytes(), true, nil
	}
	if fields, ok := manifestFields[rel]; ok {
		out, err := setJSONFields(src, fields(p))
		return out, true, err
	}
	return src, false, nil
}

// field is one top-level JSON field to set.
type field struct {
	key   string
	value any
}

// setJSONFields returns the JSON object src with the given top-level fields
// set (added at the end when absent), keeping the other fields and their
// order, indented by two spaces.
func setJSONFields(src []byte, set []field) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var out bytes.Buffer
	out.WriteByte('{')
	done := make(map[string]bool, len(set))
	write := func(key string, raw []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(raw)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		for _, f := range set {
			if f.key == key {
				if raw, err = marshal(f.value); err != nil {
					return nil, err
				}
				done[key] = true
			}
		}
		write(key, raw)
	}
	for _, f := range set {
		if !done[f.key] {
			raw, err := marshal(f.value)
			if err != nil {
				return nil, err
			}
			write(f.key, raw)
		}
	}
	out.WriteByte('}')
	var indented bytes.Buffer
	if err := json.Indent(&indented, out.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	indented.WriteByte('\n')
	return indented.Bytes(), nil
}

// marshal encodes v as JSON without escaping <, > and & (the files are read
// by people and tools, not embedded in HTML).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// writeFile writes data to a new or replaced file at name, synced so a
// project renamed into place after a crash is not empty.
func writeFile(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable where the filesystem allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// randomID returns 12 random hex digits.
func randomID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
