package find

import (
	"path"
	"strings"
)

// maxGlobAlternatives bounds what the braces of a glob expand to.
const maxGlobAlternatives = 256

// globFilter decides which files a search reads, from a glob of the
// form people type in an editor's "files to include" box:
//
//   - several globs separated by commas; one starting with "!" excludes;
//   - "*" matches within a path element, "**" any number of elements,
//     "?" one character, "[a-z]" / "[!a-z]" a class, "{ts,tsx}" either;
//   - a glob without "/" matches any element of the path (the file's name,
//     or a folder on the way: "test" keeps the files under test folders);
//     one with "/" matches the path relative to the cwd from its start,
//     the file or a folder that holds it ("src/**/*.go", "docs").
//
// A file is read when it matches an including glob (or there is none)
// and no excluding one.
type globFilter struct {
	include, exclude []globPattern
}

// globPattern is one glob after brace expansion: the segments of a glob
// with "/", or one segment matched against every path element.
type globPattern struct {
	anyElement bool
	segs       []globSeg
}

// globSeg is one path element of a glob.
type globSeg struct {
	pat    string
	starAt bool   // "**"
	suffix string // pat is "*" + suffix (no other special character)
	plain  bool   // pat has no special character
}

// newGlobFilter compiles a glob ("" keeps every file).
func newGlobFilter(glob string) (*globFilter, error) {
	g := &globFilter{}
	for _, part := range splitTopLevel(glob) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		neg := strings.HasPrefix(part, "!")
		if neg {
			part = strings.TrimSpace(part[1:])
		}
		alts, err := expandBraces(part)
		if err != nil {
			return nil, err
		}
		for _, a := range alts {
			p, err := compileGlob(a)
			if err != nil {
				return nil, err
			}
			if neg {
				g.exclude = append(g.exclude, p)
			} else {
				g.include = append(g.include, p)
			}
		}
	}
	return g, nil
}

// empty reports whether the filter keeps every file.
func (g *globFilter) empty() bool { return len(g.include) == 0 && len(g.exclude) == 0 }

// keep reports whether the file at p (relative to the cwd, slash form) is
// read.
func (g *globFilter) keep(p string) bool {
	if len(g.include) > 0 {
		ok := false
		for i := range g.include {
			if g.include[i].match(p) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	for i := range g.exclude {
		if g.exclude[i].match(p) {
			return false
		}
	}
	return true
}

func (gp *globPattern) match(p string) bool {
	if gp.anyElement {
		s := &gp.segs[0]
		for p != "" {
			el := p
			if i := strings.IndexByte(p, '/'); i >= 0 {
				el, p = p[:i], p[i+1:]
			} else {
				p = ""
			}
			if s.match(el) {
				return true
			}
		}
		return false
	}
	return matchSegs(gp.segs, p)
}

// matchSegs matches the segments against the path p or a folder that
// holds it (the segments run out at an element boundary).
func matchSegs(segs []globSeg, p string) bool {
	if len(segs) == 0 {
		return true // p is under the folder matched so far (or is it)
	}
	if segs[0].starAt {
		// "**" takes no element, or one and stays.
		if matchSegs(segs[1:], p) {
			return true
		}
		if p == "" {
			return false
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return false // the rest would have to match nothing
		}
		return matchSegs(segs, p[i+1:])
	}
	if p == "" {
		return false
	}
	el, rest := p, ""
	if i := strings.IndexByte(p, '/'); i >= 0 {
		el, rest = p[:i], p[i+1:]
	}
	if !segs[0].match(el) {
		return false
	}
	if len(segs) == 1 {
		return true
	}
	return matchSegs(segs[1:], rest)
}

func (s *globSeg) match(el string) bool {
	switch {
	case s.starAt:
		return true
	case s.plain:
		return el == s.pat
	case s.suffix != "":
		return strings.HasSuffix(el, s.suffix)
	}
	ok, _ := path.Match(s.pat, el)
	return ok
}

// compileGlob compiles one glob without braces.
func compileGlob(g string) (globPattern, error) {
	g = strings.TrimPrefix(g, "./")
	anyElement := !strings.Contains(strings.TrimSuffix(g, "/"), "/")
	g = strings.Trim(g, "/")
	if g == "" {
		return globPattern{}, &QueryError{Field: "glob", Reason: "has an empty pattern"}
	}
	var segs []globSeg
	for _, el := range strings.Split(g, "/") {
		if el == "" {
			continue
		}
		s, err := compileSeg(el)
		if err != nil {
			return globPattern{}, err
		}
		if s.starAt && len(segs) > 0 && segs[len(segs)-1].starAt {
			continue
		}
		segs = append(segs, s)
	}
	return globPattern{anyElement: anyElement, segs: segs}, nil
}

func compileSeg(el string) (globSeg, error) {
	if el == "**" {
		return globSeg{starAt: true}, nil
	}
	// "**" inside an element means "*" there, as in git.
	for strings.Contains(el, "**") {
		el = strings.ReplaceAll(el, "**", "*")
	}
	pat := strings.ReplaceAll(el, "[!", "[^")
	if _, err := path.Match(pat, ""); err != nil {
		return globSeg{}, &QueryError{Field: "glob", Reason: "is not a valid glob (an unclosed [ or a trailing \\)"}
	}
	s := globSeg{pat: pat}
	switch special := strings.IndexAny(pat, `*?[\`); {
	case special < 0:
		s.plain = true
	case special == 0 && pat[0] == '*' && !strings.ContainsAny(pat[1:], `*?[\`) && len(pat) > 1:
		s.suffix = pat[1:]
	}
	return s, nil
}

// splitTopLevel splits a glob list at the commas outside braces and
// brackets.
func splitTopLevel(s string) []string {
	var out []string
	depth, inClass, start := 0, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '{':
			depth++
		case c == '}':
			if depth > 0 {
				depth--
			}
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// expandBraces expands "{a,b}" alternatives (nested too).
func expandBraces(g string) ([]string, error) {
	open := -1
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '{':
			open = i
		}
		if open >= 0 {
			break
		}
	}
	if open < 0 {
		if strings.ContainsRune(g, '}') && !strings.Contains(g, `\}`) {
			return nil, &QueryError{Field: "glob", Reason: "has a } without its {"}
		}
		return []string{g}, nil
	}
	// Find the matching close and the top-level commas inside.
	depth := 0
	var commas []int
	closeAt := -1
	for i := open; i < len(g) && closeAt < 0; i++ {
		switch g[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				closeAt = i
			}
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		}
	}
	if closeAt < 0 {
		return nil, &QueryError{Field: "glob", Reason: "has a { without its }"}
	}
	var alts []string
	from := open + 1
	for _, c := range append(commas, closeAt) {
		alts = append(alts, g[from:c])
		from = c + 1
	}
	var out []string
	for _, a := range alts {
		rest, err := expandBraces(g[:open] + a + g[closeAt+1:])
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
		if len(out) > maxGlobAlternatives {
			return nil, &QueryError{Field: "glob", Reason: "expands to too many alternatives"}
		}
	}
	return out, nil
}
