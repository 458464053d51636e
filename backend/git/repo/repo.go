// Package repo opens a git repository for the git tools: it finds the
// repository that holds any path inside it (linked worktrees included),
// knows its worktree root and git directories, and confines the
// repository-relative paths that tools receive.
//
// Everything here is go-git and the standard library; no git executable is
// ever run, so no hook, filter, fsmonitor or credential helper of the
// repository can run either.
//
// Every file whose path or content a repository controls is read through
// ReadRegular / OpenRegular (or their NoFollow forms for working-tree
// files): opened with O_NONBLOCK, refused unless fstat says it is a
// regular file (a *NotRegularFileError naming it), and read at most up to
// the limit for its kind (a *FileTooLargeError naming the file and the
// limit). go-git's own reads go through the same checks: Open builds the
// go-git repository on a guarded billy file system instead of
// git.PlainOpen. A named pipe or /dev/zero in a repository therefore
// gives an error or is skipped, and never blocks a call or exhausts memory.
//
// The errors the git packages share live here too: an *ArgumentError for
// a missing or malformed argument (history, stage and checkpoint alike)
// and an *UnmergedError for conflicts in the index.
package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
)

// ErrNotRepo is returned (wrapped in a *NotRepoError) when a path is not
// inside a git repository.
var ErrNotRepo = errors.New("not a git repository")

// NotRepoError says that Path is not inside a git repository.
type NotRepoError struct{ Path string }

// Error implements error.
func (e *NotRepoError) Error() string {
	return fmt.Sprintf("%s is not inside a git repository", e.Path)
}

// Is makes errors.Is(err, ErrNotRepo) true.
func (e *NotRepoError) Is(target error) bool { return target == ErrNotRepo }

// IsNotRepo reports whether err says that a path is not inside a repository.
func IsNotRepo(err error) bool { return errors.Is(err, ErrNotRepo) }

// PathError says that a repository-relative path argument was refused.
type PathError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *PathError) Error() string { return fmt.Sprintf("path %q %s", e.Path, e.Reason) }

// IsPathError reports whether err is a refused path.
func IsPathError(err error) bool {
	var pe *PathError
	return errors.As(err, &pe)
}

// Repo is an opened repository.
type Repo struct {
	// Root is the absolute worktree root with symlinks resolved.
	Root string
	// GitDir is this worktree's git directory: <Root>/.git for the main
	// worktree, <common>/worktrees/<name> for a linked one.
	GitDir string
	// CommonDir is the git directory shared by all worktrees (objects,
	// refs, config).
	CommonDir string
	// Git is the go-git repository, opened with the common dir enabled.
	Git *git.Repository
}

// Open finds the repository that contains cwd (cwd itself or a parent) and
// opens it. A cwd that is not inside a repository gives a *NotRepoError; a
// missing cwd gives an error wrapping fs.ErrNotExist.
func Open(ctx context.Context, cwd string) (*Repo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	} else {
		return nil, fmt.Errorf("repo: %w", err)
	}
	root, gitDir, err := findRoot(abs)
	if err != nil {
		return nil, err
	}
	return openAt(root, gitDir)
}

// OpenWorktree opens the repository whose worktree root is exactly dir
// (a submodule or a nested clone): dir/.git must be a directory or a
// "gitdir: …" file. Unlike Open it never looks at parent directories; a
// dir without .git gives a *NotRepoError.
func OpenWorktree(ctx context.Context, dir string) (*Repo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repo: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	} else {
		return nil, fmt.Errorf("repo: %w", err)
	}
	gitDir, found, err := gitDirOf(abs)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, &NotRepoError{Path: abs}
	}
	return openAt(abs, gitDir)
}

