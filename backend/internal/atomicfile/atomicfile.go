// Package atomicfile replaces files atomically: readers see the old content
// or the new one, never a torn mix, even if the process dies mid-write.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// WriteFile replaces path with data: it writes a temporary file with mode
// perm in the same directory (creating the directory 0700 if missing),
// syncs it, renames it over path and syncs the directory so the rename is
// durable. On failure path is untouched and no temporary file is left,
// except when only the directory's sync fails: path then holds data, which
// may not survive a power loss, and the error says so. Filesystems that
// cannot sync a directory (EINVAL, ENOTSUP) are not an error.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	err = tmp.Chmod(perm)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	d, err := os.Open(dir) // make the rename durable
	if err != nil {
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("write %s: sync directory: %w", path, err)
	}
	return nil
}
