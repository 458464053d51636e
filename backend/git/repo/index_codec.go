package repo

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"time"
	"unsafe"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// ErrBadIndex is returned (wrapped in a *BadIndexError) when the index file
// cannot be read or rewritten safely: it is corrupt, or it uses a feature
// this code does not write (split index, sparse index).
var ErrBadIndex = errors.New("unusable index")

// BadIndexError says why the index file at Path cannot be used.
type BadIndexError struct {
	Path   string
	Reason string
}

// Error implements error.
func (e *BadIndexError) Error() string { return fmt.Sprintf("index %s: %s", e.Path, e.Reason) }

// Is makes errors.Is(err, ErrBadIndex) true.
func (e *BadIndexError) Is(target error) bool { return target == ErrBadIndex }

// IsBadIndex reports whether err says that the index file is unusable.
func IsBadIndex(err error) bool { return errors.Is(err, ErrBadIndex) }

// On-disk flag bits of an index entry.
const (
	flagAssumeValid = 0x8000
	flagExtended    = 0x4000
	flagNameMask    = 0x0fff
	extSkipWorktree = 0x4000
	extIntentToAdd  = 0x2000
)

// entryKey names one index entry: a path at a stage.
type entryKey struct {
	name  string
	stage index.Stage
}

// indexExtras is what an index file holds beyond go-git's index.Index:
// state that is kept when the index is written back.
type indexExtras struct {
	// tree is the cache-tree (TREE extension), nil when absent.
	tree *cacheTree
	// reuc is the raw body of the resolve-undo (REUC) extension.
	reuc []byte
	// assumeValid holds the entries with the "assume unchanged" bit, which
	// go-git's Entry cannot carry.
	assumeValid map[entryKey]bool
}

// decodeIndex parses an index file. Unlike go-git's decoder it keeps the
// cache-tree with its invalid nodes and the assume-unchanged bits, and it
// is fast enough for large indexes.
func decodeIndex(data []byte) (*index.Index, *indexExtras, error) {
	version, store, extras, err := decodeIndexEntries(data)
	if err != nil {
		return nil, nil, err
	}
	idx := &index.Index{Version: version, Entries: make([]*index.Entry, len(store))}
	for i := range store {
		idx.Entries[i] = &store[i]
	}
	return idx, extras, nil
}

