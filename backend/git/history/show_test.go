package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// buildShowRepo makes a history with a root commit, edits, a rename with
// changes, an exact rename, a deletion, a binary file, a mode change, a
// file that becomes a symbolic link, a multi-line message with a separate
// committer, and merges (one that brings a side branch's files, one that
// also changes a file itself).
func buildShowRepo(t *testing.T) string {
	t.Helper()
	dir := newRepo(t)
	body := func(n int, tag string) string {
		var sb strings.Builder
		for i := range n {
			fmt.Fprintf(&sb, "line %d of the file %s\n", i, tag)
		}
		return sb.String()
	}
	writeFile(t, dir, "a.txt", "one\ntwo\nthree\n")
	writeFile(t, dir, "dir/b.txt", body(20, "b"))
	writeFile(t, dir, "dir/keep.txt", body(5, "keep"))
	writeFile(t, dir, "bin.dat", "bin\x00ary\x01\x02")
	writeFile(t, dir, "gone.txt", "will go\n")
	writeFile(t, dir, "run.sh", "echo hi\n")
	commitAll(t, dir, 1700000000, "root commit")

	writeFile(t, dir, "a.txt", "one\n2\nthree\nfour\n")
	os.Remove(filepath.Join(dir, "dir", "b.txt"))
	writeFile(t, dir, "dir/c.txt", strings.Replace(body(20, "b"), "line 3 of", "LINE 3 of", 1))
	os.Remove(filepath.Join(dir, "gone.txt"))
	writeFile(t, dir, "bin.dat", "bin\x00ary\x03")
	writeFile(t, dir, "new dir/spaced name.txt", "x\n")
	os.Chmod(filepath.Join(dir, "run.sh"), 0o755)
	commitAll(t, dir, 1700000100, "edit, rename, delete\n\nA body\nwith two lines.\n")

	git(t, dir, "mv", "dir/keep.txt", "kept.txt")
	os.Remove(filepath.Join(dir, "a.txt"))
	if err := os.Symlink("kept.txt", filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "add", "-A")
	gitE(dir, []string{"GIT_AUTHOR_DATE=2024-03-01T10:00:00+0530", "GIT_COMMITTER_DATE=2024-03-02T11:00:00-0800",
		"GIT_COMMITTER_NAME=Other Committer", "GIT_COMMITTER_EMAIL=other@example.com"}, "commit", "-q", "-m", "exact rename and a type change")

	git(t, dir, "branch", "side")
	git(t, dir, "checkout", "-q", "side")
	writeFile(t, dir, "side.txt", "from the side\n")
	writeFile(t, dir, "dir/c.txt", body(21, "b"))
	commitAll(t, dir, 1700000200, "side work")
	git(t, dir, "checkout", "-q", "-")
	writeFile(t, dir, "main.txt", "main\n")
	commitAll(t, dir, 1700000300, "main work")
	gitAt(t, dir, 1700000400, "merge", "-q", "--no-ff", "-m", "merge side", "side")

	git(t, dir, "checkout", "-q", "-b", "side2", "HEAD~1")
	writeFile(t, dir, "side2.txt", "2\n")
	commitAll(t, dir, 1700000500, "side2 work")
	git(t, dir, "checkout", "-q", "-")
	gitAt(t, dir, 1700000600, "merge", "-q", "--no-ff", "--no-commit", "side2")
	writeFile(t, dir, "main.txt", "main, changed in the merge\n")
	git(t, dir, "add", "-A")
	gitAt(t, dir, 1700000600, "commit", "-q", "-m", "merge side2 with a change")
	git(t, dir, "tag", "v1", "HEAD~1")
	return dir
}

// gitShowFiles is git's own list for a commit: "status\told\tpath\tadd\tdel"
// lines from --name-status and --numstat (-z, so names are verbatim).
func gitShowFiles(t *testing.T, dir, rev, path string) string {
	args := func(kind string) []string {
		a := []string{"show", "--format=", "-z", "--diff-merges=first-parent", kind, rev, "--"}
		if path != "" {
			a = append(a, path)
		}
		return a
	}
	ns := strings.Split(strings.TrimPrefix(git(t, dir, args("--name-status")...), "\n"), "\x00")
	num := strings.Split(strings.TrimPrefix(git(t, dir, args("--numstat")...), "\n"), "\x00")
	var sb strings.Builder
	for i, k := 0, 0; i < len(ns) && ns[i] != ""; {
		st, old, p := ns[i][:1], "", ns[i+1]
		i += 2
		if st == "R" {
			old, p = p, ns[i]
			i++
		}
		f := strings.SplitN(num[k], "\t", 3)
		counts := f[0] + "\t" + f[1]
		k++
		if st == "R" {
			k += 2
		}
		fmt.Fprintf(&sb, "%s\t%s\t%s\t%s\n", st, old, p, counts)
	}
	return sb.String()
}

func formatShowFiles(files []ShowFile) string {
	var sb strings.Builder
	for _, f := range files {
		counts := fmt.Sprintf("%d\t%d", f.Additions, f.Deletions)
		if f.Binary {
			counts = "-\t-"
		}
		fmt.Fprintf(&sb, "%s\t%s\t%s\t%s\n", f.Status, f.OriginalPath, f.Path, counts)
	}
	return sb.String()
}

