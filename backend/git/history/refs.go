package history

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Refs are read and written here with git's own file protocol rather than
// go-git's reference storer, so that updates take git's "<ref>.lock" lock,
// compare-and-swap against the value read under the lock, and append a
// reflog line, which go-git does not do.

// headState is what a worktree's HEAD file says.
type headState struct {
	// Symbolic is the ref HEAD points at ("refs/heads/main"), or "" when
	// HEAD is detached.
	Symbolic string
	// Hash is the commit HEAD resolves to; zero on an unborn branch.
	Hash plumbing.Hash
}

// readSymbolicHead returns the target of a symbolic HEAD in gitDir.
func readSymbolicHead(gitDir string) (string, error) {
	b, err := repo.ReadRegular(filepath.Join(gitDir, "HEAD"), repo.MaxRefFileBytes)
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(line, "ref:"); ok {
		return strings.TrimSpace(target), nil
	}
	return "", errors.New("HEAD is detached")
}

// readHead reads the HEAD of the worktree whose git directory is gitDir.
func readHead(r *repo.Repo, gitDir string) (headState, error) {
	b, err := repo.ReadRegular(filepath.Join(gitDir, "HEAD"), repo.MaxRefFileBytes)
	if err != nil {
		return headState{}, fmt.Errorf("read HEAD: %w", err)
	}
	line := strings.TrimSpace(string(b))
	if target, ok := strings.CutPrefix(line, "ref:"); ok {
		target = strings.TrimSpace(target)
		h, _, err := readRef(r, target)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return headState{}, err
		}
		return headState{Symbolic: target, Hash: h}, nil
	}
	if !plumbing.IsHash(line) {
		return headState{}, fmt.Errorf("read HEAD: malformed HEAD %q", line)
	}
	return headState{Hash: plumbing.NewHash(line)}, nil
}

// isPerWorktreeRef reports whether a ref lives in a worktree's own git
// directory rather than the common one.
func isPerWorktreeRef(name string) bool {
	return !strings.HasPrefix(name, "refs/") ||
		strings.HasPrefix(name, "refs/worktree/") ||
		strings.HasPrefix(name, "refs/bisect/") ||
		strings.HasPrefix(name, "refs/rewritten/")
}

// refFile returns the loose file of a ref.
func refFile(r *repo.Repo, name string) string {
	if isPerWorktreeRef(name) {
		return filepath.Join(r.GitDir, filepath.FromSlash(name))
	}
	return filepath.Join(r.CommonDir, filepath.FromSlash(name))
}

// readRef resolves a ref (following symbolic refs) to a hash. The second
// result is the final ref name after symbolic refs. A missing ref gives an
// error wrapping fs.ErrNotExist.
func readRef(r *repo.Repo, name string) (plumbing.Hash, string, error) {
	for range 10 {
		b, err := repo.ReadRegular(refFile(r, name), repo.MaxRefFileBytes)
		switch {
		case err == nil:
			line := strings.TrimSpace(string(b))
			if target, ok := strings.CutPrefix(line, "ref:"); ok {
				name = strings.TrimSpace(target)
				continue
			}
			if !plumbing.IsHash(line) {
				return plumbing.ZeroHash, name, fmt.Errorf("ref %s is malformed", name)
			}
			return plumbing.NewHash(line), name, nil
		case errors.Is(err, fs.ErrNotExist) || isNotDirErr(err):
			packed, err := readPackedRefs(r)
			if err != nil {
				return plumbing.ZeroHash, name, err
			}
			if h, ok := packed[name]; ok {
				return h, name, nil
			}
			return plumbing.ZeroHash, name, fmt.Errorf("ref %s: %w", name, fs.ErrNotExist)
		case isDirErr(r, name):
			return plumbing.ZeroHash, name, fmt.Errorf("ref %s: %w", name, fs.ErrNotExist)
		default:
			return plumbing.ZeroHash, name, fmt.Errorf("read ref %s: %w", name, err)
		}
	}
	return plumbing.ZeroHash, name, fmt.Errorf("ref %s: symbolic ref loop", name)
}

