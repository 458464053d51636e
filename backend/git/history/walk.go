package history

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	commitgraph "github.com/go-git/go-git/v5/plumbing/format/commitgraph/v2"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/storage/filesystem"

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
}

// commitSource reads walk nodes, using the commit-graph when present.
type commitSource struct {
	s       storer.EncodedObjectStorer
	graph   commitgraph.Index
	shallow map[plumbing.Hash]bool
	cache   map[plumbing.Hash]*walkNode
}

// walkStorer returns an object store for long walks. go-git's default
// filesystem storage reopens (and re-resolves the path of) the packfile for
// every object it reads; this one keeps the pack descriptors open for the
// duration of one call. The returned function releases them.
func walkStorer(r *repo.Repo) (storer.EncodedObjectStorer, func()) {
	st, ok := r.Git.Storer.(*filesystem.Storage)
	if !ok {
		return r.Git.Storer, func() {}
	}
	fast := filesystem.NewStorageWithOptions(st.Filesystem(), cache.NewObjectLRUDefault(),
		filesystem.Options{KeepDescriptors: true})
	return fast, func() { fast.Close() }
}

// newCommitSource opens the repository's commit-graph (a single file or a
// chain) if it has one; a missing or unreadable graph just means the
// commit objects are read instead. Call close when done.
func newCommitSource(r *repo.Repo, s storer.EncodedObjectStorer) *commitSource {
	cs := &commitSource{s: s, cache: map[plumbing.Hash]*walkNode{}}
	cs.graph = openCommitGraph(r.CommonDir)
	if b, err := repo.ReadRegular(filepath.Join(r.CommonDir, "shallow"), repo.MaxListFileBytes); err == nil {
		cs.shallow = map[plumbing.Hash]bool{}
		for _, line := range strings.Fields(string(b)) {
			if plumbing.IsHash(line) {
				cs.shallow[plumbing.NewHash(line)] = true
			}
		}
	}
	return cs
}

// memFile serves a commit-graph file from memory: go-git reads it with
// many small ReadAt calls, which as system calls cost more than decoding
// the commits would.
type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }

// openGraphFile reads one commit-graph file into memory.
func openGraphFile(p string) (commitgraph.ReaderAtCloser, error) {
	b, err := repo.ReadRegular(p, repo.MaxDataFileBytes)
	if err != nil {
		return nil, err
	}
	return memFile{bytes.NewReader(b)}, nil
}

func openCommitGraph(commonDir string) commitgraph.Index {
	info := filepath.Join(commonDir, "objects", "info")
	if f, err := openGraphFile(filepath.Join(info, "commit-graph")); err == nil {
		idx, err := commitgraph.OpenFileIndex(f)
		if err != nil {
			return nil
		}
		return idx
	}
	chain, err := repo.OpenRegular(filepath.Join(info, "commit-graphs", "commit-graph-chain"), repo.MaxListFileBytes)
	if err != nil {
		return nil
	}
	defer chain.Close()
	var idx commitgraph.Index
	sc := bufio.NewScanner(chain)
	for sc.Scan() {
		h := strings.TrimSpace(sc.Text())
		if !plumbing.IsHash(h) {
			continue
		}
		f, err := openGraphFile(filepath.Join(info, "commit-graphs", "graph-"+h+".graph"))
		if err != nil {
			if idx != nil {
				idx.Close()
			}
			return nil
		}
		next, err := commitgraph.OpenFileIndexWithParent(f, idx)
		if err != nil {
			if idx != nil {
				idx.Close()
			}
			return nil
		}
		idx = next
	}
	return idx
}

func (cs *commitSource) close() {
	if cs.graph != nil {
		cs.graph.Close()
	}
}

// get returns the walk node of a commit.
func (cs *commitSource) get(h plumbing.Hash) (*walkNode, error) {
	if n, ok := cs.cache[h]; ok {
		return n, nil
	}
	var n *walkNode
	if cs.graph != nil {
		if i, err := cs.graph.GetIndexByHash(h); err == nil {
			if d, err := cs.graph.GetCommitDataByIndex(i); err == nil {
				n = &walkNode{Hash: h, Tree: d.TreeHash, Parents: d.ParentHashes, When: d.When.Unix()}
			}
		}
	}
	if n == nil {
		data, err := rawObject(cs.s, plumbing.CommitObject, h)
		if err != nil {
			return nil, err
		}
		n = parseCommitHeader(h, data)
	}
	if cs.shallow[h] {
		n.Parents = nil
	}
	cs.cache[h] = n
	return n, nil
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
