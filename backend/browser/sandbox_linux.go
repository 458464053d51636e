//go:build linux

package browser

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// setuidHelperPaths are where distributions install Chromium's setuid
// sandbox helper (besides next to the executable and $CHROME_DEVEL_SANDBOX).
var setuidHelperPaths = []string{
	"/usr/lib/chromium/chrome-sandbox",
	"/usr/lib/chromium-browser/chrome-sandbox",
	"/opt/google/chrome/chrome-sandbox",
	"/usr/lib/chromium-sandbox/chrome-sandbox",
}

// probeSandboxEnv looks at the machine: the user Chromium runs as (uid, or
// this process's effective uid when uid < 0), whether that user can create
// user namespaces, and whether a setuid helper is installed.
func probeSandboxEnv(exe string, uid int) sandboxEnv {
	self := os.Geteuid()
	if uid < 0 {
		uid = self
	}
	env := sandboxEnv{UID: uid}
	if uid == 0 {
		return env // nothing else matters: Chromium refuses
	}
	env.SetuidHelper = setuidHelperInstalled(exe)
	env.UserNamespaces = userNamespacesAllowed() && (uid != self || userNamespacesWork())
	return env
}

// userNamespacesAllowed reads the switches that turn unprivileged user
// namespaces off (Debian's unprivileged_userns_clone, the namespace limit,
// Ubuntu's AppArmor restriction).
func userNamespacesAllowed() bool {
	if readSysctl("/proc/sys/kernel/unprivileged_userns_clone") == "0" ||
		readSysctl("/proc/sys/user/max_user_namespaces") == "0" {
		return false
	}
	// Ubuntu 23.10+: allowed only for programs with an AppArmor profile
	// that grants them; Chromium packages ship one, so this alone does
	// not decide (a failed start does, see SandboxOffUnusable).
	return true
}

// userNamespacesWork tries what Chromium's namespace sandbox does: start a
// child in new user, PID and network namespaces. Without a true(1) to run
// it trusts the switches.
func userNamespacesWork() bool {
	bin := ""
	for _, p := range []string{"/bin/true", "/usr/bin/true"} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			bin = p
			break
		}
	}
	if bin == "" {
		return true
	}
	pid, err := syscall.ForkExec(bin, []string{"true"}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNET,
	}})
	if err != nil {
		return false
	}
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	return ws.Exited() && ws.ExitStatus() == 0
}

// setuidHelperInstalled reports whether a chrome-sandbox owned by root with
// the setuid bit is where Chromium looks for it.
func setuidHelperInstalled(exe string) bool {
	paths := append([]string{}, setuidHelperPaths...)
	if p := os.Getenv("CHROME_DEVEL_SANDBOX"); p != "" {
		paths = append([]string{p}, paths...)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil && exe != "" {
		paths = append([]string{filepath.Join(filepath.Dir(real), "chrome-sandbox")}, paths...)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() || st.Mode()&os.ModeSetuid == 0 {
			continue
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid == 0 {
			return true
		}
	}
	return false
}

// readSysctl returns a /proc/sys value without its newline ("" when it
// cannot be read).
func readSysctl(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 64)
	n, _ := f.Read(buf)
	return strings.TrimSpace(string(buf[:n]))
}
