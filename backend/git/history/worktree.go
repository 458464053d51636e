package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/meith-dev/meith/backend/git/repo"
	"github.com/meith-dev/meith/backend/git/status"
)

// Worktree is one worktree, with the fields of `git worktree list
// --porcelain`.
type Worktree struct {
	Path string `json:"path"`
	// Head is the commit checked out (forty zeros on an unborn branch);
	// empty for a bare repository.
	Head string `json:"head,omitempty"`
	// Branch is the full ref checked out ("refs/heads/main"), as git
	// prints it; empty when detached.
	Branch   string `json:"branch,omitempty"`
	Bare     bool   `json:"bare,omitempty"`
	Detached bool   `json:"detached,omitempty"`
	// Locked is set (to the reason, or "locked") for a locked worktree.
	Locked string `json:"locked,omitempty"`
	// Prunable says why git would prune the worktree (its directory is gone).
	Prunable string `json:"prunable,omitempty"`
	// adminDir is the worktree's git directory (<common>/worktrees/<name>
	// for linked worktrees).
	adminDir string
	// Unconverted are the files CreateWorktree wrote without a conversion
	// git would apply (a clean/smudge filter such as git-lfs, ident,
	// working-tree-encoding).
	Unconverted []status.Unconverted `json:"-"`
}

// ListWorktrees lists the main worktree and then the linked ones sorted by
// path, like `git worktree list --porcelain`.
func ListWorktrees(ctx context.Context, r *repo.Repo) ([]Worktree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo)
	if err != nil {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	common := r.CommonDir
	if real, err := filepath.EvalSymlinks(common); err == nil {
		common = real
	}
	main := Worktree{adminDir: r.CommonDir}
	if cfg.bool("core", "", "bare", false) {
		main.Path = common
		main.Bare = true
	} else {
		main.Path = strings.TrimSuffix(common, string(filepath.Separator)+".git")
		if err := fillWorktreeHead(r, &main, r.CommonDir); err != nil {
			return nil, err
		}
	}
	out := []Worktree{main}

	dir := filepath.Join(r.CommonDir, "worktrees")
	names, err := repo.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("list worktrees: %w", err)
	}
	for _, d := range names {
		if !d.IsDir() {
			continue
		}
		admin := filepath.Join(dir, d.Name())
		wt := Worktree{adminDir: admin}
		gitdir, err := repo.ReadRegular(filepath.Join(admin, "gitdir"), repo.MaxRefFileBytes)
		if err != nil {
			// git skips an entry without a readable gitdir file.
			continue
		}
		dotgit := strings.TrimSpace(string(gitdir))
		if !filepath.IsAbs(dotgit) {
			dotgit = filepath.Join(admin, dotgit)
		}
		wt.Path = strings.TrimSuffix(filepath.Clean(dotgit), string(filepath.Separator)+".git")
		if err := fillWorktreeHead(r, &wt, admin); err != nil {
			continue
		}
		if b, err := repo.ReadRegular(filepath.Join(admin, "locked"), repo.MaxRefFileBytes); err == nil {
			wt.Locked = strings.TrimSpace(string(b))
			if wt.Locked == "" {
				wt.Locked = "locked"
			}
		}
		if _, err := os.Stat(dotgit); err != nil && wt.Locked == "" {
			wt.Prunable = "gitdir file points to non-existent location"
		}
		out = append(out, wt)
	}
	// git worktree list keeps the main worktree first and sorts the rest by path.
	sort.SliceStable(out[1:], func(i, j int) bool { return out[1+i].Path < out[1+j].Path })
	return out, nil
}

func fillWorktreeHead(r *repo.Repo, wt *Worktree, gitDir string) error {
	head, err := readHead(r, gitDir)
	if err != nil {
		return fmt.Errorf("list worktrees: %s: %w", wt.Path, err)
	}
	wt.Head = head.Hash.String()
	if head.Symbolic != "" {
		wt.Branch = head.Symbolic
	} else {
		wt.Detached = true
	}
	return nil
}

