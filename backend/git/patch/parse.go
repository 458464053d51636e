package patch

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// ParseError says that a patch could not be parsed; Line is the 1-based line
// of the patch text where the problem was found.
type ParseError struct {
	Line   int
	Reason string
}

// Error implements error.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("corrupt patch at line %d: %s", e.Line, e.Reason)
	}
	return "corrupt patch: " + e.Reason
}

// IsParseError reports whether err is a *ParseError.
func IsParseError(err error) bool {
	var pe *ParseError
	return errors.As(err, &pe)
}

// Parse reads a (possibly multi-file) unified diff the way "git apply" does:
// "diff --git" headers with plain or C-quoted paths, mode lines, new and
// deleted files, renames and copies, index lines, binary markers, hunks
// (including zero-length ranges) and "\ No newline at end of file". Plain
// "---"/"+++" patches without a git header are accepted too. Text before,
// between and after file patches that is not part of one is ignored, like
// git apply does. Content lines keep their bytes: a "\r" before the newline
// is part of the line. A patch whose last line lacks its newline is read as
// if it had one. The returned lines share memory with patch.
//
// Like git apply it refuses hunks whose line counts do not match the header,
// hunks without any added or deleted line, a hunk before any file header,
// and a file header with neither hunks nor a metadata change.
func Parse(patch []byte) ([]FilePatch, error) {
	if len(patch) > 0 && patch[len(patch)-1] != '\n' {
		patch = append(patch[:len(patch):len(patch)], '\n')
	}
	p := &parser{lines: SplitLines(patch)}
	var out []FilePatch
	for {
		fp, ok, err := p.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		out = append(out, fp)
	}
	if len(out) == 0 {
		return nil, &ParseError{Reason: "no file patch found"}
	}
	return out, nil
}

type parser struct {
	lines [][]byte
	i     int // index of the next line to read
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{Line: line + 1, Reason: fmt.Sprintf(format, args...)}
}

// next finds the next file header and reads its hunks.
func (p *parser) next() (FilePatch, bool, error) {
	var fp FilePatch
	found := false
	for ; p.i < len(p.lines); p.i++ {
		l := p.lines[p.i]
		if bytes.HasPrefix(l, []byte("@@ -")) {
			if _, ok := parseHunkHeader(l); ok {
				return fp, false, p.errorf(p.i, "hunk %q has no file header", strings.TrimRight(string(l), "\n"))
			}
			continue
		}
		if bytes.HasPrefix(l, []byte("diff --git ")) {
			var err error
			fp, err = p.gitHeader()
			if err != nil {
				return fp, false, err
			}
			found = true
			break
		}
		if bytes.HasPrefix(l, []byte("--- ")) && p.i+2 < len(p.lines) &&
			bytes.HasPrefix(p.lines[p.i+1], []byte("+++ ")) && bytes.HasPrefix(p.lines[p.i+2], []byte("@@ -")) {
			var err error
			fp, err = p.traditionalHeader()
			if err != nil {
				return fp, false, err
			}
			found = true
			break
		}
	}
	if !found {
		return fp, false, nil
	}
	headerEnd := p.i
	for p.i < len(p.lines) && bytes.HasPrefix(p.lines[p.i], []byte("@@ -")) {
		h, err := p.hunk()
		if err != nil {
			return fp, false, err
		}
		fp.Hunks = append(fp.Hunks, h)
	}
	if len(fp.Hunks) == 0 {
		if p.i < len(p.lines) {
			l := string(p.lines[p.i])
			if l == "GIT binary patch\n" {
				fp.IsBinary = true
				p.i++
				p.skipBinaryData()
			} else if (strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "Files ")) && strings.HasSuffix(l, " differ\n") {
				fp.IsBinary = true
				p.i++
			}
		}
		if !fp.IsBinary && !fp.IsRename && !fp.IsCopy && !fp.IsNew && !fp.IsDelete &&
			!(fp.OldMode != filemode.Empty && fp.NewMode != filemode.Empty && fp.OldMode != fp.NewMode) {
			return fp, false, p.errorf(headerEnd, "file patch for %s has no hunks and no metadata change", fp.Path())
		}
	}
	for _, h := range fp.Hunks {
		if fp.IsNew && h.OldLines > 0 {
			return fp, false, p.errorf(headerEnd, "new file %s depends on old contents", fp.Path())
		}
		if fp.IsDelete && h.NewLines > 0 {
			return fp, false, p.errorf(headerEnd, "deleted file %s still has contents", fp.Path())
		}
	}
	return fp, true, nil
}

