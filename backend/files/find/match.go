package find

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// matcher finds the matches of a query in a file's content, line by line
// (a match never spans lines). Most queries have a literal every match
// contains: the file is scanned for it with a fast byte search, and only
// the lines that hold it are matched with the regular expression (or,
// when the query is that literal, its occurrences are the matches).
type matcher struct {
	re *regexp.Regexp // the query; nil when exact
	// lit is a literal every match contains (nil: none usable): compared
	// byte for byte, or, with fold, ASCII-case-insensitively (it is then
	// lower case, and none of its letters folds to a non-ASCII rune).
	lit  []byte
	fold *foldLit
	// exact says the query is lit: its occurrences are the matches.
	exact bool
	// eol says the regexp has a "$", which does not match before "\r\n":
	// files with a "\r" are then matched line by line, each line without
	// its "\r".
	eol bool
}

// QueryError says a query or a glob cannot be used; Field names the
// argument ("query" or "glob").
type QueryError struct {
	Field  string
	Reason string
}

// Error implements error.
func (e *QueryError) Error() string { return e.Field + ": " + e.Reason }

// newMatcher compiles a query: a literal (isRegex false) or a Go regular
// expression (RE2 syntax), case-insensitive (Unicode simple folding) unless
// caseSensitive.
func newMatcher(query string, isRegex, caseSensitive bool) (*matcher, error) {
	if query == "" {
		return nil, &QueryError{Field: "query", Reason: "is empty: give the text or pattern to search for"}
	}
	if !utf8.ValidString(query) {
		return nil, &QueryError{Field: "query", Reason: "is not valid UTF-8"}
	}
	expr := query
	if !isRegex {
		if strings.ContainsAny(query, "\n\r") {
			return nil, &QueryError{Field: "query", Reason: "holds a line break: matches are found within one line"}
		}
		expr = regexp.QuoteMeta(query)
	}
	flags := "(?m)"
	if !caseSensitive {
		flags = "(?im)"
	}
	re, err := regexp.Compile(flags + expr)
	if err != nil {
		return nil, &QueryError{Field: "query", Reason: "is not a valid regular expression: " + regexpErrText(err)}
	}
	tree, err := syntax.Parse(flags+expr, syntax.Perl)
	if err != nil { // regexp.Compile parsed it the same way
		return nil, &QueryError{Field: "query", Reason: "is not a valid regular expression: " + regexpErrText(err)}
	}
	m := &matcher{re: re, eol: hasEOL(tree)}
	runes, fold := requiredLiteral(tree)
	whole := tree.Op == syntax.OpLiteral
	switch {
	case len(runes) == 0:
	case !fold:
		m.lit = []byte(string(runes))
		m.exact = whole
	default:
		run := longestFoldClosedRun(runes)
		if len(run) > 0 {
			m.lit = []byte(strings.ToLower(string(run)))
			m.fold = newFoldLit(m.lit)
			m.exact = whole && len(run) == len(runes)
		}
	}
	if m.exact {
		m.re = nil
	}
	return m, nil
}

// regexpErrText is a regexp error without the pattern it quotes (the
// query may be a secret): "missing closing ): `(a`" gives the first part.
func regexpErrText(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	return "cannot be compiled"
}

// requiredLiteral returns the longest literal that every match of re
// contains, and whether it is matched case-insensitively.
func requiredLiteral(re *syntax.Regexp) (lit []rune, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			l, f := requiredLiteral(sub)
			if len(l) > len(lit) || (len(l) == len(lit) && fold && !f) {
				lit, fold = l, f
			}
		}
	}
	return lit, fold
}

// hasEOL reports whether re has an end-of-line or end-of-text assertion.
func hasEOL(re *syntax.Regexp) bool {
	if re.Op == syntax.OpEndLine || re.Op == syntax.OpEndText {
		return true
	}
	for _, sub := range re.Sub {
		if hasEOL(sub) {
			return true
		}
	}
	return false
}

// foldClosed[c] says the ASCII byte c folds (Unicode simple folding) only
// to ASCII runes: "k" does not (the Kelvin sign folds to it), nor does "s"
// (the long s).
var foldClosed = func() (t [128]bool) {
	for c := rune(0); c < 128; c++ {
		t[c] = true
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				t[c] = false
			}
		}
	}
	return t
}()

// longestFoldClosedRun returns the longest run of runes folding only to
// ASCII: a case-insensitive match of runes contains it, ASCII-folded.
func longestFoldClosedRun(runes []rune) []rune {
	var best []rune
	start := 0
	for i := 0; i <= len(runes); i++ {
		if i < len(runes) && runes[i] < utf8.RuneSelf && foldClosed[runes[i]] {
			continue
		}
		if i-start > len(best) {
			best = runes[start:i]
		}
		start = i + 1
	}
	return best
}

