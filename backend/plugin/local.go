package plugin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// LoadDir reads the plugin in folder dir (an absolute path): the folder's
// real path (symbolic links resolved), its manifest, and a check that the
// entry is a regular file inside it, reached without leaving the folder
// (a link out of it, or a "../" entry, is [CodeInvalid]). A missing folder
// is [CodeNotFound].
func LoadDir(dir string) (root string, m Manifest, err error) {
	if !filepath.IsAbs(dir) {
		return "", Manifest{}, invalidf("The plugin folder must be an absolute path")
	}
	root, err = filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", Manifest{}, notFoundf("Plugin folder %s does not exist", dir)
	}
	if err != nil {
		return "", Manifest{}, &Error{Code: CodeInvalid, Msg: "Plugin folder " + dir + " cannot be read: " + unwrapPath(err).Error(), Err: err}
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", Manifest{}, &Error{Code: CodeInvalid, Msg: "Plugin folder " + dir + " cannot be read: " + unwrapPath(err).Error(), Err: err}
	}
	if !fi.IsDir() {
		return "", Manifest{}, invalidf("%s is not a folder", dir)
	}
	m, err = loadRoot(root)
	return root, m, err
}

// loadRoot reads the manifest of the real folder root and checks its entry.
func loadRoot(root string) (Manifest, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return Manifest{}, &Error{Code: CodeInvalid, Msg: "Plugin folder " + root + " cannot be opened: " + unwrapPath(err).Error(), Err: err}
	}
	defer r.Close()
	m, err := readManifest(r, root)
	if err != nil {
		return Manifest{}, err
	}
	if err := checkEntry(r, root, m.Entry); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// checkEntry checks that entry (clean and relative) is a regular file in
// the folder r (whose real path is root), also after resolving links.
func checkEntry(r *os.Root, root, entry string) error {
	fi, err := r.Stat(entry)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return invalidf("The plugin's entry %s does not exist in %s", entry, root)
	case isEscape(err):
		return invalidf("The plugin's entry %s is a link that leaves %s", entry, root)
	case err != nil:
		return &Error{Code: CodeInvalid, Msg: "The plugin's entry " + entry + " cannot be read: " + unwrapPath(err).Error(), Err: err}
	case !fi.Mode().IsRegular():
		return invalidf("The plugin's entry %s is not a regular file", entry)
	}
	// os.Root already refused a way out; the real path says the same.
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(entry)))
	if err != nil || !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return invalidf("The plugin's entry %s leaves %s", entry, root)
	}
	return nil
}
