package detect

import (
	"regexp"
	"strings"
)

// pythonResult is what the Python project files say.
type pythonResult struct {
	name         string
	framework    string // "django", "flask", "fastapi" or "python"
	port         int
	requirements string // the requirements file a setup note names, if any
	commands     []RunCommand
}

var (
	pyDepRE     = regexp.MustCompile(`(?im)(?:^\s*|["'])(django|flask|fastapi|uvicorn)(?:[^\w.\-]|$)`)
	pyNameRE    = regexp.MustCompile(`(?m)^\s*name\s*=\s*["']([^"'\n]{1,200})["']`)
	fastAPIRE   = regexp.MustCompile(`(?m)^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*FastAPI\(`)
	tomlTableRE = regexp.MustCompile(`(?m)^\s*\[([^\]\n]+)\]\s*$`)
)

// fastAPIFiles are where an `app = FastAPI(` is looked for, with the module
// uvicorn is given.
var fastAPIFiles = []struct{ file, module string }{
	{"main.py", "main"}, {"app.py", "app"}, {"app/main.py", "app.main"}, {"src/main.py", "src.main"},
}

func detectPython(d *detector) *pythonResult {
	var deps strings.Builder
	found := false
	p := &pythonResult{framework: "python", commands: []RunCommand{}}
	if data, st := d.f.read("pyproject.toml", maxFileBytes); st == readOK {
		found = true
		deps.Write(data)
		p.name = tomlName(string(data), "project", "tool.poetry")
	} else {
		d.reportUnread("pyproject.toml", st)
	}
	for _, e := range d.root {
		if e.isReg && strings.HasPrefix(e.name, "requirements") && strings.HasSuffix(e.name, ".txt") {
			if data, st := d.f.read(e.name, maxFileBytes); st == readOK {
				found = true
				deps.Write(data)
				deps.WriteByte('\n')
				if p.requirements == "" || e.name == "requirements.txt" {
					p.requirements = e.name
				}
			}
		}
	}
	if data, st := d.f.read("Pipfile", maxFileBytes); st == readOK {
		found = true
		deps.Write(data)
	}
	hasManage := d.file("manage.py")
	if !found && !hasManage {
		return nil
	}
	names := map[string]bool{}
	for _, m := range pyDepRE.FindAllStringSubmatch(deps.String(), -1) {
		names[strings.ToLower(m[1])] = true
	}
	switch {
	case hasManage:
		p.framework, p.port = "django", 8000
		p.commands = append(p.commands, RunCommand{
			ID: "django-runserver", Label: "runserver", Command: "python manage.py runserver", IsDevServer: true,
		})
	case names["django"]:
		p.framework, p.port = "django", 8000
	case names["fastapi"]:
		p.framework, p.port = "fastapi", 8000
		for _, c := range fastAPIFiles {
			data, st := d.f.read(c.file, maxFileBytes)
			if st != readOK {
				continue
			}
			if m := fastAPIRE.FindSubmatch(data); m != nil {
				p.commands = append(p.commands, RunCommand{
					ID: "uvicorn", Label: "uvicorn", Command: "uvicorn " + c.module + ":" + string(m[1]) + " --reload", IsDevServer: true,
				})
				break
			}
		}
	case names["flask"]:
		p.framework, p.port = "flask", 5000
		p.commands = append(p.commands, RunCommand{ID: "flask-run", Label: "flask run", Command: "flask run", IsDevServer: true})
	}
	return p
}

// tomlName returns `name = "…"` from the first of the given tables found.
func tomlName(text string, tables ...string) string {
	locs := tomlTableRE.FindAllStringSubmatchIndex(text, -1)
	for _, want := range tables {
		for i, loc := range locs {
			if strings.TrimSpace(text[loc[2]:loc[3]]) != want {
				continue
			}
			end := len(text)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			if m := pyNameRE.FindStringSubmatch(text[loc[1]:end]); m != nil {
				return m[1]
			}
		}
	}
	return ""
}

// rustResult is what Cargo.toml says.
type rustResult struct {
	name     string
	commands []RunCommand
}

var rustServerRE = regexp.MustCompile(`(?m)^\s*(axum|actix-web|rocket|warp|poem|hyper|tide)\s*=`)

