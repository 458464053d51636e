package state

import (
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/meith-dev/meith/backend/protocol"
)

// Plugin source kinds ([PluginSource.Kind]).
const (
	// PluginSourceLocalDir is a folder on disk, used where it is.
	PluginSourceLocalDir = "local-dir"
	// PluginSourceArchive is a .tgz, .tar.gz or .tar extracted under the
	// user data folder (<userData>/plugins/<id>).
	PluginSourceArchive = "archive"
	// PluginSourceDevURL is a dev server: the manifest comes from
	// <origin>/plugin.json and the pages from the server.
	PluginSourceDevURL = "dev-url"
)

// PluginSourceKinds lists the valid source kinds.
var PluginSourceKinds = []string{PluginSourceLocalDir, PluginSourceArchive, PluginSourceDevURL}

// The API scopes a plugin may request: the namespaces of the plugin bridge
// (reference §8).
const (
	PluginAPITools   = "tools"
	PluginAPIStorage = "storage"
	PluginAPICDP     = "cdp"
	PluginAPIAI      = "ai"
)

// PluginAPIs lists the valid API scopes, in a stable order.
var PluginAPIs = []string{PluginAPITools, PluginAPIStorage, PluginAPICDP, PluginAPIAI}

// PluginIDPattern is the rule of a plugin id (reference §8): reverse-DNS
// like segments of letters and digits joined by '.', '_' or '-', at least
// two segments, letters of either case.
var PluginIDPattern = regexp.MustCompile(`(?i)^[a-z0-9]+(?:[._-][a-z0-9]+)+$`)

// Bounds of plugin records. The manifest parser refuses more; a loaded file
// drops records beyond them.
const (
	// MaxPlugins bounds the installed plugins.
	MaxPlugins = 200
	// MaxPluginIDLength bounds a plugin id (it names a folder and a
	// session id).
	MaxPluginIDLength = 128
	// MaxPluginVersionLength bounds a plugin's version string.
	MaxPluginVersionLength = 64
	// MaxPluginDescriptionLength bounds a plugin's description.
	MaxPluginDescriptionLength = 1000
)

// Plugin is an installed plugin (the original's InstalledPlugin): what its
// manifest says, where it came from, what it asks for and what the user
// approved. A plugin starts disabled with nothing approved; re-installing
// keeps only the approvals still requested and disables it again.
//
// Invariants ([State.Validate]): a valid, unique id; a non-empty name; a
// known source with an absolute Root (local-dir, archive) or an http(s)
// URL (dev-url); a relative entry that stays inside the root; requested
// capabilities and APIs from their vocabularies without repeats; approved
// grants a subset of the requested ones; an enabled plugin has every
// requested API approved.
type Plugin struct {
	// ID is the manifest's id.
	ID          string `json:"id"`
	Name        string `json:"name"`
	Version     string `json:"version"`
	Description string `json:"description"`
	// Source is where the plugin was installed from.
	Source PluginSource `json:"source"`
	// Root is the real path of the folder holding the plugin's files: the
	// folder itself (local-dir) or its extracted copy under the user data
	// folder (archive); "" for a dev-url plugin.
	Root string `json:"root"`
	// Entry is the page to open: a slash-separated path relative to Root
	// (local-dir, archive) or to the dev server's origin (dev-url).
	Entry string `json:"entry"`
	// Requested is what the manifest asks for.
	Requested PluginGrants `json:"requestedGrants"`
	// Approved is what the user approved: always within Requested.
	Approved PluginGrants `json:"approvedGrants"`
	// Enabled plugins may run: only they have an identity (their calls are
	// decided by their approved capabilities) and open tabs.
	Enabled     bool  `json:"enabled"`
	InstalledAt int64 `json:"installedAt"` // Unix milliseconds, of the latest install
	UpdatedAt   int64 `json:"updatedAt"`   // Unix milliseconds
}

// PluginSource says where a plugin was installed from.
type PluginSource struct {
	// Kind is local-dir, archive or dev-url.
	Kind string `json:"kind"`
	// Path is the folder (local-dir, its real path) or the archive file
	// (archive) the plugin was installed from.
	Path string `json:"path,omitempty"`
	// URL is the dev server's URL as given (dev-url).
	URL string `json:"url,omitempty"`
}

