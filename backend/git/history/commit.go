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
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/meith-dev/meith/backend/git/repo"
)

// Identity is a commit author/committer.
type Identity struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// CommitResult is what Commit returns.
type CommitResult struct {
	Hash      string `json:"hash"`
	ShortHash string `json:"shortHash"`
	// Branch is the branch that moved, or "" for a detached HEAD.
	Branch  string `json:"branch"`
	Summary string `json:"summary"`
	// Output is git's first summary line, e.g. "[main abc1234] subject".
	Output string `json:"output"`
	// SigningSkipped says commit.gpgSign is true in the configuration:
	// git would sign the commit (running gpg), meith never runs gpg, so
	// this commit is unsigned.
	SigningSkipped bool `json:"signingSkipped,omitempty"`
}

// emptyTree is the hash of the tree with no entries.
var emptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// Commit records the current index (not the worktree) as a new commit on
// the branch HEAD points at (or on the detached HEAD), with HEAD as parent
// and MERGE_HEAD as a second parent when a merge is being concluded.
//
// Author and committer are id when it is non-nil (both fields required),
// else user.name/user.email from the repository, global and system config.
// Hooks, commit signing and message templates are not run or applied: no
// executable runs (SigningSkipped in the result says when commit.gpgSign
// asked for a signature). The message is cleaned up like `git commit -m`
// (trailing blanks and surplus blank lines removed).
func Commit(ctx context.Context, r *repo.Repo, message string, id *Identity) (*CommitResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	msg := cleanupMessage(message)
	if msg == "" {
		return nil, &repo.ArgumentError{Field: "message", Reason: "is empty (after removing blank lines)"}
	}
	who, err := commitIdentity(r, id)
	if err != nil {
		return nil, err
	}
	head, err := readHead(r, r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	// Hold index.lock like git commit does, so a concurrent staging
	// operation cannot change the index under us. The index itself is not
	// rewritten.
	lock, err := lockIndex(r, r.GitDir)
	if err != nil {
		return nil, err
	}
	defer lock.Rollback()
	idx := lock.Index()
	tree, pending, err := indexTree(ctx, idx)
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}

	var parents []plumbing.Hash
	headTree := emptyTree
	if !head.Hash.IsZero() {
		parents = append(parents, head.Hash)
		c, err := object.GetCommit(r.Git.Storer, head.Hash)
		if err != nil {
			return nil, fmt.Errorf("commit: read HEAD commit: %w", err)
		}
		headTree = c.TreeHash
	}
	merging, err := mergeHeads(r)
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	parents = append(parents, merging...)
	if len(merging) == 0 && (tree == headTree || (head.Hash.IsZero() && len(idx.Entries) == 0)) {
		return nil, ErrNothingToCommit
	}

	if err := storeObjects(r.Git.Storer, pending); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	now := time.Now()
	sig := object.Signature{Name: who.Name, Email: who.Email, When: now}
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree, ParentHashes: parents}
	obj := r.Git.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return nil, fmt.Errorf("commit: encode: %w", err)
	}
	hash, err := r.Git.Storer.SetEncodedObject(obj)
	if err != nil {
		return nil, fmt.Errorf("commit: write object: %w", err)
	}

	subject := commitSubject(msg)
	kind := "commit"
	switch {
	case head.Hash.IsZero():
		kind = "commit (initial)"
	case len(merging) > 0:
		kind = "commit (merge)"
	}
	refName := head.Symbolic
	if refName == "" {
		refName = "HEAD"
	}
	err = updateRef(r, refUpdate{
		Name: refName, New: hash, Old: head.Hash,
		Reflog: kind + ": " + subject, AlsoHEADLog: refName != "HEAD",
	}, identLine(*who, now))
	if err != nil {
		return nil, fmt.Errorf("commit: update %s: %w", refName, err)
	}
	if len(merging) > 0 {
		for _, f := range []string{"MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE"} {
			os.Remove(filepath.Join(r.GitDir, f))
		}
	}

	short := shortHash(hash, abbrevLen(r))
	branch := strings.TrimPrefix(head.Symbolic, "refs/heads/")
	label := branch
	if head.Symbolic == "" {
		label = "detached HEAD"
	}
	if head.Hash.IsZero() {
		label += " (root-commit)"
	}
	return &CommitResult{
		Hash:           hash.String(),
		ShortHash:      short,
		Branch:         branch,
		Summary:        subject,
		Output:         fmt.Sprintf("[%s %s] %s", label, short, subject),
		SigningSkipped: signingConfigured(r),
	}, nil
}

