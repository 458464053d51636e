package status

import (
	"path/filepath"
	"strings"
	"sync"

	"github.com/meith-dev/meith/backend/git/patch"
	"github.com/meith-dev/meith/backend/git/repo"
)

// Attribute states (git's ATTR__TRUE, ATTR__FALSE, ATTR__UNSET and a
// value), plus attrUnknown: no line decided the attribute yet.
const (
	attrUnknown = iota
	attrSet
	attrUnset
	attrUnspecified
	attrValue
)

// attrState is the state of one attribute for one path.
type attrState struct {
	state int
	value string // with attrValue
}

// attrAssign is one "name", "-name", "!name" or "name=value" of a line.
type attrAssign struct {
	name string
	attrState
}

// attrRule is one line of an attributes file: a pattern (or a macro
// definition) and its assignments, in line order.
type attrRule struct {
	pat     ignorePattern
	macro   string // "[attr]name": the macro's name; pat is unused
	assigns []attrAssign
}

// maxAttrLine is the longest attributes line git reads (attr.c's
// ATTR_MAX_LINE_LENGTH); longer lines are skipped, as git does.
const maxAttrLine = 2048

// parseAttributes parses the text of an attributes file whose directory
// is base ("" or "a/b/"). Macro definitions are kept only where git allows
// them (macrosOK: the root .gitattributes, info/attributes, the global and
// system files). Lines git rejects (an invalid attribute name, a negative
// pattern, a macro elsewhere) are skipped whole.
func parseAttributes(b []byte, base string, macrosOK bool) []attrRule {
	s := strings.TrimPrefix(string(b), "\xef\xbb\xbf")
	var out []attrRule
	for len(s) > 0 {
		line := s
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			line, s = s[:nl], s[nl+1:]
		} else {
			s = ""
		}
		if len(line) >= maxAttrLine {
			continue
		}
		if r, ok := parseAttrLine(line, base, macrosOK); ok {
			out = append(out, r)
		}
	}
	return out
}

const attrBlank = " \t\r\n"

func parseAttrLine(line, base string, macrosOK bool) (attrRule, bool) {
	line = strings.TrimLeft(line, attrBlank)
	if line == "" || line[0] == '#' {
		return attrRule{}, false
	}
	var pat string
	if line[0] == '"' {
		p, rest, ok := patch.UnquoteC(line)
		if !ok {
			return attrRule{}, false
		}
		pat, line = p, rest
	} else {
		end := strings.IndexAny(line, attrBlank)
		if end < 0 {
			end = len(line)
		}
		pat, line = line[:end], line[end:]
	}
	var r attrRule
	if name, ok := strings.CutPrefix(pat, "[attr]"); ok {
		if !macrosOK || !validAttrName(name) {
			return attrRule{}, false
		}
		r.macro = name
	} else {
		if pat == "" || pat[0] == '!' {
			return attrRule{}, false // negative patterns are ignored in attributes
		}
		r.pat = newIgnorePattern(pat, base)
	}
	for _, tok := range strings.FieldsFunc(line, func(c rune) bool { return strings.ContainsRune(attrBlank, c) }) {
		var a attrAssign
		switch tok[0] {
		case '-':
			a.name, a.state = tok[1:], attrUnset
		case '!':
			a.name, a.state = tok[1:], attrUnspecified
		default:
			if name, value, ok := strings.Cut(tok, "="); ok {
				a.name, a.state, a.value = name, attrValue, value
			} else {
				a.name, a.state = tok, attrSet
			}
		}
		if !validAttrName(a.name) || strings.HasPrefix(a.name, "builtin_") {
			return attrRule{}, false
		}
		r.assigns = append(r.assigns, a)
	}
	return r, true
}

