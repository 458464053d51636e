package instance

// launcher.go: the managed CLI launcher. At start the runtime makes
// <MEITH_HOME>/bin/meith a symlink to its own executable (a copy where a
// symlink cannot be made), re-pointed when it points elsewhere; every
// terminal and dev server then gets that folder first on PATH and
// MEITH_CLI_BIN (see newProcesses), so `meith` works in meith's own
// terminals. A file there that meith did not make is never touched.

import (
	"bytes"
	"debug/buildinfo"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/meith-dev/meith/backend/protocol"
)

// LauncherName is the file name of the managed launcher in the bin folder.
const LauncherName = "meith"

// moduleMain is the main module of a meith executable (and of its test
// binaries), as debug/buildinfo reports it.
const moduleMain = "github.com/meith-dev/meith"

// LauncherAction says what [InstallLauncher] did.
type LauncherAction string

// The launcher actions.
const (
	LauncherUpToDate  LauncherAction = "up-to-date"
	LauncherCreated   LauncherAction = "created"
	LauncherRepointed LauncherAction = "re-pointed"
	LauncherCopied    LauncherAction = "copied" // no symlink possible: a copy was written
)

// ForeignLauncherError means the launcher path holds something meith did not
// make (not a symlink, not a meith executable); it was left alone.
type ForeignLauncherError struct{ Path string }

func (e *ForeignLauncherError) Error() string {
	return fmt.Sprintf("%s is not a meith launcher (meith did not make it), so it was left alone; "+
		"move it away and restart meith to install the managed launcher", e.Path)
}

// IsForeignLauncher reports whether err is a [ForeignLauncherError].
func IsForeignLauncher(err error) bool {
	var e *ForeignLauncherError
	return errors.As(err, &e)
}

// InstallLauncher makes binDir/meith run exe: a symlink to exe (its
// symlinks resolved), re-pointed when it points elsewhere; a copy when the
// file system refuses symlinks (rewritten when it differs). An existing
// symlink or meith executable there is replaced; anything else is a
// [ForeignLauncherError]. It returns the launcher's path.
func InstallLauncher(binDir, exe string) (string, LauncherAction, error) {
	path := filepath.Join(binDir, LauncherName)
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if !filepath.IsAbs(exe) {
		return "", "", fmt.Errorf("launcher: the executable path is not absolute")
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return "", "", fmt.Errorf("launcher: %w", err)
	}
	action := LauncherCreated
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", "", fmt.Errorf("launcher: %w", err)
	case fi.Mode()&os.ModeSymlink != 0:
		if target, err := os.Readlink(path); err == nil && target == exe {
			return path, LauncherUpToDate, nil
		}
		action = LauncherRepointed
	case fi.Mode().IsRegular() && isMeithExecutable(path):
		if sameContent(path, exe) {
			return path, LauncherUpToDate, nil
		}
		action = LauncherRepointed
	default:
		return "", "", &ForeignLauncherError{Path: path}
	}
	tmp := filepath.Join(binDir, "."+LauncherName+".tmp-"+strconv.Itoa(os.Getpid()))
	_ = os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		if err := copyExecutable(exe, tmp); err != nil {
			_ = os.Remove(tmp)
			return "", "", fmt.Errorf("launcher: %w", err)
		}
		action = LauncherCopied
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return "", "", fmt.Errorf("launcher: %w", err)
	}
	return path, action, nil
}

// isMeithExecutable reports whether path is a Go executable of meith's
// module (a copy an earlier run made).
func isMeithExecutable(path string) bool {
	bi, err := buildinfo.ReadFile(path)
	return err == nil && bi.Main.Path == moduleMain
}

// sameContent reports whether files a and b hold the same bytes.
func sameContent(a, b string) bool {
	fa, err := os.Open(a)
	if err != nil {
		return false
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return false
	}
	defer fb.Close()
	sa, err1 := fa.Stat()
	sb, err2 := fb.Stat()
	if err1 != nil || err2 != nil || sa.Size() != sb.Size() {
		return false
	}
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(fa, bufA)
		nb, errB := io.ReadFull(fb, bufB)
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false
		}
		if errA != nil || errB != nil {
			return errors.Is(errA, io.ErrUnexpectedEOF) || errors.Is(errA, io.EOF)
		}
	}
}

// copyExecutable copies src to dst with mode 0755.
func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// installLauncher installs the managed launcher for this runtime's
// executable and logs what it did; it returns the launcher's path, or ""
// when there is none (then processes get no launcher folder on PATH).
func (i *Instance) installLauncher() string {
	exe := i.cfg.AppPath
	if exe == "" {
		exe, _ = os.Executable()
	}
	if exe == "" {
		i.log.Logf(protocol.LevelWarn, "launcher", "managed launcher not installed: the executable's path is unknown")
		return ""
	}
	path, action, err := InstallLauncher(i.paths.BinDir, exe)
	switch {
	case err != nil:
		i.log.Logf(protocol.LevelWarn, "launcher", "managed launcher not installed: %v", err)
		return ""
	case action != LauncherUpToDate:
		i.log.Logf(protocol.LevelInfo, "launcher", "managed launcher %s %s (runs %s)", path, action, exe)
	}
	return path
}
