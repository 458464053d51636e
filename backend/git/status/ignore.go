package status

import (
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/meith-dev/meith/backend/git/repo"
)

// ignorePattern is one parsed .gitignore line.
type ignorePattern struct {
	pattern string // without "!" and the trailing "/"
	// base is the directory of the file that holds the pattern ("" for
	// the root, else "a/b/").
	base          string
	negative      bool // "!pattern" re-includes
	mustBeDir     bool // "pattern/" matches directories only
	noDir         bool // no "/" in the pattern: matched against the basename
	endsWith      bool // "*literal": a suffix compare
	noWildcardLen int  // length of the leading part without glob characters
}

// parseIgnore parses the text of an ignore file whose directory is base.
func parseIgnore(text []byte, base string) []ignorePattern {
	s := string(text)
	s = strings.TrimPrefix(s, "\xef\xbb\xbf")
	var out []ignorePattern
	for len(s) > 0 {
		line := s
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			line, s = s[:nl], s[nl+1:]
		} else {
			s = ""
		}
		line = strings.TrimSuffix(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		line = trimTrailingSpaces(line)
		if line == "" {
			continue
		}
		out = append(out, newIgnorePattern(line, base))
	}
	return out
}

// trimTrailingSpaces drops unescaped trailing spaces, as git does.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i >= len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

func newIgnorePattern(p, base string) ignorePattern {
	ip := ignorePattern{base: base}
	if p[0] == '!' {
		ip.negative = true
		p = p[1:]
	}
	full := p
	if strings.HasSuffix(p, "/") {
		ip.mustBeDir = true
		p = p[:len(p)-1]
	}
	ip.noDir = !strings.Contains(p, "/")
	ip.noWildcardLen = simpleLength(p)
	if len(full) > 0 && full[0] == '*' && simpleLength(full[1:]) == len(full)-1 {
		ip.endsWith = true
	}
	ip.pattern = p
	return ip
}

