package detect

import (
	"bytes"
	"encoding/json"
	"errors"
	"path"
	"strconv"
	"strings"
)

// nodeResult is what package.json and the lockfiles say.
type nodeResult struct {
	name               string
	pm                 string
	lockfile           bool
	framework          string
	port               int
	hasDeps            bool
	scripts            []Script
	commands           []RunCommand
	workspaces         []Workspace
	declaresWorkspaces bool
}

// lockfiles maps each lockfile to its package manager, in the order they win.
var lockfiles = []struct{ file, pm string }{
	{"pnpm-lock.yaml", "pnpm"},
	{"yarn.lock", "yarn"},
	{"package-lock.json", "npm"},
	{"npm-shrinkwrap.json", "npm"},
	{"bun.lockb", "bun"},
	{"bun.lock", "bun"},
}

// devScripts are the package.json scripts that become run commands, best first.
var devScripts = []string{"dev", "start", "serve"}

// packageJSON is the part of a package.json detection reads.
type packageJSON struct {
	name       string
	scripts    []Script
	deps       map[string]bool
	workspaces []string
	declares   bool
}

func detectNode(d *detector) *nodeResult {
	data, st := d.f.read("package.json", maxFileBytes)
	switch st {
	case readMissing:
		return nil
	case readNotRegular, readRefused:
		d.reportUnread("package.json", st)
		return nil
	}
	n := &nodeResult{pm: "npm", scripts: []Script{}, commands: []RunCommand{}, workspaces: []Workspace{}}
	var found []string
	for _, l := range lockfiles {
		if d.file(l.file) {
			if !n.lockfile {
				n.pm, n.lockfile = l.pm, true
			}
			found = append(found, l.file)
		}
	}
	if len(found) > 1 {
		d.note("Several lockfiles (%s): %s is used", strings.Join(found, ", "), n.pm)
	}
	var pkg packageJSON
	if st == readTooLarge {
		d.reportUnread("package.json", st)
	} else if p, problem := parsePackageJSON(data); problem != "" {
		d.problem("package.json %s", problem)
	} else {
		pkg = p
	}
	n.name = pkg.name
	n.scripts = append(n.scripts, pkg.scripts...)
	n.hasDeps = len(pkg.deps) > 0
	n.framework = nodeFramework(pkg.deps)
	n.port = nodeDefaultPort(n.framework, pkg.deps)
	for _, name := range devScripts {
		if _, ok := n.scriptBody("script-" + name); ok {
			n.commands = append(n.commands, RunCommand{
				ID: "script-" + name, Label: name, Command: scriptCommand(n.pm, name), IsDevServer: true,
			})
		}
	}
	n.declaresWorkspaces = pkg.declares
	patterns := pkg.workspaces
	if data, st := d.f.read("pnpm-workspace.yaml", maxFileBytes); st == readOK {
		n.declaresWorkspaces = true
		patterns = pnpmWorkspacePatterns(data)
	} else {
		d.reportUnread("pnpm-workspace.yaml", st)
	}
	n.workspaces = expandWorkspaces(d, patterns)
	return n
}

// scriptBody returns the text of the script a "script-<name>" command runs.
func (n *nodeResult) scriptBody(id string) (string, bool) {
	name, ok := strings.CutPrefix(id, "script-")
	if !ok {
		return "", false
	}
	for _, s := range n.scripts {
		if s.Name == name {
			return s.Command, true
		}
	}
	return "", false
}

// scriptCommand is how a package manager runs a package.json script.
func scriptCommand(pm, script string) string {
	switch pm {
	case "pnpm", "yarn":
		return pm + " " + script
	case "bun":
		return "bun run " + script
	}
	return "npm run " + script
}

// parsePackageJSON reads the fields detection needs; problem is a phrase
// for a note when the file is not usable ("is not valid JSON: line 3").
func parsePackageJSON(data []byte) (pkg packageJSON, problem string) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return pkg, "is not valid JSON: line " + strconv.Itoa(1+bytes.Count(data[:min(int(syn.Offset), len(data))], []byte("\n")))
		}
		return pkg, "is not a JSON object"
	}
	if top == nil {
		return pkg, "is not a JSON object"
	}
	_ = json.Unmarshal(top["name"], &pkg.name)
	pkg.scripts = orderedScripts(top["scripts"])
	pkg.deps = map[string]bool{}
	for _, key := range []string{"dependencies", "devDependencies"} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(top[key], &m)
		for k := range m {
			pkg.deps[k] = true
		}
	}
	if raw, ok := top["workspaces"]; ok {
		var list []string
		var obj struct {
			Packages []string `json:"packages"`
		}
		if json.Unmarshal(raw, &list) == nil {
			pkg.workspaces, pkg.declares = list, len(list) > 0
		} else if json.Unmarshal(raw, &obj) == nil {
			pkg.workspaces, pkg.declares = obj.Packages, len(obj.Packages) > 0
		}
	}
	return pkg, ""
}

