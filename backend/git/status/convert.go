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

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/meith-dev/meith/backend/git/repo"
)

// emptyBlob is the name of the empty blob.
var emptyBlob = plumbing.NewHash("e69de29bb2d1d6434b8b29ae775ad8c2e48c5391")

// crlfAction is git's end-of-line conversion of a path (convert.c's
// crlf_action).
type crlfAction int

const (
	crlfUndefined crlfAction = iota // no attribute decided: core.autocrlf does
	crlfBinary                      // no conversion
	crlfText                        // text: CRLF → LF in; core.eol/autocrlf decide out
	crlfTextInput                   // text eol=lf: CRLF → LF in, nothing out
	crlfTextCRLF                    // text eol=crlf: CRLF → LF in, LF → CRLF out
	crlfAuto                        // text=auto: like text, for files that look like text
	crlfAutoInput                   // text=auto eol=lf, or core.autocrlf=input
	crlfAutoCRLF                    // text=auto eol=crlf, or core.autocrlf=true
)

func (a crlfAction) auto() bool { return a == crlfAuto || a == crlfAutoInput || a == crlfAutoCRLF }

// crlfFromAttr is git_path_check_crlf for the text (or crlf) attribute.
func crlfFromAttr(st attrState) crlfAction {
	switch st.state {
	case attrSet:
		return crlfText
	case attrUnset:
		return crlfBinary
	case attrValue:
		switch st.value {
		case "input":
			return crlfTextInput
		case "auto":
			return crlfAuto
		}
	}
	return crlfUndefined
}

// conversion is what git does to one path's content between the worktree
// and the object store.
type conversion struct {
	action crlfAction
	// driver is the clean/smudge filter git runs (a filter attribute whose
	// driver has a clean, smudge or process command configured).
	driver string
	// ident is the ident attribute ($Id$ expansion).
	ident bool
	// encoding is a working-tree-encoding other than UTF-8.
	encoding string
}

// conversionOf decides the conversion of path p like git's
// convert_attrs: the text attribute (the crlf attribute when text says
// nothing), refined by eol, then core.eol and core.autocrlf.
func conversionOf(at map[string]attrState, s *settings) conversion {
	action := crlfFromAttr(at["text"])
	if action == crlfUndefined {
		action = crlfFromAttr(at["crlf"])
	}
	if action != crlfBinary {
		eol := at["eol"]
		lf := eol.state == attrValue && eol.value == "lf"
		crlf := eol.state == attrValue && eol.value == "crlf"
		switch {
		case action == crlfAuto && lf:
			action = crlfAutoInput
		case action == crlfAuto && crlf:
			action = crlfAutoCRLF
		case lf:
			action = crlfTextInput
		case crlf:
			action = crlfTextCRLF
		}
	}
	switch {
	case action == crlfText && s.textEOLIsCRLF():
		action = crlfTextCRLF
	case action == crlfText:
		action = crlfTextInput
	case action == crlfUndefined && s.autocrlf == "true":
		action = crlfAutoCRLF
	case action == crlfUndefined && s.autocrlf == "input":
		action = crlfAutoInput
	case action == crlfUndefined:
		action = crlfBinary
	}
	c := conversion{action: action}
	if f := at["filter"]; f.state == attrValue && f.value != "" && s.cfg != nil {
		for _, key := range []string{"clean", "smudge", "process"} {
			if s.cfg.get("filter", f.value, key) != "" {
				c.driver = f.value
				break
			}
		}
	}
	c.ident = at["ident"].state == attrSet
	if enc := at["working-tree-encoding"]; enc.state == attrValue && enc.value != "" && !isUTF8Name(enc.value) {
		c.encoding = enc.value
	}
	return c
}

// isUTF8Name reports whether an encoding name is UTF-8 (git's
// is_encoding_utf8).
func isUTF8Name(s string) bool { return strings.EqualFold(s, "utf-8") || strings.EqualFold(s, "utf8") }

// textEOLIsCRLF is git's text_eol_is_crlf: the line ending that text
// files get in the worktree when no eol attribute says (core.autocrlf
// first, then core.eol; native is LF here).
func (s *settings) textEOLIsCRLF() bool {
	switch s.autocrlf {
	case "true":
		return true
	case "input":
		return false
	}
	return s.eol == "crlf"
}

