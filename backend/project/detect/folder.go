package detect

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// Bounds of what one detection reads.
const (
	maxFileBytes    = 1 << 20  // one file
	maxMainBytes    = 64 << 10 // one Go main file
	maxTotalBytes   = 16 << 20 // all files of one detection
	maxDirEntries   = 2000     // one folder listing
	maxScripts      = 200      // package.json scripts kept
	maxScriptChars  = 1000     // one script's command kept
	maxWorkspaces   = 50       // workspaces expanded
	maxGoMains      = 50       // cmd/* mains looked at
	maxCommandChars = 1000     // a Procfile command kept
)

// readStatus says why a file was or was not read.
type readStatus int

const (
	readOK         readStatus = iota
	readMissing               // no such entry (or a link to nothing)
	readNotRegular            // a folder, FIFO, socket or device: never opened for reading
	readTooLarge              // over the per-file limit or the detection's budget
	readRefused               // a link out of the folder, no permission, or another error
)

// folder is the bounded, confined view of one folder a detection reads
// through. Every name is resolved inside root (os.Root refuses links out of
// it); every open is non-blocking, so a FIFO never blocks; only regular files
// are read, at most maxFileBytes each and maxTotalBytes in all.
type folder struct {
	root   *os.Root
	budget int64
}

func openFolder(dir string) (*folder, error) {
	info, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, &FolderError{Dir: dir, Problem: ProblemNotExist, Err: err}
		}
		return nil, &FolderError{Dir: dir, Problem: ProblemUnreadable, Err: err}
	}
	if !info.IsDir() {
		return nil, &FolderError{Dir: dir, Problem: ProblemNotFolder}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, &FolderError{Dir: dir, Problem: ProblemUnreadable, Err: err}
	}
	return &folder{root: root, budget: maxTotalBytes}, nil
}

func (f *folder) close() { f.root.Close() }

// open opens name inside the folder without blocking and without following a
// link out of it.
func (f *folder) open(name string, extra int) (*os.File, readStatus) {
	fh, err := f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|extra, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, readMissing
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return nil, readNotRegular
		}
		return nil, readRefused
	}
	return fh, readOK
}

// read returns the content of the regular file name, at most limit bytes.
func (f *folder) read(name string, limit int64) ([]byte, readStatus) {
	fh, st := f.open(name, 0)
	if st != readOK {
		return nil, st
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, readRefused
	}
	if !info.Mode().IsRegular() {
		return nil, readNotRegular
	}
	if info.Size() > limit || info.Size() > f.budget {
		return nil, readTooLarge
	}
	n := min(limit, f.budget)
	data, err := io.ReadAll(io.LimitReader(fh, n+1))
	if err != nil {
		return nil, readRefused
	}
	if int64(len(data)) > n { // grew since fstat
		return nil, readTooLarge
	}
	f.budget -= int64(len(data))
	return data, readOK
}

// kind reports what name is inside the folder (links inside it followed):
// a regular file, a folder, something else, or nothing reachable.
func (f *folder) kind(name string) fs.FileMode {
	info, err := f.root.Stat(name)
	if err != nil {
		return fs.ModeIrregular
	}
	return info.Mode().Type()
}

func (f *folder) isFile(name string) bool { return f.kind(name) == 0 }
func (f *folder) isDir(name string) bool  { return f.kind(name) == fs.ModeDir }

// entry is one listed name and whether it is a folder (links inside the
// folder resolved; links out of it are listed as neither).
type entry struct {
	name  string
	isDir bool
	isReg bool
}

// list returns up to maxDirEntries entries of the folder name, sorted by
// name, and whether there were more.
func (f *folder) list(name string) (entries []entry, truncated bool) {
	fh, st := f.open(name, syscall.O_DIRECTORY)
	if st != readOK {
		return nil, false
	}
	defer fh.Close()
	des, _ := fh.ReadDir(maxDirEntries)
	if len(des) == maxDirEntries {
		more, _ := fh.ReadDir(1)
		truncated = len(more) > 0
	}
	for _, de := range des {
		e := entry{name: de.Name(), isDir: de.IsDir(), isReg: de.Type().IsRegular()}
		if de.Type()&fs.ModeSymlink != 0 {
			mode := f.kind(joinRel(name, de.Name()))
			e.isDir, e.isReg = mode == fs.ModeDir, mode == 0
		}
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b entry) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return entries, truncated
}

// joinRel joins folder-relative names with slashes ("." is the folder).
func joinRel(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}
