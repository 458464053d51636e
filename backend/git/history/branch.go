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
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Branch is one local branch, with the JSON shape of git_branch.
type Branch struct {
	Name    string `json:"name"`
	Current bool   `json:"current"`
	// Upstream is the configured upstream like %(upstream:short)
	// ("origin/main"), or "".
	Upstream string `json:"upstream"`
	// Commit is the abbreviated hash the branch points at.
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
}

// ListBranches lists the local branches: the current one first, then the
// others by name.
func ListBranches(ctx context.Context, r *repo.Repo) ([]Branch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	refs, err := listRefs(r, "refs/heads/")
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	head, err := readHead(r, r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo)
	if err != nil {
		return nil, fmt.Errorf("list branches: %w", err)
	}
	abbrev := abbrevLen(r)
	out := make([]Branch, 0, len(refs))
	for _, ref := range refs {
		name := strings.TrimPrefix(ref.Name, "refs/heads/")
		b := Branch{
			Name:     name,
			Current:  ref.Name == head.Symbolic,
			Upstream: upstreamOf(cfg, name),
			Commit:   shortHash(ref.Hash, abbrev),
		}
		if c, err := object.GetCommit(r.Git.Storer, ref.Hash); err == nil {
			b.Subject = commitSubject(c.Message)
		}
		out = append(out, b)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Current != out[j].Current {
			return out[i].Current
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// upstreamOf is %(upstream:short): branch.<name>.merge mapped through the
// remote's fetch refspecs (or the local branch for remote ".").
func upstreamOf(cfg *gitConfig, branch string) string {
	remote, _ := cfg.get("branch", branch, "remote")
	merge, _ := cfg.get("branch", branch, "merge")
	if remote == "" || merge == "" {
		return ""
	}
	if remote == "." {
		return shortRefName(merge)
	}
	for _, e := range cfg.entries {
		if e.section != "remote" || e.subsection != remote || e.key != "fetch" {
			continue
		}
		if dst, ok := mapRefspec(e.value, merge, false); ok {
			return shortRefName(dst)
		}
	}
	return ""
}

// mapRefspec maps a ref through a fetch refspec ("+refs/heads/*:refs/remotes/o/*")
// from source to destination, or backwards when reverse is set.
func mapRefspec(spec, ref string, reverse bool) (string, bool) {
	spec = strings.TrimPrefix(spec, "+")
	src, dst, ok := strings.Cut(spec, ":")
	if !ok || strings.HasPrefix(spec, "^") {
		return "", false
	}
	if reverse {
		src, dst = dst, src
	}
	if !strings.Contains(src, "*") {
		if src == ref {
			return dst, true
		}
		return "", false
	}
	pre, post, _ := strings.Cut(src, "*")
	if !strings.HasPrefix(ref, pre) || !strings.HasSuffix(ref, post) || len(ref) < len(pre)+len(post) {
		return "", false
	}
	mid := ref[len(pre) : len(ref)-len(post)]
	return strings.Replace(dst, "*", mid, 1), true
}

// resolved is a start point: the commit and, when it named a ref, the ref.
type resolved struct {
	Hash plumbing.Hash
	Ref  string
}

// resolveCommit resolves a branch, tag, remote branch, full or abbreviated
// hash, or a revision expression like HEAD~2 to a commit, trying ref names
// in git's order (tags before branches, as `git rev-parse` does).
func resolveCommit(r *repo.Repo, rev string) (resolved, error) {
	if rev == "" || strings.HasPrefix(rev, "-") || strings.HasPrefix(rev, "/") ||
		strings.Contains(rev, "..") || strings.ContainsAny(rev, " \t\n\x00\\") {
		return resolved{}, &UnknownRevisionError{Rev: rev}
	}
	peelToCommit := func(h plumbing.Hash, ref string) (resolved, error) {
		h = peelTag(r, h)
		if _, err := object.GetCommit(r.Git.Storer, h); err != nil {
			return resolved{}, &UnknownRevisionError{Rev: rev}
		}
		return resolved{Hash: h, Ref: ref}, nil
	}
	if len(rev) == 40 && plumbing.IsHash(rev) {
		return peelToCommit(plumbing.NewHash(rev), "")
	}
	if rev == "HEAD" {
		head, err := readHead(r, r.GitDir)
		if err != nil || head.Hash.IsZero() {
			return resolved{}, &UnknownRevisionError{Rev: rev}
		}
		return resolved{Hash: head.Hash, Ref: head.Symbolic}, nil
	}
	for _, full := range []string{rev, "refs/" + rev, "refs/tags/" + rev, "refs/heads/" + rev, "refs/remotes/" + rev, "refs/remotes/" + rev + "/HEAD"} {
		if !strings.HasPrefix(full, "refs/") {
			continue
		}
		h, name, err := readRef(r, full)
		if err == nil {
			return peelToCommit(h, name)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return resolved{}, err
		}
	}
	h, err := r.Git.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return resolved{}, &UnknownRevisionError{Rev: rev}
	}
	return peelToCommit(*h, "")
}

// CreateBranch creates refs/heads/<name> at startPoint (a branch, tag,
// remote branch, hash or revision expression; "" means HEAD), like `git
// branch <name> <startPoint>`: the name is checked like `git
// check-ref-format --branch`, an existing branch is refused, and a
// remote-tracking start point becomes the new branch's upstream.
func CreateBranch(ctx context.Context, r *repo.Repo, name, startPoint string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := ValidateBranchName(name); err != nil {
		return err
	}
	ref := "refs/heads/" + name
	if _, _, err := readRef(r, ref); err == nil {
		return &BranchExistsError{Name: name}
	}
	label := startPoint
	if startPoint == "" {
		startPoint, label = "HEAD", "HEAD"
	}
	start, err := resolveCommit(r, startPoint)
	if err != nil {
		return err
	}
	if err := updateRef(r, refUpdate{Name: ref, New: start.Hash, Old: plumbing.ZeroHash,
		Reflog: "branch: Created from " + label}, reflogIdent(r)); err != nil {
		if IsStaleRef(err) {
			return &BranchExistsError{Name: name}
		}
		return fmt.Errorf("create branch %s: %w", name, err)
	}
	if strings.HasPrefix(start.Ref, "refs/remotes/") {
		if err := setUpstream(r, name, start.Ref); err != nil {
			return fmt.Errorf("create branch %s: set upstream: %w", name, err)
		}
	}
	return nil
}

// setUpstream records branch.<name>.remote/merge for a remote-tracking
// start point (git's branch.autoSetupMerge=true), unless config says not
// to or the branch already has tracking config.
func setUpstream(r *repo.Repo, name, remoteRef string) error {
	cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo)
	if err != nil {
		return err
	}
	if v, ok := cfg.get("branch", "", "autosetupmerge"); ok && !cfg.bool("branch", "", "autosetupmerge", true) && v != "always" {
		return nil
	}
	if _, ok := cfg.get("branch", name, "remote"); ok {
		return nil
	}
	if _, ok := cfg.get("branch", name, "merge"); ok {
		return nil
	}
	for _, e := range cfg.entries {
		if e.section != "remote" || e.key != "fetch" {
			continue
		}
		src, ok := mapRefspec(e.value, remoteRef, true)
		if !ok || !strings.HasPrefix(src, "refs/heads/") {
			continue
		}
		section := fmt.Sprintf("[branch %q]\n\tremote = %s\n\tmerge = %s\n", name, e.subsection, src)
		return appendRepoConfig(r, section)
	}
	return nil
}

// appendRepoConfig appends text to the repository's config file under
// config.lock.
func appendRepoConfig(r *repo.Repo, text string) error {
	path := filepath.Join(r.CommonDir, "config")
	f, err := lockFile(path)
	if err != nil {
		return err
	}
	old, err := repo.ReadRegular(path, repo.MaxTextFileBytes)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if len(old) > 0 && old[len(old)-1] != '\n' {
		old = append(old, '\n')
	}
	if fi, err := os.Stat(path); err == nil {
		f.Chmod(fi.Mode().Perm())
	}
	return commitLock(f, path, append(old, text...))
}
