// Package plugin is the plugin service of reference §8: the manifest
// (plugin.json, or the "meith" field of package.json), installing from a
// folder (local-dir), an archive (.tgz, .tar.gz, .tar: extracted under
// <userData>/plugins/<id>) or a dev server URL (dev-url), the plugin records
// in state.json, and the grant rules: an approval never exceeds the
// request, enabling needs every requested API scope approved, and
// disabling, uninstalling or re-installing takes the plugin's authority
// away at once.
//
// The authority of a plugin is what [Service.Grants] says: the approved
// capabilities of an installed, enabled plugin, and nothing for any other
// id. The permission service asks it for every call whose session is
// "plugin:<id>" (the instance wires it), so a disabled or uninstalled
// plugin's calls are refused from the next call on.
//
// The plugin tab layer (the Chromium target that hosts a plugin's page and
// its bridge) is not part of this package: it implements [Tabs], which the
// instance hands to [Service.SetTabs]. The service asks it to open tabs and
// tells it when a plugin's live tabs must lose their authority
// ([Tabs.Revoke]). Everything else it needs is here: [Service.Get] and
// [Service.List] for the records, [Service.Identity] for the bridge's
// identity, [EntryFile] and [DevEntryURL] for what to load, and
// [Service.Subscribe] for changes (the window hears the same changes as the
// state_changed hint of kind "plugins").
package plugin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// Record is an installed plugin, as state.json keeps it.
type Record = state.Plugin

// Grants are capabilities and API scopes.
type Grants = state.PluginGrants

// Identity is what a plugin's page learns about itself through the bridge
// (window.meithPlugin.identity): its id, name and version, and the API
// scopes and capabilities the user approved.
type Identity struct {
	PluginID     string                `json:"pluginId"`
	Name         string                `json:"name"`
	Version      string                `json:"version"`
	APIs         []string              `json:"apis"`
	Capabilities []protocol.Capability `json:"capabilities"`
}

// RevokeReason says why [Tabs.Revoke] is called.
type RevokeReason string

// The reasons of [Tabs.Revoke].
const (
	RevokeDisabled      RevokeReason = "disabled"
	RevokeUninstalled   RevokeReason = "uninstalled"
	RevokeReinstalled   RevokeReason = "reinstalled"
	RevokeGrantsChanged RevokeReason = "grants-changed"
)

// Tabs is the plugin tab layer, which the instance wires with
// [Service.SetTabs].
type Tabs interface {
	// OpenTab opens a live tab hosting p, an installed and enabled plugin,
	// in the space spaceID ("" : the active space) and returns its record
	// (mode "plugin").
	OpenTab(ctx context.Context, p Record, spaceID string) (state.BrowserTab, error)
	// Revoke takes every live tab hosting pluginID off the bridge at once.
	// It is called, before the change is answered, when the plugin is
	// disabled, uninstalled or re-installed, and when its approvals change
	// while it is enabled. A tab may be bound again only to what
	// [Service.Get] returns afterwards (enabled, and its approvals then).
	Revoke(ctx context.Context, pluginID string, why RevokeReason)
}

// Change is a change of the installed plugins, for [Service.Subscribe].
type Change struct {
	// PluginID is the plugin concerned.
	PluginID string
	// Kind is installed, reinstalled, approved, enabled, disabled or
	// uninstalled.
	Kind string
}

// The kinds of [Change].
const (
	ChangeInstalled   = "installed"
	ChangeReinstalled = "reinstalled"
	ChangeApproved    = "approved"
	ChangeEnabled     = "enabled"
	ChangeDisabled    = "disabled"
	ChangeUninstalled = "uninstalled"
)