func TestShowMatchesGit(t *testing.T) {
	t.Parallel()
	dir := buildShowRepo(t)
	r := openRepo(t, dir)
	revs := strings.Fields(git(t, dir, "rev-list", "--all"))
	if len(revs) != 8 {
		t.Fatalf("built %d commits", len(revs))
	}
	for _, rev := range append(revs, "HEAD", "v1", "side", "HEAD~2") {
		for _, path := range []string{"", "dir", "a.txt", "kept.txt", "missing"} {
			got, err := Show(testCtx(t), r, ShowOptions{Rev: rev, Path: path, IncludePatches: true})
			if err != nil {
				t.Fatalf("Show(%s, %q): %v", rev, path, err)
			}
			if want := gitShowFiles(t, dir, rev, path); formatShowFiles(got.Files) != want {
				t.Errorf("Show(%s, %q) files =\n%s\nwant\n%s", rev, path, formatShowFiles(got.Files), want)
			}
			args := []string{"show", "--format=", "--diff-merges=first-parent", rev, "--"}
			if path != "" {
				args = append(args, path)
			}
			var patches strings.Builder
			for _, f := range got.Files {
				patches.WriteString(f.Diff)
			}
			if want := strings.TrimPrefix(git(t, dir, args...), "\n"); patches.String() != want {
				t.Errorf("Show(%s, %q) patches =\n%s\nwant\n%s", rev, path, patches.String(), want)
			}
			if path != "" {
				continue
			}
			head := git(t, dir, "show", "-s", "--format=%H%n%h%n%P%n%an%n%ae%n%aI%n%cn%n%ce%n%cI%n%s%n%D", rev)
			mine := fmt.Sprintf("%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n", got.Hash, got.ShortHash, strings.Join(got.Parents, " "),
				got.Author.Name, got.Author.Email, got.Author.Date, got.Committer.Name, got.Committer.Email, got.Committer.Date, got.Subject, got.Refs)
			if mine != head {
				t.Errorf("Show(%s) headers =\n%s\nwant\n%s", rev, mine, head)
			}
			raw := git(t, dir, "cat-file", "commit", rev)
			if _, msg, _ := strings.Cut(raw, "\n\n"); got.Message != msg {
				t.Errorf("Show(%s) message = %q, want %q", rev, got.Message, msg)
			}
			plain, err := Show(testCtx(t), r, ShowOptions{Rev: rev})
			if err != nil {
				t.Fatal(err)
			}
			if formatShowFiles(plain.Files) != formatShowFiles(got.Files) || (len(plain.Files) > 0 && plain.Files[0].Diff != "") {
				t.Errorf("Show(%s) without patches = %+v", rev, plain.Files)
			}
		}
	}
}

func TestShowArguments(t *testing.T) {
	dir := buildShowRepo(t)
	r := openRepo(t, dir)
	for _, opts := range []ShowOptions{{}, {Rev: "-p"}, {Rev: strings.Repeat("a", 2000)}, {Rev: "HEAD", Path: "../x"}} {
		if _, err := Show(testCtx(t), r, opts); !repo.IsArgumentError(err) && !repo.IsPathError(err) {
			t.Errorf("Show(%+v) = %v, want an argument error", opts, err)
		}
	}
	if _, err := Show(testCtx(t), r, ShowOptions{Rev: "nope"}); !IsUnknownRevision(err) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("Show(nope) = %v, want an unknown revision naming it", err)
	}
}

// TestShowGitlinksAndNames covers a submodule entry added and moved, a
// file without a final newline, names git quotes, and an empty commit.
func TestShowGitlinksAndNames(t *testing.T) {
	dir := newRepo(t)
	writeFile(t, dir, "plain.txt", "no newline")
	writeFile(t, dir, "ünï cödé.txt", "x\n")
	writeFile(t, dir, "tab\there.txt", "t\n")
	commitAll(t, dir, 1700000000, "root")
	git(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+strings.Repeat("ab", 20)+",sub")
	writeFile(t, dir, "plain.txt", "no newline, changed")
	writeFile(t, dir, "ünï cödé.txt", "x\ny\n")
	git(t, dir, "add", "plain.txt", "ünï cödé.txt")
	gitAt(t, dir, 1700000100, "commit", "-q", "-m", "add a gitlink")
	git(t, dir, "update-index", "--cacheinfo", "160000,"+strings.Repeat("cd", 20)+",sub")
	gitAt(t, dir, 1700000200, "commit", "-q", "-m", "move the gitlink")
	gitAt(t, dir, 1700000300, "commit", "-q", "--allow-empty", "-m", "empty")
	r := openRepo(t, dir)
	for _, rev := range []string{"HEAD", "HEAD~1", "HEAD~2", "HEAD~3"} {
		got, err := Show(testCtx(t), r, ShowOptions{Rev: rev, IncludePatches: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := gitShowFiles(t, dir, rev, ""); formatShowFiles(got.Files) != want {
			t.Errorf("Show(%s) files =\n%s\nwant\n%s", rev, formatShowFiles(got.Files), want)
		}
		var patches strings.Builder
		for _, f := range got.Files {
			patches.WriteString(f.Diff)
		}
		if want := strings.TrimPrefix(git(t, dir, "show", "--format=", rev), "\n"); patches.String() != want {
			t.Errorf("Show(%s) patches =\n%s\nwant\n%s", rev, patches.String(), want)
		}
	}
}
