package discovery

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// MaxSocketPathLen is the longest socket path that fits in sun_path (108
// bytes, one of them the terminating NUL).
const MaxSocketPathLen = 107

// SocketName is the file name of the socket inside the user data directory.
const SocketName = "tool.sock"

// SocketPath returns the socket path for a user data directory: <userData>/tool.sock,
// or, when that is longer than [MaxSocketPathLen] bytes, a short fallback
// $XDG_RUNTIME_DIR/meith-<hash>.sock, where hash is the first 8 hex digits of
// the SHA-256 of the absolute userData path. When XDG_RUNTIME_DIR is unset or
// unusable (not an absolute path to a directory owned by this user, or still
// too long) the fallback is /tmp/meith-<uid>/<hash>.sock; the socket server creates
// that directory 0700 and refuses it if another user owns it.
// The runtime listens there and the CLI looks there, so both agree.
func SocketPath(userData string) string {
	if abs, err := filepath.Abs(userData); err == nil {
		userData = abs
	} else {
		userData = filepath.Clean(userData)
	}
	p := filepath.Join(userData, SocketName)
	if len(p) <= MaxSocketPathLen {
		return p
	}
	sum := sha256.Sum256([]byte(userData))
	hash := hex.EncodeToString(sum[:4])
	if dir := os.Getenv("XDG_RUNTIME_DIR"); usableRuntimeDir(dir) {
		if q := filepath.Join(dir, "meith-"+hash+".sock"); len(q) <= MaxSocketPathLen {
			return q
		}
	}
	return filepath.Join("/tmp", fmt.Sprintf("meith-%d", os.Getuid()), hash+".sock")
}

// usableRuntimeDir reports whether dir is an absolute path to a directory
// owned by the current user.
func usableRuntimeDir(dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