// decodeIndexEntries is decodeIndex returning the entries as values.
func decodeIndexEntries(data []byte) (uint32, []index.Entry, *indexExtras, error) {
	bad := func(format string, args ...any) error {
		return &BadIndexError{Reason: fmt.Sprintf(format, args...)}
	}
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return 0, nil, nil, bad("no index signature")
	}
	// The trailing checksum is not verified: git does not verify it on
	// reads either (only fsck does), for speed.
	end := len(data) - 20
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return 0, nil, nil, bad("unsupported index version %d", version)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	if count > end/40 {
		return 0, nil, nil, bad("entry count %d does not fit the file", count)
	}
	extras := &indexExtras{}
	store := make([]index.Entry, count)
	// All names go into one arena that becomes a single string, so the
	// entries' names cost no allocation each.
	arena := make([]byte, 0, end)
	offs := make([]int, count+1)
	var prev []byte
	pos := 12
	for i := 0; i < count; i++ {
		if pos+62 > end {
			return 0, nil, nil, bad("entry %d truncated", i)
		}
		b := data[pos:end]
		e := &store[i]
		e.CreatedAt = unixTime(binary.BigEndian.Uint32(b[0:]), binary.BigEndian.Uint32(b[4:]))
		e.ModifiedAt = unixTime(binary.BigEndian.Uint32(b[8:]), binary.BigEndian.Uint32(b[12:]))
		e.Dev = binary.BigEndian.Uint32(b[16:])
		e.Inode = binary.BigEndian.Uint32(b[20:])
		e.Mode = filemode.FileMode(binary.BigEndian.Uint32(b[24:]))
		e.UID = binary.BigEndian.Uint32(b[28:])
		e.GID = binary.BigEndian.Uint32(b[32:])
		e.Size = binary.BigEndian.Uint32(b[36:])
		copy(e.Hash[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		e.Stage = index.Stage(flags>>12) & 3
		n := 62
		if flags&flagExtended != 0 {
			if version < 3 {
				return 0, nil, nil, bad("entry %d has extended flags in a version 2 index", i)
			}
			if len(b) < 64 {
				return 0, nil, nil, bad("entry %d truncated", i)
			}
			ext := binary.BigEndian.Uint16(b[62:])
			e.SkipWorktree = ext&extSkipWorktree != 0
			e.IntentToAdd = ext&extIntentToAdd != 0
			n = 64
		}
		start := len(arena)
		if version == 4 {
			strip, used := decodeVarint(b[n:min(len(b), n+16)])
			if used == 0 || int(strip) > len(prev) {
				return 0, nil, nil, bad("entry %d has a bad path prefix", i)
			}
			nul := bytes.IndexByte(b[n+used:], 0)
			if nul < 0 {
				return 0, nil, nil, bad("entry %d path not terminated", i)
			}
			arena = append(arena, prev[:len(prev)-int(strip)]...)
			arena = append(arena, b[n+used:n+used+nul]...)
			pos += n + used + nul + 1
		} else {
			nameLen := int(flags & flagNameMask)
			if nameLen == flagNameMask {
				nul := bytes.IndexByte(b[n:], 0)
				if nul < 0 {
					return 0, nil, nil, bad("entry %d path not terminated", i)
				}
				nameLen = nul
			}
			if n+nameLen > len(b) {
				return 0, nil, nil, bad("entry %d truncated", i)
			}
			arena = append(arena, b[n:n+nameLen]...)
			pos += (n + nameLen + 8) &^ 7
		}
		prev = arena[start:]
		offs[i+1] = len(arena)
		if len(prev) == 0 {
			return 0, nil, nil, bad("entry %d has an empty path", i)
		}
		if flags&flagAssumeValid != 0 {
			if extras.assumeValid == nil {
				extras.assumeValid = make(map[entryKey]bool)
			}
			extras.assumeValid[entryKey{string(prev), e.Stage}] = true
		}
	}
	// The arena is never written again: the names can alias it.
	names := ""
	if len(arena) > 0 {
		names = unsafe.String(&arena[0], len(arena))
	}
	for i := range store {
		store[i].Name = names[offs[i]:offs[i+1]]
	}
	if pos > end {
		return 0, nil, nil, bad("entries overrun the checksum")
	}
	for pos+8 <= end {
		sig := string(data[pos : pos+4])
		size := int(binary.BigEndian.Uint32(data[pos+4:]))
		if size < 0 || pos+8+size > end {
			return 0, nil, nil, bad("extension %q truncated", sig)
		}
		body := data[pos+8 : pos+8+size]
		switch sig {
		case "TREE":
			extras.tree = parseCacheTree(body)
		case "REUC":
			extras.reuc = append([]byte(nil), body...)
		case "link":
			return 0, nil, nil, bad("split index (core.splitIndex) is not supported")
		case "sdir":
			return 0, nil, nil, bad("sparse index (index.sparse) is not supported")
		default:
			if sig[0] < 'A' || sig[0] > 'Z' {
				return 0, nil, nil, bad("unknown required extension %q", sig)
			}
			// Optional extensions (UNTR, FSMN, EOIE, IEOT) are caches that
			// git rebuilds; they are dropped on write.
		}
		pos += 8 + size
	}
	return version, store, extras, nil
}

func unixTime(sec, nsec uint32) time.Time {
	if sec == 0 && nsec == 0 {
		return time.Time{}
	}
	return time.Unix(int64(sec), int64(nsec))
}

// timeFields converts an entry time the way go-git's encoder does: the zero
// time is 0, others are truncated to 32 bits.
func timeFields(t time.Time) (uint32, uint32, error) {
	if t.IsZero() {
		return 0, 0, nil
	}
	if t.Unix() < 0 {
		return 0, 0, fmt.Errorf("negative timestamp %v", t)
	}
	return uint32(t.Unix()), uint32(t.Nanosecond()), nil
}

// decodeVarint decodes git's offset varint and returns the value and the
// bytes used (0 when malformed).
func decodeVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	val := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) {
			return 0, 0
		}
		val++
		c = b[i]
		i++
		val = val<<7 + uint64(c&127)
	}
	return val, i
}