// PluginGrants are capabilities (tool capabilities the plugin's calls may
// use) and API scopes (bridge namespaces).
type PluginGrants struct {
	Capabilities []protocol.Capability `json:"capabilities"`
	APIs         []string              `json:"apis"`
}

// Clone returns a deep copy of g with nil lists made empty.
func (g PluginGrants) Clone() PluginGrants {
	return PluginGrants{Capabilities: emptyIfNil(slices.Clone(g.Capabilities)), APIs: emptyIfNil(slices.Clone(g.APIs))}
}

// Within returns the grants of g that are also in of, in g's order: an
// approval cut down to a request.
func (g PluginGrants) Within(of PluginGrants) PluginGrants {
	out := PluginGrants{Capabilities: []protocol.Capability{}, APIs: []string{}}
	for _, c := range g.Capabilities {
		if slices.Contains(of.Capabilities, c) && !slices.Contains(out.Capabilities, c) {
			out.Capabilities = append(out.Capabilities, c)
		}
	}
	for _, a := range g.APIs {
		if slices.Contains(of.APIs, a) && !slices.Contains(out.APIs, a) {
			out.APIs = append(out.APIs, a)
		}
	}
	return out
}

// MissingAPIs returns the APIs of requested that approved lacks, in
// requested's order.
func MissingAPIs(requested, approved PluginGrants) []string {
	var out []string
	for _, a := range requested.APIs {
		if !slices.Contains(approved.APIs, a) {
			out = append(out, a)
		}
	}
	return out
}

// Clone returns a deep copy of p.
func (p Plugin) Clone() Plugin {
	c := p
	c.Requested = p.Requested.Clone()
	c.Approved = p.Approved.Clone()
	return c
}

// Plugin returns a pointer to the plugin with id in s, or nil.
func (s *State) Plugin(id string) *Plugin {
	for i := range s.Plugins {
		if s.Plugins[i].ID == id {
			return &s.Plugins[i]
		}
	}
	return nil
}