// CreateWorktree adds a linked worktree at path (relative paths are taken
// from the repository root), like `git worktree add`, by writing git's
// administrative files (<common>/worktrees/<name>/{HEAD,commondir,gitdir,
// index} and <path>/.git) and checking out the tree:
//
//   - branch names a new branch: it is created at startPoint (default HEAD);
//   - branch names an existing branch (and startPoint is empty): it is
//     checked out, unless another worktree has it (*BranchCheckedOutError,
//     which force overrides, as with git);
//   - no branch and no startPoint: a branch named after the path's last
//     element, created from HEAD if it does not exist (git's convenience);
//   - no branch and a startPoint: that local branch, or a detached HEAD at
//     that commit.
//
// The path must not exist or be an empty directory. It returns the new
// worktree's entry.
func CreateWorktree(ctx context.Context, r *repo.Repo, path, branch, startPoint string, force bool) (*Worktree, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if path == "" || strings.HasPrefix(path, "-") {
		return nil, &repo.ArgumentError{Field: "path", Reason: "must be a directory path"}
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.Root, abs)
	}
	abs = filepath.Clean(abs)
	if parent, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(parent, filepath.Base(abs))
	}
	if fi, err := os.Lstat(abs); err == nil {
		if !fi.IsDir() {
			return nil, &WorktreeError{Path: abs, Reason: "already exists and is not a directory"}
		}
		if ents, err := repo.ReadDir(abs); err != nil || len(ents) > 0 {
			return nil, &WorktreeError{Path: abs, Reason: "already exists and is not empty"}
		}
	}
	existing, err := ListWorktrees(ctx, r)
	if err != nil {
		return nil, err
	}
	for _, wt := range existing {
		if filepath.Clean(wt.Path) == abs {
			if wt.Prunable == "" || !force {
				return nil, &WorktreeError{Path: abs, Reason: "is already registered as a worktree (pass force to replace a missing one)"}
			}
			if err := os.RemoveAll(wt.adminDir); err != nil {
				return nil, fmt.Errorf("create worktree: %w", err)
			}
		}
	}

	// Work out what to check out.
	var (
		target    plumbing.Hash
		newBranch string
		startFrom string
		checkout  string // existing branch to check out
	)
	switch {
	case branch != "":
		if err := ValidateBranchName(branch); err != nil {
			return nil, err
		}
		if _, _, err := readRef(r, "refs/heads/"+branch); err == nil {
			if startPoint != "" {
				return nil, &BranchExistsError{Name: branch}
			}
			checkout = branch
		} else {
			newBranch, startFrom = branch, startPoint
		}
	case startPoint == "":
		guess := sanitizeWorktreeName(filepath.Base(abs))
		if ValidateBranchName(guess) != nil {
			return nil, &repo.ArgumentError{Field: "branch", Reason: "is required: the path's last element is not a valid branch name"}
		}
		if _, _, err := readRef(r, "refs/heads/"+guess); err == nil {
			checkout = guess
		} else {
			newBranch = guess
		}
	default:
		isBranch := false
		if ValidateBranchName(startPoint) == nil {
			_, _, err := readRef(r, "refs/heads/"+startPoint)
			isBranch = err == nil
		}
		if isBranch {
			checkout = startPoint
		} else {
			res, err := resolveCommit(r, startPoint)
			if err != nil {
				return nil, err
			}
			target = res.Hash
		}
	}
	if checkout != "" {
		for _, wt := range existing {
			if wt.Branch == "refs/heads/"+checkout && !force {
				return nil, &BranchCheckedOutError{Branch: checkout, Path: wt.Path}
			}
		}
		h, _, err := readRef(r, "refs/heads/"+checkout)
		if err != nil {
			return nil, fmt.Errorf("create worktree: %w", err)
		}
		target = h
	}
	if newBranch != "" {
		if err := CreateBranch(ctx, r, newBranch, startFrom); err != nil {
			return nil, err
		}
		h, _, err := readRef(r, "refs/heads/"+newBranch)
		if err != nil {
			return nil, fmt.Errorf("create worktree: %w", err)
		}
		target = h
		checkout = newBranch
	}

	wt, err := writeWorktree(ctx, r, abs, checkout, target)
	if err != nil {
		return nil, err
	}
	return wt, nil
}

