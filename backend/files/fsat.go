package files

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// fsat.go: the descriptor-relative file system operations every change goes
// through. A folder is opened once by its canonical path and checked, on
// the opened descriptor, to be that path (a folder swapped for a link in
// between is refused); from then on every name is looked up relative to the
// descriptor with O_NOFOLLOW, so no link and no later swap of an ancestor
// can lead an operation outside the folder that was checked.

// errMoved says a path changed between its resolution and its opening.
var errMoved = errors.New("it was moved or replaced while being opened; try again")

// dir is an open folder, checked to be the canonical path it was opened
// by.
type dir struct {
	fd   int
	path string // canonical
}

// openDir opens the folder at the canonical path and checks, on the opened
// descriptor, that it is that folder.
func openDir(path string) (*dir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	if err := verifyFD(fd, path); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &dir{fd: fd, path: path}, nil
}

// close closes the folder's descriptor.
func (d *dir) close() {
	if d != nil && d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}

// abs returns the path of name in d.
func (d *dir) abs(name string) string { return filepath.Join(d.path, name) }

// sub opens the folder name of d, never through a link.
func (d *dir) sub(name string) (*dir, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.abs(name), Err: err}
	}
	return &dir{fd: fd, path: d.abs(name)}, nil
}

// lstat returns what name is in d, without following a link; ok false
// when nothing is there.
func (d *dir) lstat(name string) (st unix.Stat_t, ok bool, err error) {
	err = unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return st, false, nil
	}
	if err != nil {
		return st, false, &os.PathError{Op: "stat", Path: d.abs(name), Err: err}
	}
	return st, true, nil
}

// sync makes the folder's entries durable. File systems that cannot sync
// a folder are not an error.
func (d *dir) sync() error {
	if err := unix.Fsync(d.fd); err != nil && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOTSUP) {
		return &os.PathError{Op: "sync", Path: d.path, Err: err}
	}
	return nil
}

// names lists the entries of d.
func (d *dir) names() ([]string, error) {
	fd, err := unix.Dup(d.fd)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return f.Readdirnames(-1)
}

// verifyFD checks that the descriptor fd is the file at the canonical path
// want: through /proc/self/fd where there is one, else by comparing the
// identity of the descriptor with that of the path (which must still be
// canonical).
func verifyFD(fd int, want string) error {
	got, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err == nil {
		if got != want {
			return errMoved
		}
		return nil
	}
	var fst, pst unix.Stat_t
	if err := unix.Fstat(fd, &fst); err != nil {
		return err
	}
	if err := unix.Lstat(want, &pst); err != nil || fst.Dev != pst.Dev || fst.Ino != pst.Ino {
		return errMoved
	}
	if canon, err := filepath.EvalSymlinks(want); err != nil || canon != want {
		return errMoved
	}
	return nil
}

// kindOf names the type of a stat mode for people.
func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return "file"
	case unix.S_IFDIR:
		return "dir"
	case unix.S_IFLNK:
		return "symlink"
	case unix.S_IFIFO:
		return "named pipe"
	case unix.S_IFSOCK:
		return "socket"
	case unix.S_IFCHR, unix.S_IFBLK:
		return "device"
	}
	return "special file"
}

// snapshot is a regular file as read through [readAt].
type snapshot struct {
	exists    bool
	data      []byte // nil when the file is over the limit and partial reads were not asked for
	truncated bool   // data holds the first limit bytes of a longer file
	size      int64
	mode      uint32 // permission bits (07777)
	mtimeNs   int64
	dev, ino  uint64
	uid, gid  uint32
}

// mtimeMs is the modification time in milliseconds.
func (s snapshot) mtimeMs() int64 { return s.mtimeNs / 1e6 }

// same reports whether st is still the file s was read from, unchanged.
func (s snapshot) same(st unix.Stat_t) bool {
	return st.Dev == s.dev && st.Ino == s.ino && st.Size == s.size && st.Mtim.Nano() == s.mtimeNs
}

// fromStat fills the identity fields of a snapshot.
func fromStat(st unix.Stat_t) snapshot {
	return snapshot{exists: true, size: st.Size, mode: st.Mode & 0o7777, mtimeNs: st.Mtim.Nano(),
		dev: st.Dev, ino: st.Ino, uid: st.Uid, gid: st.Gid}
}

