package repo

import (
	"bytes"
	"compress/zlib"
	"container/list"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// The object store every tool call reads through. go-git's filesystem
// storage parses every pack index into memory (and, to resolve a delta,
// builds a map of every object's offset) each time a repository is
// opened, which on a long history costs far more than the question asked;
// and it is not safe for concurrent use. Here one objectDB per objects
// directory lives for the process (shared by every call, every Repo and
// every goroutine): packs are found once and re-listed when an object is
// not found, pack indexes are read lazily (odb_pack.go), and resolved
// objects are kept in one bounded cache. Objects are named by their
// content, so nothing cached can go stale; a pack deleted by a `git gc`
// stays readable through its open descriptor until the store lets go of
// it. Writes still go through go-git (loose objects), which this store
// sees at once.

// objectDB is the object store of one objects directory.
type objectDB struct {
	dir string

	mu      sync.Mutex // serialises rescans
	packs   atomic.Pointer[[]*packFile]
	alts    atomic.Pointer[[]*objectDB]
	scanned atomic.Pointer[dirSig] // the pack directory at the last scan

	lastUse atomic.Int64 // unix nanoseconds
}

// dirSig is what a directory's stat says (a new or deleted pack changes
// its mtime).
type dirSig struct {
	ok    bool
	mtime int64
	st    statData
}

func statDir(p string) dirSig {
	fi, err := os.Stat(p)
	if err != nil {
		return dirSig{}
	}
	st, _ := sysStat(fi)
	return dirSig{ok: true, mtime: fi.ModTime().UnixNano(), st: st}
}

// The process-wide registry of object stores, by objects directory.
var odbs = struct {
	sync.Mutex
	m map[string]*objectDB
}{m: map[string]*objectDB{}}

// odbIdle is how long an object store nobody reads stays open.
const odbIdle = 10 * time.Minute

// sharedObjectDB returns the process's object store of an objects
// directory, opening it on first use.
func sharedObjectDB(dir string) *objectDB {
	return sharedObjectDBDepth(dir, 0)
}

func sharedObjectDBDepth(dir string, depth int) *objectDB {
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	now := time.Now().UnixNano()
	odbs.Lock()
	db := odbs.m[dir]
	if db == nil {
		db = &objectDB{dir: dir}
		odbs.m[dir] = db
	}
	db.lastUse.Store(now)
	// Let go of stores nobody used for a while (their packs close when
	// the last reader is done with them).
	for k, other := range odbs.m {
		if now-other.lastUse.Load() > int64(odbIdle) {
			delete(odbs.m, k)
		}
	}
	odbs.Unlock()
	if db.packs.Load() == nil {
		db.rescan(depth)
	}
	return db
}

// ForgetAll drops every process-wide cache of the git engine: opened
// object stores, resolved objects, and what other packages registered
// with OnForget. The next call starts as in a fresh process (benchmarks
// and tests use it to measure a first call).
func ForgetAll() {
	odbs.Lock()
	odbs.m = map[string]*objectDB{}
	odbs.Unlock()
	objCache.clear()
	forgetMu.Lock()
	fns := append([]func(){}, forgetFns...)
	forgetMu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

var (
	forgetMu  sync.Mutex
	forgetFns []func()
)

// OnForget registers a process-wide cache's reset with ForgetAll.
func OnForget(fn func()) {
	forgetMu.Lock()
	forgetFns = append(forgetFns, fn)
	forgetMu.Unlock()
}

// maxAlternateDepth is git's limit on chained alternates.
const maxAlternateDepth = 5

// rescan lists the packs (keeping those already open) and re-reads the
// alternates file.
func (db *objectDB) rescan(depth int) {
	db.mu.Lock()
	defer db.mu.Unlock()
	packDir := filepath.Join(db.dir, "pack")
	sig := statDir(packDir)
	old := map[string]*packFile{}
	if prev := db.packs.Load(); prev != nil {
		for _, p := range *prev {
			old[p.base] = p
		}
	}
	var packs []*packFile
	if ents, err := ReadDir(packDir); err == nil {
		names := map[string]bool{}
		for _, e := range ents {
			names[e.Name()] = true
		}
		for _, e := range ents {
			name, ok := strings.CutSuffix(e.Name(), ".idx")
			if !ok || !strings.HasPrefix(name, "pack-") || !names[name+".pack"] {
				continue
			}
			base := filepath.Join(packDir, name)
			p := old[base]
			if p == nil || p.failed.Load() {
				p = &packFile{db: db, base: base}
			}
			packs = append(packs, p)
		}
	}
	db.packs.Store(&packs)
	db.scanned.Store(&sig)

	var alts []*objectDB
	if depth < maxAlternateDepth {
		if b, err := ReadRegular(filepath.Join(db.dir, "info", "alternates"), MaxListFileBytes); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || line[0] == '#' {
					continue
				}
				if !filepath.IsAbs(line) {
					line = filepath.Join(db.dir, line)
				}
				line = filepath.Clean(line)
				if line == db.dir {
					continue
				}
				alts = append(alts, sharedObjectDBDepth(line, depth+1))
			}
		}
	}
	db.alts.Store(&alts)
}

