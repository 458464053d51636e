//go:build !unix

package repo

import (
	"io/fs"
	"os"
)

// openNonBlocking opens path; without named pipes that block an open
// there is nothing to add but the symlink check (racy, unlike O_NOFOLLOW).
func openNonBlocking(path string, flag int, perm fs.FileMode, follow bool) (*os.File, error) {
	if !follow {
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, &NotRegularFileError{Path: path, Mode: fi.Mode()}
		}
	}
	return os.OpenFile(path, flag, perm)
}

// nonBlockFlag is added to the flags of every open of go-git's guarded
// file systems (nothing to add here).
const nonBlockFlag = 0

// ReadDir lists a directory a repository controls (os.ReadDir).
func ReadDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }
