//go:build !linux

package browser

import "os"

// probeSandboxEnv: outside Linux Chromium's sandbox needs nothing from the
// machine; only root (uid, or this process's effective uid when uid < 0)
// turns it off.
func probeSandboxEnv(exe string, uid int) sandboxEnv {
	if uid < 0 {
		uid = os.Geteuid() // -1 on Windows: not root
	}
	return sandboxEnv{UID: uid, UserNamespaces: true}
}
