package archrules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/meith-dev/meith/"

// pkg is what `go list -json` says of one package (its non-test imports).
type pkg struct {
	ImportPath string
	Imports    []string
}

// listPackages returns every package of the module with its direct imports,
// under each build configuration the project compiles (the window's files
// carry build tags).
func listPackages(t *testing.T) map[string][]string {
	t.Helper()
	all := map[string][]string{}
	for _, tags := range []string{"webkit2_41", "desktop,production,webkit2_41", "headless"} {
		cmd := exec.Command("go", "list", "-tags", tags, "-json", mod+"...")
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("go list -tags %s: %v\n%s", tags, err, stderr.Bytes())
		}
		dec := json.NewDecoder(&out)
		for dec.More() {
			var p pkg
			if err := dec.Decode(&p); err != nil {
				t.Fatal(err)
			}
			for _, imp := range p.Imports {
				if !slices.Contains(all[p.ImportPath], imp) {
					all[p.ImportPath] = append(all[p.ImportPath], imp)
				}
			}
			if _, ok := all[p.ImportPath]; !ok {
				all[p.ImportPath] = nil
			}
		}
	}
	return all
}

// rule is one dependency rule: for every package that from matches, each
// of its imports (with deep, every package it reaches) must satisfy
// allowed.
type rule struct {
	name    string
	from    func(pkg string) bool
	allowed func(imp string) bool
	deep    bool
}

func under(prefix string) func(string) bool {
	return func(p string) bool { return p == mod+prefix || strings.HasPrefix(p, mod+prefix+"/") }
}

func ours(p string) bool { return strings.HasPrefix(p, mod) }

func std(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// rules are the layers of docs/ARCHITECTURE.md.
var rules = []rule{
	{"protocol is a leaf (the standard library only)",
		under("backend/protocol"), std, false},
	{"nothing under backend/ imports Wails",
		under("backend"), func(imp string) bool { return !strings.HasPrefix(imp, "github.com/wailsapp/") }, false},
	{"chromedp and cdproto only in backend/browser",
		func(p string) bool { return !under("backend/browser")(p) },
		func(imp string) bool { return !strings.HasPrefix(imp, "github.com/chromedp/") }, false},
	{"go-git only under backend/git",
		func(p string) bool { return !under("backend/git")(p) },
		func(imp string) bool { return !strings.HasPrefix(imp, "github.com/go-git/") }, false},
	{"the CLI stays thin (it reaches only client, protocol, discovery and two leaf helpers)",
		under("backend/cli"),
		func(imp string) bool {
			return !ours(imp) || slices.Contains([]string{
				mod + "backend/cli", mod + "backend/client", mod + "backend/protocol", mod + "backend/discovery",
				mod + "backend/internal/buildinfo", mod + "backend/internal/atomicfile",
			}, imp)
		}, true},
	{"tool packages do not import each other",
		under("backend/tools"),
		func(imp string) bool { return !under("backend/tools")(imp) }, false},
	{"backend/internal helpers are leaves (nothing of ours but other leaf helpers and protocol)",
		under("backend/internal"),
		func(imp string) bool {
			return !ours(imp) || under("backend/internal")(imp) || imp == mod+"backend/protocol"
		}, false},
	{"engines do not import tool packages, the composition root or the window",
		func(p string) bool {
			return under("backend")(p) && !under("backend/tools")(p) && !under("backend/instance")(p) &&
				!under("backend/cli")(p) && !under("backend/cmd")(p)
		},
		func(imp string) bool {
			return !under("backend/tools")(imp) && !under("backend/instance")(imp) && !under("app")(imp)
		}, false},
}

// violations lists, for each rule, the imports that break it.
func violations(graph map[string][]string) []string {
	var out []string
	for _, r := range rules {
		for p, imps := range graph {
			if !r.from(p) || strings.HasSuffix(p, "/archrules") {
				continue
			}
			if r.deep {
				imps = reach(graph, p)
			}
			for _, imp := range imps {
				if !r.allowed(imp) {
					out = append(out, fmt.Sprintf("%s: %s imports %s", r.name, strings.TrimPrefix(p, mod), imp))
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// reach returns every package p imports, directly or not.
func reach(graph map[string][]string, p string) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(string)
	walk = func(q string) {
		for _, imp := range graph[q] {
			if !seen[imp] {
				seen[imp] = true
				out = append(out, imp)
				walk(imp)
			}
		}
	}
	walk(p)
	return out
}

func TestDependencyRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	for _, v := range violations(listPackages(t)) {
		t.Error(v)
	}
}

// TestRulesCatchViolations: each rule refuses the import it is about, so
// the test above cannot pass by accident.
func TestRulesCatchViolations(t *testing.T) {
	bad := map[string][]string{
		mod + "backend/protocol":           {mod + "backend/registry"},
		mod + "backend/state":              {"github.com/wailsapp/wails/v2/pkg/runtime"},
		mod + "backend/tools/gittools":     {"github.com/chromedp/chromedp", "github.com/go-git/go-git/v5", mod + "backend/tools/spacetools"},
		mod + "backend/cli":                {mod + "backend/discovery"},
		mod + "backend/discovery":          {mod + "backend/registry"}, // reached by the CLI
		mod + "backend/internal/jsonl":     {mod + "backend/applog"},
		mod + "backend/process":            {mod + "backend/tools/processtools"},
		mod + "backend/instance":           {"github.com/chromedp/cdproto/page"},
		mod + "backend/browser":            {"github.com/chromedp/chromedp"}, // allowed
		mod + "backend/git/history":        {"github.com/go-git/go-git/v5"},  // allowed
		mod + "backend/tools/browsertools": {mod + "backend/browser"},        // allowed
	}
	got := violations(bad)
	if len(got) != 9 {
		t.Errorf("violations found %d, want 9:\n%s", len(got), strings.Join(got, "\n"))
	}
	for _, name := range []string{"protocol is a leaf", "Wails", "chromedp", "go-git", "CLI stays thin", "do not import each other", "internal helpers", "engines do not import"} {
		if !slices.ContainsFunc(got, func(v string) bool { return strings.Contains(v, name) }) {
			t.Errorf("no violation of the rule about %q was found", name)
		}
	}
}

// TestArchitectureListsEveryPackage: docs/ARCHITECTURE.md's package table
// names every package of the module (the benchmarks as bench/cmd/*), so a
// new package cannot leave the map a newcomer reads behind.
func TestArchitectureListsEveryPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	doc, err := os.ReadFile("../../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(line, "|") {
			continue
		}
		for _, f := range strings.Split(cells[2], "`") {
			listed[strings.TrimSpace(f)] = true
		}
	}
	for p := range listPackages(t) {
		rel := strings.TrimPrefix(p, mod)
		switch {
		case p+"/" == mod:
			rel = "main.go"
		case strings.HasPrefix(rel, "bench/cmd/"):
			rel = "bench/cmd/*"
		}
		if !listed[rel] {
			t.Errorf("docs/ARCHITECTURE.md's package table has no row for %s", rel)
		}
	}
}
