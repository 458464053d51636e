//go:build linux

package browser

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSharedBrowserSandbox: the running Chromium's command line matches the
// status it reports (as root: off, with --no-sandbox).
func TestSharedBrowserSandbox(t *testing.T) {
	m := manager(t)
	open(t, m, "space:sandbox", "about:blank")
	st := m.Sandbox()
	if os.Geteuid() == 0 && st.String() != "off (running as root)" {
		t.Errorf("as root Sandbox() = %s, want off (running as root)", st)
	}
	args := cmdline(t, m.PID())
	if has := strings.Contains(args, "--no-sandbox"); has == st.On {
		t.Errorf("Sandbox() = %s but the browser's command line has --no-sandbox: %v", st, has)
	}
}

// nobody is the user the sandbox tests run Chromium as when they run as
// root.
const nobody = 65534

// launchAsNobody returns Options that start Chromium as nobody (when the
// test runs as root; else as the test's own user) in a folder it may
// write.
func launchAsNobody(t *testing.T) Options {
	t.Helper()
	if _, err := FindChrome(); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	dir, err := os.MkdirTemp("", "meith-sandbox-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	opts := Options{DataDir: filepath.Join(dir, "browser")}
	if os.Geteuid() != 0 {
		return opts
	}
	home := filepath.Join(dir, "home")
	for _, d := range []string{opts.DataDir, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	uid := uint32(nobody)
	opts.launchUID = &uid
	opts.launchCmd = func(cmd *exec.Cmd) {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL,
			Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "XDG_CACHE_HOME=" + home}
	}
	return opts
}

// TestSandboxedLaunch starts a Chromium as a user who is not root (nobody,
// when the test runs as root) and proves its renderers run sandboxed: no
// --no-sandbox, and the renderer is under seccomp in a user namespace of
// its own.
func TestSandboxedLaunch(t *testing.T) {
	opts := launchAsNobody(t)
	m := New(opts)
	defer m.Shutdown(context.Background())
	if st := m.Sandbox(); !st.On {
		t.Skipf("this machine cannot sandbox Chromium for a user: %s", st)
	}
	srv := pageServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab, err := m.Open(ctx, Spec{ID: "btab_sandboxed", ContextKey: "space:sandboxed", URL: srv.URL + "/form"})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Info().Title != "Form" {
		t.Errorf("sandboxed page: %+v", tab.Info())
	}
	if st := m.Sandbox(); st.String() != "on" {
		t.Errorf("Sandbox() after the start = %s, want on", st)
	}
	pid := m.PID()
	if args := cmdline(t, pid); strings.Contains(args, "--no-sandbox") {
		t.Errorf("the browser runs with --no-sandbox: %s", args)
	}
	if uid := statusField(t, pid, "Uid"); opts.launchUID != nil && !strings.HasPrefix(uid, strconv.Itoa(nobody)) {
		t.Errorf("the browser runs as uid %s, want %d", uid, nobody)
	}
	renderer := 0
	for _, p := range descendants(pid) {
		if strings.Contains(cmdline(t, p), "--type=renderer") {
			renderer = p
			break
		}
	}
	if renderer == 0 {
		t.Fatal("no renderer process under the browser")
	}
	if got := statusField(t, renderer, "Seccomp"); got != "2" {
		t.Errorf("renderer %d: Seccomp %q, want 2 (filter)", renderer, got)
	}
	browserNS, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
	rendererNS, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", renderer))
	if err == nil && rendererNS == browserNS {
		t.Errorf("renderer %d shares the browser's user namespace %s", renderer, browserNS)
	}
}

// TestSandboxFallback: when Chromium finds no usable sandbox (here its
// namespace sandbox is switched off and no setuid helper is installed) it
// starts without one and says so.
func TestSandboxFallback(t *testing.T) {
	opts := launchAsNobody(t)
	if setuidHelperInstalled("") {
		t.Skip("a setuid chrome-sandbox is installed: Chromium would use it")
	}
	opts.extraFlags = map[string]any{"disable-namespace-sandbox": true}
	m := New(opts)
	defer m.Shutdown(context.Background())
	if st := m.Sandbox(); !st.On {
		t.Skipf("this machine cannot sandbox Chromium for a user: %s", st)
	}
	srv := pageServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tab, err := m.Open(ctx, Spec{ID: "btab_fallback", ContextKey: "space:fallback", URL: srv.URL + "/next"})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Info().Title != "Next" {
		t.Errorf("page without a usable sandbox: %+v", tab.Info())
	}
	if st := m.Sandbox(); st.String() != "off (Chromium found no usable sandbox)" {
		t.Errorf("Sandbox() = %s, want off (Chromium found no usable sandbox)", st)
	}
	if args := cmdline(t, m.PID()); !strings.Contains(args, "--no-sandbox") {
		t.Errorf("the fallback browser runs without --no-sandbox: %s", args)
	}
}

// cmdline returns a process's command line, arguments joined by spaces.
func cmdline(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatalf("command line of %d: %v", pid, err)
	}
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// statusField returns a field of /proc/<pid>/status.
func statusField(t *testing.T, pid int, name string) string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("status of %d: %v", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// descendants lists the processes below pid (by their parent pids).
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The fields after the command name, which is in parentheses.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 {
			parent[p], _ = strconv.Atoi(fields[1])
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}