// validAttrName is git's attr_name_valid: letters, digits, '-', '_' and
// '.', not starting with '-'.
func validAttrName(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '-' && c != '_' && c != '.' && !('0' <= c && c <= '9') && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

// builtinAttributes is git's built-in macro: binary = -diff -merge -text.
var builtinAttributes = parseAttributes([]byte("[attr]binary -diff -merge -text\n"), "", true)

// AttrSource returns the content of an in-tree attributes file, given its
// repository path ("a/b/.gitattributes"), and false when there is none
// (or it cannot be read). A Converter consults its sources in order and
// takes the first that has the file: git reads the worktree first and the
// index second when it cleans files, the index first when a checkout
// writes them.
type AttrSource func(p string) ([]byte, bool)

// WorktreeAttributes reads .gitattributes files from the worktree at root
// through the bounded reader, refusing symlinks and anything but a regular
// file, as git does for in-tree attribute files.
func WorktreeAttributes(root string) AttrSource {
	return func(p string) ([]byte, bool) {
		b, err := repo.ReadRegularNoFollow(filepath.Join(root, filepath.FromSlash(p)), repo.MaxTextFileBytes)
		return b, err == nil
	}
}

// attrChecker finds the attributes of paths from, lowest priority first:
// the built-in binary macro, the system file ($(sysconfdir)/gitattributes
// unless GIT_ATTR_NOSYSTEM), core.attributesFile (default
// $XDG_CONFIG_HOME/git/attributes), the in-tree .gitattributes files from
// the root down (each read from the first source that has it), and
// $GIT_COMMON_DIR/info/attributes. Files are read lazily and cached; the
// signatures of the files read from disk tell when to read them again.
type attrChecker struct {
	sources []AttrSource
	// system, global and info are the rules outside the tree.
	system, global, info []attrRule

	mu   sync.Mutex
	dirs map[string][]attrRule
	// macros are the macro definitions, highest priority first per name
	// (once the root's file is read).
	macros map[string]*attrRule
	// sigs are the signatures of the files outside the tree.
	sigs []fileSig
}

func newAttrChecker(commonDir string, s *settings, sources ...AttrSource) *attrChecker {
	a := &attrChecker{sources: sources, dirs: make(map[string][]attrRule)}
	read := func(p string) []attrRule {
		a.sigs = append(a.sigs, sigOf(p))
		b, err := repo.ReadRegular(p, repo.MaxTextFileBytes)
		if err != nil {
			return nil
		}
		return parseAttributes(b, "", true)
	}
	if !envBool("GIT_ATTR_NOSYSTEM") {
		a.system = read("/etc/gitattributes")
	}
	if s.attributesFile != "" {
		a.global = read(s.attributesFile)
	}
	a.info = read(filepath.Join(commonDir, "info", "attributes"))
	return a
}

// unchanged reports whether the attribute files outside the tree are
// still those read.
func (a *attrChecker) unchanged() bool { return sigsUnchanged(a.sigs) }

// dirRules returns the rules of the .gitattributes file of dir ("" or
// "a/b/").
func (a *attrChecker) dirRules(dir string) []attrRule {
	a.mu.Lock()
	rules, ok := a.dirs[dir]
	a.mu.Unlock()
	if ok {
		return rules
	}
	for _, src := range a.sources {
		if b, ok := src(dir + ".gitattributes"); ok {
			rules = parseAttributes(b, dir, dir == "")
			break
		}
	}
	a.mu.Lock()
	a.dirs[dir] = rules
	a.mu.Unlock()
	return rules
}

// macroTable returns the macro definitions in effect: for each name, the
// definition of highest priority (info/attributes, the root
// .gitattributes, the global file, the system file, the built-in one).
func (a *attrChecker) macroTable() map[string]*attrRule {
	a.mu.Lock()
	m := a.macros
	a.mu.Unlock()
	if m != nil {
		return m
	}
	m = make(map[string]*attrRule)
	for _, rules := range [][]attrRule{a.info, a.dirRules(""), a.global, a.system, builtinAttributes} {
		for i := len(rules) - 1; i >= 0; i-- {
			if r := &rules[i]; r.macro != "" && m[r.macro] == nil {
				m[r.macro] = r
			}
		}
	}
	a.mu.Lock()
	a.macros = m
	a.mu.Unlock()
	return m
}

// lookup returns the states of the attributes of path p (repository
// relative, a file): like git's fill(), it takes the rules from the
// highest priority down, each line's assignments from its last, and lets
// the first assignment of a name decide it; an attribute set to true that
// is a macro assigns the macro's attributes at the same place.
func (a *attrChecker) lookup(p string) map[string]attrState {
	basename := p[strings.LastIndexByte(p, '/')+1:]
	var stacks [][]attrRule
	stacks = append(stacks, a.info)
	var dirs []string
	dirs = append(dirs, "")
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			dirs = append(dirs, p[:i+1])
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		stacks = append(stacks, a.dirRules(dirs[i]))
	}
	stacks = append(stacks, a.global, a.system)
	macros := a.macroTable()

	out := make(map[string]attrState)
	var fill func(assigns []attrAssign)
	fill = func(assigns []attrAssign) {
		for i := len(assigns) - 1; i >= 0; i-- {
			as := assigns[i]
			if _, done := out[as.name]; done {
				continue
			}
			out[as.name] = as.attrState
			if m := macros[as.name]; m != nil && as.state == attrSet {
				fill(m.assigns)
			}
		}
	}
	for _, rules := range stacks {
		for i := len(rules) - 1; i >= 0; i-- {
			r := &rules[i]
			if r.macro == "" && r.pat.matches(p, basename, false) {
				fill(r.assigns)
			}
		}
	}
	return out
}

// worktreeAttrs is the worktree source of an Engine's attributes: it keeps
// the signatures of the files it read (missing ones too), so the engine
// can tell when an in-tree .gitattributes changed.
type worktreeAttrs struct {
	root string
	mu   sync.Mutex
	sigs []fileSig
}

func (w *worktreeAttrs) read(p string) ([]byte, bool) {
	abs := filepath.Join(w.root, filepath.FromSlash(p))
	sig := sigOf(abs)
	w.mu.Lock()
	w.sigs = append(w.sigs, sig)
	w.mu.Unlock()
	b, err := repo.ReadRegularNoFollow(abs, repo.MaxTextFileBytes)
	return b, err == nil
}

func (w *worktreeAttrs) unchanged() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return sigsUnchanged(w.sigs)
}
