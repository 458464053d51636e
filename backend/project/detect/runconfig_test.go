package detect

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDefaultRunConfig(t *testing.T) {
	noLock := Detection{
		HasPackageJSON: true, PackageManager: "npm", Lockfile: false,
		Scripts:  []Script{{"dev", "vite"}, {"start", "node s.js"}},
		Commands: []RunCommand{dev("script-dev", "dev", "npm run dev"), dev("script-start", "start", "npm run start")},
	}
	yarnLock := noLock
	yarnLock.PackageManager, yarnLock.Lockfile = "yarn", true
	yarnLock.Commands = []RunCommand{dev("script-dev", "dev", "yarn dev"), dev("script-start", "start", "yarn start")}
	goMake := Detection{Commands: []RunCommand{task("go-run", "go run .", "go run ."), dev("make-dev", "make dev", "make dev")}}
	noServer := Detection{Commands: []RunCommand{task("go-run-cli", "cmd/cli", "go run ./cmd/cli"), task("make-run", "make run", "make run")}}
	tests := []struct {
		name      string
		d         Detection
		defaultPM string
		want      RunConfig
	}{
		{"no lockfile, pnpm setting", noLock, "pnpm", RunConfig{
			Commands:         []RunCommand{dev("script-dev", "dev", "pnpm dev"), dev("script-start", "start", "pnpm start")},
			DefaultCommandID: "script-dev", Env: map[string]string{},
		}},
		{"no lockfile, bun setting", noLock, "bun", RunConfig{
			Commands:         []RunCommand{dev("script-dev", "dev", "bun run dev"), dev("script-start", "start", "bun run start")},
			DefaultCommandID: "script-dev", Env: map[string]string{},
		}},
		{"no lockfile, unknown setting", noLock, "unknown", RunConfig{
			Commands: noLock.Commands, DefaultCommandID: "script-dev", Env: map[string]string{},
		}},
		{"no lockfile, empty setting", noLock, "", RunConfig{
			Commands: noLock.Commands, DefaultCommandID: "script-dev", Env: map[string]string{},
		}},
		{"no lockfile, a setting that is no package manager", noLock, "rm -rf", RunConfig{
			Commands: noLock.Commands, DefaultCommandID: "script-dev", Env: map[string]string{},
		}},
		{"a lockfile wins over the setting", yarnLock, "pnpm", RunConfig{
			Commands: yarnLock.Commands, DefaultCommandID: "script-dev", Env: map[string]string{},
		}},
		{"the first dev server is the default", goMake, "pnpm", RunConfig{
			Commands: goMake.Commands, DefaultCommandID: "make-dev", Env: map[string]string{},
		}},
		{"no dev server: the first command", noServer, "npm", RunConfig{
			Commands: noServer.Commands, DefaultCommandID: "go-run-cli", Env: map[string]string{},
		}},
		{"no commands", Detection{}, "npm", RunConfig{Commands: []RunCommand{}, Env: map[string]string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := asJSON(tt.d)
			got := DefaultRunConfig(tt.d, tt.defaultPM)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DefaultRunConfig(%s, %q) = %s, want %s", tt.name, tt.defaultPM, asJSON(got), asJSON(tt.want))
			}
			if after := asJSON(tt.d); after != before {
				t.Errorf("DefaultRunConfig(%s) changed its Detection: %s, was %s", tt.name, after, before)
			}
		})
	}
}

// TestDefaultRunConfigOfFixture runs the whole path on a folder: detection
// without a lockfile, then the setting.
func TestDefaultRunConfigOfFixture(t *testing.T) {
	d, err := Detect(unpack(t, "astro-nolock"))
	if err != nil {
		t.Fatal(err)
	}
	got := DefaultRunConfig(d, "yarn")
	want := RunConfig{
		Commands:         []RunCommand{dev("script-dev", "dev", "yarn dev"), dev("script-start", "start", "yarn start")},
		DefaultCommandID: "script-dev", Env: map[string]string{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DefaultRunConfig(Detect(astro-nolock), yarn) = %s, want %s", asJSON(got), asJSON(want))
	}
}

// jsonKeys returns the keys of v marshalled as a JSON object, in order.
func jsonKeys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.Token()
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		dec.Decode(&skip)
	}
	return keys
}

// TestJSONShape pins the JSON names of the shared plan: the other packages
// and the window are written against them.
func TestJSONShape(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"Detection", Detection{}, "name stacks framework label packageManager lockfile hasPackageJson scripts commands likelyPort workspaces"},
		{"SetupDetection", SetupDetection{}, "name stacks framework label packageManager lockfile hasPackageJson scripts commands likelyPort workspaces envFiles isMonorepo setupNotes"},
		{"Script", Script{}, "name command"},
		{"Workspace", Workspace{}, "name dir framework"},
		{"RunCommand", RunCommand{}, "id label command isDevServer"},
		{"RunConfig", RunConfig{}, "commands defaultCommandId env"},
	}
	for _, tt := range tests {
		if got := strings.Join(jsonKeys(t, tt.v), " "); got != tt.want {
			t.Errorf("json keys of %s = %s, want %s", tt.name, got, tt.want)
		}
	}
	s, err := SetupDetect(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	for _, frag := range []string{`"stacks":[]`, `"scripts":[]`, `"commands":[]`, `"likelyPort":null`, `"workspaces":[]`, `"envFiles":[]`} {
		if !strings.Contains(string(b), frag) {
			t.Errorf("json of an empty folder's detection %s lacks %s", b, frag)
		}
	}
	if b, _ := json.Marshal(DefaultRunConfig(Detection{}, "")); string(b) != `{"commands":[],"defaultCommandId":"","env":{}}` {
		t.Errorf("json of an empty run configuration = %s", b)
	}
}

// TestLeaf checks that the package imports the standard library only (so
// nothing of meith's): it is a leaf.
func TestLeaf(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			first, _, _ := strings.Cut(p, "/")
			if strings.Contains(first, ".") {
				t.Errorf("%s imports %s: the package must import the standard library only", name, p)
			}
		}
	}
	if checked == 0 || !slices.Contains(files, "detect.go") {
		t.Fatalf("no source files found (checked %d)", checked)
	}
}
