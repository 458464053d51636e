package history

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// A reader of git's commit-graph (a single file or a chain of layers),
// with its changed-path Bloom filters. The file is read in pages on first
// use, never mapped (a file truncated under us gives an error, not a
// SIGBUS), and an opened graph is shared by every call of the process
// until the file is replaced (git writes a new graph by rename). A commit
// is reached by its position, as git walks: parents are positions, so a
// walk over the graph looks no hash up.

// errBadGraph says that the commit-graph is not in git's format; the walk
// then reads commit objects instead.
var errBadGraph = errors.New("malformed commit-graph")

const (
	graphPage    = 8 << 10
	graphNoPar   = 0x70000000
	graphExtra   = 0x80000000
	graphLastBit = 0x80000000
	cdatLen      = 36
)

// graphLayer is one commit-graph file.
type graphLayer struct {
	pf     *repo.PagedFile
	base   uint32 // commits in the layers below
	n      uint32
	fanout [256]uint32
	// Chunk offsets and lengths (0: absent).
	oidl, cdat, edge, bidx, bdat int64
	edgeLen, bdatLen             int64
	bloomHashes                  uint32
	bloomVersion                 uint32
}

// commitGraph is an opened commit-graph.
type commitGraph struct {
	layers []*graphLayer // base first
	total  uint32
	bloom  bool // every layer has Bloom filters
}

// openGraphLayer reads the header, chunk table and fan-out of one file.
func openGraphLayer(path string, base uint32, depth int) (*graphLayer, error) {
	f, err := repo.OpenRegular(path, repo.MaxDataFileBytes)
	if err != nil {
		return nil, err
	}
	pf := repo.NewPagedFile(f, graphPage)
	l := &graphLayer{pf: pf, base: base}
	head, err := pf.At(0, 8)
	if err != nil {
		return nil, err
	}
	if string(head[:4]) != "CGPH" || head[4] != 1 || head[5] != 1 || int(head[7]) != depth {
		return nil, errBadGraph
	}
	chunks := int(head[6])
	table, err := pf.At(8, (chunks+1)*12)
	if err != nil {
		return nil, err
	}
	type chunk struct {
		id  string
		off int64
	}
	list := make([]chunk, chunks+1)
	for i := range list {
		e := table[i*12:]
		off := binary.BigEndian.Uint64(e[4:12])
		if off > uint64(pf.Size()) {
			return nil, errBadGraph
		}
		list[i] = chunk{string(e[:4]), int64(off)}
	}
	var fanoutAt int64
	for i := 0; i < chunks; i++ {
		c, next := list[i], list[i+1].off
		if next < c.off {
			return nil, errBadGraph
		}
		switch c.id {
		case "OIDF":
			fanoutAt = c.off
		case "OIDL":
			l.oidl = c.off
		case "CDAT":
			l.cdat = c.off
		case "EDGE":
			l.edge, l.edgeLen = c.off, next-c.off
		case "BIDX":
			l.bidx = c.off
		case "BDAT":
			l.bdat, l.bdatLen = c.off, next-c.off
		}
	}
	if fanoutAt == 0 || l.oidl == 0 || l.cdat == 0 {
		return nil, errBadGraph
	}
	fan, err := pf.At(fanoutAt, 1024)
	if err != nil {
		return nil, err
	}
	var prev uint32
	for i := range 256 {
		v := binary.BigEndian.Uint32(fan[i*4:])
		if v < prev {
			return nil, errBadGraph
		}
		l.fanout[i], prev = v, v
	}
	l.n = prev
	// The tables must fit where the chunk table says they are.
	if l.oidl+int64(l.n)*20 > pf.Size() || l.cdat+int64(l.n)*cdatLen > pf.Size() {
		return nil, errBadGraph
	}
	if l.bidx != 0 && l.bdat != 0 && l.bdatLen >= 12 && l.bidx+int64(l.n)*4 <= pf.Size() {
		h, err := pf.At(l.bdat, 12)
		if err != nil {
			return nil, err
		}
		l.bloomVersion = binary.BigEndian.Uint32(h[0:4])
		l.bloomHashes = binary.BigEndian.Uint32(h[4:8])
		if (l.bloomVersion != 1 && l.bloomVersion != 2) || l.bloomHashes == 0 || l.bloomHashes > 32 {
			l.bidx, l.bdat = 0, 0
		}
	} else {
		l.bidx, l.bdat = 0, 0
	}
	return l, nil
}

// graphCache keeps the opened commit-graph of each common directory while
// its files are unchanged.
var graphCache = struct {
	sync.Mutex
	m map[string]*cachedGraph
}{m: map[string]*cachedGraph{}}

type cachedGraph struct {
	sig   []fileSig
	graph *commitGraph // nil: none or unreadable
}

