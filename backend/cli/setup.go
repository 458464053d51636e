package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/meith-dev/meith/backend/discovery"
)

// maxRCBytes bounds how much of a shell rc file `meith setup --write`
// reads to find its line.
const maxRCBytes = 4 << 20

// setupMarker precedes the line `meith setup --write` appends.
const setupMarker = `# Added by "meith setup"`

// shellSetup is where a shell reads its PATH line, and that line.
type shellSetup struct {
	rc   string // absolute
	line string
}

// setupFor returns the rc file and the PATH line for the shell named by
// shell ($SHELL) that puts binDir on PATH: zsh ~/.zshrc, bash ~/.bashrc,
// fish ~/.config/fish/config.fish (fish_add_path), anything else
// ~/.profile.
func setupFor(shell, home, binDir string) shellSetup {
	export := `export PATH="` + binDir + `:$PATH"`
	if strings.ContainsAny(binDir, "\"$`\\") {
		export = `export PATH='` + strings.ReplaceAll(binDir, `'`, `'\''`) + `':"$PATH"`
	}
	switch filepath.Base(shell) {
	case "zsh":
		return shellSetup{filepath.Join(home, ".zshrc"), export}
	case "bash":
		return shellSetup{filepath.Join(home, ".bashrc"), export}
	case "fish":
		q := "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(binDir) + "'"
		return shellSetup{filepath.Join(home, ".config", "fish", "config.fish"), "fish_add_path " + q}
	}
	return shellSetup{filepath.Join(home, ".profile"), export}
}

// setup is `meith setup [--write]`: it prints the line that puts the
// managed launcher's folder on PATH for the user's shell; --write appends
// it (after a marker comment) to the shell's rc file once.
func (r *runner) setup(rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("setup takes no positional arguments (only --write).")
	}
	paths, err := discovery.ResolvePaths("", "")
	if err != nil {
		return r.p.usage("%s", err)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return r.p.usage("locate your home folder (set HOME): %v", err)
	}
	s := setupFor(os.Getenv("SHELL"), home, paths.BinDir)
	if _, err := os.Stat(filepath.Join(paths.BinDir, "meith")); err != nil && !r.p.quiet {
		r.p.stderr("note: %s does not exist yet; meith installs it when the app (or \"meith serve\") starts.",
			filepath.Join(paths.BinDir, "meith"))
	}
	if !r.a.Bool("write") {
		r.p.stdout("%s", s.line)
		if !r.p.quiet {
			r.p.stderr("Add that line to %s, or run \"meith setup --write\" to add it.", s.rc)
		}
		return exitOK
	}
	added, err := appendOnce(s.rc, s.line)
	if err != nil {
		r.p.stderr("error: %v", err)
		return exitFailure
	}
	if !added {
		r.p.stdout("Already configured in %s.", s.rc)
		return exitOK
	}
	r.p.stdout("Added meith to your PATH in %s. Open a new terminal to use it.", s.rc)
	return exitOK
}

// appendOnce appends the marker and line to rc unless a line of rc is
// already exactly line; it creates rc (and its folder) when missing.
func appendOnce(rc, line string) (added bool, err error) {
	f, err := os.OpenFile(rc, os.O_RDONLY, 0)
	var data []byte
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return false, fmt.Errorf("read %s: %w", rc, err)
	default:
		data, err = io.ReadAll(io.LimitReader(f, maxRCBytes+1))
		f.Close()
		if err != nil {
			return false, fmt.Errorf("read %s: %w", rc, err)
		}
		if len(data) > maxRCBytes {
			return false, fmt.Errorf("%s is larger than %d MiB; add the line yourself (see \"meith setup\")", rc, maxRCBytes>>20)
		}
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		if strings.TrimSpace(string(l)) == line {
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(rc), 0o755); err != nil {
		return false, fmt.Errorf("create the folder of %s: %w", rc, err)
	}
	text := setupMarker + "\n" + line + "\n"
	if len(data) > 0 {
		text = "\n" + text
		if data[len(data)-1] != '\n' {
			text = "\n" + text
		}
	}
	out, err := os.OpenFile(rc, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return false, fmt.Errorf("write %s: %w", rc, err)
	}
	if _, err := out.WriteString(text); err != nil {
		out.Close()
		return false, fmt.Errorf("write %s: %w", rc, err)
	}
	if err := out.Close(); err != nil {
		return false, fmt.Errorf("write %s: %w", rc, err)
	}
	return true, nil
}
