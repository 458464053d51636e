// Package artifact writes the files that tools produce for a person to open
// (screenshots, bug reports) under <user data>/artifacts: private folders
// (0700), private files (0600), never overwriting an earlier file.
package artifact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is the folder under the user data dir that holds the artifacts.
const Dir = "artifacts"

// maxTries bounds the search for a free name.
const maxTries = 1000

// Write writes b to a new file base+ext in dir (created 0700 when missing,
// and made 0700), or base-2+ext, base-3+ext, … when the name is taken, and
// returns its path. The file is 0600; a failed write leaves no file.
func Write(dir, base, ext string, b []byte) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("secure %s: %w", dir, err)
	}
	for n := 1; ; n++ {
		name := base + ext
		if n > 1 {
			name = fmt.Sprintf("%s-%d%s", base, n, ext)
		}
		path := filepath.Join(dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && n < maxTries {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("create %s: %w", path, err)
		}
		_, werr := f.Write(b)
		if err := errors.Join(werr, f.Close()); err != nil {
			os.Remove(path)
			return "", fmt.Errorf("write %s: %w", path, err)
		}
		return path, nil
	}
}
