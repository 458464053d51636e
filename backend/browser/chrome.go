package browser

import (
	"os"
	"os/exec"
)

// EnvChrome overrides where the Chromium executable is.
const EnvChrome = "MEITH_CHROME"

// chromeCandidates are the names (looked up on PATH) and paths tried in order.
var chromeCandidates = []string{
	"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome",
	"/usr/bin/chromium", "/usr/lib/chromium/chromium", "/snap/bin/chromium",
	"/usr/bin/google-chrome", "/opt/google/chrome/chrome",
}

// FindChrome returns the Chromium to run: $MEITH_CHROME when set (it must be
// executable), else the first of the usual names on PATH and the usual
// install paths. The error is a *NotFoundError that says what to install.
func FindChrome() (string, error) {
	if p := os.Getenv(EnvChrome); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", &NotFoundError{Tried: []string{EnvChrome + "=" + p}}
		}
		return found, nil
	}
	for _, c := range chromeCandidates {
		if found, err := exec.LookPath(c); err == nil {
			return found, nil
		}
	}
	return "", &NotFoundError{Tried: chromeCandidates}
}
