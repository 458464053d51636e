package history

import (
	"bytes"
	"container/heap"
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"github.com/meith-dev/meith/backend/git/repo"
)

// walkNode is what a history walk needs of a commit: its tree, parents and
// committer time. It comes from the commit-graph file when the repository
// has one (no object decoding), else from the commit object.
type walkNode struct {
	Hash    plumbing.Hash
	Tree    plumbing.Hash
	Parents []plumbing.Hash
	When    int64
	// pos is the commit's position in the commit-graph plus one (0: not
	// in the graph); parentPos are its parents' positions there.
	pos       uint32
	parentPos []uint32
	// seen marks a node a walk has queued.
	seen bool
	// Room for two parents without allocating.
	parentBuf    [2]plumbing.Hash
	parentPosBuf [2]uint32
}

// commitSource reads walk nodes, using the commit-graph when present.
type commitSource struct {
	s       storer.EncodedObjectStorer
	graph   *commitGraph
	shallow map[plumbing.Hash]bool
	cache   map[plumbing.Hash]*walkNode // commits read from objects
	byPos   []*walkNode                 // commits of the graph, by position
	slab    []walkNode                  // nodes are allocated in blocks
}

// newNode returns a zeroed node from the current block.
func (cs *commitSource) newNode() *walkNode {
	if len(cs.slab) == 0 {
		cs.slab = make([]walkNode, 256)
	}
	n := &cs.slab[0]
	cs.slab = cs.slab[1:]
	return n
}

// walkStorer returns the object store for walks: the repository's own,
// which the process shares between calls (repo's object store).
func walkStorer(r *repo.Repo) (storer.EncodedObjectStorer, func()) {
	return r.Git.Storer, func() {}
}

// newCommitSource opens the repository's commit-graph (a single file or a
// chain) if it has one; a missing or unreadable graph just means the
// commit objects are read instead. Call close when done.
func newCommitSource(r *repo.Repo, s storer.EncodedObjectStorer) *commitSource {
	cs := &commitSource{s: s, cache: map[plumbing.Hash]*walkNode{}}
	if b, err := repo.ReadRegular(filepath.Join(r.CommonDir, "shallow"), repo.MaxListFileBytes); err == nil {
		cs.shallow = map[plumbing.Hash]bool{}
		for _, line := range strings.Fields(string(b)) {
			if plumbing.IsHash(line) {
				cs.shallow[plumbing.NewHash(line)] = true
			}
		}
	}
	cs.graph = loadCommitGraph(r.CommonDir)
	return cs
}

func (cs *commitSource) close() {}

// get returns the walk node of a commit.
func (cs *commitSource) get(h plumbing.Hash) (*walkNode, error) {
	if n, ok := cs.cache[h]; ok {
		return n, nil
	}
	if cs.graph != nil {
		if pos, ok, err := cs.graph.lookup(h); err == nil && ok {
			if n, err := cs.fromGraph(pos, h); err == nil {
				return n, nil
			}
		}
	}
	data, err := rawObject(cs.s, plumbing.CommitObject, h)
	if err != nil {
		return nil, err
	}
	n := parseCommitHeader(h, data)
	if cs.shallow[h] {
		n.Parents = nil
	}
	cs.cache[h] = n
	return n, nil
}

// fromGraph makes the node of the commit at pos (whose hash is h, or
// zero when not known yet).
func (cs *commitSource) fromGraph(pos uint32, h plumbing.Hash) (*walkNode, error) {
	if cs.byPos == nil {
		cs.byPos = make([]*walkNode, cs.graph.total)
	}
	if pos >= uint32(len(cs.byPos)) {
		return nil, errBadGraph
	}
	if n := cs.byPos[pos]; n != nil {
		return n, nil
	}
	c, err := cs.graph.commit(pos)
	if err != nil {
		return nil, err
	}
	if h.IsZero() {
		if h, err = cs.graph.hash(pos); err != nil {
			return nil, err
		}
	}
	n := cs.newNode()
	n.Hash, n.Tree, n.When, n.pos = h, c.tree, c.when, pos+1
	if !cs.shallow[h] && c.nparents > 0 {
		if c.nparents <= 2 {
			n.parentPos = n.parentPosBuf[:c.nparents]
			copy(n.parentPos, c.parents[:])
			n.Parents = n.parentBuf[:c.nparents]
		} else {
			n.parentPos = c.extra
			n.Parents = make([]plumbing.Hash, len(c.extra))
		}
		for i, p := range n.parentPos {
			if n.Parents[i], err = cs.graph.hash(p); err != nil {
				return nil, err
			}
		}
	}
	cs.byPos[pos] = n
	return n, nil
}