func detectRust(d *detector) *rustResult {
	data, st := d.f.read("Cargo.toml", maxFileBytes)
	if st != readOK {
		d.reportUnread("Cargo.toml", st)
		return nil
	}
	text := string(data)
	return &rustResult{
		name: tomlName(text, "package"),
		commands: []RunCommand{{
			ID: "cargo-run", Label: "cargo run", Command: "cargo run", IsDevServer: rustServerRE.MatchString(text),
		}},
	}
}

// rubyResult is what the Gemfile says.
type rubyResult struct {
	rails    bool
	commands []RunCommand
}

var railsGemRE = regexp.MustCompile(`(?m)^\s*gem\s+["']rails["']`)

func detectRuby(d *detector) *rubyResult {
	data, st := d.f.read("Gemfile", maxFileBytes)
	if st != readOK {
		d.reportUnread("Gemfile", st)
		return nil
	}
	r := &rubyResult{rails: railsGemRE.Match(data), commands: []RunCommand{}}
	if r.rails && d.file("bin/rails") {
		r.commands = append(r.commands, RunCommand{
			ID: "rails-server", Label: "rails server", Command: "bin/rails server", IsDevServer: true,
		})
	}
	return r
}

// taskNames are the Makefile and justfile targets that become run commands,
// best first, and whether each is a dev server.
var taskNames = []struct {
	name   string
	server bool
}{{"dev", true}, {"start", true}, {"serve", true}, {"run", false}}

var (
	makeTargetRE = regexp.MustCompile(`^([A-Za-z0-9_.\-]+(?:\s+[A-Za-z0-9_.\-]+)*)\s*::?(?:[^=]|$)`)
	justRecipeRE = regexp.MustCompile(`^@?([A-Za-z0-9_\-]+)(?:\s+[^:]*)?:(?:[^=]|$)`)
)

// detectMake returns the dev|start|serve|run targets of the Makefile.
func detectMake(d *detector) ([]RunCommand, bool) {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		data, st := d.f.read(name, maxFileBytes)
		if st == readMissing {
			continue
		}
		if st != readOK {
			d.reportUnread(name, st)
			return []RunCommand{}, true
		}
		targets := map[string]bool{}
		for _, line := range strings.Split(string(data), "\n") {
			if m := makeTargetRE.FindStringSubmatch(line); m != nil {
				for _, t := range strings.Fields(m[1]) {
					targets[t] = true
				}
			}
		}
		return taskCommands("make", targets), true
	}
	return nil, false
}

// detectJust returns the dev|start|serve|run recipes of the justfile.
func detectJust(d *detector) ([]RunCommand, bool) {
	for _, name := range []string{"justfile", "Justfile", ".justfile"} {
		data, st := d.f.read(name, maxFileBytes)
		if st == readMissing {
			continue
		}
		if st != readOK {
			d.reportUnread(name, st)
			return []RunCommand{}, true
		}
		recipes := map[string]bool{}
		for _, line := range strings.Split(string(data), "\n") {
			if m := justRecipeRE.FindStringSubmatch(line); m != nil {
				recipes[m[1]] = true
			}
		}
		return taskCommands("just", recipes), true
	}
	return nil, false
}

func taskCommands(tool string, targets map[string]bool) []RunCommand {
	out := []RunCommand{}
	for _, t := range taskNames {
		if targets[t.name] {
			out = append(out, RunCommand{
				ID: tool + "-" + t.name, Label: tool + " " + t.name, Command: tool + " " + t.name, IsDevServer: t.server,
			})
		}
	}
	return out
}

// detectProcfile returns the Procfile's web process.
func detectProcfile(d *detector) ([]RunCommand, bool) {
	data, st := d.f.read("Procfile", maxFileBytes)
	if st == readMissing {
		return nil, false
	}
	if st != readOK {
		d.reportUnread("Procfile", st)
		return []RunCommand{}, true
	}
	for _, line := range strings.Split(string(data), "\n") {
		kind, cmd, ok := strings.Cut(line, ":")
		cmd = strings.TrimSpace(cmd)
		if ok && strings.TrimSpace(kind) == "web" && cmd != "" {
			return []RunCommand{{ID: "procfile-web", Label: "web", Command: cut(cmd, maxCommandChars), IsDevServer: true}}, true
		}
	}
	return []RunCommand{}, true
}

// composeFiles are the names `docker compose` looks for.
var composeFiles = []string{"compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml"}

func detectCompose(d *detector) bool {
	for _, name := range composeFiles {
		if d.file(name) {
			return true
		}
	}
	return false
}
