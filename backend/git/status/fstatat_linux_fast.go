//go:build linux && (amd64 || arm64)

package status

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstatatNoFollow lstats name relative to the directory fd. name must be
// followed by a NUL in memory (names from dirHandle.entries are): the
// kernel reads it in place, where unix.Fstatat would copy it first.
func fstatatNoFollow(fd int, name string, st *unix.Stat_t) error {
	p := unsafe.Pointer(unsafe.StringData(name))
	for {
		_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(p), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
		switch errno {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return errno
	}
}
