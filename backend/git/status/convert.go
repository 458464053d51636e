package status

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// emptyBlob is the name of the empty blob.
var emptyBlob = plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")

// Line-ending conversion that git applies when it hashes a worktree file
// (convert.c's crlf_action).
type crlfAction int

const (
	crlfBinary    crlfAction = iota // no conversion
	crlfText                        // CRLF → LF always
	crlfAuto                        // CRLF → LF if the file looks like text
	crlfUndefined                   // no attribute decided yet
)

// Attribute states tracked for line endings.
const (
	attrUnspecified = iota
	attrSet
	attrUnset
	attrAuto
	attrInput
)

// attrLine is one .gitattributes line, reduced to the attributes that
// change how content is hashed: text (or the old crlf) and eol.
type attrLine struct {
	pat      ignorePattern
	text     int // attr* state of "text" (or "crlf")
	eol      string
	hasText  bool
	hasEOL   bool
	resetEOL bool
	// filter is the "filter" attribute ("" when unset or unspecified).
	filter    string
	hasFilter bool
}

func parseAttributes(b []byte, base string) []attrLine {
	var out []attrLine
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		pat := fields[0]
		if strings.HasPrefix(pat, "\"") {
			if u, err := strconv.Unquote(pat); err == nil {
				pat = u
			}
		}
		if strings.HasPrefix(pat, "[attr]") || strings.HasPrefix(pat, "!") {
			continue // macro definitions; negative patterns are invalid
		}
		al := attrLine{pat: newIgnorePattern(pat, base)}
		for _, a := range fields[1:] {
			switch {
			case a == "text" || a == "crlf":
				al.text, al.hasText = attrSet, true
			case a == "-text" || a == "-crlf" || a == "binary":
				al.text, al.hasText = attrUnset, true
			case a == "!text" || a == "!crlf":
				al.text, al.hasText = attrUnspecified, true
			case a == "text=auto":
				al.text, al.hasText = attrAuto, true
			case a == "text=input" || a == "crlf=input":
				al.text, al.hasText = attrInput, true
			case strings.HasPrefix(a, "eol="):
				al.eol, al.hasEOL = strings.TrimPrefix(a, "eol="), true
			case a == "-eol" || a == "!eol":
				al.eol, al.hasEOL = "", true
			case strings.HasPrefix(a, "filter="):
				al.filter, al.hasFilter = strings.TrimPrefix(a, "filter="), true
			case a == "-filter" || a == "!filter":
				al.filter, al.hasFilter = "", true
			}
		}
		if al.hasText || al.hasEOL || al.hasFilter {
			out = append(out, al)
		}
	}
	return out
}

// attrChecker finds the line-ending conversion of a path from the
// .gitattributes files (lazily read and cached), .git/info/attributes and
// core.attributesFile.
type attrChecker struct {
	root         string
	global, info []attrLine
	mu           sync.Mutex
	dirs         map[string][]attrLine
}

func newAttrChecker(root, commonDir string, s *settings) *attrChecker {
	a := &attrChecker{root: root, dirs: make(map[string][]attrLine)}
	if s.attributesFile != "" {
		if b, err := repo.ReadRegular(s.attributesFile, repo.MaxTextFileBytes); err == nil {
			a.global = parseAttributes(b, "")
		}
	}
	if b, err := repo.ReadRegular(filepath.Join(commonDir, "info", "attributes"), repo.MaxTextFileBytes); err == nil {
		a.info = parseAttributes(b, "")
	}
	return a
}

func (a *attrChecker) dirLines(dir string) []attrLine {
	a.mu.Lock()
	lines, ok := a.dirs[dir]
	a.mu.Unlock()
	if ok {
		return lines
	}
	abs := filepath.Join(a.root, filepath.FromSlash(dir), ".gitattributes")
	if b, err := repo.ReadRegularNoFollow(abs, repo.MaxTextFileBytes); err == nil {
		lines = parseAttributes(b, dir)
	}
	a.mu.Lock()
	a.dirs[dir] = lines
	a.mu.Unlock()
	return lines
}

// matching calls fn with every attribute line that matches path p, lowest
// priority first (so later assignments win): core.attributesFile, the
// .gitattributes files from the root down, .git/info/attributes.
func (a *attrChecker) matching(p string, fn func(l *attrLine)) {
	basename := p[strings.LastIndexByte(p, '/')+1:]
	apply := func(lines []attrLine) {
		for i := range lines {
			if l := &lines[i]; l.pat.matches(p, basename, false) {
				fn(l)
			}
		}
	}
	apply(a.global)
	dir := ""
	apply(a.dirLines(dir))
	for {
		i := strings.IndexByte(p[len(dir):], '/')
		if i < 0 {
			break
		}
		dir = p[:len(dir)+i+1]
		apply(a.dirLines(dir))
	}
	apply(a.info)
}

// filter returns the "filter" attribute of path p ("" when unset).
func (a *attrChecker) filter(p string) string {
	name := ""
	a.matching(p, func(l *attrLine) {
		if l.hasFilter {
			name = l.filter
		}
	})
	return name
}

// action returns the conversion for path p given the configuration.
func (a *attrChecker) action(p string, s *settings) crlfAction {
	text, eol := attrUnspecified, ""
	a.matching(p, func(l *attrLine) {
		if l.hasText {
			text = l.text
		}
		if l.hasEOL {
			eol = l.eol
		}
	})

	switch text {
	case attrSet, attrInput:
		return crlfText
	case attrUnset:
		return crlfBinary
	case attrAuto:
		return crlfAuto
	}
	if eol == "lf" || eol == "crlf" {
		return crlfText
	}
	switch s.autocrlf {
	case "true", "input":
		return crlfAuto
	}
	return crlfBinary
}

