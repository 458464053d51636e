package repo

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// WriteWorktreeFile makes the worktree path rel (a confined, slash-form
// path) hold content with the git mode: a regular or executable file
// written atomically (a temporary file in the same directory renamed over
// the path), or a symlink whose target is content. Missing parent
// directories are created; a parent that is a symlink or a file is refused
// with a *PathError (nothing is ever written through a symlink), and so is
// a non-empty directory at rel itself. It returns the Lstat of the written
// path, for FillStat.
func WriteWorktreeFile(r *Repo, rel string, content []byte, mode filemode.FileMode) (os.FileInfo, error) {
	abs := r.Abs(rel)
	if err := makeParents(r, rel); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
		if err := os.Remove(abs); err != nil {
			return nil, &PathError{Path: rel, Reason: "is a directory that is not empty"}
		}
	}
	tmp := filepath.Join(filepath.Dir(abs), "."+filepath.Base(abs)+".meith-"+randomSuffix())
	switch mode {
	case filemode.Symlink:
		if err := os.Symlink(filepath.FromSlash(string(content)), tmp); err != nil {
			return nil, fmt.Errorf("write %s: %w", rel, err)
		}
	case filemode.Regular, filemode.Executable:
		perm := os.FileMode(0o666)
		if mode == filemode.Executable {
			perm = 0o777
		}
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err != nil {
			return nil, fmt.Errorf("write %s: %w", rel, err)
		}
		_, werr := f.Write(content)
		cerr := f.Close()
		if werr != nil || cerr != nil {
			os.Remove(tmp)
			return nil, fmt.Errorf("write %s: %w", rel, errors.Join(werr, cerr))
		}
	default:
		return nil, fmt.Errorf("write %s: cannot write a file of mode %o", rel, uint32(mode))
	}
	if err := os.Rename(tmp, abs); err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("write %s: %w", rel, err)
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", rel, err)
	}
	return fi, nil
}

// RemoveWorktreeFile deletes the worktree file or symlink at rel (a
// missing one is fine) and then its parent directories that became empty,
// as git does when it removes a tracked file. Paths under a symlinked
// directory are refused with a *PathError; directories are not removed
// (except empty ones).
func RemoveWorktreeFile(r *Repo, rel string) error {
	if err := checkNoSymlinkParent(r, rel); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	abs := r.Abs(rel)
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("remove %s: %w", rel, err)
	case fi.IsDir():
		if err := os.Remove(abs); err != nil {
			return &PathError{Path: rel, Reason: "is a directory that is not empty"}
		}
	default:
		if err := os.Remove(abs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", rel, err)
		}
	}
	RemoveEmptyParents(r, rel)
	return nil
}

// RemoveEmptyParents removes the parent directories of rel that are empty,
// from the deepest up, stopping at the first that is not (or at the root).
func RemoveEmptyParents(r *Repo, rel string) {
	for d := rel; ; {
		slash := strings.LastIndexByte(d, '/')
		if slash < 0 {
			return
		}
		d = d[:slash]
		if os.Remove(r.Abs(d)) != nil {
			return
		}
	}
}

// makeParents creates the missing parent directories of rel and refuses a
// parent that exists as something else.
func makeParents(r *Repo, rel string) error {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		d := rel[:i]
		abs := r.Abs(d)
		fi, err := os.Lstat(abs)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return &PathError{Path: rel, Reason: "is beyond a symbolic link (" + d + ")"}
		case err == nil:
			return &PathError{Path: rel, Reason: "has a parent that is a file (" + d + ")"}
		case errors.Is(err, fs.ErrNotExist):
			if err := os.Mkdir(abs, 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
				return fmt.Errorf("create %s: %w", d, err)
			}
		default:
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	return nil
}

// checkNoSymlinkParent refuses a path whose parent directories include a
// symlink (git's "beyond a symbolic link"); a missing parent gives an error
// wrapping fs.ErrNotExist.
func checkNoSymlinkParent(r *Repo, rel string) error {
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		fi, err := os.Lstat(r.Abs(rel[:i]))
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return &PathError{Path: rel, Reason: "is beyond a symbolic link (" + rel[:i] + ")"}
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
		}
	}
	return nil
}

// CheckNoSymlinkParent refuses, with a *PathError, a path that lies beyond
// a symbolic link inside the worktree (git never follows one). A missing
// parent is not an error.
func CheckNoSymlinkParent(r *Repo, rel string) error {
	if err := checkNoSymlinkParent(r, rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func randomSuffix() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
