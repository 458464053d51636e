package repo

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// EmptyTree is the name of the tree with no entries.
var EmptyTree = plumbing.NewHash("4b825dc642cb6eb9a060e54bf8d69288fbee4904")

// emptyBlob is the name of the empty blob.
var emptyBlob = plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")

// TreeError says that a list of tree entries cannot be written as trees.
type TreeError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *TreeError) Error() string { return fmt.Sprintf("write tree: %s: %s", e.Path, e.Reason) }

// IsTreeError reports whether err is a *TreeError.
func IsTreeError(err error) bool {
	var te *TreeError
	return errors.As(err, &te)
}

// BlobHash returns git's object name of a blob with this content (what
// `git hash-object` prints), without storing anything.
func BlobHash(content []byte) plumbing.Hash { return hashOf(plumbing.BlobObject, content) }

// WriteBlob stores content as a blob unless the store already has it (like
// `git hash-object -w`) and returns its name.
func WriteBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	return writeObject(s, plumbing.BlobObject, content)
}

// writeObject stores an object unless the store already has it.
func writeObject(s storer.EncodedObjectStorer, t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	h := hashOf(t, content)
	if s.HasEncodedObject(h) == nil {
		return h, nil
	}
	if _, err := s.SetEncodedObject(&bytesObject{typ: t, data: content, hash: h}); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("write %s %s: %w", t, h, err)
	}
	return h, nil
}

// WriteObject stores an object of type t with the given encoded content
// (a commit or tag body, for instance) unless the store already has it.
func WriteObject(s storer.EncodedObjectStorer, t plumbing.ObjectType, content []byte) (plumbing.Hash, error) {
	return writeObject(s, t, content)
}

// ReadBlob returns the content of the blob h.
func ReadBlob(s storer.EncodedObjectStorer, h plumbing.Hash) ([]byte, error) {
	obj, err := s.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer rd.Close()
	b := make([]byte, 0, obj.Size())
	buf := bytes.NewBuffer(b)
	if _, err := io.Copy(buf, rd); err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	return buf.Bytes(), nil
}

// bytesObject is a plumbing.EncodedObject over a byte slice, so that a
// stored blob is not copied into a go-git MemoryObject first.
type bytesObject struct {
	typ  plumbing.ObjectType
	data []byte
	hash plumbing.Hash
}

func (o *bytesObject) Hash() plumbing.Hash           { return o.hash }
func (o *bytesObject) Type() plumbing.ObjectType     { return o.typ }
func (o *bytesObject) SetType(t plumbing.ObjectType) { o.typ = t }
func (o *bytesObject) Size() int64                   { return int64(len(o.data)) }
func (o *bytesObject) SetSize(int64)                 {}
func (o *bytesObject) Reader() (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(o.data)), nil
}
func (o *bytesObject) Writer() (io.WriteCloser, error) {
	return nil, errors.New("bytesObject is read-only")
}

// TreeEntryInput is one entry of a flat list that WriteTree turns into
// trees: a file (100644, 100755), symlink (120000) or gitlink (160000) at a
// slash-separated path, or an existing tree (040000) to place at Path.
type TreeEntryInput struct {
	Path string
	Mode filemode.FileMode
	Hash plumbing.Hash
}

// WriteTree writes the nested trees of a flat entry list, like `git
// write-tree` does for an index, and returns the root tree. The entries
// need not be sorted. Trees the store already has are not written again.
// Unmerged (stage ≠ 0) and intent-to-add index entries must be left out by
// the caller, as git write-tree leaves them out. Duplicate paths, a path
// that is both a file and a directory, invalid paths and modes give a
// *TreeError.
func WriteTree(s storer.EncodedObjectStorer, entries []TreeEntryInput) (plumbing.Hash, error) {
	root, err := buildTree(entries, func(body []byte) (plumbing.Hash, error) {
		return writeObject(s, plumbing.TreeObject, body)
	})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return root.hash, nil
}

// TreeHash computes the root tree WriteTree would write, without writing.
func TreeHash(entries []TreeEntryInput) (plumbing.Hash, error) {
	root, err := buildTree(entries, hashTree)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return root.hash, nil
}

func hashTree(body []byte) (plumbing.Hash, error) { return hashOf(plumbing.TreeObject, body), nil }

// treeNode is a built directory: its tree, how many non-tree entries it
// covers (the cache-tree count) and its subdirectories.
type treeNode struct {
	name  string
	hash  plumbing.Hash
	count int
	dirs  []*treeNode
}