func init() {
	repo.OnForget(func() {
		graphCache.Lock()
		graphCache.m = map[string]*cachedGraph{}
		graphCache.Unlock()
	})
}

// fileSig is what stat says of a file (a rewritten file differs).
type fileSig struct {
	path  string
	ok    bool
	size  int64
	mtime int64
	ino   uint64
}

func sigOf(p string) fileSig {
	fi, err := os.Stat(p)
	if err != nil {
		return fileSig{path: p}
	}
	return fileSig{path: p, ok: true, size: fi.Size(), mtime: fi.ModTime().UnixNano(), ino: inodeOf(fi)}
}

// graphFiles are the files a commit-graph is read from, in the order git
// prefers them: the single file, else the chain.
func graphFiles(commonDir string) []fileSig {
	info := filepath.Join(commonDir, "objects", "info")
	single := sigOf(filepath.Join(info, "commit-graph"))
	if single.ok {
		return []fileSig{single}
	}
	return []fileSig{single, sigOf(filepath.Join(info, "commit-graphs", "commit-graph-chain"))}
}

// loadCommitGraph returns the repository's commit-graph, nil if it has
// none or it is unreadable (the walk then reads commit objects).
func loadCommitGraph(commonDir string) *commitGraph {
	sigs := graphFiles(commonDir)
	graphCache.Lock()
	c := graphCache.m[commonDir]
	graphCache.Unlock()
	if c != nil && sameSigs(c.sig, sigs) {
		return c.graph
	}
	g, err := openCommitGraphFiles(commonDir)
	if err != nil {
		g = nil
	}
	graphCache.Lock()
	graphCache.m[commonDir] = &cachedGraph{sig: sigs, graph: g}
	graphCache.Unlock()
	return g
}