// skipBinaryData skips the base-85 hunks of a "GIT binary patch".
func (p *parser) skipBinaryData() {
	for k := 0; k < 2 && p.i < len(p.lines); k++ {
		l := p.lines[p.i]
		if !bytes.HasPrefix(l, []byte("literal ")) && !bytes.HasPrefix(l, []byte("delta ")) {
			return
		}
		p.i++
		for p.i < len(p.lines) && len(p.lines[p.i]) > 1 {
			p.i++
		}
		if p.i < len(p.lines) {
			p.i++ // the blank line that ends the hunk
		}
	}
}

// gitHeader reads a "diff --git" line and its extended header lines
// (git apply's parse_git_diff_header).
func (p *parser) gitHeader() (FilePatch, error) {
	var fp FilePatch
	start := p.i
	defName, _ := gitHeaderName(string(p.lines[p.i]))
	var oldName, newName string
	var oldNull, newNull bool
	extensions := 0
	p.i++
loop:
	for ; p.i < len(p.lines); p.i++ {
		l := string(p.lines[p.i])
		rest := func(prefix string) (string, bool) {
			if strings.HasPrefix(l, prefix) {
				return l[len(prefix):], true
			}
			return "", false
		}
		if _, ok := rest("@@ -"); ok {
			break
		}
		if s, ok := rest("--- "); ok {
			if isDevNull(s) {
				oldNull = true
				if !fp.IsNew && oldName == "" {
					fp.IsNew = true
					extensions++
				}
				continue
			}
			name, ok := findName(s, 1, true)
			if !ok {
				return fp, p.errorf(p.i, "cannot read the old file name")
			}
			if oldName != "" && name != oldName {
				return fp, p.errorf(p.i, "inconsistent old file name %q (expected %q)", name, oldName)
			}
			oldName = name
			continue
		}
		if s, ok := rest("+++ "); ok {
			if isDevNull(s) {
				newNull = true
				if !fp.IsDelete && newName == "" {
					fp.IsDelete = true
					extensions++
				}
				continue
			}
			name, ok := findName(s, 1, true)
			if !ok {
				return fp, p.errorf(p.i, "cannot read the new file name")
			}
			if newName != "" && name != newName {
				return fp, p.errorf(p.i, "inconsistent new file name %q (expected %q)", name, newName)
			}
			newName = name
			continue
		}
		var err error
		switch {
		case strings.HasPrefix(l, "old mode "):
			fp.OldMode, err = parseMode(l[len("old mode "):])
		case strings.HasPrefix(l, "new mode "):
			fp.NewMode, err = parseMode(l[len("new mode "):])
		case strings.HasPrefix(l, "deleted file mode "):
			if !fp.IsDelete {
				fp.IsDelete = true
				extensions++
			}
			fp.OldMode, err = parseMode(l[len("deleted file mode "):])
		case strings.HasPrefix(l, "new file mode "):
			if !fp.IsNew {
				fp.IsNew = true
				extensions++
			}
			fp.NewMode, err = parseMode(l[len("new file mode "):])
		case strings.HasPrefix(l, "copy from "), strings.HasPrefix(l, "copy to "):
			if !fp.IsCopy {
				fp.IsCopy = true
				extensions++
			}
			from := strings.HasPrefix(l, "copy from ")
			s := strings.TrimPrefix(strings.TrimPrefix(l, "copy from "), "copy to ")
			name, ok := findName(s, 0, false)
			if !ok {
				return fp, p.errorf(p.i, "cannot read the copy's file name")
			}
			if from {
				oldName = name
			} else {
				newName = name
			}
		case strings.HasPrefix(l, "rename from "), strings.HasPrefix(l, "rename to "),
			strings.HasPrefix(l, "rename old "), strings.HasPrefix(l, "rename new "):
			if !fp.IsRename {
				fp.IsRename = true
				extensions++
			}
			from := strings.HasPrefix(l, "rename from ") || strings.HasPrefix(l, "rename old ")
			s := l[strings.IndexByte(l[len("rename "):], ' ')+len("rename ")+1:]
			name, ok := findName(s, 0, false)
			if !ok {
				return fp, p.errorf(p.i, "cannot read the rename's file name")
			}
			if from {
				oldName = name
			} else {
				newName = name
			}
		case strings.HasPrefix(l, "similarity index "), strings.HasPrefix(l, "dissimilarity index "):
			s := l[strings.Index(l, "index ")+len("index "):]
			n := 0
			for n < len(s) && '0' <= s[n] && s[n] <= '9' {
				n++
			}
			if v, e := strconv.Atoi(s[:n]); e == nil && v <= 100 && strings.HasPrefix(l, "similarity") {
				fp.Similarity = v
			}
		case strings.HasPrefix(l, "index "):
			fp.parseIndex(l[len("index "):])
		default:
			break loop
		}
		if err != nil {
			return fp, p.errorf(p.i, "%v", err)
		}
		if extensions > 1 {
			return fp, p.errorf(p.i, "inconsistent header lines (new, deleted, rename and copy exclude each other)")
		}
	}
	if fp.IsNew && oldName != "" && !oldNull {
		return fp, p.errorf(start, "new file %s has an old file name", oldName)
	}
	if fp.IsDelete && newName != "" && !newNull {
		return fp, p.errorf(start, "deleted file %s has a new file name", newName)
	}
	switch {
	case fp.IsNew:
		if newName == "" {
			newName = defName
		}
		oldName = newName
	case fp.IsDelete:
		if oldName == "" {
			oldName = defName
		}
		newName = oldName
	case oldName == "" && newName == "":
		oldName, newName = defName, defName
	case oldName == "":
		oldName = newName
	case newName == "":
		newName = oldName
	}
	if oldName == "" || newName == "" {
		return fp, p.errorf(start, "git diff header lacks file name information")
	}
	if oldName != newName && !fp.IsRename && !fp.IsCopy {
		return fp, p.errorf(start, "old and new file names differ (%q, %q) but the patch is no rename or copy", oldName, newName)
	}
	fp.OldPath, fp.NewPath = oldName, newName
	return fp, nil
}

