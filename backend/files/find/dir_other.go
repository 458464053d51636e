//go:build !(linux && (amd64 || arm64))

package find

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// dirHandle is a directory read through the os package (the portable
// form of dir_linux.go).
type dirHandle struct{ abs string }

func openDir(abs string) (dirHandle, error) {
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

// valid reports whether h names a folder.
func (h dirHandle) valid() bool { return h.abs != "" }

func (h dirHandle) entries() ([]dirent, error) {
	f, err := os.OpenFile(h.abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	des, err := f.ReadDir(-1)
	out := make([]dirent, 0, len(des))
	for _, d := range des {
		out = append(out, dirent{name: d.Name(), typ: typeOfMode(d.Type())})
	}
	return out, err
}

func typeOfMode(m fs.FileMode) uint8 {
	switch {
	case m.IsRegular():
		return dtFile
	case m.IsDir():
		return dtDir
	case m&fs.ModeSymlink != 0:
		return dtLink
	}
	return dtOther
}

func (h dirHandle) stat(name string) (fileInfo, error) {
	fi, err := os.Lstat(filepath.Join(h.abs, name))
	if err != nil {
		return fileInfo{}, err
	}
	return fileInfo{typ: typeOfMode(fi.Mode()), size: fi.Size(), mtimeMs: fi.ModTime().UnixMilli()}, nil
}

// openSub opens the folder rel (relative to h).
func (h dirHandle) openSub(rel string) (dirHandle, error) {
	return openDir(filepath.Join(h.abs, filepath.FromSlash(rel)))
}

// readFile is dir_linux.go's readFile through the os package.
func (h dirHandle) readFile(name string, max int64, buf *[]byte) ([]byte, bool) {
	f, err := os.OpenFile(filepath.Join(h.abs, name), os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, true
	}
	size := int(fi.Size())
	if cap(*buf) < size {
		*buf = make([]byte, size, size+size/4)
	}
	n, err := io.ReadFull(f, (*buf)[:size])
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, true
	}
	return (*buf)[:n], false
}
