package cli

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/instance/instancetest"
)

// gitIn runs git in dir with a config of its own and fails the test on an
// error.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Diff Test", "GIT_AUTHOR_EMAIL=d@example.com", "GIT_COMMITTER_NAME=Diff Test", "GIT_COMMITTER_EMAIL=d@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func writeFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// worktreeFiles maps every file under dir (outside .git) to its content
// and whether it is executable.
func worktreeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		var b []byte
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			b = []byte("-> " + target)
		} else if b, err = os.ReadFile(p); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = info.Mode().Perm().String()[3:4] + " " + string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDiffAppliesWithGit makes changes of every kind in a repository, takes
// "meith diff" (the text patch, HEAD to the worktree), and applies it with
// git apply (and checks it with patch --dry-run) on a clone at HEAD: the
// clone's files must then equal the worktree's, content and mode.
func TestDiffAppliesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	inst := instancetest.New(t)
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	gitIn(t, base, "-c", "init.defaultBranch=main", "init", "-q", "repo")
	for name, content := range map[string]string{
		"modified.txt":  "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
		"lose-nl.txt":   "a\nb\n",
		"gain-nl.txt":   "a\nb",
		"deleted.txt":   "bye\n",
		"old-name.txt":  "alpha\nbeta\ngamma\ndelta\nepsilon\n",
		"script.sh":     "#!/bin/sh\necho hi\n",
		"spa ce.txt":    "quoted\n",
		"sub/inner.txt": "inner\n",
		"crlf.txt":      "a\r\nb\r\n",
		"image.bin":     "\x89PNG\r\n\x1a\n\x00\x00old pixels",
	} {
		writeFile(t, filepath.Join(repo, name), content, 0o644)
	}
	if err := os.Symlink("modified.txt", filepath.Join(repo, "tracked-link")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "base")

	writeFile(t, filepath.Join(repo, "modified.txt"), "one\ntwo\n3\nfour\nfive\nsix\nseven\neight\nnine\n", 0o644)
	writeFile(t, filepath.Join(repo, "lose-nl.txt"), "a\nb", 0o644)
	writeFile(t, filepath.Join(repo, "gain-nl.txt"), "a\nb\n", 0o644)
	if err := os.Remove(filepath.Join(repo, "deleted.txt")); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "mv", "old-name.txt", "new-name.txt")
	writeFile(t, filepath.Join(repo, "new-name.txt"), "alpha\nbeta\ngamma\ndelta\nepsilon\nzeta\n", 0o644)
	if err := os.Chmod(filepath.Join(repo, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "spa ce.txt"), "quoted\nmore\n", 0o644)
	writeFile(t, filepath.Join(repo, "sub/inner.txt"), "inner\nchanged\n", 0o644)
	writeFile(t, filepath.Join(repo, "crlf.txt"), "a\r\nB\r\n", 0o644)
	writeFile(t, filepath.Join(repo, "untracked.txt"), "brand new\n", 0o644)
	writeFile(t, filepath.Join(repo, "new/dir/file.txt"), "deep\n", 0o644)
	writeFile(t, filepath.Join(repo, "tool.sh"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(repo, "image.bin"), "\x89PNG\r\n\x1a\n\x00\x00new pixels, more of them", 0o644)
	writeFile(t, filepath.Join(repo, "new.bin"), "\x00\x01\x02\x03 fresh binary", 0o644)
	for link, target := range map[string]string{"tracked-link": "crlf.txt", "new-link": "untracked.txt"} {
		os.Remove(filepath.Join(repo, link))
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}

	var out, errb bytes.Buffer
	code := Main(context.Background(), []string{"--socket", inst.SocketPath, "diff", repo}, &Streams{Out: &out, Err: &errb})
	if code != exitOK {
		t.Fatalf("meith diff: exit %d\n%s", code, errb.String())
	}
	patchText := out.String()
	for _, want := range []string{"rename from old-name.txt", "old mode 100644\nnew mode 100755", "\\ No newline at end of file",
		"new file mode 100755", "new file mode 120000", "deleted file mode 100644", "GIT binary patch", `"b/spa ce.txt"`} {
		if !strings.Contains(patchText, want) && !strings.Contains(patchText, strings.ReplaceAll(want, `"b/spa ce.txt"`, "b/spa ce.txt")) {
			t.Errorf("the patch lacks %q:\n%s", want, patchText)
		}
	}
	patchFile := filepath.Join(base, "meith.patch")
	if err := os.WriteFile(patchFile, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	copyDir := filepath.Join(base, "copy")
	gitIn(t, base, "clone", "-q", repo, copyDir)
	gitIn(t, copyDir, "apply", "--check", patchFile)
	if p, err := exec.LookPath("patch"); err == nil {
		// GNU patch says "git binary diffs are not supported": it checks
		// the text files' part.
		var textOnly strings.Builder
		sections := strings.Split(patchText, "\ndiff --git ")
		for i, sec := range sections {
			if i > 0 {
				sec = "diff --git " + sec
			}
			if !strings.HasSuffix(sec, "\n") {
				sec += "\n"
			}
			if !strings.Contains(sec, "\nGIT binary patch\n") {
				textOnly.WriteString(sec)
			}
		}
		textFile := filepath.Join(base, "text.patch")
		if err := os.WriteFile(textFile, []byte(textOnly.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(p, "-p1", "--dry-run", "-i", textFile)
		cmd.Dir = copyDir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("patch --dry-run: %v\n%s", err, b)
		}
	}
	gitIn(t, copyDir, "apply", patchFile)
	want, got := worktreeFiles(t, repo), worktreeFiles(t, copyDir)
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing after git apply", name)
		} else if g != w {
			t.Errorf("%s: after git apply %q, want %q", name, g, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: left after git apply", name)
		}
	}
}
