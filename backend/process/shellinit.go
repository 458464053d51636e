package process

// shellinit.go: the init wrappers a terminal's shell starts through, so that
// Options.LauncherDir (the managed `meith` launcher) stays first on PATH
// even when the user's profile resets PATH (Debian's /etc/profile does, for
// a login shell). Each wrapper runs the user's own start-up files the way
// the shell would, then puts the folder first again:
//
//   - bash: `bash --rcfile <wrapper> -i`; the wrapper sources /etc/profile
//     and the first of ~/.bash_profile, ~/.bash_login, ~/.profile (what a
//     login shell reads; ~/.bashrc when none exists). bash ignores
//     --rcfile in a login shell, so the shell itself is not one.
//   - zsh: `zsh -l` with ZDOTDIR set to a folder whose .zshenv, .zprofile,
//     .zshrc and .zlogin source the user's (from their ZDOTDIR, else
//     $HOME), put the folder first after .zshrc and .zlogin, and give the
//     user's ZDOTDIR back at the end.
//   - fish: `fish -l --init-command …` (run after the configuration).
//   - any other shell: the environment's PATH only.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
)

// userZdotdirEnv carries the user's ZDOTDIR through the zsh wrapper.
const userZdotdirEnv = "MEITH_USER_ZDOTDIR"

// shQuote quotes s for a POSIX shell.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishQuote quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// shPutFirst is the sh/bash/zsh snippet that puts dir first on PATH.
func shPutFirst(dir string) string {
	q := shQuote(dir)
	return fmt.Sprintf("case \"$PATH\" in %s|%s:*) ;; *) PATH=%s:\"$PATH\" ;; esac\nexport PATH\n", q, q, q)
}

// bashWrapper is the --rcfile of bash.
func bashWrapper(dir string) string {
	return `# Written by meith: runs your start-up files like a login shell, then puts
# meith's launcher folder first on PATH. Edit your own files, not this one.
if [ -r /etc/profile ]; then . /etc/profile; fi
if [ -r "$HOME/.bash_profile" ]; then . "$HOME/.bash_profile"
elif [ -r "$HOME/.bash_login" ]; then . "$HOME/.bash_login"
elif [ -r "$HOME/.profile" ]; then . "$HOME/.profile"
elif [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"
fi
` + shPutFirst(dir)
}

// zshWrapper returns the files of the zsh wrapper folder ours.
func zshWrapper(dir, ours string) map[string]string {
	source := func(name string) string {
		return fmt.Sprintf("ZDOTDIR=\"${%[1]s:-$HOME}\"\nif [ -r \"$ZDOTDIR/%[2]s\" ]; then . \"$ZDOTDIR/%[2]s\"; fi\n%[1]s=\"$ZDOTDIR\"\nZDOTDIR=%[3]s\n",
			userZdotdirEnv, name, shQuote(ours))
	}
	head := "# Written by meith: runs your zsh start-up file, then keeps meith's launcher\n# folder first on PATH. Edit your own files, not this one.\n"
	return map[string]string{
		".zshenv":   head + source(".zshenv"),
		".zprofile": head + source(".zprofile"),
		".zshrc":    head + source(".zshrc") + shPutFirst(dir),
		".zlogin": head + source(".zlogin") + shPutFirst(dir) +
			fmt.Sprintf("ZDOTDIR=\"$%[1]s\"\nunset %[1]s\n", userZdotdirEnv),
	}
}

// writeIfChanged writes data to path unless it already holds exactly that.
func writeIfChanged(path, data string) error {
	if b, err := os.ReadFile(path); err == nil && string(b) == data {
		return nil
	}
	return atomicfile.WriteFile(path, []byte(data), 0o644)
}

// shellStart returns the arguments and the extra environment that start
// shell as a terminal's shell. Without a launcher folder (or when a wrapper
// cannot be written, which is logged) bash and zsh run as login shells and
// nothing is added.
func (m *Manager) shellStart(shell string, env []string) (args, extra []string) {
	name := filepath.Base(shell)
	dir, initDir := m.opts.LauncherDir, m.opts.ShellInitDir
	plain := func() ([]string, []string) {
		if name == "bash" || name == "zsh" {
			return []string{"-l"}, nil
		}
		return nil, nil
	}
	if dir == "" || initDir == "" {
		return plain()
	}
	if name == "fish" {
		q := fishQuote(dir)
		return []string{"-l", "--init-command", fmt.Sprintf("set -gx PATH %s (string match -v -- %s $PATH)", q, q)}, nil
	}
	if name != "bash" && name != "zsh" {
		return plain()
	}
	if err := os.MkdirAll(initDir, 0o700); err != nil {
		m.logf("warn", "shell init wrapper: %v; the terminal keeps the PATH of its environment only", err)
		return plain()
	}
	if name == "bash" {
		rc := filepath.Join(initDir, "bashrc")
		if err := writeIfChanged(rc, bashWrapper(dir)); err != nil {
			m.logf("warn", "shell init wrapper: %v; the terminal keeps the PATH of its environment only", err)
			return plain()
		}
		return []string{"--rcfile", rc, "-i"}, nil
	}
	zdir := filepath.Join(initDir, "zsh")
	if err := os.MkdirAll(zdir, 0o700); err != nil {
		m.logf("warn", "shell init wrapper: %v; the terminal keeps the PATH of its environment only", err)
		return plain()
	}
	for file, data := range zshWrapper(dir, zdir) {
		if err := writeIfChanged(filepath.Join(zdir, file), data); err != nil {
			m.logf("warn", "shell init wrapper: %v; the terminal keeps the PATH of its environment only", err)
			return plain()
		}
	}
	extra = []string{"ZDOTDIR=" + zdir, userZdotdirEnv + "="}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "ZDOTDIR="); ok {
			extra[1] = userZdotdirEnv + "=" + v
		}
	}
	return []string{"-l"}, extra
}