// traditionalHeader reads a "--- a/x" / "+++ b/x" pair without a git header.
func (p *parser) traditionalHeader() (FilePatch, error) {
	var fp FilePatch
	first, second := string(p.lines[p.i][4:]), string(p.lines[p.i+1][4:])
	name := func(s string) (string, bool) {
		s = stripTimestamp(s)
		strip := 1
		if !strings.Contains(strings.TrimSuffix(s, "\n"), "/") {
			strip = 0
		}
		return findName(s, strip, true)
	}
	switch {
	case isDevNull(first):
		n, ok := name(second)
		if !ok {
			return fp, p.errorf(p.i+1, "cannot read the file name")
		}
		fp.IsNew, fp.OldPath, fp.NewPath = true, n, n
	case isDevNull(second):
		n, ok := name(first)
		if !ok {
			return fp, p.errorf(p.i, "cannot read the file name")
		}
		fp.IsDelete, fp.OldPath, fp.NewPath = true, n, n
	default:
		n1, ok1 := name(first)
		n2, ok2 := name(second)
		if !ok1 || !ok2 {
			return fp, p.errorf(p.i, "cannot read the file name")
		}
		// Like git, prefer the shorter name when the other one only adds
		// something at its end ("file.orig").
		if len(n1) < len(n2) && strings.HasPrefix(n2, n1) {
			n2 = n1
		}
		fp.OldPath, fp.NewPath = n2, n2
	}
	p.i += 2
	return fp, nil
}

// stripTimestamp removes a tab-separated timestamp after a plain name.
func stripTimestamp(s string) string {
	if strings.HasPrefix(s, `"`) {
		return s
	}
	if i := strings.IndexByte(s, '\t'); i >= 0 {
		return s[:i] + "\n"
	}
	return s
}

func isDevNull(s string) bool {
	return strings.HasPrefix(s, "/dev/null") && len(s) > len("/dev/null") && isSpace(s[len("/dev/null")])
}

