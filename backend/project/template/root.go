package template

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ProjectsDirEnv names the environment variable that overrides [Root].
const ProjectsDirEnv = "MEITH_PROJECTS_DIR"

// maxUserDirsBytes bounds the read of user-dirs.dirs.
const maxUserDirsBytes = 64 << 10

// Root returns the folder new projects go in: $MEITH_PROJECTS_DIR when set
// (it must be absolute), else the XDG documents folder plus "/meith" — from
// $XDG_DOCUMENTS_DIR, else from XDG_DOCUMENTS_DIR in user-dirs.dirs
// ($XDG_CONFIG_HOME or ~/.config) — else ~/Documents/meith. It does not
// create the folder.
func Root() (string, error) {
	return rootFrom(os.Getenv)
}

func rootFrom(getenv func(string) string) (string, error) {
	if dir := getenv(ProjectsDirEnv); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", &invalidError{ProjectsDirEnv + " must be an absolute path"}
		}
		return filepath.Clean(dir), nil
	}
	home := getenv("HOME")
	if home == "" || !filepath.IsAbs(home) {
		return "", errors.New("find the projects folder: HOME is not set to an absolute path; set " + ProjectsDirEnv)
	}
	home = filepath.Clean(home)
	if dir := getenv("XDG_DOCUMENTS_DIR"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "meith"), nil
	}
	config := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(config) {
		config = filepath.Join(home, ".config")
	}
	if dir, err := readUserDirs(filepath.Join(config, "user-dirs.dirs"), home); err != nil {
		return "", err
	} else if dir != "" {
		return filepath.Join(dir, "meith"), nil
	}
	return filepath.Join(home, "Documents", "meith"), nil
}

// readUserDirs returns the documents folder that the user-dirs.dirs file at
// name sets, "" when the file is missing or does not set one.
func readUserDirs(name, home string) (string, error) {
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("find the projects folder: read user-dirs.dirs: %w", err)
	}
	defer f.Close()
	return parseUserDirs(io.LimitReader(f, maxUserDirsBytes), home), nil
}

// parseUserDirs returns XDG_DOCUMENTS_DIR from a user-dirs.dirs file (shell
// assignments: `XDG_DOCUMENTS_DIR="$HOME/Documents"`), with $HOME expanded;
// "" when it is absent or neither "$HOME/…" nor absolute, as the format
// requires. The last assignment wins, as in the shell.
func parseUserDirs(r io.Reader, home string) string {
	found := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxUserDirsBytes)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.TrimSpace(strings.TrimPrefix(key, "export ")) != "XDG_DOCUMENTS_DIR" {
			continue
		}
		if dir := userDirsValue(strings.TrimSpace(value), home); dir != "" {
			found = dir
		}
	}
	return found
}

// userDirsValue decodes one value of user-dirs.dirs.
func userDirsValue(v, home string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ { // backslash escapes, as the shell reads them in double quotes
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	v = b.String()
	for _, h := range []string{"$HOME", "${HOME}"} {
		if v == h {
			return home
		}
		if rest, ok := strings.CutPrefix(v, h+"/"); ok {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(v) {
		return filepath.Clean(v)
	}
	return ""
}
