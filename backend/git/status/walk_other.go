//go:build !linux

package status

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/meith-dev/meith/backend/git/repo"
)

// dirHandle is a directory listed through the os package.
type dirHandle struct{ abs string }

func openDir(root, dir string) (dirHandle, error) {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	fi, err := os.Lstat(abs)
	if err != nil {
		return dirHandle{}, err
	}
	if !fi.IsDir() {
		return dirHandle{}, fs.ErrInvalid
	}
	return dirHandle{abs: abs}, nil
}

func (h dirHandle) close() {}

func (h dirHandle) entries() ([]dirent, error) {
	des, err := repo.ReadDir(h.abs)
	out := make([]dirent, 0, len(des))
	for _, d := range des {
		t := dtOther
		switch m := d.Type(); {
		case m.IsRegular():
			t = dtFile
		case m.IsDir():
			t = dtDir
		case m&fs.ModeSymlink != 0:
			t = dtLink
		}
		out = append(out, dirent{name: d.Name(), typ: t})
	}
	return out, err
}

func (h dirHandle) lstat(name string) (fsStat, error) {
	return lstatPath(filepath.Join(h.abs, name))
}