// appendVarint appends git's offset varint encoding of v.
func appendVarint(b []byte, v uint64) []byte {
	var buf [16]byte
	pos := len(buf) - 1
	buf[pos] = byte(v & 127)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		buf[pos] = 128 | byte(v&127)
	}
	return append(b, buf[pos:]...)
}

// sortEntries sorts index entries by path, then stage, as the file stores
// them.
func sortEntries(es []*index.Entry) {
	less := func(i, j int) bool {
		if es[i].Name != es[j].Name {
			return es[i].Name < es[j].Name
		}
		return es[i].Stage < es[j].Stage
	}
	if !sort.SliceIsSorted(es, less) {
		sort.SliceStable(es, less)
	}
}

// encodeIndex writes idx (entries sorted by sortEntries) in the index file
// format of the given version, with the cache-tree and resolve-undo
// extensions from extras. It writes what go-git's encoder writes for the
// same entries, plus the assume-unchanged bits and the extensions, and is
// about thirty times faster on large indexes.
func encodeIndex(idx *index.Index, version uint32, extras *indexExtras) ([]byte, error) {
	size := 12 + 20
	for _, e := range idx.Entries {
		size += 64 + len(e.Name) + 8
	}
	out := make([]byte, 0, size+1024)
	out = append(out, "DIRC"...)
	out = binary.BigEndian.AppendUint32(out, version)
	out = binary.BigEndian.AppendUint32(out, uint32(len(idx.Entries)))
	var prev string
	for _, e := range idx.Entries {
		start := len(out)
		csec, cnsec, err := timeFields(e.CreatedAt)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.Name, err)
		}
		msec, mnsec, err := timeFields(e.ModifiedAt)
		if err != nil {
			return nil, fmt.Errorf("entry %s: %w", e.Name, err)
		}
		for _, v := range [...]uint32{csec, cnsec, msec, mnsec, e.Dev, e.Inode, uint32(e.Mode), e.UID, e.GID, e.Size} {
			out = binary.BigEndian.AppendUint32(out, v)
		}
		out = append(out, e.Hash[:]...)
		flags := uint16(e.Stage&3) << 12
		if len(e.Name) < flagNameMask {
			flags |= uint16(len(e.Name))
		} else {
			flags |= flagNameMask
		}
		if extras != nil && extras.assumeValid[entryKey{e.Name, e.Stage}] {
			flags |= flagAssumeValid
		}
		extended := e.IntentToAdd || e.SkipWorktree
		if extended {
			flags |= flagExtended
		}
		out = binary.BigEndian.AppendUint16(out, flags)
		if extended {
			var ext uint16
			if e.SkipWorktree {
				ext |= extSkipWorktree
			}
			if e.IntentToAdd {
				ext |= extIntentToAdd
			}
			out = binary.BigEndian.AppendUint16(out, ext)
		}
		if version == 4 {
			common := 0
			for common < len(prev) && common < len(e.Name) && prev[common] == e.Name[common] {
				common++
			}
			out = appendVarint(out, uint64(len(prev)-common))
			out = append(out, e.Name[common:]...)
			out = append(out, 0)
			prev = e.Name
		} else {
			out = append(out, e.Name...)
			n := len(out) - start
			pad := (n + 8) &^ 7
			for ; n < pad; n++ {
				out = append(out, 0)
			}
		}
	}
	if extras != nil && extras.tree != nil {
		body := extras.tree.encode(nil, "")
		out = append(out, "TREE"...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if extras != nil && len(extras.reuc) > 0 {
		out = append(out, "REUC"...)
		out = binary.BigEndian.AppendUint32(out, uint32(len(extras.reuc)))
		out = append(out, extras.reuc...)
	}
	sum := sha1.Sum(out)
	return append(out, sum[:]...), nil
}

// sameEntry reports whether two entries record the same content, mode and
// flags (stat data aside).
func sameEntry(a, b *index.Entry) bool {
	return a.Name == b.Name && a.Stage == b.Stage && a.Hash == b.Hash && a.Mode == b.Mode &&
		a.IntentToAdd == b.IntentToAdd && a.SkipWorktree == b.SkipWorktree
}

// sameStat reports whether two entries record the same stat data.
func sameStat(a, b *index.Entry) bool {
	return a.CreatedAt.Equal(b.CreatedAt) && a.ModifiedAt.Equal(b.ModifiedAt) && a.Dev == b.Dev &&
		a.Inode == b.Inode && a.UID == b.UID && a.GID == b.GID && a.Size == b.Size
}

// hashOf returns the name of an object of type t with content b.
func hashOf(t plumbing.ObjectType, b []byte) plumbing.Hash {
	return plumbing.ComputeHash(t, b)
}

// IndexFile is an index file as read from disk: go-git's entries, plus
// what go-git's type cannot carry (the assume-unchanged bits and the
// cache-tree). It is the one decoder of the index: the status engine reads
// through it, and IndexLock keeps the same extras when it writes back.
type IndexFile struct {
	// Version is the file's format version (2, 3 or 4).
	Version uint32
	// Entries are sorted by name, then stage, as in the file. Names alias
	// one shared string.
	Entries []index.Entry
	extras  *indexExtras
}

// DecodeIndexFile parses the bytes of an index file. Damaged input gives a
// *BadIndexError (never a panic); split and sparse indexes are refused.
func DecodeIndexFile(data []byte) (*IndexFile, error) {
	version, entries, extras, err := decodeIndexEntries(data)
	if err != nil {
		return nil, err
	}
	return &IndexFile{Version: version, Entries: entries, extras: extras}, nil
}

// AssumeValid reports the "assume unchanged" bit of entry i.
func (f *IndexFile) AssumeValid(i int) bool {
	if f.extras == nil || f.extras.assumeValid == nil {
		return false
	}
	e := &f.Entries[i]
	return f.extras.assumeValid[entryKey{e.Name, e.Stage}]
}

// ValidTrees calls fn for every valid node of the cache-tree: the directory
// ("" for the root, else "a/b"), the number of index entries it covers and
// the tree object they would be written as.
func (f *IndexFile) ValidTrees(fn func(dir string, count int, hash plumbing.Hash)) {
	if f.extras == nil || f.extras.tree == nil {
		return
	}
	var walk func(dir string, t *cacheTree)
	walk = func(dir string, t *cacheTree) {
		if t.count >= 0 {
			fn(dir, t.count, t.hash)
		}
		for _, s := range t.subs {
			sub := s.name
			if dir != "" {
				sub = dir + "/" + s.name
			}
			walk(sub, s.tree)
		}
	}
	walk("", f.extras.tree)
}

// EntryStat returns an entry's stat times as the index file stores them
// (seconds and nanoseconds truncated to 32 bits; 0 for the zero time).
func EntryStat(e *index.Entry) (ctimeSec, ctimeNsec, mtimeSec, mtimeNsec uint32) {
	cs, cn, _ := timeFields(e.CreatedAt)
	ms, mn, _ := timeFields(e.ModifiedAt)
	return cs, cn, ms, mn
}
