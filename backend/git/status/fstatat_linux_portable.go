//go:build linux && !amd64 && !arm64

package status

import "golang.org/x/sys/unix"

// fstatatNoFollow lstats name relative to the directory fd.
func fstatatNoFollow(fd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			return err
		}
	}
}
