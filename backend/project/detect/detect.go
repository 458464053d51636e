package detect

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Detection is what a folder looks like: its name, the stacks found in it,
// the primary framework, and the commands that could run it, best first.
// Every slice is non-nil, so JSON has [] rather than null.
type Detection struct {
	// Name is package.json's name, the Go module's last element, the Cargo
	// package name or pyproject's name (the primary stack's first), else the
	// folder's name.
	Name string `json:"name"`
	// Stacks lists each stack found: "node", "go", "python", "rust", "ruby",
	// "make", "just", "procfile", "compose", in that order.
	Stacks []string `json:"stacks"`
	// Framework is the primary framework: "nextjs", "vite", "react", "vue",
	// "svelte", "sveltekit", "astro", "remix", "nuxt", "angular", "express",
	// "node", "go", "django", "flask", "fastapi", "python", "rust", "rails",
	// "ruby", "make", "compose" or "unknown".
	Framework string `json:"framework"`
	// Label names the project's kind for people: "Vite + pnpm", "Go", "Django".
	Label string `json:"label"`
	// PackageManager is "pnpm", "yarn", "npm" or "bun" for a Node project,
	// from its lockfile; "npm" with Lockfile false when there is none (the
	// defaultPM of DefaultRunConfig then decides); "" when not Node.
	PackageManager string `json:"packageManager"`
	// Lockfile says whether a Node lockfile was found.
	Lockfile bool `json:"lockfile"`
	// HasPackageJSON says whether a regular package.json is in the folder
	// (also when it was too large or not valid JSON).
	HasPackageJSON bool `json:"hasPackageJson"`
	// Scripts are package.json's scripts in file order (at most 200, each
	// command cut at 1,000 characters).
	Scripts []Script `json:"scripts"`
	// Commands are the detected run commands, best first.
	Commands []RunCommand `json:"commands"`
	// LikelyPort is a port named in the dev command (--port N, -p N,
	// PORT=N), else the framework's default, else nil.
	LikelyPort *int `json:"likelyPort"`
	// Workspaces are the Node workspaces (pnpm-workspace.yaml, package.json
	// "workspaces"), globs expanded one level.
	Workspaces []Workspace `json:"workspaces"`
}

// SetupDetection is a Detection plus what a person needs to set the project
// up: its env files, whether it is a monorepo, and notes.
type SetupDetection struct {
	Detection
	// EnvFiles are the names (never the contents) of the root's ".env" and
	// ".env.*" files, sorted.
	EnvFiles []string `json:"envFiles"`
	// IsMonorepo says whether the folder declares workspaces (Node, go.work)
	// or a monorepo tool (turbo.json, nx.json, lerna.json).
	IsMonorepo bool `json:"isMonorepo"`
	// SetupNotes are sentences for people: "Run pnpm install: node_modules is
	// missing", "package.json is not valid JSON: line 3".
	SetupNotes []string `json:"setupNotes"`
	// Problems are the notes that say a project file could not be used
	// (package.json not valid JSON, too large, not a regular file…): the
	// folder still opens, so the file can be fixed, and the tools that
	// detect show these as warnings.
	Problems []string `json:"-"`
}

// Script is one package.json script.
type Script struct {
	// Name is the script's key ("dev").
	Name string `json:"name"`
	// Command is the script's text ("vite --port 3001").
	Command string `json:"command"`
}

// Workspace is one package of a Node monorepo.
type Workspace struct {
	// Name is the workspace's package.json name, else its folder's name.
	Name string `json:"name"`
	// Dir is the workspace's folder relative to the project, with slashes.
	Dir string `json:"dir"`
	// Framework is the workspace's Node framework ("vite", "node", …).
	Framework string `json:"framework"`
}

// RunCommand is one way to run the project.
type RunCommand struct {
	// ID is a stable slug of the command's source: "script-dev",
	// "go-run-server", "django-runserver", "make-dev", "compose-up".
	ID string `json:"id"`
	// Label is a short name for a menu ("dev", "cmd/server").
	Label string `json:"label"`
	// Command is one shell string, run in the project's folder.
	Command string `json:"command"`
	// IsDevServer says whether the command serves something whose port is
	// worth watching for.
	IsDevServer bool `json:"isDevServer"`
}

