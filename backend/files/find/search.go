package find

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Limits of a search.
const (
	// MaxFileBytes is the largest file a search reads (1 MiB); larger
	// files are skipped.
	MaxFileBytes = 1 << 20
	// BinarySniffBytes is how much of a file is looked at for a NUL byte:
	// a file with one there is binary and skipped.
	BinarySniffBytes = 8 << 10
	// MaxTextUnits bounds a match's Text, in UTF-16 code units.
	MaxTextUnits = 500
	// DefaultMaxResults is the matches a search returns when not told.
	DefaultMaxResults = 500
	// MaxSearchFiles bounds the files one search considers; a tree with
	// more is searched in part (breadth first) and the result truncated.
	MaxSearchFiles = 1 << 20
)

// SearchOptions say what [Search] looks for and where.
type SearchOptions struct {
	// Root is the canonical absolute folder (searched with everything
	// below it) or file to search.
	Root string
	// Base is the canonical absolute folder the matches' paths are
	// relative to (the caller's cwd).
	Base string
	// Query is the text to find (a literal), or with IsRegex a Go
	// regular expression (RE2 syntax). A match never spans lines.
	Query   string
	IsRegex bool
	// CaseSensitive matches case; otherwise Unicode simple case folding
	// applies ("k" also finds "K" and the Kelvin sign).
	CaseSensitive bool
	// MaxResults bounds the matches (0: DefaultMaxResults).
	MaxResults int
	// Glob, if set, limits the files read (see globFilter: "*.go",
	// "src/**/*.{ts,tsx}", "!*_test.go", comma-separated).
	Glob string
}

// Match is one occurrence of the query.
type Match struct {
	// Path is the file, relative to the base, with forward slashes.
	Path string `json:"path"`
	// Line is the 1-based line of the match.
	Line int `json:"line"`
	// Column and EndColumn are the 1-based columns of the match's first
	// character and of the one after it, in UTF-16 code units (as
	// JavaScript counts).
	Column    int `json:"column"`
	EndColumn int `json:"endColumn"`
	// Text is the line, without its line break, cut at [MaxTextUnits].
	Text string `json:"text"`
}

// SearchResult is what [Search] found.
type SearchResult struct {
	// Matches are in path order (git's: byte order of the paths), then in
	// order within each file.
	Matches []Match `json:"matches"`
	// Truncated says there are more matches than MaxResults (or more
	// files than MaxSearchFiles).
	Truncated bool `json:"truncated"`
	// FilesSearched counts the files read and searched (not those
	// skipped for their size or as binary) among the files the matches
	// cover: all of them unless the search stopped at MaxResults.
	FilesSearched int `json:"filesSearched"`
}

// IsQueryError reports whether err is a *[QueryError].
func IsQueryError(err error) bool {
	_, ok := err.(*QueryError)
	return ok
}