// orderedScripts returns the string-valued scripts in file order, bounded.
func orderedScripts(raw json.RawMessage) []Script {
	out := []Script{}
	if len(raw) == 0 {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	seen := map[string]bool{}
	for dec.More() && len(out) < maxScripts {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := t.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		var cmd string
		if json.Unmarshal(v, &cmd) != nil || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, Script{Name: key, Command: cut(cmd, maxScriptChars)})
	}
	return out
}

// nodeFramework picks the framework from the dependency names: the
// meta-frameworks first, then vite, then the view libraries, then express.
func nodeFramework(deps map[string]bool) string {
	has := func(name string) bool { return deps[name] }
	hasPrefix := func(prefix string) bool {
		for k := range deps {
			if strings.HasPrefix(k, prefix) {
				return true
			}
		}
		return false
	}
	switch {
	case has("next"):
		return "nextjs"
	case has("@sveltejs/kit"):
		return "sveltekit"
	case has("astro"):
		return "astro"
	case hasPrefix("@remix-run/"):
		return "remix"
	case has("nuxt"):
		return "nuxt"
	case has("@angular/core"):
		return "angular"
	case has("svelte"):
		return "svelte"
	case has("vite"):
		return "vite"
	case has("vue"):
		return "vue"
	case has("react"):
		return "react"
	case has("express"):
		return "express"
	}
	return "node"
}

// nodeDefaultPort is the port a framework's dev server listens on by default.
func nodeDefaultPort(framework string, deps map[string]bool) int {
	switch framework {
	case "vite", "sveltekit":
		return 5173
	case "astro":
		return 4321
	case "angular":
		return 4200
	case "remix":
		if deps["vite"] {
			return 5173
		}
		return 3000
	case "svelte", "vue":
		if deps["vite"] {
			return 5173
		}
		return 8080
	}
	return 3000 // nextjs, nuxt, react, express, node
}

// pnpmWorkspacePatterns reads the "packages:" list of a pnpm-workspace.yaml
// (block or flow style); negated patterns are dropped.
func pnpmWorkspacePatterns(data []byte) []string {
	var out []string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") && !strings.HasPrefix(line, "-") {
			key, rest, ok := strings.Cut(trimmed, ":")
			in = ok && key == "packages"
			if in && strings.HasPrefix(strings.TrimSpace(rest), "[") {
				flow := strings.Trim(strings.TrimSpace(rest), "[]")
				for _, p := range strings.Split(flow, ",") {
					out = append(out, yamlScalar(p))
				}
				in = false
			}
			continue
		}
		if in {
			if item, ok := strings.CutPrefix(trimmed, "-"); ok {
				out = append(out, yamlScalar(item))
			}
		}
	}
	return out
}

func yamlScalar(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return strings.Trim(s, `"'`)
}

// expandWorkspaces turns workspace patterns into folders that hold a
// package.json: a plain path as is, a pattern whose last element has a
// wildcard expanded one level ("packages/*", "apps/**"); anything absolute,
// negated, with ".." or wildcards further up is skipped.
func expandWorkspaces(d *detector, patterns []string) []Workspace {
	out := []Workspace{}
	seen := map[string]bool{}
	addDir := func(dir string) {
		if seen[dir] || len(out) >= maxWorkspaces {
			return
		}
		seen[dir] = true
		data, st := d.f.read(dir+"/package.json", maxFileBytes)
		if st == readMissing || st == readNotRegular || st == readRefused {
			return
		}
		w := Workspace{Name: path.Base(dir), Dir: dir, Framework: "node"}
		if st == readOK {
			if pkg, problem := parsePackageJSON(data); problem == "" {
				if pkg.name != "" {
					w.Name = pkg.name
				}
				w.Framework = nodeFramework(pkg.deps)
			}
		}
		out = append(out, w)
	}
	for _, p := range patterns {
		p = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "./"), "/")
		if p == "" || strings.HasPrefix(p, "!") || strings.HasPrefix(p, "/") {
			continue
		}
		p = strings.ReplaceAll(p, "**", "*")
		if path.Clean(p) != p || p == "." || strings.HasPrefix(p, "../") || p == ".." {
			continue
		}
		parent, last := path.Split(p)
		parent = strings.TrimSuffix(parent, "/")
		if strings.ContainsAny(parent, "*?[") {
			continue
		}
		if !strings.ContainsAny(last, "*?[") {
			addDir(p)
			continue
		}
		if parent == "" {
			parent = "."
		}
		entries, _ := d.f.list(parent)
		for _, e := range entries {
			if ok, _ := path.Match(last, e.name); ok && e.isDir && !strings.HasPrefix(e.name, ".") && e.name != "node_modules" {
				addDir(joinRel(parent, e.name))
			}
		}
	}
	return out
}
