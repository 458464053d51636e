// Package detect tells what kind of project a folder holds and how it runs.
//
// PLACEHOLDER: a minimal Node-only version with the plan's exported API, so
// the projects service builds and is tested; the real package replaces it
// at merge.
package detect

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Script is one package.json script.
type Script struct {
	Name    string `json:"name"`
	Command string `json:"command"`
}

// Workspace is one member of a monorepo.
type Workspace struct {
	Name      string `json:"name"`
	Dir       string `json:"dir"`
	Framework string `json:"framework"`
}

// RunCommand is one way to run the project.
type RunCommand struct {
	ID          string `json:"id"`
	Label       string `json:"label"`
	Command     string `json:"command"`
	IsDevServer bool   `json:"isDevServer"`
}

// RunConfig is how a project runs: its commands, the default one and the
// environment added to them.
type RunConfig struct {
	Commands         []RunCommand      `json:"commands"`
	DefaultCommandID string            `json:"defaultCommandId"`
	Env              map[string]string `json:"env"`
}

// Detection is what a folder holds.
type Detection struct {
	Name           string       `json:"name"`
	Stacks         []string     `json:"stacks"`
	Framework      string       `json:"framework"`
	Label          string       `json:"label"`
	PackageManager string       `json:"packageManager"`
	Lockfile       bool         `json:"lockfile"`
	HasPackageJSON bool         `json:"hasPackageJson"`
	Scripts        []Script     `json:"scripts"`
	Commands       []RunCommand `json:"commands"`
	LikelyPort     *int         `json:"likelyPort"`
	Workspaces     []Workspace  `json:"workspaces"`
}

// SetupDetection is a Detection with what setting the project up needs.
type SetupDetection struct {
	Detection
	EnvFiles   []string `json:"envFiles"`
	IsMonorepo bool     `json:"isMonorepo"`
	SetupNotes []string `json:"setupNotes"`
}

var lockfiles = []struct{ file, pm string }{
	{"pnpm-lock.yaml", "pnpm"}, {"yarn.lock", "yarn"}, {"package-lock.json", "npm"}, {"bun.lockb", "bun"}, {"bun.lock", "bun"},
}

// Detect reads dir (never executing anything) and says what it holds.
func Detect(dir string) (Detection, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Detection{}, fmt.Errorf("%s does not exist", dir)
		}
		return Detection{}, err
	}
	if !fi.IsDir() {
		return Detection{}, fmt.Errorf("%s is not a folder", dir)
	}
	d := Detection{Name: filepath.Base(dir), Framework: "unknown", Label: "Folder", Stacks: []string{},
		Scripts: []Script{}, Commands: []RunCommand{}, Workspaces: []Workspace{}}
	f, err := os.Open(filepath.Join(dir, "package.json"))
	if err != nil {
		return d, nil
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return d, nil
	}
	d.HasPackageJSON = true
	d.Stacks = append(d.Stacks, "node")
	d.Framework, d.Label, d.PackageManager = "node", "Node", "npm"
	for _, l := range lockfiles {
		if st, err := os.Stat(filepath.Join(dir, l.file)); err == nil && st.Mode().IsRegular() {
			d.PackageManager, d.Lockfile = l.pm, true
			break
		}
	}
	d.Label = "Node + " + d.PackageManager
	var pkg struct {
		Name    string          `json:"name"`
		Scripts json.RawMessage `json:"scripts"`
	}
	if json.Unmarshal(raw, &pkg) != nil {
		return d, nil
	}
	if pkg.Name != "" {
		d.Name = pkg.Name
	}
	scripts := orderedScripts(pkg.Scripts)
	d.Scripts = scripts
	for _, name := range []string{"dev", "start", "serve"} {
		for _, s := range scripts {
			if s.Name == name {
				d.Commands = append(d.Commands, RunCommand{ID: "script-" + name, Label: name,
					Command: scriptCommand(d.PackageManager, name), IsDevServer: true})
			}
		}
	}
	return d, nil
}

// orderedScripts reads the scripts object keeping the file's order.
func orderedScripts(raw json.RawMessage) []Script {
	out := []Script{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out
	}
	for dec.More() && len(out) < 200 {
		k, err := dec.Token()
		if err != nil {
			return out
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return out
		}
		name, _ := k.(string)
		out = append(out, Script{Name: name, Command: v})
	}
	return out
}

func scriptCommand(pm, script string) string {
	switch pm {
	case "npm":
		return "npm run " + script
	case "bun":
		return "bun run " + script
	}
	return pm + " " + script
}

// SetupDetect is Detect plus env files, monorepo workspaces and setup
// notes.
func SetupDetect(dir string) (SetupDetection, error) {
	d, err := Detect(dir)
	if err != nil {
		return SetupDetection{}, err
	}
	s := SetupDetection{Detection: d, EnvFiles: []string{}, SetupNotes: []string{}}
	if d.HasPackageJSON {
		if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
			s.SetupNotes = append(s.SetupNotes, "Run "+d.PackageManager+" install: node_modules is missing")
		}
	}
	return s, nil
}

// DefaultRunConfig is the run configuration of a detection: its commands
// (the package manager resolved: without a lockfile defaultPM, unless
// "unknown"), the first dev server command as default, no env.
func DefaultRunConfig(d Detection, defaultPM string) RunConfig {
	pm := d.PackageManager
	if d.HasPackageJSON && !d.Lockfile {
		pm = "npm"
		if defaultPM != "" && defaultPM != "unknown" {
			pm = defaultPM
		}
	}
	cmds := slices.Clone(d.Commands)
	for i, c := range cmds {
		if name, ok := strings.CutPrefix(c.ID, "script-"); ok && d.HasPackageJSON {
			cmds[i].Command = scriptCommand(pm, name)
		}
	}
	if cmds == nil {
		cmds = []RunCommand{}
	}
	rc := RunConfig{Commands: cmds, Env: map[string]string{}}
	for _, c := range cmds {
		if c.IsDevServer {
			rc.DefaultCommandID = c.ID
			break
		}
	}
	if rc.DefaultCommandID == "" && len(cmds) > 0 {
		rc.DefaultCommandID = cmds[0].ID
	}
	return rc
}