// Options configure [New].
type Options struct {
	// Store is the state that holds the records.
	Store *state.Store
	// Dir is where archives are extracted (<userData>/plugins), made 0700
	// on first use.
	Dir string
	// Limits bound archives (zero: [DefaultLimits]).
	Limits Limits
	// HTTPClient fetches dev servers' manifests (nil: [NewDevClient]).
	HTTPClient *http.Client
	// Logf, if set, receives what went wrong on the side (a leftover
	// folder that could not be removed).
	Logf func(format string, args ...any)
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Service installs plugins and keeps their grants. It is safe for
// concurrent use; changes are made one at a time.
type Service struct {
	opts Options

	mu sync.Mutex // serializes changes (install, approve, enable, uninstall)

	tmu  sync.RWMutex
	tabs Tabs

	smu     sync.Mutex
	subs    map[int]func(Change)
	nextSub int
}

// New returns the service over opts.Store.
func New(opts Options) *Service {
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	return &Service{opts: opts, subs: map[int]func(Change){}}
}

// SetTabs wires the plugin tab layer (nil unwires it).
func (s *Service) SetTabs(t Tabs) {
	s.tmu.Lock()
	defer s.tmu.Unlock()
	s.tabs = t
}

func (s *Service) tabLayer() Tabs {
	s.tmu.RLock()
	defer s.tmu.RUnlock()
	return s.tabs
}

// Subscribe calls fn after every change of a plugin, in the goroutine that
// made it, after the change is in the state (and after [Tabs.Revoke]). It
// returns a func that cancels the subscription.
func (s *Service) Subscribe(fn func(Change)) (cancel func()) {
	s.smu.Lock()
	defer s.smu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs[id] = fn
	return func() {
		s.smu.Lock()
		defer s.smu.Unlock()
		delete(s.subs, id)
	}
}

func (s *Service) notify(c Change) {
	s.smu.Lock()
	fns := make([]func(Change), 0, len(s.subs))
	for _, fn := range s.subs {
		fns = append(fns, fn)
	}
	s.smu.Unlock()
	for _, fn := range fns {
		fn(c)
	}
}

// revoke tells the tab layer, if any.
func (s *Service) revoke(ctx context.Context, id string, why RevokeReason) {
	if t := s.tabLayer(); t != nil {
		t.Revoke(context.WithoutCancel(ctx), id, why)
	}
}

// List returns the installed plugins, in install order.
func (s *Service) List() []Record { return s.opts.Store.Plugins() }

// Get returns the installed plugin id.
func (s *Service) Get(id string) (Record, bool) { return s.opts.Store.Plugin(id) }

// Grants is the permission service's PluginGrants: the approved
// capabilities of an installed and enabled plugin; ok false for any other
// id (not installed, or disabled).
func (s *Service) Grants(id string) (caps []protocol.Capability, ok bool) {
	p, ok := s.Get(id)
	if !ok || !p.Enabled {
		return nil, false
	}
	return slices.Clone(p.Approved.Capabilities), true
}

// Identity returns the bridge identity of an installed, enabled plugin.
func (s *Service) Identity(id string) (Identity, bool) {
	p, ok := s.Get(id)
	if !ok || !p.Enabled {
		return Identity{}, false
	}
	g := p.Approved.Clone()
	return Identity{PluginID: p.ID, Name: p.Name, Version: p.Version, APIs: g.APIs, Capabilities: g.Capabilities}, true
}

// EntryFile is the entry page of a local-dir or archive plugin as a file
// path ("" for a dev-url plugin). The tab layer must still open it inside
// p.Root without following links out (os.Root), since the folder may have
// changed since the install.
func EntryFile(p Record) string {
	if p.Source.Kind == state.PluginSourceDevURL || p.Root == "" {
		return ""
	}
	return filepath.Join(p.Root, filepath.FromSlash(p.Entry))
}

// DevEntryURL is the entry page of a dev-url plugin: the entry on the dev
// server's origin ("" for other plugins).
func DevEntryURL(p Record) string {
	if p.Source.Kind != state.PluginSourceDevURL {
		return ""
	}
	_, origin, err := ParseDevURL(p.Source.URL)
	if err != nil {
		return ""
	}
	return origin + "/" + p.Entry
}

// DevOrigin is the origin a dev-url plugin is bound to ("" for other
// plugins).
func DevOrigin(p Record) string {
	if p.Source.Kind != state.PluginSourceDevURL {
		return ""
	}
	_, origin, err := ParseDevURL(p.Source.URL)
	if err != nil {
		return ""
	}
	return origin
}

// Source is where to install a plugin from: exactly one field is set.
type Source struct {
	// Directory is an absolute folder (local-dir).
	Directory string
	// Archive is an absolute .tgz, .tar.gz or .tar file.
	Archive string
	// DevURL is a dev server's http(s) URL.
	DevURL string
}

// InstallResult is what [Service.Install] did.
type InstallResult struct {
	Plugin Record
	// Reinstalled is true when the plugin was installed before: approvals
	// still requested were kept (Dropped lists the others) and it is
	// disabled.
	Reinstalled bool
	// Dropped are approvals of the earlier install that the new manifest
	// no longer requests.
	Dropped Grants
}

// Install installs (or re-installs) a plugin from src. The plugin starts
// disabled; a new one has nothing approved, a re-installed one keeps the
// approvals the new manifest still requests ([Tabs.Revoke] with
// [RevokeReinstalled] takes its tabs off the bridge first). Errors are
// [*Error]s, but for a state that cannot be changed.
func (s *Service) Install(ctx context.Context, src Source) (InstallResult, error) {
	n := 0
	for _, v := range []string{src.Directory, src.Archive, src.DevURL} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return InstallResult{}, invalidf("Give exactly one of a directory, an archive or a dev server URL")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case src.Directory != "":
		root, m, err := LoadDir(src.Directory)
		if err != nil {
			return InstallResult{}, err
		}
		return s.record(ctx, m, state.PluginSource{Kind: state.PluginSourceLocalDir, Path: root}, root, nil)
	case src.Archive != "":
		return s.installArchive(ctx, src.Archive)
	default:
		u, _, m, err := FetchDevManifest(ctx, s.opts.HTTPClient, src.DevURL)
		if err != nil {
			return InstallResult{}, err
		}
		return s.record(ctx, m, state.PluginSource{Kind: state.PluginSourceDevURL, URL: u.String()}, "", nil)
	}
}

