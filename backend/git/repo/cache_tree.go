package repo

import (
	"bytes"
	"sort"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
)

// cacheTree is one node of the index's cache-tree (TREE extension): the
// tree object that the index entries under one directory would be written
// as, or an invalid node (count -1) whose directory changed since.
type cacheTree struct {
	// count is the number of index entries the node covers, -1 when the
	// node is invalid.
	count int
	hash  plumbing.Hash
	// subs are the subdirectories in git's order (shorter names first,
	// then bytewise).
	subs []cacheSub
}

type cacheSub struct {
	name string
	tree *cacheTree
}

// parseCacheTree decodes a TREE extension body; a malformed one gives nil
// (the extension is only a cache).
func parseCacheTree(b []byte) *cacheTree {
	var node func() (string, *cacheTree, bool)
	node = func() (string, *cacheTree, bool) {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return "", nil, false
		}
		name := string(b[:nul])
		b = b[nul+1:]
		sp := bytes.IndexByte(b, ' ')
		if sp < 0 {
			return "", nil, false
		}
		count, err := strconv.Atoi(string(b[:sp]))
		if err != nil {
			return "", nil, false
		}
		b = b[sp+1:]
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			return "", nil, false
		}
		subs, err := strconv.Atoi(string(b[:nl]))
		if err != nil || subs < 0 || subs > len(b) {
			return "", nil, false
		}
		b = b[nl+1:]
		t := &cacheTree{count: count}
		if count >= 0 {
			if len(b) < 20 {
				return "", nil, false
			}
			copy(t.hash[:], b[:20])
			b = b[20:]
		} else {
			t.count = -1
		}
		for i := 0; i < subs; i++ {
			n, sub, ok := node()
			if !ok {
				return "", nil, false
			}
			t.subs = append(t.subs, cacheSub{name: n, tree: sub})
		}
		return name, t, true
	}
	_, t, ok := node()
	if !ok || len(b) != 0 {
		return nil
	}
	return t
}

// encode appends the node (named name) and its subtrees in the TREE
// extension format.
func (t *cacheTree) encode(out []byte, name string) []byte {
	out = append(out, name...)
	out = append(out, 0)
	out = strconv.AppendInt(out, int64(t.count), 10)
	out = append(out, ' ')
	out = strconv.AppendInt(out, int64(len(t.subs)), 10)
	out = append(out, '\n')
	if t.count >= 0 {
		out = append(out, t.hash[:]...)
	}
	for _, s := range t.subs {
		out = s.tree.encode(out, s.name)
	}
	return out
}

// invalidate marks the nodes on the way to path invalid, and drops the
// subtree named by path itself, as git's cache_tree_invalidate_path does.
func (t *cacheTree) invalidate(path string) {
	for {
		t.count = -1
		slash := -1
		for i := 0; i < len(path); i++ {
			if path[i] == '/' {
				slash = i
				break
			}
		}
		if slash < 0 {
			for i, s := range t.subs {
				if s.name == path {
					t.subs = append(t.subs[:i], t.subs[i+1:]...)
					break
				}
			}
			return
		}
		var next *cacheTree
		for _, s := range t.subs {
			if s.name == path[:slash] {
				next = s.tree
				break
			}
		}
		if next == nil {
			return
		}
		t, path = next, path[slash+1:]
	}
}

// cacheTreeOf converts a built tree into a fully valid cache-tree.
func cacheTreeOf(n *treeNode) *cacheTree {
	t := &cacheTree{count: n.count, hash: n.hash}
	for _, d := range n.dirs {
		t.subs = append(t.subs, cacheSub{name: d.name, tree: cacheTreeOf(d)})
	}
	sort.Slice(t.subs, func(i, j int) bool {
		a, b := t.subs[i].name, t.subs[j].name
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	return t
}