func sameSigs(a, b []fileSig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func openCommitGraphFiles(commonDir string) (*commitGraph, error) {
	info := filepath.Join(commonDir, "objects", "info")
	g := &commitGraph{}
	if l, err := openGraphLayer(filepath.Join(info, "commit-graph"), 0, 0); err == nil {
		g.layers = []*graphLayer{l}
	} else {
		chain, err := repo.OpenRegular(filepath.Join(info, "commit-graphs", "commit-graph-chain"), repo.MaxListFileBytes)
		if err != nil {
			return nil, err
		}
		defer chain.Close()
		sc := bufio.NewScanner(chain)
		var base uint32
		for sc.Scan() {
			h := strings.TrimSpace(sc.Text())
			if !plumbing.IsHash(h) {
				continue
			}
			l, err := openGraphLayer(filepath.Join(info, "commit-graphs", "graph-"+h+".graph"), base, len(g.layers))
			if err != nil {
				return nil, err
			}
			g.layers = append(g.layers, l)
			base += l.n
		}
		if len(g.layers) == 0 {
			return nil, errBadGraph
		}
	}
	g.bloom = true
	for _, l := range g.layers {
		g.total = l.base + l.n
		if l.bidx == 0 {
			g.bloom = false
		}
	}
	return g, nil
}

// layerOf returns the layer holding global position pos.
func (g *commitGraph) layerOf(pos uint32) (*graphLayer, uint32, error) {
	for i := len(g.layers) - 1; i >= 0; i-- {
		l := g.layers[i]
		if pos >= l.base {
			if pos-l.base >= l.n {
				return nil, 0, errBadGraph
			}
			return l, pos - l.base, nil
		}
	}
	return nil, 0, errBadGraph
}

// lookup returns the position of commit h.
func (g *commitGraph) lookup(h plumbing.Hash) (uint32, bool, error) {
	for i := len(g.layers) - 1; i >= 0; i-- {
		l := g.layers[i]
		var lo uint32
		if h[0] > 0 {
			lo = l.fanout[h[0]-1]
		}
		hi := l.fanout[h[0]]
		for lo < hi {
			mid := lo + (hi-lo)/2
			c, err := l.pf.Compare(l.oidl+int64(mid)*20, h[:])
			if err != nil {
				return 0, false, err
			}
			switch {
			case c == 0:
				return l.base + mid, true, nil
			case c < 0:
				lo = mid + 1
			default:
				hi = mid
			}
		}
	}
	return 0, false, nil
}

// hash returns the commit at pos.
func (g *commitGraph) hash(pos uint32) (plumbing.Hash, error) {
	l, i, err := g.layerOf(pos)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	var h plumbing.Hash
	if err := l.pf.ReadAt(h[:], l.oidl+int64(i)*20); err != nil {
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// graphCommit is what the graph says of a commit: its tree, time and
// parents (the first two in parents, all of them in extra when there are
// more).
type graphCommit struct {
	tree     plumbing.Hash
	when     int64
	nparents int
	parents  [2]uint32
	extra    []uint32
}

// commit returns the commit at pos.
func (g *commitGraph) commit(pos uint32) (graphCommit, error) {
	l, i, err := g.layerOf(pos)
	if err != nil {
		return graphCommit{}, err
	}
	var buf [cdatLen]byte
	b := buf[:]
	if err := l.pf.ReadAt(b, l.cdat+int64(i)*cdatLen); err != nil {
		return graphCommit{}, err
	}
	var c graphCommit
	copy(c.tree[:], b[:20])
	p1, p2 := binary.BigEndian.Uint32(b[20:24]), binary.BigEndian.Uint32(b[24:28])
	c.when = int64(binary.BigEndian.Uint32(b[28:32])&3)<<32 | int64(binary.BigEndian.Uint32(b[32:36]))
	if p1 == graphNoPar {
		return c, nil
	}
	if p1 >= g.total {
		return graphCommit{}, errBadGraph
	}
	c.parents[0], c.nparents = p1, 1
	switch {
	case p2 == graphNoPar:
	case p2&graphExtra == 0:
		if p2 >= g.total {
			return graphCommit{}, errBadGraph
		}
		c.parents[1], c.nparents = p2, 2
	default:
		c.extra = []uint32{p1}
		for k := int64(p2 &^ graphExtra); ; k++ {
			if k*4+4 > l.edgeLen {
				return graphCommit{}, errBadGraph
			}
			e, err := l.pf.Uint32(l.edge + k*4)
			if err != nil {
				return graphCommit{}, err
			}
			if e&^graphLastBit >= g.total {
				return graphCommit{}, errBadGraph
			}
			c.extra = append(c.extra, e&^graphLastBit)
			if e&graphLastBit != 0 {
				break
			}
		}
		c.nparents = len(c.extra)
		c.parents[1] = c.extra[1]
	}
	return c, nil
}

// bloomKey is a path's Bloom filter key: git's two seeded murmur3 hashes,
// from which the filter's k bit positions follow.
type bloomKey struct{ h0, h1 uint32 }

// bloomKeys returns the keys git checks for a path: the path and each of
// its leading directories. ascii reports whether the path has only ASCII
// bytes (version 1 filters hash other bytes differently: they are then
// not used).
func bloomKeys(p string) (keys []bloomKey, ascii bool) {
	ascii = true
	for i := 0; i < len(p); i++ {
		if p[i] >= 0x80 {
			ascii = false
		}
	}
	for {
		keys = append(keys, bloomKey{murmur3([]byte(p), 0x293ae76f), murmur3([]byte(p), 0x7e646e2c)})
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return keys, ascii
		}
		p = p[:i]
	}
}

// murmur3 is MurmurHash3's 32-bit hash over bytes read as unsigned.
func murmur3(data []byte, seed uint32) uint32 {
	const c1, c2 = 0xcc9e2d51, 0x1b873593
	h := seed
	n := len(data) / 4
	for i := range n {
		k := binary.LittleEndian.Uint32(data[i*4:])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
		h = h<<13 | h>>19
		h = h*5 + 0xe6546b64
	}
	var k uint32
	tail := data[n*4:]
	switch len(tail) {
	case 3:
		k ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		k ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		k ^= uint32(tail[0])
		k *= c1
		k = k<<15 | k>>17
		k *= c2
		h ^= k
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// maybeChanged asks the Bloom filter of the commit at pos whether the
// path of keys may differ from the commit's first parent: false means it
// certainly does not; true means it may (or there is no usable filter).
func (g *commitGraph) maybeChanged(pos uint32, keys []bloomKey, ascii bool) bool {
	l, i, err := g.layerOf(pos)
	if err != nil || l.bidx == 0 || (!ascii && l.bloomVersion < 2) {
		return true
	}
	end, err := l.pf.Uint32(l.bidx + int64(i)*4)
	if err != nil {
		return true
	}
	var start uint32
	if i > 0 {
		if start, err = l.pf.Uint32(l.bidx + int64(i-1)*4); err != nil {
			return true
		}
	}
	if end < start || int64(end)+12 > l.bdatLen {
		return true
	}
	if end == start {
		return true // no filter: git says "maybe"
	}
	var buf [256]byte
	filter := buf[:0]
	if n := int(end - start); n <= len(buf) {
		filter = buf[:n]
	} else {
		filter = make([]byte, n)
	}
	if err := l.pf.ReadAt(filter, l.bdat+12+int64(start)); err != nil {
		return true
	}
	bits := uint64(len(filter)) * 8
	for _, k := range keys {
		for j := range l.bloomHashes {
			pos := uint64(k.h0+j*k.h1) % bits
			if filter[pos/8]&(1<<(pos%8)) == 0 {
				return false
			}
		}
	}
	return true
}

func (g *commitGraph) String() string {
	return fmt.Sprintf("commit-graph of %d commits in %d layers", g.total, len(g.layers))
}