func parseMode(s string) (filemode.FileMode, error) {
	n := 0
	for n < len(s) && isOctal(s[n]) {
		n++
	}
	if n == 0 || n == len(s) || !isSpace(s[n]) {
		return filemode.Empty, errors.New("invalid file mode")
	}
	v, err := strconv.ParseUint(s[:n], 8, 32)
	if err != nil {
		return filemode.Empty, errors.New("invalid file mode")
	}
	return filemode.FileMode(v), nil
}

// parseIndex reads "<old>..<new>[ <mode>]" (git apply's gitdiff_index).
func (fp *FilePatch) parseIndex(s string) {
	s = strings.TrimSuffix(s, "\n")
	dots := strings.Index(s, "..")
	if dots < 0 || dots > 64 {
		return
	}
	oldHash, rest := s[:dots], s[dots+2:]
	newHash, mode, hasMode := strings.Cut(rest, " ")
	if len(newHash) > 64 {
		return
	}
	fp.OldHash, fp.NewHash = oldHash, newHash
	if hasMode {
		if m, err := parseMode(mode + "\n"); err == nil {
			fp.OldMode, fp.NewMode = m, m
		}
	}
}

// findName reads a file name from a header line (the text after "--- ",
// "rename from " and so on, newline included): C-quoted, or plain up to the
// end of line (or the first tab when tabEnds). The first strip path
// components ("a/") are removed and repeated slashes squashed.
func findName(s string, strip int, tabEnds bool) (string, bool) {
	var name string
	if strings.HasPrefix(s, `"`) {
		n, _, ok := UnquoteC(s)
		if !ok {
			return "", false
		}
		name = n
	} else {
		end := strings.IndexByte(s, '\n')
		if end < 0 {
			end = len(s)
		}
		if tabEnds {
			if t := strings.IndexByte(s[:end], '\t'); t >= 0 {
				end = t
			}
		}
		name = s[:end]
	}
	for ; strip > 0; strip-- {
		slash := strings.IndexByte(name, '/')
		if slash < 0 {
			return "", false
		}
		name = name[slash+1:]
	}
	for strings.Contains(name, "//") {
		name = strings.ReplaceAll(name, "//", "/")
	}
	return name, name != ""
}

// gitHeaderName extracts the file name from a "diff --git a/X b/X" line when
// both sides name the same file (git apply's git_header_name); it fails for
// renames, which name their files elsewhere.
func gitHeaderName(line string) (string, bool) {
	line = strings.TrimPrefix(line, "diff --git ")
	line = strings.TrimSuffix(line, "\n")
	skipPrefix := func(s string) (string, bool) {
		i := strings.IndexByte(s, '/')
		if i <= 0 {
			return "", false
		}
		return s[i+1:], true
	}
	if strings.HasPrefix(line, `"`) {
		first, rest, ok := UnquoteC(line)
		if !ok {
			return "", false
		}
		if first, ok = skipPrefix(first); !ok {
			return "", false
		}
		rest = strings.TrimLeft(rest, " \t")
		var second string
		if strings.HasPrefix(rest, `"`) {
			if second, _, ok = UnquoteC(rest); !ok {
				return "", false
			}
		} else {
			second = rest
		}
		if second, ok = skipPrefix(second); !ok || second != first {
			return "", false
		}
		return first, true
	}
	name, ok := skipPrefix(line)
	if !ok {
		return "", false
	}
	// The first name is plain; a quote starts the second one.
	if q := strings.IndexByte(name, '"'); q >= 0 {
		second, _, ok := UnquoteC(name[q:])
		if !ok {
			return "", false
		}
		if second, ok = skipPrefix(second); !ok {
			return "", false
		}
		if len(second) < q && name[:len(second)] == second && isSpace(name[len(second)]) {
			return second, true
		}
		return "", false
	}
	// Both plain: accept a name only if it shows up twice, split at a space
	// or tab.
	for i := 0; i < len(name); i++ {
		if name[i] != ' ' && name[i] != '\t' {
			continue
		}
		second, ok := skipPrefix(name[i+1:])
		if !ok {
			continue
		}
		if second == name[:i] {
			return second, true
		}
	}
	return "", false
}