// writeWorktree creates the administrative directory and the checkout.
// On failure everything it created is removed again.
func writeWorktree(ctx context.Context, r *repo.Repo, abs, branch string, target plumbing.Hash) (_ *Worktree, err error) {
	base := filepath.Join(r.CommonDir, "worktrees")
	if err := os.MkdirAll(base, 0o777); err != nil {
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	name := sanitizeWorktreeName(filepath.Base(abs))
	admin := filepath.Join(base, name)
	for i := 1; ; i++ {
		err := os.Mkdir(admin, 0o777)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || i > 10000 {
			return nil, fmt.Errorf("create worktree: %w", err)
		}
		admin = filepath.Join(base, fmt.Sprintf("%s%d", name, i))
	}
	createdDir := false
	defer func() {
		if err != nil {
			os.RemoveAll(admin)
			if createdDir {
				os.RemoveAll(abs)
			}
		}
	}()
	write := func(p, content string) error {
		if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
			return fmt.Errorf("create worktree: %w", err)
		}
		return nil
	}
	// git marks the worktree locked while it is being set up.
	if err := write(filepath.Join(admin, "locked"), "initializing"); err != nil {
		return nil, err
	}
	if _, statErr := os.Lstat(abs); errors.Is(statErr, fs.ErrNotExist) {
		if err := os.MkdirAll(abs, 0o777); err != nil {
			return nil, fmt.Errorf("create worktree: %w", err)
		}
		createdDir = true
	}
	if err := write(filepath.Join(admin, "gitdir"), filepath.Join(abs, ".git")+"\n"); err != nil {
		return nil, err
	}
	if err := write(filepath.Join(abs, ".git"), "gitdir: "+admin+"\n"); err != nil {
		return nil, err
	}
	if err := write(filepath.Join(admin, "commondir"), "../..\n"); err != nil {
		return nil, err
	}
	head := target.String() + "\n"
	if branch != "" {
		head = "ref: refs/heads/" + branch + "\n"
	}
	if err := write(filepath.Join(admin, "HEAD"), head); err != nil {
		return nil, err
	}

	// Check out the tree and write the index with stat data.
	cs := newCommitSource(r, r.Git.Storer)
	n, err := cs.get(target)
	cs.close()
	if err != nil {
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	files, err := flattenTree(ctx, r.Git.Storer, n.Tree)
	if err != nil {
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	idx := &index.Index{Version: 2}
	guard := newDirGuard()
	// A checkout reads attributes from the index it writes: the tree's.
	conv := status.NewConverter(r, treeAttributes(r, files), status.WorktreeAttributes(abs))
	var unconv []status.Unconverted
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !safeTreePath(p) {
			return nil, &UnsupportedError{Feature: fmt.Sprintf("an unsafe path %q in its tree", p)}
		}
		f := files[p]
		fi, err := checkoutFile(r.Git.Storer, filepath.Join(abs, filepath.FromSlash(p)), f, guard, conv, p)
		if err != nil {
			return nil, fmt.Errorf("create worktree: %w", err)
		}
		if f.Mode == filemode.Regular || f.Mode == filemode.Executable {
			unconverted(conv, p, &unconv)
		}
		idx.Entries = append(idx.Entries, indexEntry(p, f, fi))
	}
	lock, err := lockIndex(r, admin)
	if err != nil {
		return nil, err
	}
	cleanLock(r, lock, conv)
	if err := lock.Commit(idx); err != nil {
		lock.Rollback()
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	if err := os.Remove(filepath.Join(admin, "locked")); err != nil {
		return nil, fmt.Errorf("create worktree: %w", err)
	}
	wt := &Worktree{Path: abs, Head: target.String(), adminDir: admin, Unconverted: unconv}
	if branch != "" {
		wt.Branch = "refs/heads/" + branch
	} else {
		wt.Detached = true
	}
	return wt, nil
}

// sanitizeWorktreeName turns a path element into a valid administrative
// directory name, like git's sanitize_refname_component.
func sanitizeWorktreeName(s string) string {
	var b strings.Builder
	var last byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0:
			c = '-'
		case c == '.' && last == '.':
			continue
		case c == '{' && last == '@':
			c = '-'
		}
		b.WriteByte(c)
		last = c
	}
	out := b.String()
	for strings.HasSuffix(out, ".lock") {
		out = strings.TrimSuffix(out, ".lock")
	}
	if strings.HasPrefix(out, ".") {
		out = "-" + out[1:]
	}
	out = strings.TrimSuffix(out, ".")
	if out == "" {
		out = "worktree"
	}
	return out
}

