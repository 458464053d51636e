package find

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unsafe"
)

// Entry is one listed file or folder.
type Entry struct {
	// Path is the entry's path relative to the listing's base (the
	// caller's cwd), with forward slashes.
	Path string `json:"path"`
	// Name is the entry's last element.
	Name string `json:"name"`
	// Type is "file" or "dir".
	Type string `json:"type"`
	// Size is a file's size in bytes (files of a non-recursive listing;
	// see [ListOptions.Stat]).
	Size *int64 `json:"size,omitempty"`
	// MtimeMs is a file's modification time, Unix milliseconds (as Size).
	MtimeMs *int64 `json:"mtimeMs,omitempty"`
}

// ListOptions say what [List] lists.
type ListOptions struct {
	// Root is the canonical absolute folder to list.
	Root string
	// Base is the canonical absolute folder the entries' paths are
	// relative to (the caller's cwd).
	Base string
	// Recursive lists the folders below Root too.
	Recursive bool
	// MaxEntries bounds the entries (0: no limit). A recursive listing is
	// breadth first: what is cut is the deepest level, folders last.
	MaxEntries int
	// IncludeIgnored lists what the ignore rules and [IgnoredFolders]
	// leave out, .git included (as an entry: never entered).
	IncludeIgnored bool
	// Stat gives files their Size and MtimeMs (one lstat per file).
	Stat bool
}

// ListResult is what [List] found.
type ListResult struct {
	// Entries are the folders first, then the files, each in byte order of
	// their paths.
	Entries []Entry `json:"entries"`
	// Truncated says MaxEntries left entries out.
	Truncated bool `json:"truncated"`
}

// List lists the folder opts.Root (directly, or the whole tree below it),
// leaving out symbolic links, special files, [IgnoredFolders] and what the
// repository's ignore rules ignore (.gitignore files at every level,
// .git/info/exclude, core.excludesFile) unless opts.IncludeIgnored: the
// files `git ls-files -co --exclude-standard` lists, plus their folders.
// Tracked files are listed even where an ignore rule matches them, as git
// lists them. Root itself is listed even when it is ignored.
func List(ctx context.Context, opts ListOptions) (*ListResult, error) {
	rn, truncated, err := walk(ctx, opts.Root, walkOptions{
		recursive: opts.Recursive, includeIgnored: opts.IncludeIgnored, stat: opts.Stat, maxEntries: opts.MaxEntries,
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", opts.Root, err)
	}
	prefix := relPrefix(opts.Base, opts.Root)
	var dirs, files, pathBytes int
	countEntries(rn, len(prefix), &dirs, &files, &pathBytes)
	out := make([]Entry, dirs, dirs+files)
	var stats []int64
	if opts.Stat {
		stats = make([]int64, 0, 2*files)
	}
	// Every path is a string into one buffer: one allocation, not one per
	// entry.
	paths := make([]byte, 0, pathBytes)
	di := 0
	var add func(n *node)
	add = func(n *node) {
		for i := range n.ents {
			e := &n.ents[i]
			if e.drop {
				continue
			}
			at := len(paths)
			paths = append(append(append(paths, prefix...), n.rel...), e.name...)
			p := unsafe.String(&paths[at], len(paths)-at)
			if e.typ == dtDir {
				out[di] = Entry{Path: p, Name: e.name, Type: "dir"}
				di++
				if e.child != nil {
					add(e.child)
				}
				continue
			}
			en := Entry{Path: p, Name: e.name, Type: "file"}
			if opts.Stat {
				stats = append(stats, e.size, e.mtimeMs)
				en.Size, en.MtimeMs = &stats[len(stats)-2], &stats[len(stats)-1]
			}
			out = append(out, en)
		}
	}
	add(rn)
	// The files came in path order (the walk's order is git's); the
	// folders need their own sort ("a" < "a.b" < "a/b" as whole paths).
	slices.SortFunc(out[:dirs], func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return &ListResult{Entries: out, Truncated: truncated}, nil
}

// countEntries counts the entries left under n, and the bytes of their
// paths (each prefixed by prefixLen bytes).
func countEntries(n *node, prefixLen int, dirs, files, pathBytes *int) {
	for i := range n.ents {
		e := &n.ents[i]
		if e.drop {
			continue
		}
		*pathBytes += prefixLen + len(n.rel) + len(e.name)
		if e.typ == dtDir {
			*dirs++
			if e.child != nil {
				countEntries(e.child, prefixLen, dirs, files, pathBytes)
			}
		} else {
			*files++
		}
	}
}
