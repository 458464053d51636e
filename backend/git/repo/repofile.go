package repo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
)

// Every file whose path or content a repository controls (its config and
// the files that config names, HEAD and refs, the index, ignore,
// attributes and mailmap files, worktree pointer files, checkpoint
// metadata, working-tree files) is read through this file: opened without
// blocking, refused unless it is a regular file, and read at most up to a
// limit. A hostile repository can make any of them a named pipe (a plain
// open or read would block for ever, pinning an OS thread per call), a
// symlink to /dev/zero (a whole-file read would never end) or a sparse
// file of terabytes; git itself hangs on several of these.

// Read limits for the kinds of repository-controlled files.
const (
	// MaxRefFileBytes bounds HEAD, loose refs, MERGE_HEAD and the pointer
	// files of worktrees (.git, gitdir, commondir, locked).
	MaxRefFileBytes int64 = 64 << 10
	// MaxTextFileBytes bounds config files (and the files they include),
	// ignore and attributes files, mailmaps and meith's checkpoint
	// metadata.
	MaxTextFileBytes int64 = 16 << 20
	// MaxListFileBytes bounds packed-refs, shallow, alternates and
	// commit-graph chains.
	MaxListFileBytes int64 = 512 << 20
	// MaxDataFileBytes bounds the index, commit-graph files and the
	// working-tree files that are read whole.
	MaxDataFileBytes int64 = 1 << 30
)

// ErrNotRegularFile is wrapped by *NotRegularFileError.
var ErrNotRegularFile = errors.New("not a regular file")

// NotRegularFileError says that a repository-controlled file was not read
// because it is not a regular file: a named pipe, a device, a socket, a
// directory, or (when symlinks are not followed) a symbolic link.
type NotRegularFileError struct {
	Path string
	Mode fs.FileMode
}

// Error implements error.
func (e *NotRegularFileError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: not read", e.Path, describeMode(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegularFile) true.
func (e *NotRegularFileError) Is(target error) bool { return target == ErrNotRegularFile }

// IsNotRegularFile reports whether err says a file was refused for not
// being a regular file.
func IsNotRegularFile(err error) bool { return errors.Is(err, ErrNotRegularFile) }

// ErrFileTooLarge is wrapped by *FileTooLargeError.
var ErrFileTooLarge = errors.New("file too large")

// FileTooLargeError says that a repository-controlled file is larger than
// the limit for its kind and was not read.
type FileTooLargeError struct {
	Path  string
	Limit int64
}

// Error implements error.
func (e *FileTooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %s, the limit for this kind of file: not read", e.Path, formatBytes(e.Limit))
}

// Is makes errors.Is(err, ErrFileTooLarge) true.
func (e *FileTooLargeError) Is(target error) bool { return target == ErrFileTooLarge }

// IsFileTooLarge reports whether err says a file was over its read limit.
func IsFileTooLarge(err error) bool { return errors.Is(err, ErrFileTooLarge) }

// IsUnreadableFile reports whether err is one of this file's refusals
// (not a regular file, or too large): callers that skip a missing
// optional file skip these the same way.
func IsUnreadableFile(err error) bool { return IsNotRegularFile(err) || IsFileTooLarge(err) }

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a directory"
	}
	return "a special file"
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// RegularFile is a repository-controlled file opened for reading: a
// regular file whose reads stop with a *FileTooLargeError past its limit.
type RegularFile struct {
	f     *os.File
	info  fs.FileInfo
	limit int64
	read  int64
}

// OpenRegular opens path for reading, following symlinks, as a
// repository-controlled file of at most limit bytes. The open never
// blocks; anything but a regular file (or /dev/null, read as empty)
// gives a *NotRegularFileError, a
// file over the limit a *FileTooLargeError, and a missing file an error
// wrapping fs.ErrNotExist.
func OpenRegular(path string, limit int64) (*RegularFile, error) {
	return openRegular(path, limit, true)
}

// OpenRegularNoFollow is OpenRegular for a path whose last element must
// not be a symbolic link (files inside the working tree, which git opens
// without following: a symlink gives a *NotRegularFileError).
func OpenRegularNoFollow(path string, limit int64) (*RegularFile, error) {
	return openRegular(path, limit, false)
}

