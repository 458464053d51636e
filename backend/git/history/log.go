package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/meith-dev/meith/backend/git/repo"
)

// LogEntry is one commit of Log, with the JSON shape of git_log.
type LogEntry struct {
	Hash        string `json:"hash"`
	ShortHash   string `json:"shortHash"`
	AuthorName  string `json:"authorName"`
	AuthorEmail string `json:"authorEmail"`
	// Date is the author date in strict ISO 8601 with the author's own
	// offset, as git's %aI prints it ("2024-05-01T10:20:30+02:00").
	Date    string `json:"date"`
	Subject string `json:"subject"`
	// Refs is git's %D decoration: "HEAD -> main, tag: v1, origin/main".
	Refs string `json:"refs"`
}

// LogOptions selects the commits Log returns.
type LogOptions struct {
	// Limit is the number of commits, 1..200; 0 means 30.
	Limit int
	// Path limits the log to commits that changed this file or directory
	// (repository-relative), like `git log -- <path>`. It is a literal path,
	// not a glob.
	Path string
	// Skip leaves out the first Skip commits that pass the filters, like
	// `git log --skip N`.
	Skip int
	// Ref is the revision the walk starts from (a branch, tag, hash or an
	// expression like HEAD~2); "" means HEAD, like `git log <ref>`.
	Ref string
	// Grep keeps commits whose message contains it, ignoring case, like
	// `git log -i -F --grep <grep>`.
	Grep string
	// Author keeps commits whose author "Name <email>" contains it,
	// ignoring case, like `git log -i -F --author <author>`. With Grep,
	// a commit must match both (as git combines --author and --grep).
	Author string
}

// Default and maximum number of commits Log returns.
const (
	DefaultLogLimit = 30
	MaxLogLimit     = 200
	// MaxLogSkip bounds LogOptions.Skip.
	MaxLogSkip = 10_000_000
	// MaxLogPattern bounds the length of LogOptions.Grep, Author and Ref.
	MaxLogPattern = 1024
)