// openAt opens the repository of worktree root whose git directory is
// gitDir. Every file read on the way (commondir, HEAD, config) is read as
// a repository-controlled file (see repofile.go), by go-git too.
func openAt(root, gitDir string) (*Repo, error) {
	common := gitDir
	b, err := ReadRegular(filepath.Join(gitDir, "commondir"), MaxRefFileBytes)
	switch {
	case err == nil:
		c := strings.TrimSpace(string(b))
		if c != "" {
			if !filepath.IsAbs(c) {
				c = filepath.Join(gitDir, c)
			}
			common = filepath.Clean(c)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return nil, fmt.Errorf("repo: open %s: %w", root, err)
	}
	for _, dir := range []string{gitDir, common} {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("repo: open %s: the git directory %s is missing", root, dir)
		}
	}
	// go-git reads HEAD and the config first, and reports a refused file
	// as a missing repository or a crossed chroot boundary (a symlink out
	// of the git directory): say what is wrong with them instead.
	for _, f := range []struct {
		path  string
		limit int64
	}{{filepath.Join(gitDir, "HEAD"), MaxRefFileBytes}, {filepath.Join(common, "config"), MaxTextFileBytes}} {
		rf, err := OpenRegular(f.path, f.limit)
		if IsUnreadableFile(err) {
			return nil, fmt.Errorf("repo: open %s: %w", root, err)
		}
		if err == nil {
			rf.Close()
		}
	}
	g, err := openGit(root, gitDir, common)
	if err != nil {
		return nil, fmt.Errorf("repo: open %s: %w", root, err)
	}
	return &Repo{Root: root, GitDir: gitDir, CommonDir: common, Git: g}, nil
}

// findRoot walks up from dir to the first directory holding a .git entry
// (a directory, or a "gitdir: …" file of a linked worktree or submodule).
func findRoot(dir string) (root, gitDir string, err error) {
	start := dir
	for {
		gitDir, found, err := gitDirOf(dir)
		if err != nil {
			return "", "", err
		}
		if found {
			return dir, gitDir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", &NotRepoError{Path: start}
		}
		dir = parent
	}
}

// gitDirOf returns the git directory of dir's .git entry: the entry
// itself when it is a directory, the target of a "gitdir: …" file when it
// is a regular file. found is false when dir has no such entry (anything
// else, a named pipe included, is not a repository, as for git).
func gitDirOf(dir string) (gitDir string, found bool, err error) {
	dotgit := filepath.Join(dir, ".git")
	fi, err := os.Lstat(dotgit)
	switch {
	case err == nil && fi.IsDir():
		return dotgit, true, nil
	case err == nil && fi.Mode().IsRegular():
		b, err := ReadRegularNoFollow(dotgit, MaxRefFileBytes)
		if err != nil {
			return "", false, fmt.Errorf("repo: %w", err)
		}
		line := strings.TrimSpace(string(b))
		target, ok := strings.CutPrefix(line, "gitdir:")
		if !ok {
			return "", false, fmt.Errorf("repo: %s: not a gitdir file", dotgit)
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		return filepath.Clean(target), true, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", false, fmt.Errorf("repo: %w", err)
	}
	return "", false, nil
}

// Confine checks a repository-relative path argument and returns it in
// git's form (slash-separated, clean, no leading "./"). It refuses empty
// paths, absolute paths, paths that leave the repository, paths into .git,
// and values that start with "-" (so they can never be read as options).
func (r *Repo) Confine(rel string) (string, error) {
	if rel == "" {
		return "", &PathError{Path: rel, Reason: "is empty"}
	}
	if strings.HasPrefix(rel, "-") {
		return "", &PathError{Path: rel, Reason: "starts with '-'"}
	}
	if strings.ContainsRune(rel, 0) {
		return "", &PathError{Path: rel, Reason: "contains a NUL byte"}
	}
	if filepath.IsAbs(rel) {
		// An absolute path inside the worktree is accepted and made relative.
		inside, err := filepath.Rel(r.Root, filepath.Clean(rel))
		if err != nil || inside == ".." || strings.HasPrefix(inside, "../") {
			return "", &PathError{Path: rel, Reason: "is outside the repository " + r.Root}
		}
		rel = inside
	}
	p := path.Clean(filepath.ToSlash(rel))
	if p == "." {
		return "", &PathError{Path: rel, Reason: "names the repository root, not a file"}
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return "", &PathError{Path: rel, Reason: "is outside the repository " + r.Root}
	}
	if p == ".git" || strings.HasPrefix(p, ".git/") {
		return "", &PathError{Path: rel, Reason: "is inside the .git directory"}
	}
	return p, nil
}

// Abs returns the absolute file system path of a confined repository path.
func (r *Repo) Abs(rel string) string { return filepath.Join(r.Root, filepath.FromSlash(rel)) }
