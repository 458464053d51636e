// Package fulldisk gives tests a real filesystem that runs out of space: a
// small tmpfs mounted on a temporary directory, and a filler file that takes
// every free byte until the test frees it. Mounting needs root (or
// CAP_SYS_ADMIN); where it is not permitted the test is skipped with the
// reason.
package fulldisk

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size bytes (mode 0700) on a new temporary
// directory and returns the directory; it is unmounted when the test ends.
// The test is skipped when mounting is not permitted.
func Mount(t testing.TB, size int) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fulldisk")
	if err != nil {
		t.Fatal(err)
	}
	opts := "size=" + strconv.Itoa(size) + ",mode=0700"
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts); err != nil {
		os.Remove(dir)
		t.Skipf("fulldisk: cannot mount a %d-byte tmpfs here (%v); the test needs root or CAP_SYS_ADMIN", size, err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("fulldisk: unmount %s: %v", dir, err)
		}
		os.Remove(dir)
	})
	return dir
}

// Fill writes dir/.filler until the filesystem has no byte left (the last
// page too) and returns a func that removes it again.
func Fill(t testing.TB, dir string) (free func()) {
	t.Helper()
	path := dir + "/.filler"
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatalf("fulldisk: create filler: %v", err)
	}
	defer f.Close()
	for _, chunk := range []int{64 << 10, 4 << 10, 1} {
		buf := make([]byte, chunk)
		for {
			if _, err := f.Write(buf); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("fulldisk: fill %s: %v", dir, err)
				}
				break
			}
		}
	}
	return func() {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("fulldisk: free %s: %v", dir, err)
		}
	}
}