// maybeChanged reports whether path may differ between n and its first
// parent, from n's changed-path Bloom filter (true when there is none).
func (cs *commitSource) maybeChanged(n *walkNode, keys []bloomKey, ascii bool) bool {
	if n.pos == 0 || cs.graph == nil || len(keys) == 0 {
		return true
	}
	return cs.graph.maybeChanged(n.pos-1, keys, ascii)
}

// parseCommitHeader reads the tree, parents and committer time of an
// encoded commit without decoding the rest.
func parseCommitHeader(h plumbing.Hash, data []byte) *walkNode {
	n := &walkNode{Hash: h}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			break // end of the header
		}
		key, val, _ := bytes.Cut(line, []byte{' '})
		switch string(key) {
		case "tree":
			if plumbing.IsHash(string(val)) {
				n.Tree = plumbing.NewHash(string(val))
			}
		case "parent":
			if plumbing.IsHash(string(val)) {
				n.Parents = append(n.Parents, plumbing.NewHash(string(val)))
			}
		case "committer":
			if i := bytes.LastIndexByte(val, '>'); i >= 0 {
				fields := strings.Fields(string(val[i+1:]))
				if len(fields) > 0 {
					n.When, _ = strconv.ParseInt(fields[0], 10, 64)
				}
			}
		}
	}
	return n
}

// parents returns the parent nodes that exist (a parent missing from a
// shallow or damaged repository is treated as absent, like git's boundary).
func (cs *commitSource) parents(n *walkNode) ([]*walkNode, error) {
	out := make([]*walkNode, 0, len(n.Parents))
	if len(n.parentPos) == len(n.Parents) && len(n.Parents) > 0 {
		for i, p := range n.parentPos {
			pn, err := cs.fromGraph(p, n.Parents[i])
			if err != nil {
				break // read the objects instead
			}
			out = append(out, pn)
		}
		if len(out) == len(n.Parents) {
			return out, nil
		}
		out = out[:0]
	}
	for _, p := range n.Parents {
		pn, err := cs.get(p)
		if err != nil {
			if errors.Is(err, plumbing.ErrObjectNotFound) {
				out = append(out, nil)
				continue
			}
			return nil, err
		}
		out = append(out, pn)
	}
	return out, nil
}

// dateQueue is git's revision-walk queue: newest committer date first,
// and first-in first-out among equal dates. The log walk and blame use it.
type dateQueue[T any] struct {
	items []dateItem[T]
	seq   int
}

type dateItem[T any] struct {
	v    T
	when int64
	seq  int
}

func (q *dateQueue[T]) Len() int { return len(q.items) }
func (q *dateQueue[T]) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.when != b.when {
		return a.when > b.when
	}
	return a.seq < b.seq
}
func (q *dateQueue[T]) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *dateQueue[T]) Push(x any)    { q.items = append(q.items, x.(dateItem[T])) }
func (q *dateQueue[T]) Pop() any {
	it := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return it
}

// put queues v, dated when.
func (q *dateQueue[T]) put(v T, when int64) {
	heap.Push(q, dateItem[T]{v: v, when: when, seq: q.seq})
	q.seq++
}

// get takes the newest entry (the zero T when the queue is empty).
func (q *dateQueue[T]) get() T {
	if len(q.items) == 0 {
		var zero T
		return zero
	}
	return heap.Pop(q).(dateItem[T]).v
}
