package history

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/repo"
)

// readIndexFile reads a worktree's index; a missing file is an empty index.
func readIndexFile(gitDir string) (*index.Index, error) {
	path := filepath.Join(gitDir, "index")
	f, err := repo.OpenRegular(path, repo.MaxDataFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &index.Index{Version: 2}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	idx := &index.Index{}
	if err := index.NewDecoder(bufio.NewReader(f)).Decode(idx); err != nil {
		if errors.Is(err, index.ErrUnknownExtension) {
			return nil, &UnsupportedError{Feature: "a split or sparse index (core.splitIndex / index.sparse)"}
		}
		if errors.Is(err, index.ErrUnsupportedVersion) {
			return nil, &UnsupportedError{Feature: "an index format version newer than 4"}
		}
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx.ModTime = f.Stat().ModTime()
	return idx, nil
}

// lockIndex takes the worktree's index.lock through the shared plumbing
// (backend/git/repo), keeping this package's *LockedError for a lock held
// by another process. gitDir is the worktree's git directory (a new linked
// worktree's admin directory included).
func lockIndex(r *repo.Repo, gitDir string) (*repo.IndexLock, error) {
	wt := *r
	wt.GitDir = gitDir
	l, err := repo.LockIndex(&wt)
	var locked *repo.IndexLockedError
	if errors.As(err, &locked) {
		return nil, &LockedError{Path: locked.Path}
	}
	return l, err
}