// treeItem is one entry of a tree object being built.
type treeItem struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// buildTree builds the trees of entries bottom-up; store writes (or only
// hashes) one tree object body.
func buildTree(entries []TreeEntryInput, store func([]byte) (plumbing.Hash, error)) (*treeNode, error) {
	es := make([]TreeEntryInput, len(entries))
	copy(es, entries)
	for _, e := range es {
		if err := checkTreePath(e.Path); err != nil {
			return nil, err
		}
		switch e.Mode {
		case filemode.Regular, filemode.Executable, filemode.Symlink, filemode.Submodule, filemode.Dir:
		default:
			return nil, &TreeError{Path: e.Path, Reason: fmt.Sprintf("unsupported mode %o", uint32(e.Mode))}
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Path < es[j].Path })
	for i := 1; i < len(es); i++ {
		if es[i].Path == es[i-1].Path {
			return nil, &TreeError{Path: es[i].Path, Reason: "listed twice"}
		}
	}
	b := &treeBuilder{store: store}
	return b.build("", es)
}

type treeBuilder struct {
	store func([]byte) (plumbing.Hash, error)
	body  []byte
}

// build writes the tree of the entries es, which all lie under prefix ("" or
// "a/b/") and are sorted by path.
func (b *treeBuilder) build(prefix string, es []TreeEntryInput) (*treeNode, error) {
	node := &treeNode{name: strings.TrimSuffix(prefix[strings.LastIndexByte(strings.TrimSuffix(prefix, "/"), '/')+1:], "/")}
	items := make([]treeItem, 0, len(es))
	for i := 0; i < len(es); {
		rest := es[i].Path[len(prefix):]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			items = append(items, treeItem{name: rest, mode: es[i].Mode, hash: es[i].Hash})
			if es[i].Mode != filemode.Dir {
				node.count++
			}
			i++
			continue
		}
		name := rest[:slash]
		sub := prefix + name + "/"
		j := i + 1
		for j < len(es) && strings.HasPrefix(es[j].Path, sub) {
			j++
		}
		child, err := b.build(sub, es[i:j])
		if err != nil {
			return nil, err
		}
		node.dirs = append(node.dirs, child)
		node.count += child.count
		items = append(items, treeItem{name: name, mode: filemode.Dir, hash: child.hash})
		i = j
	}
	seen := make(map[string]struct{}, len(items))
	for _, it := range items {
		if _, dup := seen[it.name]; dup {
			return nil, &TreeError{Path: prefix + it.name, Reason: "is both a file and a directory"}
		}
		seen[it.name] = struct{}{}
	}
	sort.Slice(items, func(i, j int) bool { return treeLess(items[i], items[j]) })
	body := b.body[:0]
	for _, it := range items {
		body = append(body, treeModeString(it.mode)...)
		body = append(body, ' ')
		body = append(body, it.name...)
		body = append(body, 0)
		body = append(body, it.hash[:]...)
	}
	b.body = body
	h, err := b.store(body)
	if err != nil {
		return nil, err
	}
	node.hash = h
	return node, nil
}

// treeLess is git's tree entry order: names compare bytewise, a directory
// as if its name ended in "/".
func treeLess(a, b treeItem) bool {
	n := min(len(a.name), len(b.name))
	if c := strings.Compare(a.name[:n], b.name[:n]); c != 0 {
		return c < 0
	}
	ca, cb := nextTreeByte(a, n), nextTreeByte(b, n)
	if ca != cb {
		return ca < cb
	}
	return len(a.name) < len(b.name)
}

func nextTreeByte(it treeItem, n int) int {
	if n < len(it.name) {
		return int(it.name[n])
	}
	if it.mode == filemode.Dir {
		return '/'
	}
	return 0
}

func treeModeString(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "40000"
	case filemode.Regular:
		return "100644"
	case filemode.Executable:
		return "100755"
	case filemode.Symlink:
		return "120000"
	case filemode.Submodule:
		return "160000"
	}
	return fmt.Sprintf("%o", uint32(m))
}

// checkTreePath refuses paths git would not write into a tree.
func checkTreePath(p string) error {
	if p == "" {
		return &TreeError{Path: p, Reason: "empty path"}
	}
	if strings.IndexByte(p, 0) >= 0 {
		return &TreeError{Path: p, Reason: "contains a NUL byte"}
	}
	for rest := p; ; {
		c := rest
		slash := strings.IndexByte(rest, '/')
		if slash >= 0 {
			c, rest = rest[:slash], rest[slash+1:]
		}
		switch {
		case c == "":
			return &TreeError{Path: p, Reason: "has an empty path component"}
		case c == "." || c == "..":
			return &TreeError{Path: p, Reason: "has a '.' or '..' component"}
		case len(c) == 4 && strings.EqualFold(c, ".git"):
			return &TreeError{Path: p, Reason: "has a .git component"}
		}
		if slash < 0 {
			break
		}
	}
	return nil
}
