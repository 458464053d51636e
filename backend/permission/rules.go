package permission

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/internal/atomicfile"
	"github.com/meith-dev/meith/backend/protocol"
)

// MaxRules bounds the "always for this folder" rules kept.
const MaxRules = 256

// maxRulesFileBytes bounds the read of the rules file.
const maxRulesFileBytes = 1 << 20

// ErrUnknownRule is wrapped by [Service.RevokeRule] for an id that names
// no rule.
var ErrUnknownRule = errors.New("unknown approval rule")

// ErrTooManyRules is wrapped when a rule would exceed [MaxRules].
var ErrTooManyRules = errors.New("too many approval rules")

// Rule is an "always for this folder" approval: cli calls whose peer
// process works in Folder (or below it) may use Capability without asking.
// Folder is the peer's working directory read from /proc when the user
// chose the rule.
type Rule struct {
	// ID is "rule_" + 12 hex digits.
	ID         string              `json:"id"`
	Folder     string              `json:"folder"`
	Capability protocol.Capability `json:"capability"`
	CreatedAt  time.Time           `json:"createdAt"`
}

// rulesDoc is the rules file.
type rulesDoc struct {
	Version int    `json:"version"`
	Rules   []Rule `json:"rules"`
}

// ruleStore holds the rules and writes them to path (0600, atomically)
// after each change; path "" keeps them in memory.
type ruleStore struct {
	path string

	mu    sync.Mutex
	rules []Rule
}

// loadRules reads path; a missing file is no rules, and entries that are
// not valid rules (a relative folder, an unknown or unprivileged
// capability, a bad id) are dropped. A file that cannot be read or parsed
// gives no rules and the error.
func loadRules(path string) (*ruleStore, error) {
	rs := &ruleStore{path: path}
	if path == "" {
		return rs, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return rs, nil
	}
	if err != nil {
		return rs, fmt.Errorf("read approval rules: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRulesFileBytes+1))
	if err != nil {
		return rs, fmt.Errorf("read approval rules: %w", err)
	}
	if len(b) > maxRulesFileBytes {
		return rs, fmt.Errorf("read approval rules: the file is larger than %d bytes", maxRulesFileBytes)
	}
	var doc rulesDoc
	if err := json.Unmarshal(b, &doc); err != nil {
		return rs, fmt.Errorf("read approval rules: %w", err)
	}
	for _, r := range doc.Rules {
		if len(rs.rules) < MaxRules && validRule(r) {
			rs.rules = append(rs.rules, r)
		}
	}
	return rs, nil
}

func validRule(r Rule) bool {
	return strings.HasPrefix(r.ID, "rule_") && filepath.IsAbs(r.Folder) && filepath.Clean(r.Folder) == r.Folder &&
		r.Capability.Valid() && len(protocol.PrivilegedOf([]protocol.Capability{r.Capability})) == 1 &&
		r.Capability != protocol.CapDestructive
}

// list returns a copy of the rules, oldest first.
func (rs *ruleStore) list() []Rule {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.rules)
}

// covers reports whether, for every capability in caps, a rule allows it
// in folder.
func (rs *ruleStore) covers(folder string, caps []protocol.Capability) bool {
	if !filepath.IsAbs(folder) || len(caps) == 0 {
		return false
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, c := range caps {
		if !slices.ContainsFunc(rs.rules, func(r Rule) bool { return r.Capability == c && within(folder, r.Folder) }) {
			return false
		}
	}
	return true
}

// within reports whether dir is root or below it.
func within(dir, root string) bool {
	rel, err := filepath.Rel(root, filepath.Clean(dir))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// add adds a rule per capability for folder (those already there are
// kept) and writes the file.
func (rs *ruleStore) add(folder string, caps []protocol.Capability, now time.Time) error {
	folder = filepath.Clean(folder)
	rs.mu.Lock()
	defer rs.mu.Unlock()
	next := slices.Clone(rs.rules)
	for _, c := range caps {
		if slices.ContainsFunc(next, func(r Rule) bool { return r.Folder == folder && r.Capability == c }) {
			continue
		}
		r := Rule{ID: protocol.NewID("rule"), Folder: folder, Capability: c, CreatedAt: now.UTC()}
		if !validRule(r) {
			continue
		}
		if len(next) >= MaxRules {
			return fmt.Errorf("add approval rule: %w (at most %d): revoke some in Settings → General", ErrTooManyRules, MaxRules)
		}
		next = append(next, r)
	}
	rs.rules = next
	return rs.saveLocked()
}

// revoke removes the rule id and writes the file.
func (rs *ruleStore) revoke(id string) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	i := slices.IndexFunc(rs.rules, func(r Rule) bool { return r.ID == id })
	if i < 0 {
		return fmt.Errorf("revoke approval rule: %w", ErrUnknownRule)
	}
	rs.rules = slices.Delete(rs.rules, i, i+1)
	return rs.saveLocked()
}

func (rs *ruleStore) saveLocked() error {
	if rs.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(rulesDoc{Version: 1, Rules: rs.rules}, "", "  ")
	if err != nil {
		return fmt.Errorf("write approval rules: %w", err)
	}
	if err := atomicfile.WriteFile(rs.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write approval rules: %w", err)
	}
	return nil
}

// Rules returns the "always for this folder" rules, oldest first.
func (s *Service) Rules() []Rule { return s.rules.list() }

// RevokeRule deletes a rule; the next call it covered asks again. An id
// that names no rule gives an error wrapping [ErrUnknownRule].
func (s *Service) RevokeRule(id string) error { return s.rules.revoke(id) }

// RulesLoadError is the error reading the rules file gave at start (nil:
// none); the service then starts with no rules.
func (s *Service) RulesLoadError() error { return s.rulesErr }