func isNotDirErr(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

func isDirErr(r *repo.Repo, name string) bool {
	fi, err := os.Stat(refFile(r, name))
	return err == nil && fi.IsDir()
}

// readPackedRefs reads <common>/packed-refs into a name → hash map.
func readPackedRefs(r *repo.Repo) (map[string]plumbing.Hash, error) {
	f, err := repo.OpenRegular(filepath.Join(r.CommonDir, "packed-refs"), repo.MaxListFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]plumbing.Hash{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	defer f.Close()
	refs := map[string]plumbing.Hash{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		hash, name, ok := strings.Cut(line, " ")
		if ok && plumbing.IsHash(hash) {
			refs[name] = plumbing.NewHash(hash)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	return refs, nil
}

// refEntry is one ref of listRefs.
type refEntry struct {
	Name string
	Hash plumbing.Hash
	// Symbolic is the target of a symbolic ref (refs/remotes/origin/HEAD).
	Symbolic string
}

// listRefs lists the shared refs under prefix (loose and packed, loose
// winning), sorted by name, with symbolic refs resolved.
func listRefs(r *repo.Repo, prefix string) ([]refEntry, error) {
	seen := map[string]refEntry{}
	packed, err := readPackedRefs(r)
	if err != nil {
		return nil, err
	}
	for name, h := range packed {
		if strings.HasPrefix(name, prefix) {
			seen[name] = refEntry{Name: name, Hash: h}
		}
	}
	root := filepath.Join(r.CommonDir, filepath.FromSlash(prefix))
	walkErr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.IsDir() || strings.HasSuffix(p, ".lock") {
			return nil
		}
		rel, err := filepath.Rel(r.CommonDir, p)
		if err != nil {
			return nil
		}
		name := filepath.ToSlash(rel)
		b, err := repo.ReadRegular(p, repo.MaxRefFileBytes)
		if err != nil {
			return nil // git skips an unreadable loose ref file too
		}
		line := strings.TrimSpace(string(b))
		if target, ok := strings.CutPrefix(line, "ref:"); ok {
			target = strings.TrimSpace(target)
			h, _, err := readRef(r, target)
			if err != nil {
				return nil // dangling symbolic ref: git skips it too
			}
			seen[name] = refEntry{Name: name, Hash: h, Symbolic: target}
			return nil
		}
		if plumbing.IsHash(line) {
			seen[name] = refEntry{Name: name, Hash: plumbing.NewHash(line)}
		}
		return nil
	})
	if walkErr != nil {
		return nil, fmt.Errorf("list refs: %w", walkErr)
	}
	out := make([]refEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// lockFile creates path+".lock" exclusively, as git's lockfile API does.
func lockFile(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path+".lock", os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if errors.Is(err, fs.ErrExist) {
		return nil, &LockedError{Path: path + ".lock"}
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}

// commitLock writes data to an open lock file and renames it over path.
func commitLock(f *os.File, path string, data []byte) error {
	lock := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(lock)
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(lock)
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(lock)
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if err := os.Rename(lock, path); err != nil {
		os.Remove(lock)
		return fmt.Errorf("rename %s: %w", lock, err)
	}
	return nil
}

// refUpdate describes one ref change.
type refUpdate struct {
	Name string
	New  plumbing.Hash
	// Old is the value the ref must have; ZeroHash means "must not exist".
	Old plumbing.Hash
	// AnyOld skips the compare-and-swap check.
	AnyOld bool
	// Reflog is the reflog message; empty writes no reflog line.
	Reflog string
	// AlsoHEADLog also appends the line to this worktree's HEAD reflog
	// (git does that when HEAD points at the updated branch).
	AlsoHEADLog bool
}

// updateRef writes a loose ref under its lock after checking its current
// value, then appends the reflog line(s).
func updateRef(r *repo.Repo, u refUpdate, who string) error {
	path := refFile(r, u.Name)
	if err := checkRefDirConflict(r, u.Name); err != nil {
		return err
	}
	f, err := lockFile(path)
	if err != nil {
		return err
	}
	cur, _, err := readRefNoFollow(r, u.Name)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if !u.AnyOld && cur != u.Old {
		f.Close()
		os.Remove(f.Name())
		return &StaleRefError{Ref: u.Name}
	}
	if err := commitLock(f, path, []byte(u.New.String()+"\n")); err != nil {
		return err
	}
	if u.Reflog != "" && who != "" {
		appendReflog(r, u.Name, cur, u.New, who, u.Reflog)
		if u.AlsoHEADLog {
			appendReflog(r, "HEAD", cur, u.New, who, u.Reflog)
		}
	}
	return nil
}

// readRefNoFollow reads a ref's own value (loose, then packed).
func readRefNoFollow(r *repo.Repo, name string) (plumbing.Hash, bool, error) {
	b, err := repo.ReadRegular(refFile(r, name), repo.MaxRefFileBytes)
	if err == nil {
		line := strings.TrimSpace(string(b))
		if strings.HasPrefix(line, "ref:") {
			return plumbing.ZeroHash, true, fmt.Errorf("%s is a symbolic ref", name)
		}
		if !plumbing.IsHash(line) {
			return plumbing.ZeroHash, false, fmt.Errorf("ref %s is malformed", name)
		}
		return plumbing.NewHash(line), false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) && !isNotDirErr(err) {
		return plumbing.ZeroHash, false, fmt.Errorf("read ref %s: %w", name, err)
	}
	packed, err := readPackedRefs(r)
	if err != nil {
		return plumbing.ZeroHash, false, err
	}
	if h, ok := packed[name]; ok {
		return h, false, nil
	}
	return plumbing.ZeroHash, false, fmt.Errorf("ref %s: %w", name, fs.ErrNotExist)
}

// checkRefDirConflict refuses a ref whose name is a directory of an
// existing ref (refs/heads/a when refs/heads/a/b exists) or below an
// existing ref (refs/heads/a/b when refs/heads/a exists).
func checkRefDirConflict(r *repo.Repo, name string) error {
	packed, err := readPackedRefs(r)
	if err != nil {
		return err
	}
	short := strings.TrimPrefix(name, "refs/heads/")
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		prefix := strings.Join(parts[:i], "/")
		if !strings.HasPrefix(prefix, "refs/") {
			continue
		}
		if _, ok := packed[prefix]; ok {
			return &BranchExistsError{Name: short, Conflict: strings.TrimPrefix(prefix, "refs/heads/")}
		}
		if fi, err := os.Stat(refFile(r, prefix)); err == nil && !fi.IsDir() {
			return &BranchExistsError{Name: short, Conflict: strings.TrimPrefix(prefix, "refs/heads/")}
		}
	}
	for p := range packed {
		if strings.HasPrefix(p, name+"/") {
			return &BranchExistsError{Name: short, Conflict: strings.TrimPrefix(p, "refs/heads/")}
		}
	}
	if fi, err := os.Stat(refFile(r, name)); err == nil && fi.IsDir() {
		// A directory of loose refs (possibly empty after deletions).
		var found string
		filepath.WalkDir(refFile(r, name), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && found == "" {
				rel, _ := filepath.Rel(r.CommonDir, p)
				found = filepath.ToSlash(rel)
			}
			return nil
		})
		if found != "" {
			return &BranchExistsError{Name: short, Conflict: strings.TrimPrefix(found, "refs/heads/")}
		}
		os.Remove(refFile(r, name)) // an empty directory: git removes it too
	}
	return nil
}

// writeSymbolicHead points a worktree's HEAD at a branch (or detaches it at
// a commit when target is empty), under HEAD.lock.
func writeHead(r *repo.Repo, gitDir, target string, detached plumbing.Hash, old plumbing.Hash, who, reflog string) error {
	path := filepath.Join(gitDir, "HEAD")
	f, err := lockFile(path)
	if err != nil {
		return err
	}
	content := "ref: " + target + "\n"
	newHash := detached
	if target == "" {
		content = detached.String() + "\n"
	} else if h, _, err := readRef(r, target); err == nil {
		newHash = h
	}
	if err := commitLock(f, path, []byte(content)); err != nil {
		return err
	}
	if reflog != "" && who != "" {
		appendReflogIn(r, gitDir, "HEAD", old, newHash, who, reflog)
	}
	return nil
}

// appendReflog appends one line to a ref's reflog when git would keep one
// (core.logAllRefUpdates, default true outside bare repositories, or when
// the log already exists). Reflog failures never fail the update.
func appendReflog(r *repo.Repo, name string, old, new plumbing.Hash, who, msg string) {
	dir := r.CommonDir
	if isPerWorktreeRef(name) {
		dir = r.GitDir
	}
	appendReflogIn(r, dir, name, old, new, who, msg)
}

func appendReflogIn(r *repo.Repo, dir, name string, old, new plumbing.Hash, who, msg string) {
	path := filepath.Join(dir, "logs", filepath.FromSlash(name))
	if _, err := os.Stat(path); err != nil {
		cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo)
		if err != nil {
			return
		}
		mode, ok := cfg.get("core", "", "logallrefupdates")
		bare := cfg.bool("core", "", "bare", false)
		switch {
		case strings.EqualFold(mode, "always"):
		case ok && !cfg.bool("core", "", "logallrefupdates", !bare):
			return
		case !ok && bare:
			return
		case name != "HEAD" && !strings.HasPrefix(name, "refs/heads/") &&
			!strings.HasPrefix(name, "refs/remotes/") && !strings.HasPrefix(name, "refs/notes/"):
			return
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := repo.OpenRegularForAppend(path, 0o666)
	if err != nil {
		return // not there to append to (or not a regular file): no reflog
	}
	defer f.Close()
	// git's copy_reflog_msg: blank runs become one space, ends trimmed.
	msg = strings.Join(strings.Fields(msg), " ")
	fmt.Fprintf(f, "%s %s %s\t%s\n", old, new, who, msg)
}

// identLine formats "Name <email> <unix> <+zzzz>" as git writes it.
func identLine(id Identity, when time.Time) string {
	return fmt.Sprintf("%s <%s> %d %s", id.Name, id.Email, when.Unix(), when.Format("-0700"))
}

// reflogIdent is the identity for reflog lines: the configured one, or
// git's fallback of the login name at the host name.
func reflogIdent(r *repo.Repo) string {
	id, err := configIdentity(r)
	if err != nil {
		name := "unknown"
		if u, err := user.Current(); err == nil && u.Username != "" {
			name = u.Username
		}
		host, _ := os.Hostname()
		if host == "" {
			host = "localhost"
		}
		id = &Identity{Name: name, Email: name + "@" + host}
	}
	return identLine(*id, time.Now())
}

// shortRefName shortens a full ref name the way git's %(refname:short)
// and decorations do.
func shortRefName(name string) string {
	for _, p := range []string{"refs/heads/", "refs/tags/", "refs/remotes/"} {
		if s, ok := strings.CutPrefix(name, p); ok {
			return s
		}
	}
	return name
}

// abbrevLen is the length of abbreviated hashes: core.abbrev when set,
// else git's automatic length from the number of packed objects (7 up to
// 2^14 objects, then one more every factor of 4).
func abbrevLen(r *repo.Repo) int {
	if cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo); err == nil {
		if v, ok := cfg.get("core", "", "abbrev"); ok {
			v = strings.ToLower(strings.TrimSpace(v))
			if v == "no" || v == "false" || v == "off" {
				return 40
			}
			if n, err := strconv.Atoi(v); err == nil {
				return min(max(n, 4), 40)
			}
		}
	}
	count := uint64(0)
	idxs, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "pack", "*.idx"))
	for _, p := range idxs {
		f, err := repo.OpenRegular(p, math.MaxInt64) // only 4 bytes are read
		if err != nil {
			continue
		}
		var buf [4]byte
		// Version 2 index: 8-byte header, then 256 fan-out entries; the
		// last one is the object count.
		if _, err := f.ReadAt(buf[:], 8+255*4); err == nil {
			count += uint64(buf[0])<<24 | uint64(buf[1])<<16 | uint64(buf[2])<<8 | uint64(buf[3])
		}
		f.Close()
	}
	if count == 0 {
		return 7
	}
	msb := 0
	for c := count; c > 1; c >>= 1 {
		msb++
	}
	return max(7, (msb+2)/2)
}

// shortHash abbreviates a hash to n hex digits.
func shortHash(h plumbing.Hash, n int) string {
	s := h.String()
	if n >= len(s) {
		return s
	}
	return s[:n]
}