// packsChanged reports whether the pack directory changed since the last
// scan.
func (db *objectDB) packsChanged() bool {
	prev := db.scanned.Load()
	return prev == nil || *prev != statDir(filepath.Join(db.dir, "pack"))
}

// read returns an object's type and content (shared: not to be
// modified). A missing object gives plumbing.ErrObjectNotFound.
func (db *objectDB) read(h plumbing.Hash, depth int) (plumbing.ObjectType, []byte, error) {
	db.lastUse.Store(time.Now().UnixNano())
	t, data, err := db.readOnce(h, depth, 0)
	if errors.Is(err, plumbing.ErrObjectNotFound) && db.packsChanged() {
		db.rescan(0)
		t, data, err = db.readOnce(h, depth, 0)
	}
	return t, data, err
}

// readOnce looks h up in the packs, the loose objects and the alternates
// (altDepth of them deep: git's limit bounds a cycle of alternates).
func (db *objectDB) readOnce(h plumbing.Hash, depth, altDepth int) (plumbing.ObjectType, []byte, error) {
	if depth > maxDeltaChain {
		return 0, nil, fmt.Errorf("object %s: %w: delta chain too long", h, ErrCorruptPack)
	}
	for _, p := range *db.packs.Load() {
		if p.open() != nil {
			continue // a pack that cannot be read is skipped, as git skips it
		}
		off, ok, err := p.idx.find(h)
		if err != nil {
			continue
		}
		if ok {
			return p.object(off, depth)
		}
	}
	t, data, err := db.readLoose(h)
	if !errors.Is(err, plumbing.ErrObjectNotFound) {
		return t, data, err
	}
	if altDepth < maxAlternateDepth {
		for _, alt := range *db.alts.Load() {
			t, data, err := alt.readOnce(h, depth, altDepth+1)
			if !errors.Is(err, plumbing.ErrObjectNotFound) {
				return t, data, err
			}
		}
	}
	return 0, nil, plumbing.ErrObjectNotFound
}

// has reports whether the store has object h, without reading it.
func (db *objectDB) has(h plumbing.Hash) (bool, error) {
	ok, err := db.hasOnce(h, 0)
	if err == nil && !ok && db.packsChanged() {
		db.rescan(0)
		ok, err = db.hasOnce(h, 0)
	}
	return ok, err
}

func (db *objectDB) hasOnce(h plumbing.Hash, depth int) (bool, error) {
	for _, p := range *db.packs.Load() {
		if p.open() != nil {
			continue
		}
		if _, ok, err := p.idx.find(h); err == nil && ok {
			return true, nil
		}
	}
	fi, err := os.Lstat(db.loosePath(h))
	if err == nil && fi.Mode().IsRegular() {
		return true, nil
	}
	if depth < maxAlternateDepth {
		for _, alt := range *db.alts.Load() {
			if ok, err := alt.hasOnce(h, depth+1); ok || err != nil {
				return ok, err
			}
		}
	}
	return false, nil
}

func (db *objectDB) loosePath(h plumbing.Hash) string {
	s := h.String()
	return filepath.Join(db.dir, s[:2], s[2:])
}

