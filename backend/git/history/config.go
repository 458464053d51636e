package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/meith-dev/meith/backend/git/repo"
)

// configEntry is one "key = value" line of a git config file. Section and
// key names are lower-cased; subsection names keep their case.
type configEntry struct {
	section, subsection, key string
	value                    string
	noValue                  bool // "key" without "=" (boolean true)
	file                     string
}

// gitConfig is an ordered list of config entries; later entries win.
type gitConfig struct{ entries []configEntry }

// get returns the last value of section[.subsection].key.
func (c *gitConfig) get(section, subsection, key string) (string, bool) {
	for i := len(c.entries) - 1; i >= 0; i-- {
		e := c.entries[i]
		if e.section == section && e.subsection == subsection && e.key == key {
			if e.noValue {
				return "true", true
			}
			return e.value, true
		}
	}
	return "", false
}

// getFile returns the last value and the file that set it.
func (c *gitConfig) getFile(section, subsection, key string) (value, file string, ok bool) {
	for i := len(c.entries) - 1; i >= 0; i-- {
		e := c.entries[i]
		if e.section == section && e.subsection == subsection && e.key == key {
			return e.value, e.file, true
		}
	}
	return "", "", false
}

// bool returns a config boolean, or def when unset or unparsable.
func (c *gitConfig) bool(section, subsection, key string, def bool) bool {
	v, ok := c.get(section, subsection, key)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	case "false", "no", "off", "0", "":
		return false
	}
	// git_config_bool: any other integer is true unless zero.
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 0, 64); err == nil {
		return n != 0
	}
	return def
}

// configScope is where a config layer comes from.
type configScope int

const (
	scopeSystem configScope = iota
	scopeGlobal
	scopeRepo
)

// configLoader loads config files with include.path and includeIf support.
type configLoader struct {
	gitDir string // for includeIf "gitdir:" (empty outside a repository)
	branch string // for includeIf "onbranch:"
}

// globalConfigFiles lists the global config files git reads, in order:
// $GIT_CONFIG_GLOBAL alone when set, else $XDG_CONFIG_HOME/git/config and
// ~/.gitconfig.
func globalConfigFiles() []string {
	if p, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		if p == "" {
			return nil
		}
		return []string{expandHome(p)}
	}
	var files []string
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// systemConfigFiles lists the system config file unless
// GIT_CONFIG_NOSYSTEM is set.
func systemConfigFiles() []string {
	if v := os.Getenv("GIT_CONFIG_NOSYSTEM"); v != "" && v != "0" && !strings.EqualFold(v, "false") {
		return nil
	}
	if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
		return []string{p}
	}
	return []string{"/etc/gitconfig"}
}

// repoConfigFiles lists the repository's own config files.
func repoConfigFiles(r *repo.Repo, withWorktree bool) []string {
	files := []string{filepath.Join(r.CommonDir, "config")}
	if withWorktree {
		files = append(files, filepath.Join(r.GitDir, "config.worktree"))
	}
	return files
}

// loadConfig reads the given config layers (in the order given: system,
// global, repository) into one ordered config, following includes.
func loadConfig(r *repo.Repo, scopes ...configScope) (*gitConfig, error) {
	l := &configLoader{}
	if r != nil {
		l.gitDir = r.GitDir
		if target, err := readSymbolicHead(r.GitDir); err == nil {
			l.branch = strings.TrimPrefix(target, "refs/heads/")
		}
	}
	cfg := &gitConfig{}
	for _, s := range scopes {
		var files []string
		switch s {
		case scopeSystem:
			files = systemConfigFiles()
		case scopeGlobal:
			files = globalConfigFiles()
		case scopeRepo:
			if r == nil {
				continue
			}
			files = repoConfigFiles(r, false)
		}
		for _, f := range files {
			if err := l.load(cfg, f, 0); err != nil {
				return nil, err
			}
		}
		if s == scopeRepo && r != nil && cfg.bool("extensions", "", "worktreeconfig", false) {
			if err := l.load(cfg, filepath.Join(r.GitDir, "config.worktree"), 0); err != nil {
				return nil, err
			}
		}
	}
	return cfg, nil
}