// installArchive extracts the archive to a new folder under Dir, reads its
// manifest, and swaps the folder in as Dir/<id> (the earlier one of a
// re-install is removed once the record is saved, and put back if it is
// not).
func (s *Service) installArchive(ctx context.Context, archive string) (InstallResult, error) {
	if !filepath.IsAbs(archive) {
		return InstallResult{}, invalidf("The plugin archive must be an absolute path")
	}
	if !IsArchiveName(archive) {
		return InstallResult{}, invalidf("A plugin archive must be a .tgz, .tar.gz or .tar file")
	}
	if s.opts.Dir == "" {
		return InstallResult{}, errors.New("plugin: no folder for extracted archives")
	}
	if err := os.MkdirAll(s.opts.Dir, 0o700); err != nil {
		return InstallResult{}, fmt.Errorf("make the plugins folder: %w", err)
	}
	tmp, err := os.MkdirTemp(s.opts.Dir, ".incoming-")
	if err != nil {
		return InstallResult{}, fmt.Errorf("make a folder for the archive: %w", err)
	}
	defer s.removeAll(tmp)
	if err := Extract(archive, tmp, s.opts.Limits); err != nil {
		return InstallResult{}, err
	}
	root := archiveRoot(tmp)
	m, err := loadRoot(root)
	if err != nil {
		return InstallResult{}, err
	}
	real, _ := filepath.Abs(archive)
	final := filepath.Join(s.opts.Dir, m.ID)
	old := ""
	if _, err := os.Lstat(final); err == nil {
		old = tmp + ".old"
		if err := os.Rename(final, old); err != nil {
			return InstallResult{}, fmt.Errorf("set the earlier install aside: %w", err)
		}
	}
	if err := os.Rename(root, final); err != nil {
		if old != "" {
			_ = os.Rename(old, final)
		}
		return InstallResult{}, fmt.Errorf("move the extracted plugin in place: %w", err)
	}
	res, err := s.record(ctx, m, state.PluginSource{Kind: state.PluginSourceArchive, Path: real}, final, func() {
		s.removeAll(final)
		if old != "" {
			_ = os.Rename(old, final)
		}
	})
	if err == nil && old != "" {
		s.removeAll(old)
	}
	return res, err
}