// readLoose reads a loose object.
func (db *objectDB) readLoose(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	p := db.loosePath(h)
	f, err := OpenRegular(p, MaxDataFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, plumbing.ErrObjectNotFound
	}
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(f)
	if err != nil {
		return 0, nil, fmt.Errorf("%s: %w", p, err)
	}
	defer zr.Close()
	var head [64]byte
	n, err := io.ReadAtLeast(zr, head[:], 1)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, nil, fmt.Errorf("%s: %w", p, err)
	}
	got := head[:n]
	nul := bytes.IndexByte(got, 0)
	if nul < 0 {
		return 0, nil, fmt.Errorf("%s: bad loose object header", p)
	}
	typName, sizeStr, ok := strings.Cut(string(got[:nul]), " ")
	size, serr := strconv.ParseInt(sizeStr, 10, 64)
	t, terr := plumbing.ParseObjectType(typName)
	if !ok || serr != nil || size < 0 || terr != nil {
		return 0, nil, fmt.Errorf("%s: bad loose object header", p)
	}
	rest := got[nul+1:]
	if int64(len(rest)) > size {
		return 0, nil, fmt.Errorf("%s: loose object longer than its header says", p)
	}
	var out []byte
	if size <= 64<<20 {
		out = make([]byte, size)
		copy(out, rest)
		if _, err := io.ReadFull(zr, out[len(rest):]); err != nil {
			return 0, nil, fmt.Errorf("%s: %w", p, err)
		}
	} else {
		tail, err := io.ReadAll(io.LimitReader(zr, size-int64(len(rest))))
		if err != nil {
			return 0, nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(append([]byte{}, rest...), tail...)
		if int64(len(out)) != size {
			return 0, nil, fmt.Errorf("%s: %w", p, io.ErrUnexpectedEOF)
		}
	}
	return t, out, nil
}

// objCache keeps resolved objects (delta bases and results), by pack and
// offset, for every store of the process: at most objCacheBytes, least
// recently used first out, emptied when nothing was read for
// objCacheIdle.
var objCache = newObjectCache(objCacheBytes)

const (
	objCacheBytes = 64 << 20
	objCacheIdle  = 2 * time.Minute
)

type objKey struct {
	p   *packFile
	off int64
}

type objEntry struct {
	key  objKey
	typ  plumbing.ObjectType
	data []byte
}

type objectCache struct {
	mu    sync.Mutex
	limit int
	size  int
	lru   *list.List
	m     map[objKey]*list.Element
	timer *time.Timer
	used  time.Time
}

func newObjectCache(limit int) *objectCache {
	return &objectCache{limit: limit, lru: list.New(), m: map[objKey]*list.Element{}}
}

func (c *objectCache) get(p *packFile, off int64) (plumbing.ObjectType, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[objKey{p, off}]
	if !ok {
		return 0, nil, false
	}
	c.used = time.Now()
	c.lru.MoveToFront(el)
	e := el.Value.(*objEntry)
	return e.typ, e.data, true
}

func (c *objectCache) put(p *packFile, off int64, t plumbing.ObjectType, data []byte) {
	if len(data) > c.limit/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := objKey{p, off}
	if _, ok := c.m[k]; ok {
		return
	}
	c.m[k] = c.lru.PushFront(&objEntry{key: k, typ: t, data: data})
	c.size += len(data) + 64
	for c.size > c.limit {
		el := c.lru.Back()
		e := el.Value.(*objEntry)
		c.lru.Remove(el)
		delete(c.m, e.key)
		c.size -= len(e.data) + 64
	}
	// Empty the cache once nothing was read for a while.
	c.used = time.Now()
	if c.timer == nil {
		c.timer = time.AfterFunc(objCacheIdle, c.expire)
	}
}

func (c *objectCache) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if idle := time.Since(c.used); idle < objCacheIdle {
		c.timer.Reset(objCacheIdle - idle)
		return
	}
	c.timer = nil
	c.lru.Init()
	c.m = map[objKey]*list.Element{}
	c.size = 0
}

func (c *objectCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	c.m = map[objKey]*list.Element{}
	c.size = 0
}

// storage is go-git's filesystem storage with its object reads served by
// the shared objectDB. Writes, references, the config and the rest are
// go-git's.
type storage struct {
	*filesystem.Storage
	odb *objectDB
}

// EncodedObject returns object h if it has type t (or t is AnyObject).
func (s *storage) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	typ, data, err := s.odb.read(h, 0)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	return &bytesObject{typ: typ, data: data, hash: h}, nil
}

// HasEncodedObject returns nil if the store has object h.
func (s *storage) HasEncodedObject(h plumbing.Hash) error {
	ok, err := s.odb.has(h)
	if err != nil {
		return err
	}
	if !ok {
		return plumbing.ErrObjectNotFound
	}
	return nil
}

// EncodedObjectSize returns the size of object h.
func (s *storage) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	_, data, err := s.odb.read(h, 0)
	if err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// RawObject returns an object's type and content without copying it: the
// content is shared and must not be modified.
func (s *storage) RawObject(h plumbing.Hash) (plumbing.ObjectType, []byte, error) {
	return s.odb.read(h, 0)
}

// RawObjectReader is an object store that can hand out an object's
// content without a copy (the content must not be modified).
type RawObjectReader interface {
	RawObject(h plumbing.Hash) (plumbing.ObjectType, []byte, error)
}