// RemoveWorktree deletes a linked worktree's directory and administrative
// files, like `git worktree remove`. The main worktree and the worktree r
// was opened in are refused (*WorktreeError), as is a locked worktree
// unless force is set. A worktree with local changes (staged, unstaged or
// untracked files that are not ignored) is only removed when confirm is
// set; otherwise a *DirtyWorktreeError lists them.
func RemoveWorktree(ctx context.Context, r *repo.Repo, path string, confirm, force bool) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.Root, abs)
	}
	abs = filepath.Clean(abs)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	wts, err := ListWorktrees(ctx, r)
	if err != nil {
		return err
	}
	var wt *Worktree
	for i := range wts {
		if filepath.Clean(wts[i].Path) == abs {
			wt = &wts[i]
			break
		}
	}
	switch {
	case wt == nil:
		return &WorktreeError{Path: abs, Reason: "is not a worktree of this repository"}
	case wt.adminDir == r.CommonDir:
		return &WorktreeError{Path: abs, Reason: "is the main worktree and cannot be removed"}
	case filepath.Clean(wt.adminDir) == filepath.Clean(r.GitDir):
		return &WorktreeError{Path: abs, Reason: "is the worktree this request runs in; run it from another worktree"}
	case wt.Locked != "" && !force:
		return &WorktreeError{Path: abs, Reason: "is locked (" + wt.Locked + "); pass force to remove it"}
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		// Never delete a directory that is not demonstrably this worktree:
		// its .git file must point back at the administrative directory.
		if !pointsTo(filepath.Join(abs, ".git"), wt.adminDir) {
			return &WorktreeError{Path: abs, Reason: "has no .git file pointing to " + wt.adminDir + "; not removing it"}
		}
		files, err := worktreeChanges(ctx, r, abs, wt.adminDir)
		if err != nil {
			return fmt.Errorf("remove worktree: %w", err)
		}
		if len(files) > 0 && !confirm {
			return &DirtyWorktreeError{Path: abs, Files: files}
		}
		if err := os.RemoveAll(abs); err != nil {
			return fmt.Errorf("remove worktree: %w", err)
		}
	}
	if err := os.RemoveAll(wt.adminDir); err != nil {
		return fmt.Errorf("remove worktree: %w", err)
	}
	return nil
}

// pointsTo reports whether a "gitdir: <dir>" file names adminDir.
func pointsTo(dotGit, adminDir string) bool {
	b, err := repo.ReadRegularNoFollow(dotGit, repo.MaxRefFileBytes)
	if err != nil {
		return false
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return false
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dotGit), target)
	}
	a, errA := filepath.EvalSymlinks(target)
	b2, errB := filepath.EvalSymlinks(adminDir)
	return errA == nil && errB == nil && a == b2
}

