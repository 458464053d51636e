// Package gittest is the git CLI as the test oracle of the git packages: it
// runs git with a configuration nothing on the machine can change, makes
// repositories and writes their files. Only tests import it; the git
// packages themselves never run git.
package gittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Isolate keeps the machine's git configuration out of the test: no global
// or system config, a fresh HOME, no author or committer dates from the
// environment.
func Isolate(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_AUTHOR_DATE", "")
	t.Setenv("GIT_COMMITTER_DATE", "")
}

// baseArgs give every oracle run the same identity, default branch and
// path quoting.
var baseArgs = []string{"-c", "user.name=t", "-c", "user.email=t@example.com",
	"-c", "init.defaultBranch=main", "-c", "core.quotePath=false"}

// Run runs git in dir with stdin (nil for none) and extra environment, and
// returns stdout, stderr and the exit error. Read-only commands never
// refresh the index (GIT_OPTIONAL_LOCKS=0), so they cannot change what a
// test compares. The global and system config are left out even without
// Isolate.
func Run(dir string, stdin []byte, env []string, args ...string) (string, string, error) {
	cmd := exec.Command("git", append(append([]string{}, baseArgs...), args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// GitEnv runs git in dir with extra environment and fails the test when it
// fails; it returns stdout.
func GitEnv(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, errs, err := Run(dir, nil, env, args...)
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, errs)
	}
	return out
}

// Git runs git in dir and fails the test when it fails; it returns stdout.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return GitEnv(t, dir, nil, args...)
}

// NewRepo makes an empty repository in a temporary directory and returns
// its root with symlinks resolved (as repo.Open reports it).
func NewRepo(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q")
	return dir
}

// Write writes content to rel (slash-separated) under root with perm,
// creating directories and replacing whatever was there (a symlink too).
func Write(t testing.TB, root, rel, content string, perm os.FileMode) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.WriteFile(p, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, perm); err != nil { // WriteFile's perm is masked by the umask
		t.Fatal(err)
	}
}

// Symlink makes rel under root a symbolic link to target.
func Symlink(t testing.TB, root, rel, target string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}