type hunkHeader struct {
	oldStart, oldLines, newStart, newLines int
	section                                string
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@[ section]\n".
func parseHunkHeader(l []byte) (hunkHeader, bool) {
	var h hunkHeader
	s := string(l)
	if !strings.HasPrefix(s, "@@ -") || !strings.HasSuffix(s, "\n") {
		return h, false
	}
	s = s[len("@@ -"):]
	var ok bool
	if h.oldStart, h.oldLines, s, ok = parseRange(s, " +"); !ok {
		return h, false
	}
	if h.newStart, h.newLines, s, ok = parseRange(s, " @@"); !ok {
		return h, false
	}
	h.section = strings.TrimPrefix(strings.TrimSuffix(s, "\n"), " ")
	return h, true
}

func parseRange(s, expect string) (start, count int, rest string, ok bool) {
	num := func(s string) (int, string, bool) {
		n := 0
		for n < len(s) && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 9 {
			return 0, s, false
		}
		v, _ := strconv.Atoi(s[:n])
		return v, s[n:], true
	}
	if start, s, ok = num(s); !ok {
		return 0, 0, s, false
	}
	count = 1
	if strings.HasPrefix(s, ",") {
		if count, s, ok = num(s[1:]); !ok {
			return 0, 0, s, false
		}
	}
	if !strings.HasPrefix(s, expect) {
		return 0, 0, s, false
	}
	return start, count, s[len(expect):], true
}

// hunk reads one hunk (git apply's parse_fragment).
func (p *parser) hunk() (Hunk, error) {
	start := p.i
	hh, ok := parseHunkHeader(p.lines[p.i])
	if !ok {
		return Hunk{}, p.errorf(p.i, "bad hunk header %q", strings.TrimRight(string(p.lines[p.i]), "\n"))
	}
	h := Hunk{OldStart: hh.oldStart, OldLines: hh.oldLines, NewStart: hh.newStart, NewLines: hh.newLines, Section: hh.section}
	oldLeft, newLeft := hh.oldLines, hh.newLines
	h.Lines = make([]Line, 0, oldLeft+newLeft)
	changes := false
	p.i++
	for oldLeft > 0 || newLeft > 0 {
		if p.i >= len(p.lines) {
			return h, p.errorf(start, "hunk %q ends early (%d old and %d new lines missing)", h.Header(), oldLeft, newLeft)
		}
		l := p.lines[p.i]
		switch l[0] {
		case '\n':
			// An empty context line, as newer GNU diff writes it.
			h.Lines = append(h.Lines, Line{Kind: Context, Text: l})
			oldLeft--
			newLeft--
		case ' ':
			h.Lines = append(h.Lines, Line{Kind: Context, Text: l[1:]})
			oldLeft--
			newLeft--
		case '-':
			h.Lines = append(h.Lines, Line{Kind: Deleted, Text: l[1:]})
			oldLeft--
			changes = true
		case '+':
			h.Lines = append(h.Lines, Line{Kind: Added, Text: l[1:]})
			newLeft--
			changes = true
		case '\\':
			if len(l) < 12 || l[1] != ' ' {
				return h, p.errorf(p.i, "bad line %q in hunk %q", strings.TrimRight(string(l), "\n"), h.Header())
			}
			h.noNewline()
		default:
			return h, p.errorf(p.i, "bad line %q in hunk %q (line counts do not match the header?)", strings.TrimRight(string(l), "\n"), h.Header())
		}
		if oldLeft < 0 || newLeft < 0 {
			return h, p.errorf(p.i, "hunk %q has more lines than its header says", h.Header())
		}
		p.i++
	}
	if p.i < len(p.lines) && len(p.lines[p.i]) >= 12 && bytes.HasPrefix(p.lines[p.i], []byte(`\ `)) {
		h.noNewline()
		p.i++
	}
	if !changes {
		return h, p.errorf(start, "hunk %q has no added or deleted lines", h.Header())
	}
	return h, nil
}

// noNewline applies a "\ No newline at end of file" marker to the hunk's
// last line.
func (h *Hunk) noNewline() {
	if n := len(h.Lines); n > 0 {
		t := h.Lines[n-1].Text
		if len(t) > 0 && t[len(t)-1] == '\n' {
			h.Lines[n-1].Text = t[:len(t)-1]
		}
	}
}