// load appends the entries of one file (and the files it includes).
// Missing files are skipped, as git does.
func (l *configLoader) load(cfg *gitConfig, file string, depth int) error {
	if depth > 10 {
		return fmt.Errorf("config: include depth exceeded at %s", file)
	}
	// Config files and the files they include are repository-controlled:
	// a named pipe or a device (include.path = /dev/zero) is refused with
	// an error naming it, where git would hang or fail on a bad line.
	data, err := repo.ReadRegular(file, repo.MaxTextFileBytes)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil
	}
	if err != nil {
		var nr *repo.NotRegularFileError
		if errors.As(err, &nr) && nr.Mode.IsDir() {
			return nil
		}
		return fmt.Errorf("config: %w", err)
	}
	entries, err := parseConfig(data)
	if err != nil {
		return fmt.Errorf("config: %s: %w", file, err)
	}
	for _, e := range entries {
		e.file = file
		cfg.entries = append(cfg.entries, e)
		if e.key != "path" || e.noValue {
			continue
		}
		include := false
		switch e.section {
		case "include":
			include = e.subsection == ""
		case "includeif":
			include = l.condition(e.subsection, file)
		}
		if !include || e.value == "" {
			continue
		}
		p := expandHome(e.value)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(file), p)
		}
		if err := l.load(cfg, p, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// condition evaluates an includeIf condition ("gitdir:", "gitdir/i:",
// "onbranch:"); unknown conditions are false, as in git.
func (l *configLoader) condition(cond, file string) bool {
	switch {
	case strings.HasPrefix(cond, "gitdir:"):
		return l.gitDirMatches(strings.TrimPrefix(cond, "gitdir:"), file, false)
	case strings.HasPrefix(cond, "gitdir/i:"):
		return l.gitDirMatches(strings.TrimPrefix(cond, "gitdir/i:"), file, true)
	case strings.HasPrefix(cond, "onbranch:"):
		if l.branch == "" {
			return false
		}
		pat := strings.TrimPrefix(cond, "onbranch:")
		if strings.HasSuffix(pat, "/") {
			pat += "**"
		}
		return wildmatch(pat, l.branch, true, false)
	}
	return false
}

func (l *configLoader) gitDirMatches(pat, file string, icase bool) bool {
	if l.gitDir == "" {
		return false
	}
	switch {
	case strings.HasPrefix(pat, "~/"):
		pat = expandHome(pat)
	case strings.HasPrefix(pat, "./"):
		pat = filepath.Join(filepath.Dir(file), pat[2:]) + map[bool]string{true: "/", false: ""}[strings.HasSuffix(pat, "/")]
	case !filepath.IsAbs(pat):
		pat = "**/" + pat
	}
	if strings.HasSuffix(pat, "/") {
		pat += "**"
	}
	candidates := []string{l.gitDir}
	if real, err := filepath.EvalSymlinks(l.gitDir); err == nil && real != l.gitDir {
		candidates = append([]string{real}, candidates...)
	}
	for _, c := range candidates {
		if wildmatch(pat, filepath.ToSlash(c), true, icase) {
			return true
		}
	}
	return false
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// parseConfig parses git's config file syntax: [section], [section "sub"],
// the old [section.sub], "key = value" with quotes, escapes, comments and
// backslash line continuation, and bare boolean keys.
func parseConfig(data []byte) ([]configEntry, error) {
	p := &configParser{data: data}
	return p.parse()
}

type configParser struct {
	data       []byte
	pos        int
	line       int
	section    string
	subsection string
}

func (p *configParser) peek() int {
	if p.pos >= len(p.data) {
		return -1
	}
	return int(p.data[p.pos])
}

func (p *configParser) next() int {
	c := p.peek()
	if c >= 0 {
		p.pos++
		if c == '\n' {
			p.line++
		}
	}
	return c
}

func (p *configParser) errorf(format string, args ...any) error {
	return fmt.Errorf("line %d: %s", p.line+1, fmt.Sprintf(format, args...))
}

func (p *configParser) parse() ([]configEntry, error) {
	var out []configEntry
	// A UTF-8 byte order mark is skipped, as git does.
	if len(p.data) >= 3 && p.data[0] == 0xef && p.data[1] == 0xbb && p.data[2] == 0xbf {
		p.pos = 3
	}
	for {
		c := p.next()
		switch {
		case c < 0:
			return out, nil
		case c == '\n', c == ' ', c == '\t', c == '\r':
		case c == '#' || c == ';':
			for c = p.next(); c >= 0 && c != '\n'; c = p.next() {
			}
		case c == '[':
			if err := p.parseSectionHeader(); err != nil {
				return nil, err
			}
		case isConfigKeyChar(c) && isAlpha(c):
			if p.section == "" {
				return nil, p.errorf("key outside a section")
			}
			e, err := p.parseKeyValue(byte(c))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		default:
			return nil, p.errorf("unexpected character %q", rune(c))
		}
	}
}

func (p *configParser) parseSectionHeader() error {
	var name strings.Builder
	for {
		c := p.next()
		switch {
		case c < 0 || c == '\n':
			return p.errorf("unterminated section header")
		case c == ']':
			full := strings.ToLower(name.String())
			// The deprecated [section.sub] form: the subsection is lower-cased.
			if i := strings.IndexByte(full, '.'); i >= 0 {
				p.section, p.subsection = full[:i], full[i+1:]
			} else {
				p.section, p.subsection = full, ""
			}
			if p.section == "" {
				return p.errorf("empty section name")
			}
			return nil
		case c == ' ' || c == '\t':
			// [section "subsection"]
			for p.peek() == ' ' || p.peek() == '\t' {
				p.next()
			}
			if p.next() != '"' {
				return p.errorf("malformed section header")
			}
			var sub strings.Builder
			for {
				c := p.next()
				switch c {
				case -1, '\n':
					return p.errorf("unterminated subsection name")
				case '\\':
					c = p.next()
					if c < 0 || c == '\n' {
						return p.errorf("unterminated subsection name")
					}
					sub.WriteByte(byte(c))
					continue
				case '"':
				default:
					sub.WriteByte(byte(c))
					continue
				}
				break
			}
			if p.next() != ']' {
				return p.errorf("malformed section header")
			}
			p.section = strings.ToLower(name.String())
			p.subsection = sub.String()
			return nil
		case isConfigKeyChar(c) || c == '.':
			name.WriteByte(byte(c))
		default:
			return p.errorf("invalid character %q in section name", rune(c))
		}
	}
}

func (p *configParser) parseKeyValue(first byte) (configEntry, error) {
	var key strings.Builder
	key.WriteByte(first)
	for isConfigKeyChar(p.peek()) {
		key.WriteByte(byte(p.next()))
	}
	e := configEntry{section: p.section, subsection: p.subsection, key: strings.ToLower(key.String())}
	for p.peek() == ' ' || p.peek() == '\t' {
		p.next()
	}
	switch c := p.peek(); c {
	case -1, '\n':
		p.next()
		e.noValue = true
		return e, nil
	case '#', ';':
		for c = p.next(); c >= 0 && c != '\n'; c = p.next() {
		}
		e.noValue = true
		return e, nil
	case '\r':
		p.next()
		if p.peek() == '\n' || p.peek() < 0 {
			p.next()
			e.noValue = true
			return e, nil
		}
		return e, p.errorf("bad config line")
	case '=':
		p.next()
	default:
		return e, p.errorf("bad config line")
	}
	v, err := p.parseValue()
	if err != nil {
		return e, err
	}
	e.value = v
	return e, nil
}

// parseValue reads a value up to the end of its line the way git's
// parse_value does: blanks before the value and before a comment are
// dropped, inner blank runs become spaces, quotes and escapes are
// interpreted, and a backslash at the end of a line continues the value.
func (p *configParser) parseValue() (string, error) {
	var out strings.Builder
	quoted, comment := false, false
	spaces := 0
	for {
		c := p.next()
		if c == '\r' && p.peek() == '\n' {
			c = p.next()
		}
		if c < 0 || c == '\n' {
			if quoted {
				return "", p.errorf("unterminated quoted value")
			}
			return out.String(), nil
		}
		if comment {
			continue
		}
		if !quoted && (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
			if out.Len() > 0 {
				spaces++
			}
			continue
		}
		if !quoted && (c == '#' || c == ';') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			out.WriteByte(' ')
		}
		switch c {
		case '\\':
			n := p.next()
			if n == '\r' && p.peek() == '\n' {
				n = p.next()
			}
			switch n {
			case '\n':
				continue
			case 'n':
				out.WriteByte('\n')
			case 't':
				out.WriteByte('\t')
			case 'b':
				out.WriteByte('\b')
			case '\\', '"':
				out.WriteByte(byte(n))
			default:
				return "", p.errorf("bad escape in value")
			}
		case '"':
			quoted = !quoted
		default:
			out.WriteByte(byte(c))
		}
	}
}

func isAlpha(c int) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func isConfigKeyChar(c int) bool {
	return isAlpha(c) || (c >= '0' && c <= '9') || c == '-'
}

// wildmatch matches text against a git wildmatch pattern: '?' and '*'
// stay within one path component when pathname is set, "**" between
// slashes crosses them, and [...] classes support ranges and negation.
func wildmatch(pattern, text string, pathname, icase bool) bool {
	if icase {
		pattern, text = strings.ToLower(pattern), strings.ToLower(text)
	}
	return wmatch(pattern, text, pathname)
}

func wmatch(p, t string, pathname bool) bool {
	for len(p) > 0 {
		switch p[0] {
		case '?':
			if len(t) == 0 || (pathname && t[0] == '/') {
				return false
			}
			p, t = p[1:], t[1:]
		case '*':
			double := len(p) > 1 && p[1] == '*'
			if double && pathname {
				// "**/" matches zero or more leading directories, "/**" at the
				// end matches everything below.
				rest := strings.TrimLeft(p, "*")
				if rest == "" {
					return true
				}
				if rest[0] == '/' {
					if wmatch(rest[1:], t, pathname) {
						return true
					}
					for i := 0; i < len(t); i++ {
						if t[i] == '/' && wmatch(rest[1:], t[i+1:], pathname) {
							return true
						}
					}
					return false
				}
				for i := 0; i <= len(t); i++ {
					if wmatch(rest, t[i:], pathname) {
						return true
					}
				}
				return false
			}
			rest := strings.TrimLeft(p, "*")
			for i := 0; i <= len(t); i++ {
				if wmatch(rest, t[i:], pathname) {
					return true
				}
				if i < len(t) && pathname && t[i] == '/' {
					return false
				}
			}
			return false
		case '[':
			if len(t) == 0 || (pathname && t[0] == '/') {
				return false
			}
			end := strings.IndexByte(p[1:], ']')
			if end == 0 { // "[]...]" – a literal ']' first in the class
				if e2 := strings.IndexByte(p[2:], ']'); e2 >= 0 {
					end = e2 + 1
				} else {
					end = -1
				}
			}
			if end < 0 {
				if t[0] != '[' {
					return false
				}
				p, t = p[1:], t[1:]
				continue
			}
			class := p[1 : end+1]
			negate := len(class) > 0 && (class[0] == '!' || class[0] == '^')
			if negate {
				class = class[1:]
			}
			matched := false
			for i := 0; i < len(class); i++ {
				lo := class[i]
				hi := lo
				if i+2 < len(class) && class[i+1] == '-' {
					hi = class[i+2]
					i += 2
				}
				if t[0] >= lo && t[0] <= hi {
					matched = true
				}
			}
			if matched == negate {
				return false
			}
			p, t = p[end+2:], t[1:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			if len(t) == 0 || t[0] != p[0] {
				return false
			}
			p, t = p[1:], t[1:]
		}
	}
	return len(t) == 0
}