// signingConfigured reports whether commit.gpgSign is true in the
// configuration git would read (includes followed); an unreadable
// configuration counts as not set.
func signingConfigured(r *repo.Repo) bool {
	cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo)
	return err == nil && cfg.bool("commit", "", "gpgsign", false)
}

// commitIdentity validates a given identity or falls back to config.
func commitIdentity(r *repo.Repo, id *Identity) (*Identity, error) {
	if id == nil {
		return configIdentity(r)
	}
	clean := &Identity{Name: cleanIdent(id.Name), Email: cleanIdent(id.Email)}
	switch {
	case clean.Name == "" && clean.Email == "":
		return nil, &NoIdentityError{}
	case clean.Name == "":
		return nil, &NoIdentityError{Missing: "the profile's name"}
	case clean.Email == "":
		return nil, &NoIdentityError{Missing: "the profile's email"}
	}
	return clean, nil
}

// configIdentity reads user.name and user.email (repository config over
// global over system).
func configIdentity(r *repo.Repo) (*Identity, error) {
	cfg, err := loadConfig(r, scopeSystem, scopeGlobal, scopeRepo)
	if err != nil {
		return nil, err
	}
	name, _ := cfg.get("user", "", "name")
	email, _ := cfg.get("user", "", "email")
	id := &Identity{Name: cleanIdent(name), Email: cleanIdent(email)}
	switch {
	case id.Name == "" && id.Email == "":
		return nil, &NoIdentityError{}
	case id.Name == "":
		return nil, &NoIdentityError{Missing: "user.name"}
	case id.Email == "":
		return nil, &NoIdentityError{Missing: "user.email"}
	}
	return id, nil
}

// cleanIdent trims "crud" (blanks and ,:;<>"\') from both ends and drops
// the delimiters '<', '>' and newlines, as git does for ident fields.
func cleanIdent(s string) string {
	crud := func(c byte) bool {
		return c <= 32 || strings.IndexByte(",:;<>\"\\'", c) >= 0
	}
	for len(s) > 0 && crud(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && crud(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '<' || r == '>' {
			return -1
		}
		return r
	}, s)
}

// cleanupMessage is git's "whitespace" cleanup (used for -m messages):
// trailing whitespace stripped from every line, leading and trailing blank
// lines dropped, runs of blank lines collapsed to one, and a final newline.
func cleanupMessage(msg string) string {
	var out []string
	blank := 0
	for _, line := range strings.Split(strings.ReplaceAll(msg, "\r\n", "\n"), "\n") {
		line = strings.TrimRight(line, " \t\r\v\f")
		if line == "" {
			blank++
			continue
		}
		if blank > 0 && len(out) > 0 {
			out = append(out, "")
		}
		blank = 0
		out = append(out, line)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// commitSubject is git's %s: the first paragraph with its lines joined by
// spaces.
func commitSubject(msg string) string {
	var parts []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimRight(line, " \t\r\v\f")
		if line == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, line)
	}
	return strings.Join(parts, " ")
}

