package find

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// IgnoredFolders are the folders skipped wherever they are (the
// reference's list), unless a listing asks for ignored entries or the
// folder holds files tracked by git. ".git" is never entered.
var IgnoredFolders = []string{"node_modules", ".git", ".next", "dist", "out", ".turbo", ".cache", "coverage"}

// IsIgnoredFolder reports whether a folder of this name is one of
// [IgnoredFolders].
func IsIgnoredFolder(name string) bool {
	switch name {
	case "node_modules", ".git", ".next", "dist", "out", ".turbo", ".cache", "coverage":
		return true
	}
	return false
}

// repoCtx is the git repository a part of a walk is in: its ignore rules
// and, read the first time an ignored path is met, its index (tracked
// files are listed even where the ignore rules match them, as git does).
type repoCtx struct {
	root      string
	rules     *status.IgnoreRules
	indexPath string

	once sync.Once
	ix   *status.Index // nil when the index cannot be read
}

// openRepoAround returns the repository that holds dir (dir or a parent
// is its worktree root), or nil outside one.
func openRepoAround(ctx context.Context, dir string) *repoCtx {
	r, err := repo.Open(ctx, dir)
	if err != nil {
		return nil
	}
	return newRepoCtx(r)
}

// openNestedRepo returns the repository whose worktree root is dir (a
// folder met by a walk that holds a .git), or nil when it is none.
func openNestedRepo(ctx context.Context, dir string) *repoCtx {
	r, err := repo.OpenWorktree(ctx, dir)
	if err != nil {
		return nil
	}
	return newRepoCtx(r)
}

func newRepoCtx(r *repo.Repo) *repoCtx {
	return &repoCtx{root: r.Root, rules: status.LoadIgnoreRules(r), indexPath: filepath.Join(r.GitDir, "index")}
}

func (rc *repoCtx) index() *status.Index {
	rc.once.Do(func() {
		if ix, err := status.ReadIndex(rc.indexPath); err == nil {
			rc.ix = ix
		}
	})
	return rc.ix
}

// tracked reports whether the repository-relative path p is a tracked
// file (isDir false) or a folder holding tracked files (isDir true).
func (rc *repoCtx) tracked(p string, isDir bool) bool {
	ix := rc.index()
	if ix == nil {
		return false
	}
	if isDir {
		lo, hi := ix.Range(p)
		return lo < hi
	}
	_, ok := ix.Find(p)
	return ok
}

// inGitDir reports whether the canonical folder dir is a repository's git
// directory or inside one (no ignore rules apply there).
func inGitDir(dir string) bool {
	return dir == ".git" || strings.HasSuffix(dir, "/.git") || strings.Contains(dir, "/.git/")
}

// hasGitEntry reports whether dir holds a .git (a repository's worktree
// root: a directory, or the "gitdir:" file of a submodule or worktree).
func hasGitEntry(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}
