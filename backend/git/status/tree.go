package status

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// TreeEntry is one file of a flattened tree.
type TreeEntry struct {
	// Path is the repository-relative slash-separated path.
	Path string
	Hash plumbing.Hash
	Mode filemode.FileMode
}

// rawTreeEntry is one entry of a tree object as stored.
type rawTreeEntry struct {
	name string
	mode uint32
	hash plumbing.Hash
}

// readTree reads a tree object's entries.
func readTree(s storer.EncodedObjectStorer, h plumbing.Hash) ([]rawTreeEntry, error) {
	obj, err := s.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	defer rd.Close()
	b, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	var out []rawTreeEntry
	for len(b) > 0 {
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return nil, fmt.Errorf("read tree %s: malformed entry", h)
		}
		mode, err := strconv.ParseUint(string(b[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("read tree %s: bad mode %q", h, b[:sp])
		}
		b = b[sp+1:]
		nul := bytes.IndexByte(b, 0)
		if nul < 0 || len(b) < nul+21 {
			return nil, fmt.Errorf("read tree %s: malformed entry", h)
		}
		e := rawTreeEntry{name: string(b[:nul]), mode: uint32(mode)}
		copy(e.hash[:], b[nul+1:nul+21])
		b = b[nul+21:]
		out = append(out, e)
	}
	return out, nil
}

// FlattenTree lists every non-tree entry (files, symlinks, gitlinks) under
// the tree h, sorted by path in index order.
func FlattenTree(ctx context.Context, s storer.EncodedObjectStorer, h plumbing.Hash) ([]TreeEntry, error) {
	var out []TreeEntry
	var walk func(prefix string, h plumbing.Hash) error
	walk = func(prefix string, h plumbing.Hash) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := readTree(s, h)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.mode&sIFMT == sIFDIR {
				if err := walk(prefix+e.name+"/", e.hash); err != nil {
					return err
				}
				continue
			}
			out = append(out, TreeEntry{Path: prefix + e.name, Hash: e.hash, Mode: filemode.FileMode(e.mode)})
		}
		return nil
	}
	if err := walk("", h); err != nil {
		return nil, err
	}
	// Tree order sorts a directory "a" as "a/"; index order is plain
	// byte order of the full paths.
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// headChange is a difference between the HEAD tree and the index for one
// path: a file only in HEAD (deleted), only in the index (added), or in
// both with another blob or mode.
type headChange struct {
	path                string
	headHash, indexHash plumbing.Hash
	headMode, indexMode uint32 // 0 on the side that lacks the path
}

// diffHeadIndex lists the differences between the tree head (ZeroHash when
// there is no commit yet) and the index's merged entries. Unmerged and
// intent-to-add entries are left out (status reports them separately).
// Directories whose cache-tree node in the index equals the HEAD subtree
// are skipped without reading them.
func diffHeadIndex(ctx context.Context, s storer.EncodedObjectStorer, head plumbing.Hash, ix *Index) ([]headChange, error) {
	d := &headDiffer{ctx: ctx, s: s, ix: ix}
	if head.IsZero() {
		d.added(0, len(ix.Entries))
	} else if err := d.tree("", head, 0, len(ix.Entries)); err != nil {
		return nil, err
	}
	sort.Slice(d.out, func(i, j int) bool { return d.out[i].path < d.out[j].path })
	return d.out, nil
}

type headDiffer struct {
	ctx context.Context
	s   storer.EncodedObjectStorer
	ix  *Index
	out []headChange
}

// added reports the merged entries of [lo, hi) as added.
func (d *headDiffer) added(lo, hi int) {
	for i := lo; i < hi; i++ {
		e := &d.ix.Entries[i]
		if e.Stage == 0 && !e.IntentToAdd {
			d.out = append(d.out, headChange{path: e.Path, indexHash: e.Hash, indexMode: uint32(e.Mode)})
		}
	}
}

// tree compares the tree h at prefix ("" or "a/b/") with the index entries
// [lo, hi), which are exactly those under prefix.
func (d *headDiffer) tree(prefix string, h plumbing.Hash, lo, hi int) error {
	if err := d.ctx.Err(); err != nil {
		return err
	}
	key := prefix
	if key != "" {
		key = key[:len(key)-1]
	}
	if n, ok := d.ix.cacheTree[key]; ok && n.hash == h && n.count == hi-lo && !d.ix.hasSpecial(lo, hi) {
		return nil
	}
	entries, err := readTree(d.s, h)
	if err != nil {
		return err
	}
	type span struct{ lo, hi int }
	covered := make([]span, 0, len(entries))
	for _, te := range entries {
		p := prefix + te.name
		if te.mode&sIFMT == sIFDIR {
			a, b := d.ix.rangeWithin(p+"/", lo, hi)
			covered = append(covered, span{a, b})
			if err := d.tree(p+"/", te.hash, a, b); err != nil {
				return err
			}
			continue
		}
		es := d.ix.Entries[lo:hi]
		i := lo + sort.Search(len(es), func(i int) bool { return es[i].Path >= p })
		j := i
		for j < hi && d.ix.Entries[j].Path == p {
			j++
		}
		if i == j {
			d.out = append(d.out, headChange{path: p, headHash: te.hash, headMode: te.mode})
			continue
		}
		covered = append(covered, span{i, j})
		e := &d.ix.Entries[i]
		switch {
		case e.Stage != 0:
			// Unmerged: reported as a conflict.
		case e.IntentToAdd:
			d.out = append(d.out, headChange{path: p, headHash: te.hash, headMode: te.mode})
		case e.Hash != te.hash || uint32(e.Mode) != te.mode:
			d.out = append(d.out, headChange{path: p, headHash: te.hash, headMode: te.mode, indexHash: e.Hash, indexMode: uint32(e.Mode)})
		}
	}
	// Index entries not matched by a tree entry are added.
	sort.Slice(covered, func(i, j int) bool { return covered[i].lo < covered[j].lo })
	next := lo
	for _, c := range covered {
		if c.lo > next {
			d.added(next, c.lo)
		}
		if c.hi > next {
			next = c.hi
		}
	}
	d.added(next, hi)
	return nil
}
