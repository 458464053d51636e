package status

import (
	"context"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/meith-dev/meith/backend/git/repo"
)

// WorktreeFile is one file present in the worktree that git would care
// about: tracked, or untracked and not ignored.
type WorktreeFile struct {
	// Path is the repository-relative slash-separated path.
	Path string
	// Mode is the mode git would record for the file.
	Mode filemode.FileMode
	// Hash is the file's blob when it is known without reading the file
	// again: the index's blob for a file whose stat data matches the
	// index, or the blob status computed for a file it had to hash. It is
	// zero otherwise (hash the file yourself).
	Hash plumbing.Hash
	// Tracked says the path is in the index.
	Tracked bool
}

// Untracked lists the untracked files that are not ignored, sorted, like
// `git ls-files --others --exclude-standard`; a nested repository is
// listed as its directory with a trailing slash.
func Untracked(ctx context.Context, r *repo.Repo) ([]string, error) {
	return NewEngine(r).Untracked(ctx)
}

// Untracked is the package-level Untracked on the engine's state.
func (e *Engine) Untracked(ctx context.Context) ([]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.refreshConfig()
	ix, err := e.refreshIndex()
	if err != nil {
		return nil, err
	}
	_, untracked, err := e.worktree(ctx, ix, Options{})
	return untracked, err
}

// WorktreeFiles lists every tracked file present in the worktree and
// every untracked file that is not ignored, sorted by path (what a
// checkpoint must capture; nested repositories are left out). Tracked files whose stat data matches the
// index carry the index's blob, so they need no hashing.
func WorktreeFiles(ctx context.Context, r *repo.Repo) ([]WorktreeFile, error) {
	return NewEngine(r).WorktreeFiles(ctx)
}

// WorktreeFiles is the package-level WorktreeFiles on the engine's state.
func (e *Engine) WorktreeFiles(ctx context.Context) ([]WorktreeFile, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.refreshConfig()
	ix, err := e.refreshIndex()
	if err != nil {
		return nil, err
	}
	states, untracked, err := e.worktree(ctx, ix, Options{})
	if err != nil {
		return nil, err
	}
	out := make([]WorktreeFile, 0, len(ix.Entries)+len(untracked))
	for i := range ix.Entries {
		en := &ix.Entries[i]
		if i > 0 && ix.Entries[i-1].Path == en.Path {
			continue // another stage of a conflict
		}
		st := &states[i]
		if st.code == wtUnseen || st.code == wtDeleted {
			continue
		}
		if en.SkipWorktree && st.st.mode == 0 {
			continue // not checked out
		}
		f := WorktreeFile{Path: en.Path, Tracked: true, Mode: filemode.FileMode(gitMode(&st.st, e.cfg.fileMode, uint32(en.Mode)))}
		switch {
		case en.Stage != 0 || en.IntentToAdd:
		case st.code == wtClean:
			f.Hash = en.Hash
		default:
			f.Hash = st.hash
		}
		out = append(out, f)
	}
	for _, p := range untracked {
		if p[len(p)-1] == '/' {
			continue // a nested repository: not a file of this one
		}
		s, err := lstatPath(e.r.Abs(p))
		if err != nil {
			continue // vanished since the walk
		}
		if m := gitMode(&s, e.cfg.fileMode, 0); m != 0 {
			out = append(out, WorktreeFile{Path: p, Mode: filemode.FileMode(m)})
		}
	}
	sortWorktreeFiles(out)
	return out, nil
}

func sortWorktreeFiles(fs []WorktreeFile) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
}