// Search looks for a query in the files under opts.Root, the files [List]
// would list recursively: ignored files and folders, symbolic links and
// special files are left out, and so are files over [MaxFileBytes] and
// binary files (a NUL byte in the first [BinarySniffBytes], or, for a file
// with matches, content that is not UTF-8 — the file tools cannot open
// either). Files are read in parallel; the results are those of a search
// file after file in path order, stopped after opts.MaxResults matches.
// A bad query or glob gives a *[QueryError]; the end of ctx stops the
// search between files.
func Search(ctx context.Context, opts SearchOptions) (*SearchResult, error) {
	m, err := newMatcher(opts.Query, opts.IsRegex, opts.CaseSensitive)
	if err != nil {
		return nil, err
	}
	g, err := newGlobFilter(opts.Glob)
	if err != nil {
		return nil, err
	}
	maxResults := opts.MaxResults
	if maxResults <= 0 {
		maxResults = DefaultMaxResults
	}
	fi, err := os.Stat(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", opts.Root, err)
	}
	s := &searcher{m: m, limit: maxResults + 1}
	var files []fileRef
	var rootDir string
	walkTruncated := false
	if fi.IsDir() {
		rootDir = opts.Root
		rn, truncated, err := walk(ctx, opts.Root, walkOptions{recursive: true, maxFiles: MaxSearchFiles})
		if err != nil {
			return nil, fmt.Errorf("search %s: %w", opts.Root, err)
		}
		walkTruncated = truncated
		s.prefix = relPrefix(opts.Base, rootDir)
		files = collectFiles(rn, s.prefix, g)
	} else {
		rootDir = filepath.Dir(opts.Root)
		s.prefix = relPrefix(opts.Base, rootDir)
		n := &node{}
		name := filepath.Base(opts.Root)
		if g.empty() || g.keep(s.prefix+name) {
			// The name is handed to the kernel in place: a NUL follows it.
			z := name + "\x00"
			files = []fileRef{{n: n, name: z[:len(name)]}}
		}
	}
	h, err := openDir(rootDir)
	if err != nil {
		return nil, fmt.Errorf("search %s: %w", opts.Root, err)
	}
	defer h.close()
	s.h = h
	results, frontier := s.run(ctx, files)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &SearchResult{Matches: []Match{}, Truncated: walkTruncated}
	for i := 0; i < frontier; i++ {
		r := &results[i]
		if r.searched {
			out.FilesSearched++
		}
		for _, mt := range r.matches {
			if len(out.Matches) == maxResults {
				out.Truncated = true
				break
			}
			out.Matches = append(out.Matches, mt)
		}
	}
	return out, nil
}

// relPrefix is dir relative to base in slash form with a trailing slash
// ("" for base itself).
func relPrefix(base, dir string) string {
	if base == "" || base == dir {
		return ""
	}
	rel, err := filepath.Rel(base, dir)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// fileRef is a file a search reads: its folder's node and its name.
type fileRef struct {
	n    *node
	name string
}

// collectFiles lists the files of the walk in path order, keeping those
// the glob keeps.
func collectFiles(rn *node, prefix string, g *globFilter) []fileRef {
	var out []fileRef
	s := newScratch()
	var add func(n *node)
	add = func(n *node) {
		for i := range n.ents {
			e := &n.ents[i]
			switch {
			case e.drop:
			case e.child != nil:
				add(e.child)
			case e.typ == dtFile:
				if g.empty() || g.keep(s.join(prefix+n.rel, e.name)) {
					out = append(out, fileRef{n: n, name: e.name})
				}
			}
		}
	}
	add(rn)
	return out
}

// searcher runs one search over its files.
type searcher struct {
	m      *matcher
	h      dirHandle // the folder the files' paths are relative to
	prefix string    // that folder relative to the base
	limit  int       // matches enough to stop: MaxResults + 1
}

// fileResult is the outcome of one file.
type fileResult struct {
	matches  []Match
	searched bool // read and searched (not skipped)
}

// readBufs are the workers' file buffers (each grows to at most
// MaxFileBytes).
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// searchWorkers is how many files are searched at once.
func searchWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }

// chunkFiles bounds the files of one unit of work: the files of one
// folder, up to this many, read relative to the folder's descriptor.
const chunkFiles = 32

// run searches the files in parallel. Workers take runs of files of one
// folder in order; a file's result counts once every file before it is
// done, and the search stops when those results hold limit matches. It
// returns the results and how many of the first files they are final for
// (frontier).
func (s *searcher) run(ctx context.Context, files []fileRef) (results []fileResult, frontier int) {
	results = make([]fileResult, len(files))
	done := make([]bool, len(files))
	var chunks []int // the first file of each chunk
	for i := range files {
		if i == 0 || files[i].n != files[i-1].n || i-chunks[len(chunks)-1] == chunkFiles {
			chunks = append(chunks, i)
		}
	}
	chunks = append(chunks, len(files))
	var (
		next atomic.Int64
		stop atomic.Bool
		mu   sync.Mutex
		cum  int
	)
	work := func() {
		bp := readBufs.Get().(*[]byte)
		defer readBufs.Put(bp)
		for !stop.Load() && ctx.Err() == nil {
			c := int(next.Add(1) - 1)
			if c >= len(chunks)-1 {
				return
			}
			lo, hi := chunks[c], chunks[c+1]
			dir := s.h
			if rel := files[lo].n.rel; rel != "" {
				// A folder that cannot be opened any more gives an invalid
				// handle: its files are skipped.
				dir, _ = s.h.openSub(rel[:len(rel)-1])
			}
			for i := lo; i < hi && !stop.Load() && ctx.Err() == nil; i++ {
				r := s.searchFile(dir, files[i], bp)
				mu.Lock()
				results[i], done[i] = r, true
				for cum < s.limit && frontier < len(files) && done[frontier] {
					cum += len(results[frontier].matches)
					frontier++
					if cum >= s.limit {
						stop.Store(true)
					}
				}
				mu.Unlock()
			}
			if files[lo].n.rel != "" && dir.valid() {
				dir.close()
			}
		}
	}
	workers := min(searchWorkers(), len(chunks)-1)
	if workers <= 1 {
		work()
		return results, frontier
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(work)
	}
	wg.Wait()
	return results, frontier
}

