package browser

import "strings"

// SandboxStatus says whether Chromium runs inside its sandbox, which keeps
// a compromised renderer from acting as the user.
type SandboxStatus struct {
	// On is true when Chromium runs sandboxed.
	On bool `json:"on"`
	// Reason says why the sandbox is off ("" when it is on).
	Reason string `json:"reason,omitempty"`
}

// Why Chromium runs without its sandbox.
const (
	// SandboxOffRoot: Chromium refuses to sandbox itself as root.
	SandboxOffRoot = "running as root"
	// SandboxOffNoUserNamespaces: unprivileged user namespaces are off and
	// no setuid chrome-sandbox helper is installed.
	SandboxOffNoUserNamespaces = "user namespaces unavailable"
	// SandboxOffUnusable: Chromium itself found no usable sandbox when it
	// started (for example, an AppArmor rule denies its user namespace).
	SandboxOffUnusable = "Chromium found no usable sandbox"
)

// String is "on" or "off (<reason>)", as app_health shows it.
func (s SandboxStatus) String() string {
	if s.On {
		return "on"
	}
	return "off (" + s.Reason + ")"
}

// sandboxEnv is what the sandbox decision depends on.
type sandboxEnv struct {
	// UID is the user Chromium runs as.
	UID int
	// UserNamespaces is true when that user can create user namespaces
	// (Chromium's namespace sandbox needs them).
	UserNamespaces bool
	// SetuidHelper is true when a setuid-root chrome-sandbox helper is
	// installed (Chromium's older sandbox, used without user namespaces).
	SetuidHelper bool
}

// decideSandbox keeps the sandbox unless Chromium runs as root (which it
// refuses to sandbox) or has neither user namespaces nor the setuid helper.
func decideSandbox(env sandboxEnv) SandboxStatus {
	switch {
	case env.UID == 0:
		return SandboxStatus{Reason: SandboxOffRoot}
	case env.UserNamespaces, env.SetuidHelper:
		return SandboxStatus{On: true}
	}
	return SandboxStatus{Reason: SandboxOffNoUserNamespaces}
}

// isNoUsableSandbox reports whether Chromium failed to start because it
// found no sandbox it could use (its output is in chromedp's error).
func isNoUsableSandbox(err error) bool {
	return err != nil && strings.Contains(err.Error(), "No usable sandbox")
}