// readAt reads the regular file name of d. Nothing there is a snapshot
// with exists false. A link, a folder or a special file is refused with a
// *PathError on field; the file is opened with O_NOFOLLOW|O_NONBLOCK (a
// named pipe put in its place cannot block the call) and checked on the
// opened descriptor to be a regular file at the path that was resolved.
// At most limit bytes are read: with partial, data holds the first limit
// bytes of a longer file (truncated); without, data stays nil for it.
// beforeOpen, if set, runs between the look-up and the open (tests).
func readAt(d *dir, name, field string, limit int64, partial bool, beforeOpen func(string)) (snapshot, error) {
	st, ok, err := d.lstat(name)
	if err != nil || !ok {
		return snapshot{}, err
	}
	if err := regularOnly(st.Mode, field); err != nil {
		return snapshot{}, err
	}
	if beforeOpen != nil {
		beforeOpen(d.abs(name))
	}
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return snapshot{}, nil
	case errors.Is(err, unix.ELOOP):
		return snapshot{}, &PathError{Field: field, Reason: "is a symbolic link: " + errMoved.Error()}
	case err != nil:
		return snapshot{}, &os.PathError{Op: "open", Path: d.abs(name), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.abs(name))
	defer f.Close()
	if err := unix.Fstat(fd, &st); err != nil {
		return snapshot{}, &os.PathError{Op: "stat", Path: d.abs(name), Err: err}
	}
	if err := regularOnly(st.Mode, field); err != nil {
		return snapshot{}, err
	}
	if err := verifyFD(fd, d.abs(name)); err != nil {
		return snapshot{}, &PathError{Field: field, Reason: err.Error()}
	}
	s := fromStat(st)
	if st.Size > limit && !partial {
		return s, nil
	}
	buf, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return snapshot{}, &os.PathError{Op: "read", Path: d.abs(name), Err: err}
	}
	if int64(len(buf)) > limit {
		if !partial {
			return s, nil
		}
		buf, s.truncated = buf[:limit], true
	}
	s.data = buf
	return s, nil
}

// regularOnly refuses anything but a regular file, naming field.
func regularOnly(mode uint32, field string) error {
	switch mode & unix.S_IFMT {
	case unix.S_IFREG:
		return nil
	case unix.S_IFDIR:
		return &PathError{Field: field, Reason: "is a folder, not a file"}
	case unix.S_IFLNK:
		return &PathError{Field: field, Reason: "is a symbolic link that leads nowhere, or " + errMoved.Error()}
	}
	return &PathError{Field: field, Reason: "is a " + kindOf(mode) + ", not a regular file"}
}

// tempPrefix and tempSuffix frame the names of the temporary files a
// write makes beside its target; see [IsTempFile].
const (
	tempPrefix = "."
	tempMarker = ".meith-"
	tempSuffix = ".tmp"
)

// IsTempFile reports whether a file name is one of the temporary files a
// write makes beside its target before renaming it into place (a watcher
// skips them).
func IsTempFile(name string) bool {
	return strings.HasPrefix(name, tempPrefix) && strings.HasSuffix(name, tempSuffix) && strings.Contains(name, tempMarker)
}

// tempName returns a fresh temporary name for a write of name.
func tempName(name string) string {
	var b [6]byte
	rand.Read(b[:])
	if len(name) > 200 { // stay under NAME_MAX
		name = name[:200]
	}
	return tempPrefix + name + tempMarker + hex.EncodeToString(b[:]) + tempSuffix
}

// replaced is what [replaceAt] wrote.
type replaced struct {
	mtimeMs int64
	bytes   int64
}