// RunConfig is how a project runs: its commands, the default one and the
// environment added to every command.
type RunConfig struct {
	// Commands are the run commands.
	Commands []RunCommand `json:"commands"`
	// DefaultCommandID is the ID of the command Run starts ("" when none).
	DefaultCommandID string `json:"defaultCommandId"`
	// Env is added to the environment of every command.
	Env map[string]string `json:"env"`
}

// Problem says what is wrong with the folder given to Detect.
type Problem string

// The problems of a FolderError.
const (
	ProblemNotExist   Problem = "does not exist"
	ProblemNotFolder  Problem = "is not a folder"
	ProblemUnreadable Problem = "cannot be read"
)

// FolderError is returned when the folder to detect is missing, not a folder
// or unreadable. Its message does not contain the path; Dir holds it.
type FolderError struct {
	// Dir is the path given.
	Dir string
	// Problem says what is wrong.
	Problem Problem
	// Err is the underlying error, if any.
	Err error
}

// Error says what is wrong without the path: "detect: the folder does not exist".
func (e *FolderError) Error() string {
	if e.Problem == ProblemNotFolder {
		return "detect: the path " + string(e.Problem)
	}
	return "detect: the folder " + string(e.Problem)
}

// Unwrap returns the underlying error.
func (e *FolderError) Unwrap() error { return e.Err }

// IsNotExist reports whether err says the folder does not exist.
func IsNotExist(err error) bool { return hasProblem(err, ProblemNotExist) }

// IsNotFolder reports whether err says the path is not a folder.
func IsNotFolder(err error) bool { return hasProblem(err, ProblemNotFolder) }

func hasProblem(err error, p Problem) bool {
	var fe *FolderError
	return errors.As(err, &fe) && fe.Problem == p
}

// Detect inspects the folder dir without executing anything and without
// reading outside it. Only a missing, non-folder or unreadable dir is an
// error (*FolderError); anything wrong inside it (an invalid package.json, a
// FIFO) is reported by SetupDetect's notes and otherwise skipped.
func Detect(dir string) (Detection, error) {
	s, err := SetupDetect(dir)
	return s.Detection, err
}

// SetupDetect is Detect plus the folder's env files, whether it is a
// monorepo, and setup notes.
func SetupDetect(dir string) (SetupDetection, error) {
	f, err := openFolder(dir)
	if err != nil {
		return SetupDetection{}, err
	}
	defer f.close()
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	d := &detector{f: f, folderName: filepath.Base(abs)}
	return d.run(), nil
}

// detector gathers what each stack finds in one folder.
type detector struct {
	f          *folder
	folderName string
	root       []entry
	truncated  bool
	notes      []string
	problems   []string

	node   *nodeResult
	golang *goResult
	python *pythonResult
	rust   *rustResult
	ruby   *rubyResult
	make   []RunCommand
	just   []RunCommand
	proc   []RunCommand
	hasMk  bool
	hasJst bool
	hasPrc bool
	hasCmp bool
}

func (d *detector) note(format string, args ...any) {
	d.notes = append(d.notes, fmt.Sprintf(format, args...))
}

// problem adds a note that says a project file could not be used (also
// listed in SetupDetection.Problems).
func (d *detector) problem(format string, args ...any) {
	d.note(format, args...)
	d.problems = append(d.problems, d.notes[len(d.notes)-1])
}

// file reports whether name is a regular file inside the folder.
func (d *detector) file(name string) bool { return d.f.isFile(name) }

