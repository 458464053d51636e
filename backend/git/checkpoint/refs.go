package checkpoint

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// refPrefix is where checkpoint refs live.
const refPrefix = "refs/meith/checkpoints/"

// perWorktreeRef reports whether a ref lives in the worktree's own git
// directory rather than the common one.
func perWorktreeRef(name string) bool {
	return !strings.HasPrefix(name, "refs/") || strings.HasPrefix(name, "refs/bisect/") ||
		strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/rewritten/")
}

// resolveRef resolves a ref (following symbolic refs) from its loose file
// or packed-refs. ok is false when it does not exist (or is a symbolic ref
// to a missing ref, like HEAD on an unborn branch).
func resolveRef(r *repo.Repo, name string) (h plumbing.Hash, ok bool, err error) {
	for depth := 0; depth < 6; depth++ {
		dir := r.CommonDir
		if perWorktreeRef(name) {
			dir = r.GitDir
		}
		b, err := repo.ReadRegular(filepath.Join(dir, filepath.FromSlash(name)), repo.MaxRefFileBytes)
		switch {
		case err == nil:
			s := strings.TrimSpace(string(b))
			if target, isSym := strings.CutPrefix(s, "ref:"); isSym {
				name = strings.TrimSpace(target)
				continue
			}
			h, valid := parseHash(s)
			if !valid {
				return plumbing.ZeroHash, false, fmt.Errorf("ref %s is malformed", name)
			}
			return h, true, nil
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTDIR):
			return packedRef(r, name)
		default:
			return plumbing.ZeroHash, false, fmt.Errorf("read ref %s: %w", name, err)
		}
	}
	return plumbing.ZeroHash, false, fmt.Errorf("ref %s: too many levels of symbolic refs", name)
}

// packedRef looks a ref up in the common directory's packed-refs.
func packedRef(r *repo.Repo, name string) (plumbing.Hash, bool, error) {
	f, err := repo.OpenRegular(filepath.Join(r.CommonDir, "packed-refs"), repo.MaxListFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return plumbing.ZeroHash, false, nil
	}
	if err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) < 42 || line[0] == '#' || line[0] == '^' || line[40] != ' ' {
			continue
		}
		if string(bytes.TrimRight(line[41:], "\r")) == name {
			h, ok := parseHash(string(line[:40]))
			return h, ok, nil
		}
	}
	if err := sc.Err(); err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("read packed-refs: %w", err)
	}
	return plumbing.ZeroHash, false, nil
}

func parseHash(s string) (plumbing.Hash, bool) {
	if len(s) != 40 {
		return plumbing.ZeroHash, false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return plumbing.ZeroHash, false
		}
	}
	return plumbing.NewHash(s), true
}

// headCommit returns the commit HEAD points at, zero on an unborn branch.
func headCommit(r *repo.Repo) (plumbing.Hash, error) {
	h, ok, err := resolveRef(r, "HEAD")
	if err != nil || !ok {
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// writeRef points a ref of the common directory at h with git's loose-ref
// protocol: <ref>.lock created exclusively, written, renamed into place.
func writeRef(r *repo.Repo, name string, h plumbing.Hash) error {
	p := filepath.Join(r.CommonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
		return fmt.Errorf("write ref %s: %w", name, err)
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return fmt.Errorf("write ref %s: %w", name, err)
	}
	_, werr := f.WriteString(h.String() + "\n")
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(lock)
		return fmt.Errorf("write ref %s: %w", name, err)
	}
	if err := os.Rename(lock, p); err != nil {
		os.Remove(lock)
		return fmt.Errorf("write ref %s: %w", name, err)
	}
	return nil
}
