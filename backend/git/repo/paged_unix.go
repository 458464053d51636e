//go:build unix

package repo

import "syscall"

// mapFile maps a file read-only (nil for an empty file).
func mapFile(f *RegularFile, size int64) ([]byte, error) {
	if size <= 0 || size != int64(int(size)) {
		return nil, nil
	}
	return syscall.Mmap(int(f.f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}

func unmapFile(m []byte) { syscall.Munmap(m) }
