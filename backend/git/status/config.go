package status

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	formatcfg "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/meith-dev/meith/backend/git/repo"
)

// gitConfig is the merged configuration of a repository: system, global,
// repository and worktree files, later ones winning, as git reads them.
// Includes are not followed.
type gitConfig struct {
	files []*formatcfg.Config
	// sigs are the stat signatures of the files read (missing ones too),
	// so a cache can tell when to read them again.
	sigs []fileSig
}

// fileSig identifies one version of a file cheaply: a changed file (or one
// that appeared or vanished) gets a different signature.
type fileSig struct {
	path   string
	exists bool
	st     Stat
	size   int64
}

func sigOf(path string) fileSig {
	s, err := lstatPath(path)
	if err != nil {
		return fileSig{path: path}
	}
	return fileSig{path: path, exists: true, st: s.st, size: s.size}
}

// sigsUnchanged reports whether every file still has its signature.
func sigsUnchanged(sigs []fileSig) bool {
	for _, s := range sigs {
		if sigOf(s.path) != s {
			return false
		}
	}
	return true
}

// configPaths lists the configuration files git reads for r, lowest
// priority first. GIT_CONFIG_NOSYSTEM, GIT_CONFIG_SYSTEM, GIT_CONFIG_GLOBAL
// and XDG_CONFIG_HOME are honoured.
func configPaths(r *repo.Repo) []string {
	var paths []string
	if !envBool("GIT_CONFIG_NOSYSTEM") {
		if p := os.Getenv("GIT_CONFIG_SYSTEM"); p != "" {
			paths = append(paths, p)
		} else {
			paths = append(paths, "/etc/gitconfig")
		}
	}
	if p, ok := os.LookupEnv("GIT_CONFIG_GLOBAL"); ok {
		if p != "" {
			paths = append(paths, p)
		}
	} else {
		if x := xdgConfigHome(); x != "" {
			paths = append(paths, filepath.Join(x, "git", "config"))
		}
		if h, err := os.UserHomeDir(); err == nil {
			paths = append(paths, filepath.Join(h, ".gitconfig"))
		}
	}
	paths = append(paths, filepath.Join(r.CommonDir, "config"))
	paths = append(paths, filepath.Join(r.GitDir, "config.worktree"))
	return paths
}

func xdgConfigHome() string {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return x
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".config")
	}
	return ""
}

func envBool(name string) bool {
	v, ok := parseBool(os.Getenv(name))
	return ok && v
}

// loadConfig reads r's configuration files. Unreadable or malformed files
// are skipped, as if absent (a status must not fail over a stray config).
func loadConfig(r *repo.Repo) *gitConfig {
	c := &gitConfig{}
	paths := configPaths(r)
	worktreeCfg := false
	for i, p := range paths {
		c.sigs = append(c.sigs, sigOf(p))
		if i == len(paths)-1 && !worktreeCfg {
			continue // config.worktree counts only with extensions.worktreeConfig
		}
		b, err := repo.ReadRegular(p, repo.MaxTextFileBytes)
		if err != nil {
			continue
		}
		f := formatcfg.New()
		if err := formatcfg.NewDecoder(strings.NewReader(string(b))).Decode(f); err != nil {
			continue
		}
		c.files = append(c.files, f)
		if v, ok := parseBool(c.get("extensions", "", "worktreeconfig")); ok && v {
			worktreeCfg = true
		}
	}
	return c
}

// get returns the last value of section[.subsection].key ("" if unset).
func (c *gitConfig) get(section, subsection, key string) string {
	v, _ := c.lookup(section, subsection, key)
	return v
}

func (c *gitConfig) lookup(section, subsection, key string) (string, bool) {
	for i := len(c.files) - 1; i >= 0; i-- {
		f := c.files[i]
		for j := len(f.Sections) - 1; j >= 0; j-- {
			s := f.Sections[j]
			if !strings.EqualFold(s.Name, section) {
				continue
			}
			opts := s.Options
			if subsection != "" {
				opts = nil
				for _, sub := range s.Subsections {
					if sub.Name == subsection {
						opts = append(opts, sub.Options...)
					}
				}
			}
			for k := len(opts) - 1; k >= 0; k-- {
				if strings.EqualFold(opts[k].Key, key) {
					return opts[k].Value, true
				}
			}
		}
	}
	return "", false
}

// getAll returns every value of section.subsection.key in file order.
func (c *gitConfig) getAll(section, subsection, key string) []string {
	var out []string
	for _, f := range c.files {
		for _, s := range f.Sections {
			if !strings.EqualFold(s.Name, section) {
				continue
			}
			for _, sub := range s.Subsections {
				if sub.Name != subsection {
					continue
				}
				for _, o := range sub.Options {
					if strings.EqualFold(o.Key, key) {
						out = append(out, o.Value)
					}
				}
			}
		}
	}
	return out
}

// boolOr reads a boolean setting, def when unset or not a boolean.
func (c *gitConfig) boolOr(section, key string, def bool) bool {
	v, ok := c.lookup(section, "", key)
	if !ok {
		return def
	}
	b, ok := parseBool(v)
	if !ok {
		return def
	}
	return b
}

func parseBool(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true, true
	case "false", "no", "off", "0", "":
		return false, v != ""
	}
	return false, false
}

// settings are the configuration values status needs.
type settings struct {
	fileMode   bool // core.fileMode: the executable bit matters
	symlinks   bool // core.symlinks
	trustCtime bool // core.trustCtime
	checkStat  bool // core.checkStat != minimal
	autocrlf   string
	eol        string
	// excludesFile is core.excludesFile, or git's default
	// $XDG_CONFIG_HOME/git/ignore.
	excludesFile   string
	attributesFile string
	renames        bool // status.renames, else diff.renames (default on)
	renameLimit    int  // status.renameLimit, else diff.renameLimit (default 1000)
	cfg            *gitConfig
}

func newSettings(c *gitConfig) *settings {
	s := &settings{
		fileMode:    c.boolOr("core", "filemode", true),
		symlinks:    c.boolOr("core", "symlinks", true),
		trustCtime:  c.boolOr("core", "trustctime", true),
		checkStat:   !strings.EqualFold(c.get("core", "", "checkstat"), "minimal"),
		autocrlf:    strings.ToLower(c.get("core", "", "autocrlf")),
		eol:         strings.ToLower(c.get("core", "", "eol")),
		renames:     true,
		renameLimit: 1000,
		cfg:         c,
	}
	if v, ok := c.lookup("core", "", "autocrlf"); ok {
		if b, isBool := parseBool(v); isBool {
			s.autocrlf = "false"
			if b {
				s.autocrlf = "true"
			}
		}
	}
	if v, ok := c.lookup("core", "", "excludesfile"); ok {
		s.excludesFile = expandHome(v)
	} else if x := xdgConfigHome(); x != "" {
		s.excludesFile = filepath.Join(x, "git", "ignore")
	}
	if v, ok := c.lookup("core", "", "attributesfile"); ok {
		s.attributesFile = expandHome(v)
	} else if x := xdgConfigHome(); x != "" {
		s.attributesFile = filepath.Join(x, "git", "attributes")
	}
	for _, sec := range []string{"diff", "status"} {
		if v, ok := c.lookup(sec, "", "renames"); ok {
			b, isBool := parseBool(v)
			s.renames = b || !isBool // "copies"/"copy" also detect renames
		}
		if v, ok := c.lookup(sec, "", "renamelimit"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				s.renameLimit = n
			}
		}
	}
	return s
}

func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, rest)
		}
	}
	return p
}
