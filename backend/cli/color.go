package cli

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Colour modes of --color.
const (
	colorAuto   = "auto"
	colorAlways = "always"
	colorNever  = "never"
)

// errColorMode is a --color value other than auto, always or never.
var errColorMode = errors.New("--color must be auto, always or never")

// colorMode reads --color: "--color" alone is always (as in git), a
// missing flag auto.
func colorMode(a *Args) (string, error) {
	v, present, bare := a.Value("color")
	switch {
	case !present:
		return colorAuto, nil
	case bare:
		return colorAlways, nil
	}
	switch v {
	case colorAuto, colorAlways, colorNever:
		return v, nil
	case "true":
		return colorAlways, nil
	case "false":
		return colorNever, nil
	}
	return "", errColorMode
}

// useColor decides whether human output is coloured: --color=always and
// never win; auto colours only a terminal, and not when NO_COLOR is set
// to a non-empty value (no-color.org) or TERM is "dumb".
func useColor(mode, noColor, term string, terminal bool) bool {
	switch mode {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	return terminal && noColor == "" && term != "dumb"
}

// isTerminal reports whether w is a terminal (a tty file descriptor).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// ANSI SGR sequences of the human renderers (git's default colours).
const (
	sgrReset     = "\x1b[m"
	sgrBold      = "\x1b[1m"
	sgrRed       = "\x1b[31m"
	sgrGreen     = "\x1b[32m"
	sgrYellow    = "\x1b[33m"
	sgrCyan      = "\x1b[36m"
	sgrBoldRed   = "\x1b[1;31m"
	sgrBoldGreen = "\x1b[1;32m"
	sgrBoldCyan  = "\x1b[1;36m"
	sgrBoldYell  = "\x1b[1;33m"
)

// palette paints text when colour is on and leaves it alone otherwise.
type palette struct{ on bool }

// paint wraps s in the SGR sequence sgr (nothing for an empty s).
func (c palette) paint(sgr, s string) string {
	if !c.on || s == "" {
		return s
	}
	return sgr + s + sgrReset
}