// ValidPluginEntry reports whether entry is a clean, relative,
// slash-separated path that stays inside its root: not empty, not ".", not
// absolute, no ".." element, no backslash, as path.Clean leaves it.
func ValidPluginEntry(entry string) bool {
	switch {
	case entry == "" || entry == "." || strings.HasPrefix(entry, "/") || strings.Contains(entry, `\`):
		return false
	case path.Clean(entry) != entry:
		return false
	}
	return !slices.Contains(strings.Split(entry, "/"), "..")
}

// validatePlugin checks one record's invariants (the id's uniqueness is the
// caller's).
func validatePlugin(p Plugin) error {
	switch {
	case !PluginIDPattern.MatchString(p.ID) || len(p.ID) > MaxPluginIDLength:
		return fmt.Errorf("plugin id %q is not a valid plugin id", truncate(p.ID, MaxPluginIDLength))
	case strings.TrimSpace(p.Name) == "":
		return fmt.Errorf("plugin %s has an empty name", p.ID)
	case overLong(p.Name, MaxNameLength):
		return fmt.Errorf("plugin %s name is longer than %d characters", p.ID, MaxNameLength)
	case p.Version == "" || overLong(p.Version, MaxPluginVersionLength):
		return fmt.Errorf("plugin %s version is empty or longer than %d characters", p.ID, MaxPluginVersionLength)
	case overLong(p.Description, MaxPluginDescriptionLength):
		return fmt.Errorf("plugin %s description is longer than %d characters", p.ID, MaxPluginDescriptionLength)
	case !ValidPluginEntry(p.Entry) || overLong(p.Entry, MaxPathLength):
		return fmt.Errorf("plugin %s entry is not a relative path inside its root", p.ID)
	}
	switch p.Source.Kind {
	case PluginSourceLocalDir, PluginSourceArchive:
		if !filepath.IsAbs(p.Root) || overLong(p.Root, MaxPathLength) {
			return fmt.Errorf("plugin %s has no absolute root folder", p.ID)
		}
		if !filepath.IsAbs(p.Source.Path) || overLong(p.Source.Path, MaxPathLength) {
			return fmt.Errorf("plugin %s source has no absolute path", p.ID)
		}
	case PluginSourceDevURL:
		u, err := url.Parse(p.Source.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || overLong(p.Source.URL, MaxURLLength) {
			return fmt.Errorf("plugin %s source has no http(s) URL", p.ID)
		}
		if p.Root != "" {
			return fmt.Errorf("plugin %s is served from a URL but has a root folder", p.ID)
		}
	default:
		return fmt.Errorf("plugin %s has unknown source kind %q (local-dir, archive or dev-url)", p.ID, p.Source.Kind)
	}
	for _, g := range []PluginGrants{p.Requested, p.Approved} {
		for i, c := range g.Capabilities {
			if !c.Valid() {
				return fmt.Errorf("plugin %s names unknown capability %q", p.ID, c)
			}
			if slices.Contains(g.Capabilities[:i], c) {
				return fmt.Errorf("plugin %s names capability %s twice", p.ID, c)
			}
		}
		for i, a := range g.APIs {
			if !slices.Contains(PluginAPIs, a) {
				return fmt.Errorf("plugin %s names unknown API scope %q", p.ID, a)
			}
			if slices.Contains(g.APIs[:i], a) {
				return fmt.Errorf("plugin %s names API scope %s twice", p.ID, a)
			}
		}
	}
	if w := p.Approved.Within(p.Requested); len(w.Capabilities) != len(p.Approved.Capabilities) || len(w.APIs) != len(p.Approved.APIs) {
		return fmt.Errorf("plugin %s has approved grants it did not request", p.ID)
	}
	if missing := MissingAPIs(p.Requested, p.Approved); p.Enabled && len(missing) > 0 {
		return fmt.Errorf("plugin %s is enabled with unapproved API scopes [%s]", p.ID, strings.Join(missing, ", "))
	}
	return nil
}

// validatePlugins checks the plugin invariants: at most MaxPlugins, unique
// ids (plugin ids are their own namespace), each record valid.
func (s *State) validatePlugins() error {
	if len(s.Plugins) > MaxPlugins {
		return fmt.Errorf("%d plugins, more than %d", len(s.Plugins), MaxPlugins)
	}
	ids := map[string]bool{}
	for _, p := range s.Plugins {
		if err := validatePlugin(p); err != nil {
			return err
		}
		if ids[p.ID] {
			return fmt.Errorf("duplicate plugin id %s", p.ID)
		}
		ids[p.ID] = true
	}
	return nil
}

// repairPlugins fixes loaded plugin records: approvals are cut to the
// request, a plugin enabled without every requested API approved is
// disabled, and records that are still invalid, repeat an earlier id or go
// beyond MaxPlugins are dropped (the plugin can be installed again).
func (s *State) repairPlugins(rep *repairLog) {
	ids := map[string]bool{}
	kept := s.Plugins[:0]
	for _, p := range s.Plugins {
		p = p.Clone()
		if p.Version == "" {
			p.Version = "0.0.0"
		}
		if w := p.Approved.Within(p.Requested); !slices.Equal(w.Capabilities, p.Approved.Capabilities) || !slices.Equal(w.APIs, p.Approved.APIs) {
			p.Approved = w
			rep.add("plugin approvals beyond what the plugin requested were dropped")
		}
		if p.Enabled && len(MissingAPIs(p.Requested, p.Approved)) > 0 {
			p.Enabled = false
			rep.add("plugins enabled without their requested API scopes approved were disabled")
		}
		switch {
		case validatePlugin(p) != nil:
			rep.add("invalid plugin records were dropped")
			continue
		case ids[p.ID]:
			rep.add("plugin records repeating an earlier plugin's id were dropped")
			continue
		case len(kept) >= MaxPlugins:
			rep.add(fmt.Sprintf("plugins beyond %d were dropped", MaxPlugins))
			continue
		}
		ids[p.ID] = true
		kept = append(kept, p)
	}
	s.Plugins = kept
}