func (d *detector) run() SetupDetection {
	d.root, d.truncated = d.f.list(".")
	d.node = detectNode(d)
	d.golang = detectGo(d)
	d.python = detectPython(d)
	d.rust = detectRust(d)
	d.ruby = detectRuby(d)
	d.make, d.hasMk = detectMake(d)
	d.just, d.hasJst = detectJust(d)
	d.proc, d.hasPrc = detectProcfile(d)
	d.hasCmp = detectCompose(d)

	out := SetupDetection{
		Detection: Detection{
			Stacks: []string{}, Scripts: []Script{}, Commands: []RunCommand{}, Workspaces: []Workspace{},
		},
		EnvFiles: []string{},
	}
	det := &out.Detection
	add := func(ok bool, stack string) {
		if ok {
			det.Stacks = append(det.Stacks, stack)
		}
	}
	add(d.node != nil, "node")
	add(d.golang != nil, "go")
	add(d.python != nil, "python")
	add(d.rust != nil, "rust")
	add(d.ruby != nil, "ruby")
	add(d.hasMk, "make")
	add(d.hasJst, "just")
	add(d.hasPrc, "procfile")
	add(d.hasCmp, "compose")

	primary := d.primary()
	det.Framework, det.Label = primary.framework, primary.label
	if n := d.node; n != nil {
		det.PackageManager, det.Lockfile, det.HasPackageJSON = n.pm, n.lockfile, true
		det.Scripts = n.scripts
		det.Workspaces = n.workspaces
	}
	det.Name = d.name(primary.stack)
	det.Commands = d.commands(primary.stack)
	det.LikelyPort = d.likelyPort(primary, det.Commands)

	for _, e := range d.root {
		if e.isReg && (e.name == ".env" || strings.HasPrefix(e.name, ".env.")) {
			out.EnvFiles = append(out.EnvFiles, e.name)
		}
	}
	out.IsMonorepo = len(det.Workspaces) > 0 || (d.node != nil && d.node.declaresWorkspaces) ||
		d.file("go.work") || d.file("turbo.json") || d.file("nx.json") || d.file("lerna.json")
	d.setupNotes(out)
	if d.truncated {
		d.note("The folder has more than %d entries: only the first %d were looked at", maxDirEntries, maxDirEntries)
	}
	out.SetupNotes = append([]string{}, d.notes...)
	out.Problems = d.problems
	return out
}

// primaryStack is the stack a project is labelled by.
type primaryStack struct {
	stack, framework, label string
	defaultPort             int // 0: none
}

// primary picks the stack the project is labelled by: a Python or Ruby web
// framework first (they often carry a package.json for assets), then Node,
// then Go, Rust, plain Python and Ruby, then the task and process files.
func (d *detector) primary() primaryStack {
	if p := d.python; p != nil && p.framework != "python" {
		return primaryStack{"python", p.framework, frameworkLabels[p.framework], p.port}
	}
	if r := d.ruby; r != nil && r.rails {
		return primaryStack{"ruby", "rails", "Rails", 3000}
	}
	if n := d.node; n != nil {
		return primaryStack{"node", n.framework, frameworkLabels[n.framework] + " + " + n.pm, n.port}
	}
	switch {
	case d.golang != nil:
		return primaryStack{"go", "go", "Go", 0}
	case d.rust != nil:
		return primaryStack{"rust", "rust", "Rust (cargo)", 0}
	case d.python != nil:
		return primaryStack{"python", "python", "Python", 0}
	case d.ruby != nil:
		return primaryStack{"ruby", "ruby", "Ruby", 0}
	case d.hasMk:
		return primaryStack{"make", "make", "Makefile", 0}
	case d.hasJst:
		return primaryStack{"just", "make", "justfile", 0}
	case d.hasCmp:
		return primaryStack{"compose", "compose", "Docker Compose", 0}
	case d.hasPrc:
		return primaryStack{"procfile", "unknown", "Procfile", 0}
	}
	return primaryStack{"", "unknown", "Folder", 0}
}

var frameworkLabels = map[string]string{
	"nextjs": "Next.js", "vite": "Vite", "react": "React", "vue": "Vue", "svelte": "Svelte",
	"sveltekit": "SvelteKit", "astro": "Astro", "remix": "Remix", "nuxt": "Nuxt", "angular": "Angular",
	"express": "Express", "node": "Node.js", "django": "Django", "flask": "Flask", "fastapi": "FastAPI",
}

// name is the primary stack's project name, else another stack's, else the
// folder's.
func (d *detector) name(primary string) string {
	byStack := map[string]string{}
	if d.node != nil {
		byStack["node"] = d.node.name
	}
	if d.golang != nil {
		byStack["go"] = d.golang.name
	}
	if d.python != nil {
		byStack["python"] = d.python.name
	}
	if d.rust != nil {
		byStack["rust"] = d.rust.name
	}
	if n := byStack[primary]; n != "" {
		return n
	}
	for _, s := range []string{"node", "python", "rust", "go"} {
		if n := byStack[s]; n != "" {
			return n
		}
	}
	return d.folderName
}

