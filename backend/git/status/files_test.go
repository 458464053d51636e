package status

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

func TestUntrackedAndWorktreeFilesMatchGit(t *testing.T) {
	isolateGit(t)
	dir := ignoreRepo(t)
	write(t, dir, "tracked.txt", "t\n")
	write(t, dir, "gone.txt", "g\n")
	os.Symlink("tracked.txt", filepath.Join(dir, "link"))
	run(t, dir, "add", "tracked.txt", "gone.txt", "link")
	run(t, dir, "commit", "-q", "-m", "two")
	os.Remove(filepath.Join(dir, "gone.txt"))
	write(t, dir, "tracked.txt", "changed\n")
	r, err := repo.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	lines := func(s string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if l != "" {
				out = append(out, l)
			}
		}
		sort.Strings(out)
		return out
	}
	untracked, err := Untracked(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	others := lines(run(t, dir, "ls-files", "--others", "--exclude-standard"))
	compareLines(t, "Untracked", untracked, others)

	files, err := WorktreeFiles(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
		if f.Hash.IsZero() {
			continue
		}
		want := strings.TrimSpace(run(t, dir, "hash-object", "--", f.Path))
		if f.Mode == 0o120000 {
			continue // hash-object follows the link; the index holds the target path
		}
		if f.Hash.String() != want {
			t.Errorf("WorktreeFiles %s hash = %s, want %s", f.Path, f.Hash, want)
		}
	}
	cached := lines(run(t, dir, "ls-files", "--cached"))
	var want []string
	for _, p := range cached {
		if p != "gone.txt" {
			want = append(want, p)
		}
	}
	want = append(want, others...)
	sort.Strings(want)
	compareLines(t, "WorktreeFiles", got, want)
}
