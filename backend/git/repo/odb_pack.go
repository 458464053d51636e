package repo

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
)

// A pack and its index, read the way git reads them but without mapping
// them into memory: the index is read one fan-out bucket at a time, on
// first use, into private memory (a file truncated under us then gives a
// short read, never a SIGBUS), and objects are read from the pack with
// pread, so any number of goroutines can read at once. Nothing is parsed
// into maps: an index bucket is binary-searched as it is on disk, and a
// delta's base is found by its offset, with no reverse index.

// ErrCorruptPack says that a pack or its index does not have git's format.
var ErrCorruptPack = errors.New("corrupt pack")

func corrupt(path, format string, args ...any) error {
	return fmt.Errorf("%s: %w: %s", path, ErrCorruptPack, fmt.Sprintf(format, args...))
}

// packIndex is an opened .idx file (version 1 or 2).
type packIndex struct {
	path    string
	f       *RegularFile
	version int
	n       uint32
	fanout  [256]uint32
	// Where the tables start (version 2): names, offsets, 64-bit offsets.
	namesAt, offsAt, offs64At int64
	n64                       int64 // entries of the 64-bit offset table
	buckets                   [256]atomic.Pointer[idxBucket]
}

// idxBucket holds the names and offsets of the objects whose name starts
// with one byte.
type idxBucket struct {
	names []byte // 20 bytes each
	offs  []byte // 4 bytes each (version 2); nil for version 1
	recs  []byte // version 1: 24-byte records of offset and name
}

const (
	idxV2Magic   = "\xfftOc"
	idxHeaderLen = 8
	fanoutLen    = 256 * 4
	hashLen      = 20
)

