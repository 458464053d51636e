package process

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// loginPathTimeout bounds the one login shell run that reads the user's
// PATH.
const loginPathTimeout = 2 * time.Second

var (
	loginPathOnce  sync.Once
	loginPathValue string
)

// loginPATH is the PATH of the user's login shell (`$SHELL -lc`), read
// once and cached: a desktop app started from a launcher lacks what the
// user's profile adds (nvm, ~/.local/bin, …). "" if it cannot be read.
func loginPATH() string {
	loginPathOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), loginPathTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, userShell(), "-lc", `printf %s "$PATH"`)
		cmd.WaitDelay = 500 * time.Millisecond
		out, err := cmd.Output()
		if err != nil {
			return
		}
		s := string(out)
		if i := strings.LastIndexByte(s, '\n'); i >= 0 { // a profile that prints
			s = s[i+1:]
		}
		loginPathValue = strings.TrimSpace(s)
	})
	return loginPathValue
}

// userShell is $SHELL, or /bin/sh.
func userShell() string {
	if s := os.Getenv("SHELL"); s != "" && filepath.IsAbs(s) {
		if _, err := os.Stat(s); err == nil {
			return s
		}
	}
	return "/bin/sh"
}

// mergePath returns base with the entries of extra it lacks appended.
func mergePath(base, extra string) string {
	seen := map[string]bool{}
	var out []string
	for _, list := range []string{base, extra} {
		for _, p := range filepath.SplitList(list) {
			if p == "" || seen[p] {
				continue
			}
			seen[p] = true
			out = append(out, p)
		}
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// firstOnPath returns path with dir first and nowhere else ("" dir: path).
func firstOnPath(dir, path string) string {
	if dir == "" {
		return path
	}
	out := []string{dir}
	for _, p := range filepath.SplitList(path) {
		if p != "" && p != dir {
			out = append(out, p)
		}
	}
	return strings.Join(out, string(os.PathListSeparator))
}

// processEnv is os.Environ() plus Options.Env plus extra (later entries
// win), with PATH extended by the login shell's PATH and Options.LauncherDir
// first on it.
func (m *Manager) processEnv(extra ...string) []string {
	all := append(append(os.Environ(), m.opts.Env...), extra...)
	idx := map[string]int{}
	var env []string
	for _, kv := range all {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		if i, seen := idx[k]; seen {
			env[i] = kv
			continue
		}
		idx[k] = len(env)
		env = append(env, kv)
	}
	path := ""
	if i, ok := idx["PATH"]; ok {
		path = strings.TrimPrefix(env[i], "PATH=")
	}
	if path == "" && loginPATH() == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	merged := "PATH=" + firstOnPath(m.opts.LauncherDir, mergePath(path, loginPATH()))
	if i, ok := idx["PATH"]; ok {
		env[i] = merged
	} else {
		env = append(env, merged)
	}
	return env
}