// commands lists the primary stack's commands first, then the others'.
func (d *detector) commands(primary string) []RunCommand {
	byStack := map[string][]RunCommand{}
	if d.node != nil {
		byStack["node"] = d.node.commands
	}
	if d.golang != nil {
		byStack["go"] = d.golang.commands
	}
	if d.python != nil {
		byStack["python"] = d.python.commands
	}
	if d.rust != nil {
		byStack["rust"] = d.rust.commands
	}
	if d.ruby != nil {
		byStack["ruby"] = d.ruby.commands
	}
	byStack["make"], byStack["just"], byStack["procfile"] = d.make, d.just, d.proc
	if d.hasCmp {
		byStack["compose"] = []RunCommand{{ID: "compose-up", Label: "compose up", Command: "docker compose up", IsDevServer: true}}
	}
	out := append([]RunCommand{}, byStack[primary]...)
	for _, s := range []string{"node", "python", "ruby", "go", "rust", "procfile", "make", "just", "compose"} {
		if s != primary {
			out = append(out, byStack[s]...)
		}
	}
	return out
}

var portPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?:^|\s)--port[=\s]+(\d{1,5})\b`),
	regexp.MustCompile(`(?:^|\s)-p[=\s]*(\d{1,5})\b`),
	regexp.MustCompile(`\bPORT=(\d{1,5})\b`),
	regexp.MustCompile(`\brunserver\s+(?:[\w.\[\]:]*:)?(\d{1,5})\b`),
}

// portIn returns the first port named in a command, or 0.
func portIn(command string) int {
	for _, re := range portPatterns {
		if m := re.FindStringSubmatch(command); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= 65535 {
				return n
			}
		}
	}
	return 0
}

// likelyPort is a port named in the first dev-server command (for a Node
// script, in the script's own text), else the primary framework's default.
func (d *detector) likelyPort(p primaryStack, commands []RunCommand) *int {
	for _, c := range commands {
		if !c.IsDevServer {
			continue
		}
		text := c.Command
		if d.node != nil {
			if body, ok := d.node.scriptBody(c.ID); ok {
				text = body
			}
		}
		if n := portIn(text); n != 0 {
			return &n
		}
		break
	}
	if p.defaultPort != 0 {
		n := p.defaultPort
		return &n
	}
	return nil
}

func (d *detector) setupNotes(out SetupDetection) {
	if n := d.node; n != nil && n.hasDeps && !d.f.isDir("node_modules") {
		d.note("Run %s install: node_modules is missing", n.pm)
	}
	if !d.file(".env") {
		for _, ex := range []string{".env.example", ".env.sample", ".env.template"} {
			if d.file(ex) {
				d.note("Copy %s to .env", ex)
				break
			}
		}
	}
	if g := d.golang; g != nil && g.requires && !d.file("go.sum") {
		d.note("go.sum is missing: run go mod tidy")
	}
	if p := d.python; p != nil && p.requirements != "" && !d.f.isDir(".venv") && !d.f.isDir("venv") {
		d.note("No virtual environment: run python3 -m venv .venv && .venv/bin/pip install -r %s", p.requirements)
	}
	if r := d.ruby; r != nil && !d.file("Gemfile.lock") {
		d.note("Run bundle install: Gemfile.lock is missing")
	}
	if len(out.Stacks) == 0 {
		d.note("No known project files found (package.json, go.mod, pyproject.toml, Cargo.toml, Gemfile, Makefile, Procfile, compose.yaml)")
	}
}

// slug makes a command id part from a name: lowercase ASCII letters, digits
// and single dashes, at most 48 characters.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 48 {
			break
		}
	}
	return b.String()
}

// cut shortens s to at most n characters (runes).
func cut(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// reportUnread adds a note for a file that exists but was not read.
func (d *detector) reportUnread(name string, st readStatus) {
	switch st {
	case readNotRegular:
		d.problem("%s is not a regular file and was not read", name)
	case readTooLarge:
		d.problem("%s is larger than %d MiB and was not read", name, maxFileBytes>>20)
	case readRefused:
		d.problem("%s could not be read (a link out of the folder or no permission)", name)
	}
}
