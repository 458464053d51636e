package socket

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/discovery"
)

// ErrInUse is matched (with errors.Is) by the error [Listen] returns when a
// live runtime already listens on the path.
var ErrInUse = errors.New("socket in use")

// InUseError reports that another runtime is already listening on Path. It
// matches [ErrInUse].
type InUseError struct {
	Path string
}

// Error implements error.
func (e *InUseError) Error() string {
	return "another meith runtime is already listening on " + e.Path
}

// Unwrap returns [ErrInUse].
func (e *InUseError) Unwrap() error { return ErrInUse }

// IsInUse reports whether err says that a live runtime owns the socket path.
func IsInUse(err error) bool { return errors.Is(err, ErrInUse) }

// staleDialTimeout bounds the dial that tells a live socket from a stale one.
const staleDialTimeout = time.Second

// listenMu serializes the check-then-bind of [Listen] and the umask change
// within this process.
var listenMu sync.Mutex

// prepareDir creates dir 0700 if missing and makes sure only this user can
// reach into it: it must be owned by this user (it is then made 0700). A
// directory owned by anyone else is refused, whatever its mode: in a shared
// sticky directory such as /tmp/meith-<uid> created by another user, that
// user could unlink our socket and listen in its place, reading every call
// the CLI sends. dir must therefore be a directory dedicated to meith (the
// user data directory, $XDG_RUNTIME_DIR or /tmp/meith-<uid>), never /tmp.
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create socket directory: %w", err)
	}
	// A symbolic link is followed only when this user owns it: one planted
	// by someone else (say /tmp/meith-<uid> pointing into our home) would
	// make us chmod and bind wherever it points.
	if li, err := os.Lstat(dir); err == nil && li.Mode()&fs.ModeSymlink != 0 {
		if st, ok := li.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			return &DirError{Dir: dir, Reason: fmt.Sprintf("it is a symbolic link owned by uid %d, not by this user (%d)", st.Uid, os.Geteuid())}
		}
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("stat socket directory: %w", err)
	}
	if !fi.IsDir() {
		return &DirError{Dir: dir, Reason: "it is not a directory"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return &DirError{Dir: dir, Reason: fmt.Sprintf("it is owned by uid %d, not by this user (%d)", st.Uid, os.Geteuid())}
	}
	if fi.Mode().Perm() != 0o700 || fi.Mode()&(fs.ModeSticky|fs.ModeSetgid|fs.ModeSetuid) != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("make socket directory private: %w", err)
		}
	}
	return nil
}

// DirError reports a socket directory the runtime refuses to listen in,
// because another user could replace the socket there. See [IsDirError].
type DirError struct {
	Dir    string
	Reason string
}

// Error implements error.
func (e *DirError) Error() string {
	return fmt.Sprintf("refusing socket directory %s: %s; remove it, or set XDG_RUNTIME_DIR or a shorter MEITH_USER_DATA so the socket lives in a folder of your own", e.Dir, e.Reason)
}

// IsDirError reports whether err is a *[DirError].
func IsDirError(err error) bool {
	var de *DirError
	return errors.As(err, &de)
}

// clearStale removes a stale socket file at path. A live socket (one that
// accepts a connection) gives an *InUseError; a path that is not a socket,
// or a dial that fails other than with "connection refused", is an error and
// nothing is removed.
func clearStale(ctx context.Context, path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat socket path: %w", err)
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("socket path %s exists and is not a socket", path)
	}
	d := net.Dialer{Timeout: staleDialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err == nil {
		_ = c.Close()
		return &InUseError{Path: path}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("check existing socket %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// listenPrivate binds path with the process umask set to 0177, so the
// socket is created 0600 (srw-------) and there is no window in which
// another user could connect before a chmod. The umask is process-wide:
// while it is set (only around the bind system call), files and directories
// created by other goroutines get at most owner read/write permissions too.
// Callers hold listenMu.
func listenPrivate(path string) (*net.UnixListener, error) {
	old := syscall.Umask(0o177)
	defer syscall.Umask(old)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", path, err)
	}
	// We unlink the socket ourselves, and only while it is still ours.
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// fileID identifies a file by device and inode.
type fileID struct{ dev, ino uint64 }

func statID(path string) (fileID, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, true
}

// bind prepares the directory, clears a stale socket and listens on path.
func bind(ctx context.Context, path string) (*net.UnixListener, fileID, error) {
	if len(path) > discovery.MaxSocketPathLen {
		return nil, fileID{}, fmt.Errorf("socket path %s is %d bytes, longer than the %d-byte sun_path limit (use discovery.SocketPath)", path, len(path), discovery.MaxSocketPathLen)
	}
	if err := prepareDir(filepath.Dir(path)); err != nil {
		return nil, fileID{}, err
	}
	listenMu.Lock()
	defer listenMu.Unlock()
	if err := clearStale(ctx, path); err != nil {
		return nil, fileID{}, err
	}
	ln, err := listenPrivate(path)
	if err != nil {
		return nil, fileID{}, err
	}
	id, ok := statID(path)
	if !ok {
		_ = ln.Close()
		return nil, fileID{}, fmt.Errorf("stat new socket %s: not found after bind", path)
	}
	return ln, id, nil
}