func simpleLength(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// matches tests one pattern against a repository-relative path whose last
// component is basename.
func (ip *ignorePattern) matches(p, basename string, isDir bool) bool {
	if ip.mustBeDir && !isDir {
		return false
	}
	pat := ip.pattern
	if ip.noDir {
		switch {
		case ip.noWildcardLen == len(pat):
			return pat == basename
		case ip.endsWith:
			return strings.HasSuffix(basename, pat[1:])
		}
		return wildmatch(pat, basename, false)
	}
	if strings.HasPrefix(pat, "/") {
		pat = pat[1:]
	}
	rest, ok := strings.CutPrefix(p, ip.base)
	if !ok || rest == "" {
		return false
	}
	n := ip.noWildcardLen
	if strings.HasPrefix(ip.pattern, "/") {
		n--
	}
	if n > 0 {
		if n > len(rest) || pat[:n] != rest[:n] {
			return false
		}
		if n == len(pat) {
			return n == len(rest)
		}
	}
	return wildmatch(pat, rest, true)
}

// matchList returns whether a pattern of pats matches p, and if so whether
// that last matching pattern is a negation.
func matchList(pats []ignorePattern, p, basename string, isDir bool) (matched, negative bool) {
	for i := len(pats) - 1; i >= 0; i-- {
		if pats[i].matches(p, basename, isDir) {
			return true, pats[i].negative
		}
	}
	return false, false
}

// ignoreStack is the chain of per-directory .gitignore pattern lists that
// apply inside one directory, deepest first. It is immutable, so the
// parallel walk shares it freely.
type ignoreStack struct {
	parent *ignoreStack
	pats   []ignorePattern
}

// ignoreRules are the patterns that apply everywhere: .git/info/exclude,
// then core.excludesFile.
type ignoreRules struct {
	info, global []ignorePattern
	sigs         []fileSig
}

func loadIgnoreRules(r *repo.Repo, s *settings) *ignoreRules {
	rules := &ignoreRules{}
	info := filepath.Join(r.CommonDir, "info", "exclude")
	rules.sigs = append(rules.sigs, sigOf(info))
	if b, err := repo.ReadRegular(info, repo.MaxTextFileBytes); err == nil {
		rules.info = parseIgnore(b, "")
	}
	if s.excludesFile != "" {
		rules.sigs = append(rules.sigs, sigOf(s.excludesFile))
		if b, err := repo.ReadRegular(s.excludesFile, repo.MaxTextFileBytes); err == nil {
			rules.global = parseIgnore(b, "")
		}
	}
	return rules
}

// ignored decides a path whose parent directories are known not to be
// ignored: the deepest .gitignore with a matching pattern decides, then
// info/exclude, then core.excludesFile.
func (rules *ignoreRules) ignored(stack *ignoreStack, p string, isDir bool) bool {
	basename := p[strings.LastIndexByte(p, '/')+1:]
	for n := stack; n != nil; n = n.parent {
		if m, neg := matchList(n.pats, p, basename, isDir); m {
			return !neg
		}
	}
	if m, neg := matchList(rules.info, p, basename, isDir); m {
		return !neg
	}
	if m, neg := matchList(rules.global, p, basename, isDir); m {
		return !neg
	}
	return false
}

// readGitignore reads dir's .gitignore (dir is "" or "a/b/"); a missing
// file, a symlink (which git refuses to follow), and anything else that is
// not a regular file (a named pipe, on which git hangs) or is too large
// give nil.
func readGitignore(root, dir string) []ignorePattern {
	abs := filepath.Join(root, filepath.FromSlash(dir), ".gitignore")
	b, err := repo.ReadRegularNoFollow(abs, repo.MaxTextFileBytes)
	if err != nil {
		return nil
	}
	return parseIgnore(b, dir)
}

// IgnoreMatcher answers whether repository paths are ignored by the
// repository's ignore rules (.gitignore files at every level,
// .git/info/exclude, core.excludesFile), as `git check-ignore` would for an
// untracked path. It reads .gitignore files lazily and caches them; it is
// safe for concurrent use.
type IgnoreMatcher struct {
	root  string
	rules *ignoreRules
	mu    sync.Mutex
	dirs  map[string]*ignoreStack // by directory ("" or "a/b/")
}

// NewIgnoreMatcher returns a matcher for r's ignore rules.
func NewIgnoreMatcher(r *repo.Repo) *IgnoreMatcher {
	s := newSettings(loadConfig(r))
	return newIgnoreMatcher(r.Root, loadIgnoreRules(r, s))
}

func newIgnoreMatcher(root string, rules *ignoreRules) *IgnoreMatcher {
	return &IgnoreMatcher{root: root, rules: rules, dirs: make(map[string]*ignoreStack)}
}

// stack returns the .gitignore chain for dir ("" or "a/b/").
func (m *IgnoreMatcher) stack(dir string) *ignoreStack {
	m.mu.Lock()
	s, ok := m.dirs[dir]
	m.mu.Unlock()
	if ok {
		return s
	}
	var parent *ignoreStack
	if dir != "" {
		parent = m.stack(parentDir(dir))
	}
	s = parent
	if pats := readGitignore(m.root, dir); pats != nil {
		s = &ignoreStack{parent: parent, pats: pats}
	}
	m.mu.Lock()
	m.dirs[dir] = s
	m.mu.Unlock()
	return s
}

// forget drops the cached .gitignore of dir and every directory below it.
func (m *IgnoreMatcher) forget(dir string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := range m.dirs {
		if strings.HasPrefix(d, dir) {
			delete(m.dirs, d)
		}
	}
}

// parentDir returns the parent of a directory in "a/b/" form ("" for a
// top-level one).
func parentDir(dir string) string {
	d := strings.TrimSuffix(dir, "/")
	i := strings.LastIndexByte(d, '/')
	if i < 0 {
		return ""
	}
	return d[:i+1]
}

// IsIgnored reports whether the repository-relative path p (slash form;
// isDir says whether it names a directory) is ignored, either by a pattern
// or because one of its parent directories is. Tracked files are not
// special here: ignore rules only matter for untracked paths.
func (m *IgnoreMatcher) IsIgnored(p string, isDir bool) bool {
	p = path.Clean(strings.TrimPrefix(filepath.ToSlash(p), "/"))
	if p == "." || p == "" {
		return false
	}
	dir := ""
	for {
		i := strings.IndexByte(p[len(dir):], '/')
		if i < 0 {
			break
		}
		sub := p[:len(dir)+i]
		if m.rules.ignored(m.stack(dir), sub, true) {
			return true
		}
		dir = sub + "/"
	}
	return m.rules.ignored(m.stack(dir), p, isDir)
}