// worktreeChanges lists a worktree's local changes: index entries that
// differ from HEAD, files that differ from the index, and untracked files
// that no ignore rule covers.
func worktreeChanges(ctx context.Context, r *repo.Repo, root, gitDir string) ([]string, error) {
	idx, err := readIndexFile(gitDir)
	if err != nil {
		return nil, err
	}
	conv := status.NewConverter(r, status.WorktreeAttributes(root), indexAttributes(r, idx))
	head, err := readHead(r, gitDir)
	if err != nil {
		return nil, err
	}
	headFiles := map[string]treeFile{}
	if !head.Hash.IsZero() {
		cs := newCommitSource(r, r.Git.Storer)
		n, err := cs.get(head.Hash)
		cs.close()
		if err != nil {
			return nil, err
		}
		if headFiles, err = flattenTree(ctx, r.Git.Storer, n.Tree); err != nil {
			return nil, err
		}
	}
	changed := map[string]bool{}
	tracked := map[string]bool{}
	for _, e := range idx.Entries {
		tracked[e.Name] = true
		if f, ok := headFiles[e.Name]; e.Stage != 0 || !ok || !sameEntry(e, f) {
			changed[e.Name] = true
			continue
		}
		abs := filepath.Join(root, filepath.FromSlash(e.Name))
		fi, err := os.Lstat(abs)
		if err != nil {
			changed[e.Name] = true
			continue
		}
		if canonicalMode(e.Mode) == filemode.Submodule {
			continue
		}
		ok, err := fileMatchesEntry(abs, fi, e, idx.ModTime, cleanerFor(r, conv, e))
		if err != nil || !ok {
			changed[e.Name] = true
		}
	}
	for p := range headFiles {
		if !tracked[p] {
			changed[p] = true
		}
	}
	untracked, err := untrackedFiles(ctx, r, root, tracked)
	if err != nil {
		return nil, err
	}
	for _, p := range untracked {
		changed[p] = true
	}
	out := make([]string, 0, len(changed))
	for p := range changed {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}

// untrackedFiles walks a worktree for files the index does not track and
// no ignore rule (.gitignore files, info/exclude, core.excludesFile)
// covers; ignored directories are not entered.
func untrackedFiles(ctx context.Context, r *repo.Repo, root string, tracked map[string]bool) ([]string, error) {
	var base []gitignore.Pattern
	// A file that is missing, unreadable, not a regular file or too large
	// adds no rules; .gitignore files are read without following a
	// symlink, as git reads them.
	addFile := func(ps []gitignore.Pattern, file string, domain []string, inTree bool) []gitignore.Pattern {
		read := repo.ReadRegular
		if inTree {
			read = repo.ReadRegularNoFollow
		}
		data, err := read(file, repo.MaxTextFileBytes)
		if err != nil {
			return ps
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, domain))
		}
		return ps
	}
	if cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo); err == nil {
		if f, ok := cfg.get("core", "", "excludesfile"); ok && f != "" {
			base = addFile(base, expandHome(f), nil, false)
		} else if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
			base = addFile(base, filepath.Join(xdg, "git", "ignore"), nil, false)
		} else if home, err := os.UserHomeDir(); err == nil {
			base = addFile(base, filepath.Join(home, ".config", "git", "ignore"), nil, false)
		}
	}
	base = addFile(base, filepath.Join(r.CommonDir, "info", "exclude"), nil, false)

	trackedDirs := map[string]bool{}
	for p := range tracked {
		for d := parentDir(p); d != ""; d = parentDir(d) {
			trackedDirs[d] = true
		}
	}
	var out []string
	var walk func(dir string, parts []string, ps []gitignore.Pattern) error
	walk = func(dir string, parts []string, ps []gitignore.Pattern) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ps = addFile(ps, filepath.Join(dir, ".gitignore"), parts, true)
		m := gitignore.NewMatcher(ps)
		ents, err := repo.ReadDir(dir)
		if err != nil {
			return nil
		}
		for _, d := range ents {
			name := d.Name()
			if len(parts) == 0 && name == ".git" {
				continue
			}
			sub := append(append([]string(nil), parts...), name)
			rel := strings.Join(sub, "/")
			isDir := d.IsDir()
			if tracked[rel] {
				continue
			}
			if isDir {
				if _, err := os.Lstat(filepath.Join(dir, name, ".git")); err == nil && !trackedDirs[rel] {
					// A nested repository: git reports it as one untracked entry.
					if !m.Match(sub, true) {
						out = append(out, rel+"/")
					}
					continue
				}
				if m.Match(sub, true) && !trackedDirs[rel] {
					continue
				}
				if err := walk(filepath.Join(dir, name), sub, ps); err != nil {
					return err
				}
				continue
			}
			if !m.Match(sub, false) {
				out = append(out, rel)
			}
		}
		return nil
	}
	if err := walk(root, nil, base); err != nil {
		return nil, err
	}
	return out, nil
}
