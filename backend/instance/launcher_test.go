package instance_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/instance"
	"github.com/meith-dev/meith/backend/instance/instancetest"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
)

// testExe is this test binary, resolved: a meith executable (its main
// module is meith's).
func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestInstallLauncher(t *testing.T) {
	exe := testExe(t)
	copyOf := func(t *testing.T, path string) {
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, 0) // a meith executable, but not this one's bytes
		if err := os.WriteFile(path, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		prepare func(t *testing.T, path string)
		want    instance.LauncherAction
	}{
		{"none yet", func(*testing.T, string) {}, instance.LauncherCreated},
		{"a symlink to this executable", func(t *testing.T, path string) { os.Symlink(exe, path) }, instance.LauncherUpToDate},
		{"a symlink elsewhere", func(t *testing.T, path string) { os.Symlink("/bin/true", path) }, instance.LauncherRepointed},
		{"a dangling symlink", func(t *testing.T, path string) { os.Symlink("/nonexistent/meith", path) }, instance.LauncherRepointed},
		{"a copy of another meith build", copyOf, instance.LauncherRepointed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "bin")
			os.MkdirAll(bin, 0o755)
			tc.prepare(t, filepath.Join(bin, instance.LauncherName))
			path, action, err := instance.InstallLauncher(bin, exe)
			if err != nil || action != tc.want || path != filepath.Join(bin, "meith") {
				t.Fatalf("InstallLauncher = %s, %s, %v; want %s", path, action, err, tc.want)
			}
			if target, err := os.Readlink(path); err != nil || target != exe {
				t.Errorf("launcher points at %q (%v), want %s", target, err, exe)
			}
			if _, action, err := instance.InstallLauncher(bin, exe); err != nil || action != instance.LauncherUpToDate {
				t.Errorf("second InstallLauncher = %s, %v; want up-to-date", action, err)
			}
		})
	}
}

func TestInstallLauncherLeavesForeignFilesAlone(t *testing.T) {
	exe := testExe(t)
	for _, name := range []string{"a script", "a folder"} {
		t.Run(name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "bin")
			os.MkdirAll(bin, 0o755)
			path := filepath.Join(bin, "meith")
			if name == "a folder" {
				os.Mkdir(path, 0o755)
			} else {
				os.WriteFile(path, []byte("#!/bin/sh\necho mine\n"), 0o755)
			}
			_, _, err := instance.InstallLauncher(bin, exe)
			if !instance.IsForeignLauncher(err) {
				t.Fatalf("InstallLauncher = %v, want a ForeignLauncherError", err)
			}
			fi, _ := os.Lstat(path)
			if name == "a script" {
				if b, _ := os.ReadFile(path); string(b) != "#!/bin/sh\necho mine\n" || !fi.Mode().IsRegular() {
					t.Errorf("the foreign launcher changed: %q %v", b, fi.Mode())
				}
			} else if !fi.IsDir() {
				t.Errorf("the folder became %v", fi.Mode())
			}
		})
	}
}

// TestRuntimeInstallsLauncher: the runtime re-points a stale launcher at
// start, and its dev servers and terminals run with the launcher folder
// first on PATH and MEITH_CLI_BIN.
func TestRuntimeInstallsLauncher(t *testing.T) {
	root, err := os.MkdirTemp("", "ml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "h", "bin")
	os.MkdirAll(bin, 0o755)
	launcher := filepath.Join(bin, "meith")
	if err := os.Symlink("/bin/true", launcher); err != nil {
		t.Fatal(err)
	}
	inst := startAt(t, root, protocol.CapStartsProcess)
	if target, err := os.Readlink(launcher); err != nil || target != testExe(t) {
		t.Fatalf("launcher points at %q (%v), want this executable", target, err)
	}
	if entries, _ := inst.Logger().Query(applog.Filter{Source: "launcher", Search: "re-pointed"}); len(entries) != 1 {
		t.Errorf("launcher log lines = %+v, want one saying re-pointed", entries)
	}
	d, err := inst.Processes().StartDevServer(t.Context(), process.DevSpec{Cwd: root,
		Command: `echo "cli=$MEITH_CLI_BIN first=${PATH%%:*}"`})
	if err != nil {
		t.Fatal(err)
	}
	want := "cli=" + launcher + " first=" + bin
	waitFor(t, "the environment line", func() bool {
		logs, _, _ := inst.Processes().Logs(d.ID, 0, 0)
		return slices.ContainsFunc(logs, func(e process.LogEntry) bool { return e.Text == want })
	})
}

// TestRuntimeLeavesForeignLauncherAlone: a file meith did not make stays,
// a warning says why, and processes get no launcher on PATH.
func TestRuntimeLeavesForeignLauncherAlone(t *testing.T) {
	root, err := os.MkdirTemp("", "ml")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "h", "bin")
	os.MkdirAll(bin, 0o755)
	launcher := filepath.Join(bin, "meith")
	os.WriteFile(launcher, []byte("#!/bin/sh\necho mine\n"), 0o755)
	inst := startAt(t, root)
	if b, _ := os.ReadFile(launcher); string(b) != "#!/bin/sh\necho mine\n" {
		t.Errorf("the foreign launcher changed: %q", b)
	}
	entries, _ := inst.Logger().Query(applog.Filter{Source: "launcher", Level: protocol.LevelWarn})
	if len(entries) != 1 || !strings.Contains(entries[0].Message, launcher+" is not a meith launcher") {
		b, _ := json.Marshal(entries)
		t.Errorf("launcher warnings = %s, want one naming %s", b, launcher)
	}
}

// TestTerminalToolFindsLauncher: a terminal opened through the tools finds
// `meith` as the managed launcher even though bash's login profile
// (/etc/profile, ~/.bashrc here) resets PATH.
func TestTerminalToolFindsLauncher(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("export PATH=/usr/bin:/bin\n"), 0o644)
	t.Setenv("HOME", home)
	inst := instancetest.New(t, instancetest.WithGrantCLI(protocol.CapStartsProcess))
	c := dial(t, inst)
	res := call(t, c, "create_terminal", `{"shell":"bash","cwd":"`+home+`"}`, nil)
	var term process.Terminal
	if !res.OK || json.Unmarshal(res.Content, &term) != nil {
		t.Fatalf("create_terminal = %+v", res)
	}
	if _, err := inst.Processes().WriteTerminal(term.ID, "echo FOUND''=$(command -v meith)=\r"); err != nil {
		t.Fatal(err)
	}
	want := "FOUND=" + filepath.Join(inst.Home, "bin", "meith") + "="
	waitFor(t, want, func() bool {
		s, err := inst.Processes().TerminalSnapshot(term.ID)
		return err == nil && strings.Contains(s.Buffer, want)
	})
}