// outputCRLF is git's output_eol(action) == EOL_CRLF.
func (s *settings) outputCRLF(a crlfAction) bool {
	switch a {
	case crlfTextCRLF, crlfAutoCRLF, crlfUndefined:
		return true
	case crlfText, crlfAuto:
		return s.textEOLIsCRLF()
	}
	return false
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

// addCR turns every LF not preceded by CR into CRLF (git's
// crlf_to_worktree).
func addCR(b []byte, lonelf int) []byte {
	out := make([]byte, 0, len(b)+lonelf)
	for i := 0; i < len(b); i++ {
		if b[i] == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
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
	root string
	conv *Converter
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
	if h.conv != nil {
		action = h.conv.conversion(p).action
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
	var index func() ([]byte, bool)
	if h.indexBlob != nil {
		index = func() ([]byte, bool) { return h.indexBlob(p) }
	}
	return blobHash(cleanCRLF(b, action, index)), nil
}

// cleanCRLF is git's crlf_to_git: CRLF → LF unless the action is binary,
// or (text=auto and core.autocrlf) the content looks binary or the index's
// version of the file (indexBlob, nil to skip the check, as git apply and
// renormalizing do) already has CRLFs.
func cleanCRLF(b []byte, action crlfAction, indexBlob func() ([]byte, bool)) []byte {
	if action == crlfBinary || len(b) == 0 || !bytes.Contains(b, []byte("\r\n")) {
		return b
	}
	if action.auto() {
		st := gatherStats(b)
		if st.isBinary() {
			return b
		}
		if indexBlob != nil {
			if blob, ok := indexBlob(); ok && bytes.IndexByte(blob, '\r') >= 0 {
				bs := gatherStats(blob)
				if !bs.isBinary() && bs.crlf > 0 {
					return b
				}
			}
		}
	}
	return stripCRLF(b)
}

// Converter applies git's end-of-line conversion between the worktree and
// the object store for one repository: Clean turns worktree content into
// the blob `git add` stores, Smudge turns a blob into the bytes `git
// checkout` writes. The conversion of a path follows its text, crlf and eol
// attributes (macros such as binary included), core.autocrlf and core.eol,
// as git's convert.c decides it. Clean/smudge filters, ident and
// working-tree-encoding are never applied: Unsupported names them for a
// path, for callers to report.
//
// In-tree .gitattributes files come from the sources given, the first that
// has a file winning; the others (the system and global files,
// info/attributes) from disk. A Converter caches what it read and is safe
// for concurrent use.
type Converter struct {
	s     *settings
	attrs *attrChecker
}

// NewConverter reads r's configuration and the attribute files outside
// the tree; sources give the in-tree .gitattributes files, in the order
// git reads them for the operation (for cleaning: the worktree, then the
// index; for a checkout: the index written, then the worktree).
func NewConverter(r *repo.Repo, sources ...AttrSource) *Converter {
	s := newSettings(loadConfig(r))
	return &Converter{s: s, attrs: newAttrChecker(r.CommonDir, s, sources...)}
}

// WithSources returns a Converter with the same configuration and
// out-of-tree attributes that reads in-tree attribute files from other
// sources.
func (c *Converter) WithSources(sources ...AttrSource) *Converter {
	a := c.attrs
	return &Converter{s: c.s, attrs: &attrChecker{sources: sources, system: a.system, global: a.global, info: a.info,
		sigs: a.sigs, dirs: make(map[string][]attrRule)}}
}

// conversion returns the conversion of path p.
func (c *Converter) conversion(p string) conversion {
	return conversionOf(c.attrs.lookup(p), c.s)
}

// Converts reports whether Clean or Smudge may change path p's content
// (its end-of-line conversion is not "binary").
func (c *Converter) Converts(p string) bool { return c.conversion(p).action != crlfBinary }

// Clean returns content as git would store it for path p (repository
// relative). indexBlob, if non-nil, returns the index's current blob of p:
// git's "safe autocrlf" rule leaves a file alone whose indexed version
// already has CRLFs (git apply and renormalizing skip that rule: pass
// nil). Content that needs no conversion is returned as is.
func (c *Converter) Clean(p string, content []byte, indexBlob func() ([]byte, bool)) []byte {
	return cleanCRLF(content, c.conversion(p).action, indexBlob)
}

// Smudge returns a blob's content as git would write it to the worktree
// file p: LF turned into CRLF when the path's line ending is CRLF (for
// text=auto and core.autocrlf only in files that look like text and have
// no CR yet). Content that needs no conversion is returned as is.
func (c *Converter) Smudge(p string, blob []byte) []byte {
	action := c.conversion(p).action
	if len(blob) == 0 || !c.s.outputCRLF(action) {
		return blob
	}
	st := gatherStats(blob)
	if st.lonelf == 0 {
		return blob
	}
	if action.auto() && (st.lonecr > 0 || st.crlf > 0 || st.isBinary()) {
		return blob
	}
	return addCR(blob, st.lonelf)
}

// Unsupported returns what git would do to path p's content that meith
// does not, as attributes ("filter=lfs", "working-tree-encoding=UTF-16",
// "ident", space-separated), or "" when nothing. A filter counts only
// when its driver has a clean, smudge or process command configured (git
// ignores a filter attribute without one).
func (c *Converter) Unsupported(p string) string {
	cv := c.conversion(p)
	var parts []string
	if cv.driver != "" {
		parts = append(parts, "filter="+cv.driver)
	}
	if cv.encoding != "" {
		parts = append(parts, "working-tree-encoding="+cv.encoding)
	}
	if cv.ident {
		parts = append(parts, "ident")
	}
	return strings.Join(parts, " ")
}

// Unconverted is a file whose content was read or written without a
// conversion git would have applied (see Converter.Unsupported).
type Unconverted struct {
	Path string `json:"path"`
	// What is what the attributes ask for: "filter=lfs", "ident",
	// "working-tree-encoding=UTF-16", space-separated.
	What string `json:"what"`
}