// beforeFile, when set (by tests), is called before each file is read.
var beforeFile func()

// searchFile reads and searches one file of the folder dir.
func (s *searcher) searchFile(dir dirHandle, f fileRef, buf *[]byte) fileResult {
	if beforeFile != nil {
		beforeFile()
	}
	if !dir.valid() {
		return fileResult{}
	}
	content, skip := dir.readFile(f.name, MaxFileBytes, buf)
	if skip {
		return fileResult{}
	}
	if bytes.IndexByte(content[:min(len(content), BinarySniffBytes)], 0) >= 0 {
		return fileResult{}
	}
	r := fileResult{searched: true}
	t := lineTracker{buf: content, line: 1, textAt: -1}
	path := ""
	s.m.scan(content, func(start, end int) bool {
		if path == "" {
			path = s.prefix + f.n.rel + f.name
		}
		r.matches = append(r.matches, t.match(path, start, end))
		return len(r.matches) < s.limit
	})
	if len(r.matches) > 0 && !utf8.Valid(content) {
		return fileResult{} // binary for the file tools: they cannot open it
	}
	return r
}

// lineTracker turns the byte offsets of a file's matches (in increasing
// order) into lines and UTF-16 columns, counting each byte once.
type lineTracker struct {
	buf       []byte
	pos       int // offsets before pos are counted
	line      int // the line of pos (1-based)
	lineStart int // where that line starts
	colAt     int // an offset in that line whose column is col
	col       int // 0-based, UTF-16 units
	textAt    int // the line start whose text is cached (-1: none)
	text      string
}

func (t *lineTracker) match(path string, start, end int) Match {
	if start > t.pos {
		seg := t.buf[t.pos:start]
		if n := bytes.Count(seg, newline); n > 0 {
			t.line += n
			t.lineStart = t.pos + bytes.LastIndexByte(seg, '\n') + 1
			t.colAt, t.col = t.lineStart, 0
		}
		t.pos = start
	}
	col := t.col + utf16Len(t.buf[t.colAt:start])
	t.colAt, t.col = start, col
	endCol := col + utf16Len(t.buf[start:end])
	if t.textAt != t.lineStart {
		t.textAt = t.lineStart
		t.text = lineText(t.buf[t.lineStart:])
	}
	return Match{Path: path, Line: t.line, Column: col + 1, EndColumn: endCol + 1, Text: t.text}
}

var newline = []byte{'\n'}

// lineText is the first line of b without its line break, cut at
// MaxTextUnits UTF-16 units (never inside a character).
func lineText(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) <= MaxTextUnits {
		return string(b)
	}
	units := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		u := 1
		if r >= 0x10000 {
			u = 2
		}
		if units+u > MaxTextUnits {
			return string(b[:i])
		}
		units += u
		i += size
	}
	return string(b)
}

// utf16Len is the length of the UTF-8 text b in UTF-16 code units: one
// per character, two for those beyond U+FFFF (b is valid UTF-8: files
// that are not are dropped).
func utf16Len(b []byte) int {
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
		if c >= 0xF0 {
			n++
		}
	}
	return n
}