// openPackIndex opens an index file and checks its layout.
func openPackIndex(path string) (*packIndex, error) {
	f, err := OpenRegular(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	ix := &packIndex{path: path, f: f}
	if err := ix.readHeader(); err != nil {
		f.Close()
		return nil, err
	}
	return ix, nil
}

func (ix *packIndex) readHeader() error {
	size := ix.f.Stat().Size()
	head := make([]byte, idxHeaderLen+fanoutLen)
	if size < int64(fanoutLen) {
		return corrupt(ix.path, "index too small")
	}
	n, err := ix.f.ReadAt(head[:min(int64(len(head)), size)], 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	head = head[:n]
	fan := head
	if len(head) >= idxHeaderLen && string(head[:4]) == idxV2Magic {
		if v := binary.BigEndian.Uint32(head[4:8]); v != 2 {
			return corrupt(ix.path, "index version %d", v)
		}
		ix.version = 2
		fan = head[idxHeaderLen:]
	} else {
		ix.version = 1
	}
	if len(fan) < fanoutLen {
		return corrupt(ix.path, "index too small")
	}
	var prev uint32
	for i := range 256 {
		v := binary.BigEndian.Uint32(fan[i*4:])
		if v < prev {
			return corrupt(ix.path, "fan-out table not sorted")
		}
		ix.fanout[i], prev = v, v
	}
	ix.n = prev
	n64 := int64(ix.n)
	switch ix.version {
	case 2:
		ix.namesAt = idxHeaderLen + fanoutLen
		ix.offsAt = ix.namesAt + n64*(hashLen+4) // names, then CRCs
		ix.offs64At = ix.offsAt + n64*4
		rest := size - ix.offs64At - 2*hashLen
		if rest < 0 || rest%8 != 0 {
			return corrupt(ix.path, "index size %d does not fit %d objects", size, ix.n)
		}
		ix.n64 = rest / 8
	case 1:
		if size != fanoutLen+n64*(4+hashLen)+2*hashLen {
			return corrupt(ix.path, "index size %d does not fit %d objects", size, ix.n)
		}
	}
	return nil
}

// bucket returns the names (and offsets) of bucket b, reading them on
// first use.
func (ix *packIndex) bucket(b byte) (*idxBucket, error) {
	if bk := ix.buckets[b].Load(); bk != nil {
		return bk, nil
	}
	lo, hi := ix.bounds(b)
	bk := &idxBucket{}
	n := int64(hi - lo)
	if n > 0 {
		switch ix.version {
		case 2:
			bk.names = make([]byte, n*hashLen)
			if err := readFullAt(ix.f, bk.names, ix.namesAt+int64(lo)*hashLen); err != nil {
				return nil, fmt.Errorf("%s: %w", ix.path, err)
			}
			bk.offs = make([]byte, n*4)
			if err := readFullAt(ix.f, bk.offs, ix.offsAt+int64(lo)*4); err != nil {
				return nil, fmt.Errorf("%s: %w", ix.path, err)
			}
		case 1:
			bk.recs = make([]byte, n*(4+hashLen))
			if err := readFullAt(ix.f, bk.recs, fanoutLen+int64(lo)*(4+hashLen)); err != nil {
				return nil, fmt.Errorf("%s: %w", ix.path, err)
			}
		}
	}
	// Two readers may both load a bucket; either copy is right.
	ix.buckets[b].CompareAndSwap(nil, bk)
	return ix.buckets[b].Load(), nil
}

func (ix *packIndex) bounds(b byte) (uint32, uint32) {
	var lo uint32
	if b > 0 {
		lo = ix.fanout[b-1]
	}
	return lo, ix.fanout[b]
}

// find returns the pack offset of object h.
func (ix *packIndex) find(h plumbing.Hash) (int64, bool, error) {
	bk, err := ix.bucket(h[0])
	if err != nil {
		return 0, false, err
	}
	name := func(i int) []byte {
		if ix.version == 1 {
			return bk.recs[i*(4+hashLen)+4 : (i+1)*(4+hashLen)]
		}
		return bk.names[i*hashLen : (i+1)*hashLen]
	}
	count := len(bk.names) / hashLen
	if ix.version == 1 {
		count = len(bk.recs) / (4 + hashLen)
	}
	lo, hi := 0, count
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(name(mid), h[:]); {
		case c == 0:
			return ix.offset(bk, mid)
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, nil
}

func (ix *packIndex) offset(bk *idxBucket, i int) (int64, bool, error) {
	if ix.version == 1 {
		return int64(binary.BigEndian.Uint32(bk.recs[i*(4+hashLen):])), true, nil
	}
	o := binary.BigEndian.Uint32(bk.offs[i*4:])
	if o&0x80000000 == 0 {
		return int64(o), true, nil
	}
	k := int64(o & 0x7fffffff)
	if k >= ix.n64 {
		return 0, false, corrupt(ix.path, "64-bit offset %d out of range", k)
	}
	var b [8]byte
	if err := readFullAt(ix.f, b[:], ix.offs64At+8*k); err != nil {
		return 0, false, fmt.Errorf("%s: %w", ix.path, err)
	}
	off := binary.BigEndian.Uint64(b[:])
	if off > math.MaxInt64 {
		return 0, false, corrupt(ix.path, "offset out of range")
	}
	return int64(off), true, nil
}

func readFullAt(r io.ReaderAt, p []byte, off int64) error {
	n, err := r.ReadAt(p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// packFile is one pack of an object store: its index and its data,
// opened on first use and kept open.
type packFile struct {
	db   *objectDB
	base string // full path without ".idx"/".pack"

	once   sync.Once
	err    error
	failed atomic.Bool // open failed (a rescan tries a new packFile)
	idx    *packIndex
	data   *RegularFile
	end    int64 // where object data ends (the trailing checksum starts)
}

func (p *packFile) open() error {
	p.once.Do(func() {
		defer func() { p.failed.Store(p.err != nil) }()
		ix, err := openPackIndex(p.base + ".idx")
		if err != nil {
			p.err = err
			return
		}
		f, err := OpenRegular(p.base+".pack", math.MaxInt64)
		if err != nil {
			ix.f.Close()
			p.err = err
			return
		}
		var head [12]byte
		if err := readFullAt(f, head[:], 0); err != nil || string(head[:4]) != "PACK" {
			f.Close()
			ix.f.Close()
			p.err = corrupt(p.base+".pack", "no pack header")
			return
		}
		if v := binary.BigEndian.Uint32(head[4:8]); v != 2 && v != 3 {
			f.Close()
			ix.f.Close()
			p.err = corrupt(p.base+".pack", "pack version %d", v)
			return
		}
		if n := binary.BigEndian.Uint32(head[8:12]); n != ix.n {
			f.Close()
			ix.f.Close()
			p.err = corrupt(p.base+".pack", "%d objects, its index has %d", n, ix.n)
			return
		}
		p.idx, p.data, p.end = ix, f, f.Stat().Size()-hashLen
	})
	return p.err
}

// Pack object types.
const (
	packCommit   = 1
	packTree     = 2
	packBlob     = 3
	packTag      = 4
	packOfsDelta = 6
	packRefDelta = 7
)

// maxDeltaChain bounds delta chains (git's default depth is 50; a longer
// chain, or a cycle of REF deltas, is a corrupt pack).
const maxDeltaChain = 10000

// objHeader is the header of an object in a pack.
type objHeader struct {
	typ     int
	size    int64
	dataAt  int64 // where its zlib stream starts
	baseOff int64 // OFS_DELTA: the base's offset
	baseRef plumbing.Hash
}

func (p *packFile) header(off int64) (objHeader, error) {
	var buf [32]byte
	if off < 12 || off >= p.end {
		return objHeader{}, corrupt(p.base+".pack", "offset %d out of range", off)
	}
	n, err := p.data.ReadAt(buf[:min(int64(len(buf)), p.end-off)], off)
	if n == 0 && err != nil {
		return objHeader{}, err
	}
	b := buf[:n]
	h := objHeader{typ: int(b[0]>>4) & 7, size: int64(b[0] & 15)}
	i, shift := 1, uint(4)
	for c := b[0]; c&0x80 != 0; {
		if i >= len(b) || shift > 56 {
			return objHeader{}, corrupt(p.base+".pack", "bad object header at %d", off)
		}
		c = b[i]
		i++
		h.size |= int64(c&0x7f) << shift
		shift += 7
	}
	switch h.typ {
	case packCommit, packTree, packBlob, packTag:
	case packOfsDelta:
		if i >= len(b) {
			return objHeader{}, corrupt(p.base+".pack", "bad delta header at %d", off)
		}
		c := b[i]
		i++
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if i >= len(b) || rel > math.MaxInt64>>8 {
				return objHeader{}, corrupt(p.base+".pack", "bad delta offset at %d", off)
			}
			c = b[i]
			i++
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel >= off {
			return objHeader{}, corrupt(p.base+".pack", "delta base out of range at %d", off)
		}
		h.baseOff = off - rel
	case packRefDelta:
		if i+hashLen > len(b) {
			return objHeader{}, corrupt(p.base+".pack", "bad delta header at %d", off)
		}
		copy(h.baseRef[:], b[i:i+hashLen])
		i += hashLen
	default:
		return objHeader{}, corrupt(p.base+".pack", "object type %d at %d", h.typ, off)
	}
	h.dataAt = off + int64(i)
	return h, nil
}

// inflate reads the zlib stream of an object, which inflates to size
// bytes.
func (p *packFile) inflate(h objHeader) ([]byte, error) {
	z := getInflater(p.data, h.dataAt, p.end, h.size)
	defer putInflater(z)
	out, err := z.readSize(h.size)
	if err != nil {
		return nil, fmt.Errorf("%s: object at %d: %w", p.base+".pack", h.dataAt, err)
	}
	return out, nil
}

// object returns the type and content of the object at off, resolving
// deltas. The content is shared (cached): callers must not modify it.
func (p *packFile) object(off int64, depth int) (plumbing.ObjectType, []byte, error) {
	if t, data, ok := objCache.get(p, off); ok {
		return t, data, nil
	}
	// Walk down the chain of deltas to a cached or whole object.
	var chain []objHeader
	var chainOff []int64
	var typ plumbing.ObjectType
	var data []byte
	cur := off
	for {
		if depth+len(chain) > maxDeltaChain {
			return 0, nil, corrupt(p.base+".pack", "delta chain too long at %d", off)
		}
		if len(chain) > 0 {
			if t, d, ok := objCache.get(p, cur); ok {
				typ, data = t, d
				break
			}
		}
		h, err := p.header(cur)
		if err != nil {
			return 0, nil, err
		}
		if h.typ == packOfsDelta {
			chain, chainOff = append(chain, h), append(chainOff, cur)
			cur = h.baseOff
			continue
		}
		if h.typ == packRefDelta {
			chain, chainOff = append(chain, h), append(chainOff, cur)
			t, d, err := p.db.read(h.baseRef, depth+len(chain))
			if err != nil {
				return 0, nil, fmt.Errorf("%s: delta base %s: %w", p.base+".pack", h.baseRef, err)
			}
			typ, data = t, d
			break
		}
		d, err := p.inflate(h)
		if err != nil {
			return 0, nil, err
		}
		typ, data = plumbing.ObjectType(h.typ), d
		if len(chain) > 0 {
			objCache.put(p, cur, typ, data)
		}
		break
	}
	for i := len(chain) - 1; i >= 0; i-- {
		delta, err := p.inflate(chain[i])
		if err != nil {
			return 0, nil, err
		}
		data, err = applyDelta(data, delta)
		if err != nil {
			return 0, nil, fmt.Errorf("%s: object at %d: %w", p.base+".pack", chainOff[i], err)
		}
		objCache.put(p, chainOff[i], typ, data)
	}
	if len(chain) == 0 {
		objCache.put(p, off, typ, data)
	}
	return typ, data, nil
}

// errBadDelta says that a delta does not apply to its base.
var errBadDelta = errors.New("bad delta")

// applyDelta applies a git delta to base.
func applyDelta(base, delta []byte) ([]byte, error) {
	srcSize, delta, ok := deltaVarint(delta)
	if !ok || srcSize != uint64(len(base)) {
		return nil, errBadDelta
	}
	dstSize, delta, ok := deltaVarint(delta)
	if !ok {
		return nil, errBadDelta
	}
	// Preallocate what the delta says, within reason (a delta cannot
	// produce more than 16 MiB per command byte, so a lying header only
	// grows the slice as the data comes).
	out := make([]byte, 0, min(dstSize, 64<<20))
	for len(delta) > 0 {
		cmd := delta[0]
		delta = delta[1:]
		switch {
		case cmd&0x80 != 0:
			var off, size uint64
			for i := range 4 {
				if cmd&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadDelta
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if cmd&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, errBadDelta
					}
					size |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > dstSize {
				return nil, errBadDelta
			}
			out = append(out, base[off:off+size]...)
		case cmd != 0:
			n := int(cmd)
			if n > len(delta) || uint64(len(out)+n) > dstSize {
				return nil, errBadDelta
			}
			out = append(out, delta[:n]...)
			delta = delta[n:]
		default:
			return nil, errBadDelta // reserved
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, errBadDelta
	}
	return out, nil
}

func deltaVarint(b []byte) (uint64, []byte, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, b[i+1:], true
		}
	}
	return 0, nil, false
}

// inflater reads one zlib stream from a file at an offset, in chunks
// sized for the object (a small tree or commit costs one small pread).
type inflater struct {
	r        io.ReaderAt
	pos, end int64
	buf      []byte
	i, n     int
	want     int64
	zr       io.ReadCloser
	err      error
}

var inflaters = sync.Pool{New: func() any { return &inflater{buf: make([]byte, 64<<10)} }}

func getInflater(r io.ReaderAt, at, end, size int64) *inflater {
	z := inflaters.Get().(*inflater)
	z.r, z.pos, z.end, z.i, z.n, z.err = r, at, end, 0, 0, nil
	// A zlib stream is at most a little larger than its data.
	z.want = size + size/64 + 64
	return z
}

func putInflater(z *inflater) {
	z.r = nil
	inflaters.Put(z)
}

// ReadByte and Read make the inflater a flate.Reader, so that flate reads
// no further than the stream.
func (z *inflater) ReadByte() (byte, error) {
	if z.i == z.n {
		if err := z.fill(); err != nil {
			return 0, err
		}
	}
	c := z.buf[z.i]
	z.i++
	return c, nil
}

func (z *inflater) Read(p []byte) (int, error) {
	if z.i == z.n {
		if err := z.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, z.buf[z.i:z.n])
	z.i += n
	return n, nil
}

func (z *inflater) fill() error {
	if z.err != nil {
		return z.err
	}
	chunk := int64(len(z.buf))
	if z.want > 0 && z.want < chunk {
		chunk = max(z.want, 512)
	}
	z.want = 0 // later chunks are whole buffers
	chunk = min(chunk, z.end-z.pos)
	if chunk <= 0 {
		z.err = io.ErrUnexpectedEOF
		return z.err
	}
	n, err := z.r.ReadAt(z.buf[:chunk], z.pos)
	if n == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		z.err = err
		return err
	}
	z.pos += int64(n)
	z.i, z.n = 0, n
	return nil
}

// readSize inflates the stream, which must give size bytes.
func (z *inflater) readSize(size int64) ([]byte, error) {
	var err error
	if z.zr == nil {
		z.zr, err = zlib.NewReader(z)
	} else {
		err = z.zr.(zlib.Resetter).Reset(z, nil)
	}
	if err != nil {
		return nil, err
	}
	if size <= 64<<20 {
		out := make([]byte, size)
		if _, err := io.ReadFull(z.zr, out); err != nil {
			return nil, err
		}
		return out, nil
	}
	// A large declared size is believed only as the data comes.
	out, err := io.ReadAll(io.LimitReader(z.zr, size))
	if err != nil {
		return nil, err
	}
	if int64(len(out)) != size {
		return nil, io.ErrUnexpectedEOF
	}
	return out, nil
}