// foldLit is an ASCII literal searched case-insensitively: the scan looks
// for its rarest byte (both cases), then compares around it.
type foldLit struct {
	lit    []byte // lower case
	anchor int    // the offset in lit of the byte scanned for
	lo, up byte   // the anchor's two cases (the same byte if not a letter)
}

func newFoldLit(lit []byte) *foldLit {
	f := &foldLit{lit: lit}
	for i := 1; i < len(lit); i++ {
		if byteRank(lit[i]) < byteRank(lit[f.anchor]) {
			f.anchor = i
		}
	}
	f.lo = lit[f.anchor]
	f.up = f.lo
	if 'a' <= f.lo && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// commonBytes lists bytes of source text from the most to the least
// common; a byte not listed is rare.
const commonBytes = " etaoinsrlcdhupmfgy\n\t.b,()_=;\"'/wv-k:0x1{}*2>j<[]q#z$3+48569%7&|!@?\\~`^"

// byteRank is how common c is in text (a letter counts both cases).
func byteRank(c byte) int {
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	if i := strings.IndexByte(commonBytes, c); i >= 0 {
		return len(commonBytes) - i
	}
	return 0
}

// foldScan is the state of one foldLit scan of one buffer: where the next
// occurrences of the anchor's two cases are (each byte is scanned once).
type foldScan struct {
	lo, up int // -1: not looked for yet
}

// index returns the offset of the first occurrence of the literal in s at
// or after from, or -1.
func (f *foldLit) index(s []byte, from int, st *foldScan) int {
	n := len(f.lit)
	for {
		p := from + f.anchor
		if from+n > len(s) {
			return -1
		}
		var a int
		if f.lo == f.up {
			i := bytes.IndexByte(s[p:len(s)-(n-1-f.anchor)], f.lo)
			if i < 0 {
				return -1
			}
			a = p + i
		} else {
			if st.lo < p {
				st.lo = nextByte2(s, p, f.lo)
			}
			if st.up < p {
				st.up = nextByte2(s, p, f.up)
			}
			a = min(st.lo, st.up)
			if a >= len(s) {
				return -1
			}
		}
		start := a - f.anchor
		if start+n > len(s) {
			return -1
		}
		if equalFoldASCII(s[start:start+n], f.lit) {
			return start
		}
		from = start + 1
	}
}

// nextByte2 returns the offset of c in s at or after p, or len(s).
func nextByte2(s []byte, p int, c byte) int {
	i := bytes.IndexByte(s[p:], c)
	if i < 0 {
		return len(s)
	}
	return p + i
}

// equalFoldASCII reports whether a equals the lower-case lit, ASCII case
// ignored.
func equalFoldASCII(a, lit []byte) bool {
	for i, c := range a {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// scan calls emit with the byte ranges of the matches in buf, in order,
// until emit returns false. Matches lie within one line: a line ends at
// "\n" (its "\r" before it is not part of what a regexp sees).
func (m *matcher) scan(buf []byte, emit func(start, end int) bool) {
	var st foldScan
	st.lo, st.up = -1, -1
	lineByLine := m.re != nil && m.lit == nil && m.eol && bytes.IndexByte(buf, '\r') >= 0
	pos := 0
	for pos < len(buf) {
		var cand int
		switch {
		case m.lit != nil:
			if m.fold != nil {
				cand = m.fold.index(buf, pos, &st)
			} else if i := bytes.Index(buf[pos:], m.lit); i >= 0 {
				cand = pos + i
			} else {
				cand = -1
			}
			if cand < 0 {
				return
			}
			if m.exact {
				if !emit(cand, cand+len(m.lit)) {
					return
				}
				pos = cand + len(m.lit)
				continue
			}
		case lineByLine:
			cand = pos
		default:
			loc := m.re.FindIndex(buf[pos:])
			if loc == nil {
				return
			}
			cand = pos + loc[0]
		}
		ls := pos
		if i := bytes.LastIndexByte(buf[pos:cand], '\n'); i >= 0 {
			ls = pos + i + 1
		}
		if ls >= len(buf) {
			return // past the last line
		}
		le := len(buf)
		if i := bytes.IndexByte(buf[cand:], '\n'); i >= 0 {
			le = cand + i
		}
		line := buf[ls:le]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		for _, loc := range m.re.FindAllIndex(line, -1) {
			if !emit(ls+loc[0], ls+loc[1]) {
				return
			}
		}
		pos = le + 1
	}
}