// textStats are git's gather_stats counts.
type textStats struct {
	nul, lonecr, lonelf, crlf, printable, nonprintable int
}

func gatherStats(b []byte) textStats {
	var s textStats
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				s.crlf++
				i++
			} else {
				s.lonecr++
			}
		case c == '\n':
			s.lonelf++
		case c == 127:
			s.nonprintable++
		case c < 32:
			switch c {
			case '\b', '\t', '\033', '\014':
				s.printable++
			case 0:
				s.nul++
				s.nonprintable++
			default:
				s.nonprintable++
			}
		default:
			s.printable++
		}
	}
	if len(b) > 0 && b[len(b)-1] == '\032' {
		s.nonprintable--
	}
	return s
}

func (s *textStats) isBinary() bool {
	return s.lonecr > 0 || s.nul > 0 || (s.printable>>7) < s.nonprintable
}

// stripCRLF turns every CRLF into LF.
func stripCRLF(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' && i+1 < len(b) && b[i+1] == '\n' {
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// blobHash is git's object name of a blob with this content.
func blobHash(content []byte) plumbing.Hash {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	var out plumbing.Hash
	h.Sum(out[:0])
	return out
}

// hasher computes the blob that `git add` would store for a worktree file.
type hasher struct {
	root  string
	s     *settings
	attrs *attrChecker
	// indexBlob reads a blob of the index (for git's "safe autocrlf" rule:
	// a file whose index blob has CRLFs is not converted).
	indexBlob func(p string) ([]byte, bool)
}

// errNotHashable says the worktree path is not a file or symlink.
var errNotHashable = errors.New("not a file")

// hashPath hashes the worktree file or symlink at repository path p.
func (h *hasher) hashPath(p string, s *fsStat) (plumbing.Hash, error) {
	abs := filepath.Join(h.root, filepath.FromSlash(p))
	switch {
	case s.isLnk():
		target, err := os.Readlink(abs)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		return blobHash([]byte(filepath.ToSlash(target))), nil
	case !s.isReg():
		return plumbing.ZeroHash, errNotHashable
	}
	action := crlfBinary
	if h.attrs != nil {
		action = h.attrs.action(p, h.s)
	}
	if action == crlfBinary {
		// Stream: no conversion, so the content need not be held.
		f, err := repo.OpenRegularNoFollow(abs, math.MaxInt64) // streamed
		if err != nil {
			return plumbing.ZeroHash, err
		}
		defer f.Close()
		fi := f.Stat()
		sum := sha1.New()
		sum.Write([]byte("blob " + strconv.FormatInt(fi.Size(), 10) + "\x00"))
		n, err := io.Copy(sum, f)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if n != fi.Size() {
			// The file changed while it was read: hash what was read.
			b, err := repo.ReadRegularNoFollow(abs, repo.MaxDataFileBytes)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			return blobHash(b), nil
		}
		var out plumbing.Hash
		sum.Sum(out[:0])
		return out, nil
	}
	b, err := repo.ReadRegularNoFollow(abs, repo.MaxDataFileBytes)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return blobHash(h.convert(p, b, action)), nil
}

// convert applies git's clean-side line-ending conversion.
func (h *hasher) convert(p string, b []byte, action crlfAction) []byte {
	if len(b) == 0 || !bytes.Contains(b, []byte("\r\n")) {
		return b
	}
	if action == crlfAuto {
		st := gatherStats(b)
		if st.isBinary() {
			return b
		}
		if h.indexBlob != nil {
			if blob, ok := h.indexBlob(p); ok && bytes.IndexByte(blob, '\r') >= 0 {
				bs := gatherStats(blob)
				if !bs.isBinary() && bs.crlf > 0 {
					return b
				}
			}
		}
	}
	return stripCRLF(b)
}

// Cleaner turns worktree content into the blob `git add` stores: git's
// clean-side line-ending conversion from core.autocrlf, core.eol and the
// text/eol/crlf attributes (the same rules the status engine hashes with).
// Filters (clean/smudge, working-tree-encoding) are not applied;
// FilterDriver tells which paths git would filter.
type Cleaner struct{ h *hasher }

// NewCleaner reads r's configuration and attribute files.
func NewCleaner(r *repo.Repo) *Cleaner {
	s := newSettings(loadConfig(r))
	return &Cleaner{h: &hasher{root: r.Root, s: s, attrs: newAttrChecker(r.Root, r.CommonDir, s)}}
}

// FilterDriver returns the name of the clean/smudge filter git would run
// for path p (repository relative): its "filter" attribute, when
// filter.<name>.clean, .smudge or .process is configured (git ignores a
// filter attribute without a driver). "" when git would not filter p.
func (c *Cleaner) FilterDriver(p string) string {
	name := c.h.attrs.filter(p)
	if name == "" || c.h.s.cfg == nil {
		return ""
	}
	for _, key := range []string{"clean", "smudge", "process"} {
		if c.h.s.cfg.get("filter", name, key) != "" {
			return name
		}
	}
	return ""
}

// Clean returns content as git would store it for path p (repository
// relative). indexBlob, if non-nil, returns the index's current blob of p:
// git's "safe autocrlf" rule leaves a file alone whose indexed version
// already has CRLFs. Content that needs no conversion is returned as is.
func (c *Cleaner) Clean(p string, content []byte, indexBlob func() ([]byte, bool)) []byte {
	action := c.h.attrs.action(p, c.h.s)
	if action == crlfBinary {
		return content
	}
	h := *c.h
	if indexBlob != nil {
		h.indexBlob = func(string) ([]byte, bool) { return indexBlob() }
	}
	return h.convert(p, content, action)
}
