package process

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// launcherFixture makes a launcher folder holding an executable "meith" and
// a home folder with the given start-up files.
func launcherFixture(t *testing.T, homeFiles map[string]string) (launcherDir, home string) {
	t.Helper()
	root := t.TempDir()
	launcherDir = filepath.Join(root, "launcher bin") // a space: the wrappers must quote
	home = filepath.Join(root, "home")
	for _, d := range []string{launcherDir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(launcherDir, "meith"), []byte("#!/bin/sh\necho managed-launcher\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range homeFiles {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return launcherDir, home
}

// TestTerminalKeepsLauncherFirstOnPath runs real shells in a PTY whose
// start-up files reset PATH (and, for a login shell, Debian's /etc/profile
// does too): `meith` must still be the managed launcher, first on PATH.
func TestTerminalKeepsLauncherFirstOnPath(t *testing.T) {
	const reset = "export PATH=/usr/bin:/bin\n"
	cases := []struct {
		name  string
		shell string
		files map[string]string
	}{
		{"bash, only ~/.bashrc", "bash", map[string]string{".bashrc": reset}},
		{"bash, ~/.profile sourcing ~/.bashrc", "bash", map[string]string{
			".profile": "PATH=/usr/local/bin:/usr/bin:/bin\nif [ -n \"$BASH_VERSION\" ] && [ -f \"$HOME/.bashrc\" ]; then . \"$HOME/.bashrc\"; fi\n",
			".bashrc":  reset}},
		{"bash, ~/.bash_profile", "bash", map[string]string{".bash_profile": reset}},
		{"zsh", "zsh", map[string]string{".zshenv": reset, ".zshrc": reset, ".zprofile": reset}},
		{"fish", "fish", map[string]string{".config/fish/config.fish": "set -gx PATH /usr/bin /bin\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.shell); err != nil {
				t.Skipf("%s is not installed", tc.shell)
			}
			dir, home := launcherFixture(t, tc.files)
			m := newManager(t, Options{LauncherDir: dir, ShellInitDir: filepath.Join(t.TempDir(), "shell-init"),
				Env: []string{"HOME=" + home, "MEITH_CLI_BIN=" + filepath.Join(dir, "meith"), "ZDOTDIR="}})
			term := newTerminal(t, m, TermSpec{Shell: tc.shell, Cwd: home})
			// The quotes keep the echoed command line from matching.
			line := "echo FOUND''=$(command -v meith)=; meith; echo FIRST''=${PATH%%:*}=\r"
			if tc.shell == "fish" { // fish has no ${VAR%%…}: its PATH is a list
				line = "echo FOUND''=(command -v meith)=; meith; echo FIRST''=$PATH[1]=\r"
			}
			writeTerm(t, m, term.ID, line)
			waitOutput(t, m, term.ID, "FOUND="+filepath.Join(dir, "meith")+"=")
			waitOutput(t, m, term.ID, "managed-launcher")
			waitOutput(t, m, term.ID, "FIRST="+dir+"=")
		})
	}
}

// TestTerminalWithoutLauncherIsALoginShell: with no launcher folder bash
// runs as before, a login shell.
func TestTerminalWithoutLauncherIsALoginShell(t *testing.T) {
	m := newManager(t, Options{ShellInitDir: t.TempDir()})
	term := newTerminal(t, m, TermSpec{Shell: "bash", Cwd: "~"})
	writeTerm(t, m, term.ID, "shopt -q login_shell && echo LOG''IN\r")
	waitOutput(t, m, term.ID, "LOGIN")
}

// TestDevServerHasLauncherFirstOnPath: a dev server's environment has the
// launcher folder first on PATH (once) and MEITH_CLI_BIN.
func TestDevServerHasLauncherFirstOnPath(t *testing.T) {
	dir, _ := launcherFixture(t, nil)
	cli := filepath.Join(dir, "meith")
	t.Setenv("PATH", "/usr/bin:"+dir+":/bin")
	m := newManager(t, Options{LauncherDir: dir, Env: []string{"MEITH_CLI_BIN=" + cli}})
	d := startDev(t, m, DevSpec{Command: `echo "path=$PATH"; echo "cli=$MEITH_CLI_BIN"; echo "found=$(command -v meith)"`})
	waitEnded(t, m, d.ID)
	entries, _, err := m.Logs(d.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(texts(entries), "\n")
	for _, want := range []string{"cli=" + cli, "found=" + cli} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var path string
	for _, line := range texts(entries) {
		if p, ok := strings.CutPrefix(line, "path="); ok {
			path = p
		}
	}
	parts := filepath.SplitList(path)
	if len(parts) == 0 || parts[0] != dir || strings.Count(":"+path+":", ":"+dir+":") != 1 {
		t.Errorf("PATH = %q, want %s first and once", path, dir)
	}
}

func TestFirstOnPath(t *testing.T) {
	cases := []struct{ dir, path, want string }{
		{"/l", "/a:/b", "/l:/a:/b"},
		{"/l", "/a:/l:/b", "/l:/a:/b"},
		{"/l", "/l", "/l"},
		{"/l", "", "/l"},
		{"", "/a:/b", "/a:/b"},
	}
	for _, c := range cases {
		if got := firstOnPath(c.dir, c.path); got != c.want {
			t.Errorf("firstOnPath(%q, %q) = %q, want %q", c.dir, c.path, got, c.want)
		}
	}
}