// Log lists the commits reachable from HEAD (or opts.Ref), newest first, in
// the order of `git log` (committer date, first-in first-out among equal
// dates), keeping those that pass opts' path, message and author filters
// and leaving out the first opts.Skip of them.
//
// With a path, commits are kept like `git log -- <path>` with git's
// default history simplification: a commit is shown when the path differs
// from every parent (for a root commit: when the path exists), and at a
// merge whose result equals one parent's path content the walk follows only
// that parent, so side branches whose change was discarded, or taken
// as-is, do not appear. An unborn HEAD gives an empty list.
func Log(ctx context.Context, r *repo.Repo, opts LogOptions) ([]LogEntry, error) {
	limit := opts.Limit
	if limit == 0 {
		limit = DefaultLogLimit
	}
	if limit < 1 || limit > MaxLogLimit {
		return nil, &repo.ArgumentError{Field: "limit", Reason: fmt.Sprintf("must be between 1 and %d", MaxLogLimit)}
	}
	if opts.Skip < 0 || opts.Skip > MaxLogSkip {
		return nil, &repo.ArgumentError{Field: "skip", Reason: fmt.Sprintf("must be between 0 and %d", MaxLogSkip)}
	}
	for _, f := range []struct{ name, value string }{{"ref", opts.Ref}, {"grep", opts.Grep}, {"author", opts.Author}} {
		if len(f.value) > MaxLogPattern {
			return nil, &repo.ArgumentError{Field: f.name, Reason: fmt.Sprintf("is longer than %d bytes", MaxLogPattern)}
		}
		if strings.ContainsAny(f.value, "\n\x00") {
			return nil, &repo.ArgumentError{Field: f.name, Reason: "must be a single line"}
		}
	}
	if strings.HasPrefix(opts.Ref, "-") {
		return nil, &repo.ArgumentError{Field: "ref", Reason: "starts with '-' (a revision, not an option)"}
	}
	path := ""
	if opts.Path != "" && opts.Path != "." && opts.Path != "./" {
		p, err := r.Confine(opts.Path)
		if err != nil {
			return nil, err
		}
		path = p
	}
	head, err := readHead(r, r.GitDir)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	out := []LogEntry{}
	tip := head.Hash
	if opts.Ref != "" && opts.Ref != "HEAD" {
		res, err := resolveCommit(r, opts.Ref)
		if err != nil {
			return nil, err
		}
		tip = res.Hash
	}
	if tip.IsZero() {
		return out, nil
	}
	grep, author := strings.ToLower(opts.Grep), strings.ToLower(opts.Author)
	commits := map[plumbing.Hash]*object.Commit{}
	skip := opts.Skip

	s, release := walkStorer(r)
	defer release()
	cs := newCommitSource(r, s)
	defer cs.close()
	start, err := cs.get(tip)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	var shown []plumbing.Hash
	paths := map[plumbing.Hash]pathEntry{}
	var keys []bloomKey
	ascii := false
	if path != "" {
		keys, ascii = bloomKeys(path)
	}
	q := &dateQueue[*walkNode]{}
	start.seen = true
	q.put(start, start.When)
	for len(shown) < limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n := q.get()
		if n == nil {
			break
		}
		parents, err := cs.parents(n)
		if err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
		show := true
		if path != "" {
			if len(parents) > 0 && parents[0] != nil && !cs.maybeChanged(n, keys, ascii) {
				// The Bloom filter says the path is as in the first
				// parent: TREESAME to it, as git decides from the filter.
				show, parents = false, parents[:1]
			} else {
				show, parents, err = simplify(s, paths, n, parents, path)
			}
			if err != nil {
				return nil, fmt.Errorf("log: %w", err)
			}
		}
		for _, p := range parents {
			if p != nil && !p.seen {
				p.seen = true
				q.put(p, p.When)
			}
		}
		if show && (grep != "" || author != "") {
			// The message filters need the commit object; they run after
			// the walk's cheap steps, on the commits the path kept.
			c, err := object.GetCommit(s, n.Hash)
			if err != nil {
				return nil, fmt.Errorf("log: read commit %s: %w", n.Hash, err)
			}
			show = matchesCommit(c, grep, author)
			if show {
				commits[n.Hash] = c
			}
		}
		if show && skip > 0 {
			skip--
			show = false
		}
		if show {
			shown = append(shown, n.Hash)
		}
	}

	decorations, err := decorations(r, head)
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	abbrev := abbrevLen(r)
	for _, h := range shown {
		c := commits[h]
		if c == nil {
			if c, err = object.GetCommit(s, h); err != nil {
				return nil, fmt.Errorf("log: read commit %s: %w", h, err)
			}
		}
		out = append(out, LogEntry{
			Hash:        h.String(),
			ShortHash:   shortHash(h, abbrev),
			AuthorName:  c.Author.Name,
			AuthorEmail: c.Author.Email,
			Date:        c.Author.When.Format("2006-01-02T15:04:05-07:00"),
			Subject:     commitSubject(c.Message),
			Refs:        decorations[h],
		})
	}
	return out, nil
}

// matchesCommit reports whether c passes the lower-cased message and
// author filters ("" matches everything). git matches --author against the
// author header's "Name <email>", without the timestamp.
func matchesCommit(c *object.Commit, grep, author string) bool {
	if grep != "" && !strings.Contains(strings.ToLower(c.Message), grep) {
		return false
	}
	if author != "" && !strings.Contains(strings.ToLower(c.Author.Name+" <"+c.Author.Email+">"), author) {
		return false
	}
	return true
}

// simplify applies git's default path-limited simplification to one
// commit: it reports whether the commit is shown and which parents the walk
// continues with.
func simplify(s storer.EncodedObjectStorer, cache map[plumbing.Hash]pathEntry, n *walkNode, parents []*walkNode, path string) (bool, []*walkNode, error) {
	mine, err := pathState(s, cache, n.Tree, path)
	if err != nil {
		return false, nil, err
	}
	if len(n.Parents) == 0 {
		return mine.exists, parents, nil
	}
	for _, p := range parents {
		if p == nil {
			continue
		}
		theirs, err := pathState(s, cache, p.Tree, path)
		if err != nil {
			return false, nil, err
		}
		if theirs == mine {
			// TREESAME to this parent: hide the commit and follow only it.
			return false, []*walkNode{p}, nil
		}
	}
	return true, parents, nil
}

// pathEntry is a path's mode and hash in one tree (exists false: absent).
type pathEntry struct {
	exists bool
	mode   uint32
	hash   plumbing.Hash
}

