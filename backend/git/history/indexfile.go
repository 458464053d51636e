package history

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// readIndexFile reads a worktree's index; a missing file is an empty index.
func readIndexFile(gitDir string) (*index.Index, error) {
	path := filepath.Join(gitDir, "index")
	f, err := os.Open(path)
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
	if fi, err := f.Stat(); err == nil {
		idx.ModTime = fi.ModTime()
	}
	return idx, nil
}

// indexLock holds a worktree's index.lock while the index is rewritten.
type indexLock struct {
	path string
	f    *os.File
}

// lockIndex takes index.lock, refusing with a *LockedError when another
// process holds it.
func lockIndex(gitDir string) (*indexLock, error) {
	path := filepath.Join(gitDir, "index")
	f, err := lockFile(path)
	if err != nil {
		return nil, err
	}
	return &indexLock{path: path, f: f}, nil
}

// commit writes idx to the lock file and renames it over the index. The
// cache-tree and other optional extensions are dropped (go-git does not
// write them), which git treats as "recompute when needed".
func (l *indexLock) commit(idx *index.Index) error {
	if idx.Version < 2 {
		idx.Version = 2
	}
	if idx.Version == 2 {
		for _, e := range idx.Entries {
			if e.IntentToAdd || e.SkipWorktree {
				idx.Version = 3
				break
			}
		}
	}
	sort.SliceStable(idx.Entries, func(i, j int) bool {
		a, b := idx.Entries[i], idx.Entries[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Stage < b.Stage
	})
	idx.Cache = nil
	w := bufio.NewWriter(l.f)
	if err := index.NewEncoder(w).Encode(idx); err != nil {
		l.rollback()
		return fmt.Errorf("write index: %w", err)
	}
	if err := w.Flush(); err != nil {
		l.rollback()
		return fmt.Errorf("write index: %w", err)
	}
	f := l.f
	l.f = nil
	return commitLock(f, l.path, nil)
}

// rollback releases the lock without touching the index.
func (l *indexLock) rollback() {
	if l.f != nil {
		l.f.Close()
		os.Remove(l.f.Name())
		l.f = nil
	}
}