func openRegular(path string, limit int64, follow bool) (*RegularFile, error) {
	f, err := openNonBlocking(path, os.O_RDONLY, 0, follow)
	if err != nil {
		return nil, refusal(path, err, follow)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !readable(fi) {
		f.Close()
		return nil, &NotRegularFileError{Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > limit {
		f.Close()
		return nil, &FileTooLargeError{Path: path, Limit: limit}
	}
	return &RegularFile{f: f, info: fi, limit: limit}, nil
}

// devNull is what /dev/null is, if it is there.
var devNull = sync.OnceValue(func() fs.FileInfo {
	fi, _ := os.Stat(os.DevNull)
	return fi
})

// readable reports whether an opened file may be read: a regular file, or
// /dev/null (empty at once; GIT_CONFIG_GLOBAL=/dev/null is how git's own
// tests and scripts say "no global config", and git reads it as empty).
func readable(fi fs.FileInfo) bool {
	if fi.Mode().IsRegular() {
		return true
	}
	null := devNull()
	return null != nil && os.SameFile(fi, null)
}

// refusal turns the error of opening path into a *NotRegularFileError
// when the open failed because of what path is (a socket, or a symlink
// not followed), and returns other errors unchanged.
func refusal(path string, err error, follow bool) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	stat := os.Stat
	if !follow {
		stat = os.Lstat
	}
	if fi, serr := stat(path); serr == nil && !readable(fi) {
		return &NotRegularFileError{Path: path, Mode: fi.Mode()}
	}
	return err
}

// Read implements io.Reader; past the limit it fails with a
// *FileTooLargeError (the file grew after it was opened).
func (r *RegularFile) Read(p []byte) (int, error) {
	if r.read >= r.limit {
		var one [1]byte
		if n, _ := r.f.Read(one[:]); n > 0 {
			return 0, &FileTooLargeError{Path: r.f.Name(), Limit: r.limit}
		}
		return 0, io.EOF
	}
	if rest := r.limit - r.read; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := r.f.Read(p)
	r.read += int64(n)
	return n, err
}

// ReadAt implements io.ReaderAt within the limit.
func (r *RegularFile) ReadAt(p []byte, off int64) (int, error) {
	if off >= r.limit {
		return 0, &FileTooLargeError{Path: r.f.Name(), Limit: r.limit}
	}
	if rest := r.limit - off; int64(len(p)) > rest {
		p = p[:rest]
	}
	return r.f.ReadAt(p, off)
}

// Stat returns what the open file was when it was opened.
func (r *RegularFile) Stat() fs.FileInfo { return r.info }

// Close closes the file.
func (r *RegularFile) Close() error { return r.f.Close() }

// OpenRegularForAppend opens (creating it with perm if missing) a
// repository-controlled file to append to, such as a reflog. The open
// never blocks (a named pipe without a reader would block a plain
// O_WRONLY open for ever); anything but a regular file, /dev/null
// included, gives a *NotRegularFileError.
func OpenRegularForAppend(path string, perm fs.FileMode) (*os.File, error) {
	f, err := openNonBlocking(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm, true)
	if err != nil {
		return nil, refusal(path, err, true)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularFileError{Path: path, Mode: fi.Mode()}
	}
	return f, nil
}

// ReadRegular reads a whole repository-controlled file, following
// symlinks, under the rules of OpenRegular.
func ReadRegular(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, true)
}

// ReadRegularNoFollow reads a whole repository-controlled file under the
// rules of OpenRegularNoFollow.
func ReadRegularNoFollow(path string, limit int64) ([]byte, error) {
	return readRegular(path, limit, false)
}

func readRegular(path string, limit int64, follow bool) ([]byte, error) {
	f, err := openRegular(path, limit, follow)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadAll()
}

// ReadAll reads the rest of the file, at most its limit.
func (r *RegularFile) ReadAll() ([]byte, error) {
	// The size is known and bounded: one allocation, plus a byte to see
	// growth.
	buf := make([]byte, 0, min(r.info.Size(), r.limit)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}