// replaceAt replaces the file name of d with data atomically: a temporary
// file beside it is written, synced and renamed over it, then d is synced.
// prev is the file as the caller read it: it keeps its mode (and, when
// possible, its owner), and it must still be there unchanged when the
// rename happens (KindConflict otherwise). Without prev.exists the file
// must still not exist (it is never replaced). On failure the file is
// untouched and no temporary file is left. beforeCommit, if set, runs
// just before the rename (tests).
func replaceAt(d *dir, name, rel string, data []byte, prev snapshot, beforeCommit func()) (replaced, error) {
	tmp := tempName(name)
	mode := uint32(0o666) // less the umask
	if prev.exists {
		mode = prev.mode & 0o777
	}
	fd, err := unix.Openat(d.fd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return replaced{}, writeFail(rel, err)
	}
	committed := false
	defer func() {
		if !committed {
			unix.Unlinkat(d.fd, tmp, 0)
		}
	}()
	f := os.NewFile(uintptr(fd), d.abs(tmp))
	var st unix.Stat_t
	err = func() error {
		defer f.Close()
		if prev.exists {
			if prev.uid != uint32(os.Geteuid()) || prev.gid != uint32(os.Getegid()) {
				_ = unix.Fchown(fd, int(prev.uid), int(prev.gid)) // only root may; the mode is kept anyway
			}
			if err := unix.Fchmod(fd, prev.mode); err != nil { // after chown, which clears set-id bits
				return err
			}
		}
		if _, err := f.Write(data); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		return unix.Fstat(fd, &st)
	}()
	if err != nil {
		return replaced{}, writeFail(rel, err)
	}
	if beforeCommit != nil {
		beforeCommit()
	}
	if prev.exists {
		cur, ok, err := d.lstat(name)
		if err != nil {
			return replaced{}, writeFail(rel, err)
		}
		if !ok || !prev.same(cur) {
			return replaced{}, failf(KindConflict, nil, "%s changed on disk while it was being written; nothing was written: read it again and redo the change", rel)
		}
		err = unix.Renameat(d.fd, tmp, d.fd, name)
		if err != nil {
			return replaced{}, writeFail(rel, err)
		}
	} else if err := renameNoReplace(d, tmp, d, name); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return replaced{}, failf(KindConflict, err, "%s was created by another program meanwhile; nothing was written: read it and redo the change", rel)
		}
		return replaced{}, writeFail(rel, err)
	}
	committed = true
	if err := d.sync(); err != nil {
		return replaced{}, failf(KindIO, err, "%s was written but its folder could not be synced (%s): it may not survive a power loss", rel, pathErrText(err))
	}
	return replaced{mtimeMs: st.Mtim.Nano() / 1e6, bytes: int64(len(data))}, nil
}

// writeFail is the error of a failed write of rel, with advice for a full
// disk or a read-only file system.
func writeFail(rel string, err error) *Error {
	switch {
	case errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EDQUOT):
		return failf(KindIO, err, "write %s: the disk is full (%s); the file is unchanged: free some space and try again", rel, pathErrText(err))
	case errors.Is(err, unix.EROFS):
		return failf(KindIO, err, "write %s: the file system is read-only", rel)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return failf(KindIO, err, "write %s: permission denied (the folder or the file is not writable by meith's user)", rel)
	}
	return ioFail("write", rel, err)
}

// renameNoReplace renames from/fromName to to/toName unless something is
// already there (EEXIST). Where the file system cannot refuse atomically it
// checks first, then renames.
func renameNoReplace(from *dir, fromName string, to *dir, toName string) error {
	err := unix.Renameat2(from.fd, fromName, to.fd, toName, unix.RENAME_NOREPLACE)
	if !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.ENOTSUP) {
		return err
	}
	if _, ok, err := to.lstat(toName); err != nil {
		return err
	} else if ok {
		return unix.EEXIST
	}
	return unix.Renameat(from.fd, fromName, to.fd, toName)
}

// mkdirAllIn makes the folder at the canonical path abs and its missing
// parents, one name at a time relative to the deepest existing ancestor
// (opened and checked), so no link can lead the new folders elsewhere. It
// returns the folder, opened, and the folders it made (outermost first).
func mkdirAllIn(abs, field string) (*dir, []string, error) {
	var missing []string
	cur := abs
	for {
		var st unix.Stat_t
		err := unix.Lstat(cur, &st)
		if err == nil {
			if st.Mode&unix.S_IFMT != unix.S_IFDIR {
				return nil, nil, &PathError{Field: field, Reason: "a parent folder is a " + kindOf(st.Mode) + ": " + cur}
			}
			break
		}
		if !errors.Is(err, unix.ENOENT) {
			return nil, nil, &os.PathError{Op: "stat", Path: cur, Err: err}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return nil, nil, &os.PathError{Op: "stat", Path: cur, Err: err}
		}
		missing = append(missing, filepath.Base(cur))
		cur = parent
	}
	d, err := openDir(cur)
	if err != nil {
		return nil, nil, err
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		name := missing[i]
		err := unix.Mkdirat(d.fd, name, 0o777)
		if err == nil {
			made = append(made, d.abs(name))
		} else if !errors.Is(err, unix.EEXIST) {
			d.close()
			return nil, made, &os.PathError{Op: "mkdir", Path: d.abs(name), Err: err}
		}
		next, err := d.sub(name)
		d.close()
		if err != nil {
			if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				return nil, made, &PathError{Field: field, Reason: fmt.Sprintf("%s is not a folder", filepath.Join(cur, name))}
			}
			return nil, made, err
		}
		d, cur = next, d.abs(name)
	}
	return d, made, nil
}
