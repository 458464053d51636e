//go:build unix

package repo

import (
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// openNonBlocking opens path with O_NONBLOCK, so that opening a named pipe
// returns at once instead of waiting for a writer, and with O_NOFOLLOW
// unless follow is set. The caller checks what it opened.
func openNonBlocking(path string, flag int, perm fs.FileMode, follow bool) (*os.File, error) {
	flag |= syscall.O_NONBLOCK
	if !follow {
		flag |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flag, perm)
}

// nonBlockFlag is added to the flags of every open of go-git's guarded
// file systems.
const nonBlockFlag = syscall.O_NONBLOCK

// ReadDir lists a directory a repository controls, like os.ReadDir, but
// opens it with O_DIRECTORY|O_NONBLOCK: a named pipe in its place fails at
// once (ENOTDIR) instead of blocking the open.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}