// record saves the record of a plugin installed from m; undo runs when it
// cannot be saved.
func (s *Service) record(ctx context.Context, m Manifest, src state.PluginSource, root string, undo func()) (InstallResult, error) {
	now := s.opts.Now().UnixMilli()
	requested := m.Requested()
	var res InstallResult
	err := s.opts.Store.Update(func(st *state.State) error {
		rec := Record{ID: m.ID, Name: m.Name, Version: m.Version, Description: m.Description, Source: src, Root: root,
			Entry: m.Entry, Requested: requested, Approved: Grants{}.Clone(), InstalledAt: now, UpdatedAt: now}
		if p := st.Plugin(m.ID); p != nil {
			res.Reinstalled = true
			rec.Approved = p.Approved.Within(requested)
			res.Dropped = minus(p.Approved, rec.Approved)
			// The archive folder of the earlier install, if this one came
			// from elsewhere, goes below once the record is saved.
			*p = rec
		} else {
			if len(st.Plugins) >= state.MaxPlugins {
				return invalidf("%d plugins are installed, the most meith keeps: uninstall one first", state.MaxPlugins)
			}
			st.Plugins = append(st.Plugins, rec)
		}
		res.Plugin = rec.Clone()
		return nil
	})
	if err != nil {
		if undo != nil {
			undo()
		}
		return InstallResult{}, err
	}
	if res.Reinstalled {
		s.revoke(ctx, m.ID, RevokeReinstalled)
	}
	if src.Kind != state.PluginSourceArchive {
		// A re-install from a folder or a URL leaves no use for an
		// earlier archive's extracted copy.
		s.removeExtracted(m.ID)
	}
	kind := ChangeInstalled
	if res.Reinstalled {
		kind = ChangeReinstalled
	}
	s.notify(Change{PluginID: m.ID, Kind: kind})
	return res, nil
}

// ApproveResult is what [Service.Approve] did.
type ApproveResult struct {
	Plugin Record
	// Ignored are the grants asked for that the plugin did not request:
	// they were not approved.
	Ignored Grants
	// Disabled is true when the plugin was enabled and the new approval
	// leaves a requested API scope unapproved: it was disabled.
	Disabled bool
}

// Approve sets the approved grants of plugin id to want cut down to what
// it requests (an approval never exceeds the request). An enabled plugin
// whose new approval lacks a requested API scope is disabled; an enabled
// plugin whose approvals change has its tabs revoked ([Tabs.Revoke]).
func (s *Service) Approve(ctx context.Context, id string, want Grants) (ApproveResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var res ApproveResult
	changed := false
	err := s.opts.Store.Update(func(st *state.State) error {
		p := st.Plugin(id)
		if p == nil {
			return notInstalled(id)
		}
		approved := want.Within(p.Requested)
		res.Ignored = minus(want, approved)
		changed = !sameGrants(p.Approved, approved)
		if changed {
			p.Approved = approved
			p.UpdatedAt = s.opts.Now().UnixMilli()
		}
		if p.Enabled && len(state.MissingAPIs(p.Requested, p.Approved)) > 0 {
			p.Enabled = false
			res.Disabled = true
		}
		res.Plugin = p.Clone()
		return nil
	})
	if err != nil {
		return ApproveResult{}, err
	}
	switch {
	case res.Disabled:
		s.revoke(ctx, id, RevokeDisabled)
	case changed && res.Plugin.Enabled:
		s.revoke(ctx, id, RevokeGrantsChanged)
	}
	if changed {
		s.notify(Change{PluginID: id, Kind: ChangeApproved})
	}
	if res.Disabled {
		s.notify(Change{PluginID: id, Kind: ChangeDisabled})
	}
	return res, nil
}