// pathState looks a path up in a tree, memoized by tree hash.
func pathState(s storer.EncodedObjectStorer, cache map[plumbing.Hash]pathEntry, tree plumbing.Hash, path string) (pathEntry, error) {
	if e, ok := cache[tree]; ok {
		return e, nil
	}
	e, ok, err := lookupPath(s, tree, path)
	if err != nil {
		return pathEntry{}, err
	}
	pe := pathEntry{}
	if ok {
		pe = pathEntry{exists: true, mode: uint32(e.Mode), hash: e.Hash}
	}
	cache[tree] = pe
	return pe, nil
}

// decorationRefs are the refs git 2.39's default decoration filter shows.
func decorated(name string) bool {
	return strings.HasPrefix(name, "refs/heads/") || strings.HasPrefix(name, "refs/remotes/") ||
		strings.HasPrefix(name, "refs/tags/") || name == "refs/stash"
}

// decorations builds git's %D string for every decorated commit. git adds
// decorations in ref-name order and then HEAD, each in front of the
// previous ones, so a commit lists HEAD first and then its refs in reverse
// name order; "HEAD -> branch" replaces both entries when HEAD points at a
// branch on the same commit.
func decorations(r *repo.Repo, head headState) (map[plumbing.Hash]string, error) {
	refs, err := listRefs(r, "refs/")
	if err != nil {
		return nil, err
	}
	peeled, err := readPackedPeeled(r)
	if err != nil {
		return nil, err
	}
	type deco struct{ label, name string }
	byCommit := map[plumbing.Hash][]deco{}
	for _, ref := range refs {
		if !decorated(ref.Name) {
			continue
		}
		target := ref.Hash
		label := shortRefName(ref.Name)
		if strings.HasPrefix(ref.Name, "refs/tags/") {
			label = "tag: " + label
			if p, ok := peeled[ref.Name]; ok && p.tag == ref.Hash {
				target = p.peeled
			} else {
				target = peelTag(r, target)
			}
		}
		byCommit[target] = append(byCommit[target], deco{label: label, name: ref.Name})
	}
	out := map[plumbing.Hash]string{}
	for h, ds := range byCommit {
		// Reverse name order: the last added comes first.
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].name > ds[j].name })
		labels := make([]string, 0, len(ds)+1)
		if h == head.Hash {
			headLabel := "HEAD"
			for i, d := range ds {
				if head.Symbolic != "" && d.name == head.Symbolic && strings.HasPrefix(d.name, "refs/heads/") {
					headLabel = "HEAD -> " + d.label
					ds = append(ds[:i:i], ds[i+1:]...)
					break
				}
			}
			labels = append(labels, headLabel)
		}
		for _, d := range ds {
			labels = append(labels, d.label)
		}
		out[h] = strings.Join(labels, ", ")
	}
	if _, ok := out[head.Hash]; !ok && !head.Hash.IsZero() {
		out[head.Hash] = "HEAD"
	}
	return out, nil
}

// peelTag follows annotated tag objects to the object they tag.
func peelTag(r *repo.Repo, h plumbing.Hash) plumbing.Hash {
	for range 10 {
		obj, err := r.Git.Storer.EncodedObject(plumbing.AnyObject, h)
		if err != nil || obj.Type() != plumbing.TagObject {
			return h
		}
		t, err := object.DecodeTag(r.Git.Storer, obj)
		if err != nil {
			return h
		}
		h = t.Target
	}
	return h
}

// packedPeel is a packed tag and the object it peels to.
type packedPeel struct{ tag, peeled plumbing.Hash }

// readPackedPeeled reads the "^<hash>" peeled values of packed tags.
func readPackedPeeled(r *repo.Repo) (map[string]packedPeel, error) {
	b, err := repo.ReadRegular(filepath.Join(r.CommonDir, "packed-refs"), repo.MaxListFileBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read packed-refs: %w", err)
	}
	out := map[string]packedPeel{}
	last, lastHash := "", ""
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "^"):
			if last != "" && plumbing.IsHash(line[1:]) && plumbing.IsHash(lastHash) {
				out[last] = packedPeel{tag: plumbing.NewHash(lastHash), peeled: plumbing.NewHash(line[1:])}
			}
		case line == "" || line[0] == '#':
		default:
			lastHash, last, _ = strings.Cut(line, " ")
		}
	}
	return out, nil
}