// mergeHeads reads MERGE_HEAD (a merge being concluded).
func mergeHeads(r *repo.Repo) ([]plumbing.Hash, error) {
	b, err := repo.ReadRegular(filepath.Join(r.GitDir, "MERGE_HEAD"), repo.MaxRefFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []plumbing.Hash
	for _, line := range strings.Fields(string(b)) {
		if plumbing.IsHash(line) {
			out = append(out, plumbing.NewHash(line))
		}
	}
	return out, nil
}

// indexTree builds the tree objects for the index entries (like `git
// write-tree`) without storing them: it returns the root tree hash and the
// encoded trees. Intent-to-add entries are left out, as git does;
// conflicted entries refuse.
func indexTree(ctx context.Context, idx *index.Index) (plumbing.Hash, []plumbing.EncodedObject, error) {
	var unmerged []string
	for _, e := range idx.Entries {
		if e.Stage != 0 { // go-git's index.Merged constant is 1, not 0
			if len(unmerged) == 0 || unmerged[len(unmerged)-1] != e.Name {
				unmerged = append(unmerged, e.Name)
			}
		}
	}
	if len(unmerged) > 0 {
		return plumbing.ZeroHash, nil, &repo.UnmergedError{Paths: unmerged, WholeIndex: true}
	}
	root := &treeNode{}
	for _, e := range idx.Entries {
		if e.IntentToAdd {
			continue
		}
		if err := root.add(e.Name, e.Mode, e.Hash); err != nil {
			return plumbing.ZeroHash, nil, err
		}
	}
	var objs []plumbing.EncodedObject
	h, err := root.encode(ctx, &objs)
	return h, objs, err
}

// storeObjects writes the objects the store does not have yet.
func storeObjects(s storer.EncodedObjectStorer, objs []plumbing.EncodedObject) error {
	for _, o := range objs {
		if s.HasEncodedObject(o.Hash()) == nil {
			continue
		}
		if _, err := s.SetEncodedObject(o); err != nil {
			return fmt.Errorf("write %s %s: %w", o.Type(), o.Hash(), err)
		}
	}
	return nil
}

// treeNode is a directory being built from index entries.
type treeNode struct {
	files map[string]object.TreeEntry
	dirs  map[string]*treeNode
}

func (n *treeNode) add(p string, mode filemode.FileMode, h plumbing.Hash) error {
	name, rest, more := cutSlash(p)
	if name == "" || name == "." || name == ".." {
		return fmt.Errorf("index entry %q has an invalid path", p)
	}
	if !more {
		if _, ok := n.dirs[name]; ok {
			return fmt.Errorf("index entry %q is both a file and a directory", p)
		}
		if n.files == nil {
			n.files = map[string]object.TreeEntry{}
		}
		n.files[name] = object.TreeEntry{Name: name, Mode: canonicalMode(mode), Hash: h}
		return nil
	}
	if _, ok := n.files[name]; ok {
		return fmt.Errorf("index entry %q is both a file and a directory", p)
	}
	if n.dirs == nil {
		n.dirs = map[string]*treeNode{}
	}
	child := n.dirs[name]
	if child == nil {
		child = &treeNode{}
		n.dirs[name] = child
	}
	return child.add(rest, mode, h)
}

// canonicalMode maps index modes to the modes git writes in trees.
func canonicalMode(m filemode.FileMode) filemode.FileMode {
	switch uint32(m) & 0o170000 {
	case 0o120000:
		return filemode.Symlink
	case 0o160000:
		return filemode.Submodule
	case 0o040000:
		return filemode.Dir
	}
	if uint32(m)&0o111 != 0 {
		return filemode.Executable
	}
	return filemode.Regular
}

// encode encodes the tree and its subtrees, appending them to objs.
func (n *treeNode) encode(ctx context.Context, objs *[]plumbing.EncodedObject) (plumbing.Hash, error) {
	if err := ctx.Err(); err != nil {
		return plumbing.ZeroHash, err
	}
	entries := make([]object.TreeEntry, 0, len(n.files)+len(n.dirs))
	for _, e := range n.files {
		entries = append(entries, e)
	}
	for name, child := range n.dirs {
		h, err := child.encode(ctx, objs)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	sort.Sort(object.TreeEntrySorter(entries))
	t := &object.Tree{Entries: entries}
	obj := &plumbing.MemoryObject{}
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	*objs = append(*objs, obj)
	return obj.Hash(), nil
}