// SetEnabled enables or disables plugin id. Enabling needs every requested
// API scope approved ([CodePermissionDenied] "Cannot enable <id>:
// unapproved API scopes [a, b]" otherwise). Disabling revokes its tabs
// ([Tabs.Revoke]) before it returns.
func (s *Service) SetEnabled(ctx context.Context, id string, enabled bool) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rec Record
	was := false
	err := s.opts.Store.Update(func(st *state.State) error {
		p := st.Plugin(id)
		if p == nil {
			return notInstalled(id)
		}
		if missing := state.MissingAPIs(p.Requested, p.Approved); enabled && len(missing) > 0 {
			return &Error{Code: CodePermissionDenied, Msg: fmt.Sprintf("Cannot enable %s: unapproved API scopes [%s]", id, strings.Join(missing, ", "))}
		}
		was = p.Enabled
		if was != enabled {
			p.Enabled = enabled
			p.UpdatedAt = s.opts.Now().UnixMilli()
		}
		rec = p.Clone()
		return nil
	})
	if err != nil {
		return Record{}, err
	}
	if !enabled {
		// Also when it was already disabled: a tab the layer still holds
		// has no business with the bridge.
		s.revoke(ctx, id, RevokeDisabled)
	}
	if was != enabled {
		kind := ChangeDisabled
		if enabled {
			kind = ChangeEnabled
		}
		s.notify(Change{PluginID: id, Kind: kind})
	}
	return rec, nil
}

// Uninstall removes plugin id: its record, its tabs' authority
// ([Tabs.Revoke]) and, for an archive plugin, its extracted folder. A
// plugin installed from a folder or URL keeps its files.
func (s *Service) Uninstall(ctx context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.opts.Store.Update(func(st *state.State) error {
		if st.Plugin(id) == nil {
			return notInstalled(id)
		}
		st.Plugins = slices.DeleteFunc(st.Plugins, func(p state.Plugin) bool { return p.ID == id })
		return nil
	})
	if err != nil {
		return err
	}
	s.revoke(ctx, id, RevokeUninstalled)
	s.removeExtracted(id)
	s.notify(Change{PluginID: id, Kind: ChangeUninstalled})
	return nil
}

// OpenTab opens a tab hosting plugin id through the tab layer: the plugin
// must be installed ([CodeNotFound]) and enabled ([CodeNotEnabled]);
// without a tab layer it fails with [ErrNoTabs].
func (s *Service) OpenTab(ctx context.Context, id, spaceID string) (state.BrowserTab, error) {
	p, ok := s.Get(id)
	if !ok {
		return state.BrowserTab{}, notInstalled(id)
	}
	if !p.Enabled {
		return state.BrowserTab{}, &Error{Code: CodeNotEnabled, Msg: fmt.Sprintf("Plugin %s is not enabled: approve its API scopes and enable it first (set_plugin_enabled)", id)}
	}
	t := s.tabLayer()
	if t == nil {
		return state.BrowserTab{}, ErrNoTabs
	}
	return t.OpenTab(ctx, p, spaceID)
}

// removeExtracted removes Dir/<id>, the extracted copy of an archive
// plugin, when no record uses it any more.
func (s *Service) removeExtracted(id string) {
	if s.opts.Dir == "" || !state.PluginIDPattern.MatchString(id) {
		return
	}
	dir := filepath.Join(s.opts.Dir, id)
	if p, ok := s.Get(id); ok && p.Root == dir {
		return
	}
	s.removeAll(dir)
}

// removeAll removes path, logging a failure.
func (s *Service) removeAll(path string) {
	if err := os.RemoveAll(path); err != nil {
		s.opts.Logf("plugin: remove %s: %v", path, err)
	}
}

// minus returns the grants of a that are not in b.
func minus(a, b Grants) Grants {
	out := Grants{}.Clone()
	for _, c := range a.Capabilities {
		if !slices.Contains(b.Capabilities, c) && !slices.Contains(out.Capabilities, c) {
			out.Capabilities = append(out.Capabilities, c)
		}
	}
	for _, x := range a.APIs {
		if !slices.Contains(b.APIs, x) && !slices.Contains(out.APIs, x) {
			out.APIs = append(out.APIs, x)
		}
	}
	return out
}

// sameGrants reports whether a and b hold the same grants, in any order.
func sameGrants(a, b Grants) bool {
	return len(minus(a, b).Capabilities)+len(minus(a, b).APIs)+len(minus(b, a).Capabilities)+len(minus(b, a).APIs) == 0
}
