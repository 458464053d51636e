package status

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// A top-down walk with IgnoreRules (frames entered where a .gitignore is,
// ignored directories never entered) finds the untracked files git lists.
func TestIgnoreRulesWalkMatchesGit(t *testing.T) {
	isolateGit(t)
	dir := ignoreRepo(t)
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ir := LoadIgnoreRules(r)
	tracked := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(run(t, dir, "ls-files")), "\n") {
		tracked[l] = true
	}
	var got []string
	var walk func(rel string, parent IgnoreFrame)
	walk = func(rel string, parent IgnoreFrame) {
		ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		f := parent
		if slices.ContainsFunc(ents, func(e os.DirEntry) bool { return e.Name() == ".gitignore" }) {
			f = ir.Enter(parent, rel)
		}
		for _, e := range ents {
			p := rel + e.Name()
			if e.Name() == ".git" || tracked[p] {
				continue
			}
			if ir.Ignored(f, p, e.IsDir()) {
				continue
			}
			if e.IsDir() {
				walk(p+"/", f)
			} else {
				got = append(got, p)
			}
		}
	}
	walk("", IgnoreFrame{})
	slices.Sort(got)
	want := strings.Split(strings.TrimSpace(run(t, dir, "ls-files", "-o", "--exclude-standard")), "\n")
	// git lists the untracked files of an ignored directory that holds
	// tracked ones only when they are not ignored themselves: the walk
	// above never enters it (tracked-ignored/ has no untracked survivors).
	if !slices.Equal(got, want) {
		t.Errorf("walk found\n%s\ngit ls-files -o --exclude-standard\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
