// Package state is the persistent app state of meith: spaces, the active
// space, browser tabs, workspace tabs, projects, installed plugins and the
// app settings, kept in <userData>/state.json.
//
// A [Store] loads the file (migrating older versions forward, repairing
// what breaks the invariants while keeping the user's spaces, setting aside
// a file that cannot be parsed or is over 64 MiB, refusing a newer
// version), hands out deep copies, applies mutations under a lock while
// enforcing the state's invariants and bounds, writes the file atomically
// (fsync of the file and its directory) after a short debounce or at once
// when a tool calls [Store.Sync] (writes of concurrent callers are shared),
// reports failed writes ([WriteError], [Store.WriteStatus]) and retries
// them, and tells subscribers what kind of thing changed so a UI can re-read
// it.
package state

import (
	"fmt"
	"slices"
)

// CurrentVersion is the version of the state.json layout this build writes.
// Each bump adds one step to the migration chain (see migrations.go).
const CurrentVersion = 4

// Id prefixes of the state's objects (ids are "<prefix>_<12 hex>").
const (
	SpacePrefix        = "space"
	WorkspaceTabPrefix = "wtab"
	BrowserTabPrefix   = "btab"
)

// DefaultSpaceName is the name of the space of a fresh install.
const DefaultSpaceName = "Default"

// defaultSpaceColorIx is the palette index of the default space's color.
const defaultSpaceColorIx = 0

// Palette is the set of space colors handed out in turn to new spaces.
var Palette = []string{"#6366f1", "#10b981", "#f59e0b", "#ef4444", "#0ea5e9", "#a855f7"}

// Workspace tab kinds.
const (
	KindEditor   = "editor"
	KindTerminal = "terminal"
	KindAgent    = "agent"
	KindPreview  = "preview"
	KindGit      = "git"
)

// WorkspaceTabKinds lists every valid workspace tab kind.
var WorkspaceTabKinds = []string{KindEditor, KindTerminal, KindAgent, KindPreview, KindGit}

// Package managers of [AppSettings.DefaultPackageManager]; "unknown" means
// detect it from the project's lockfile.
var PackageManagers = []string{"unknown", "npm", "pnpm", "yarn", "bun"}

// State is the whole persisted app state (state.json).
type State struct {
	Version       int            `json:"version"`
	Spaces        []Space        `json:"spaces"`
	ActiveSpaceID string         `json:"activeSpaceId"`
	BrowserTabs   []BrowserTab   `json:"browserTabs"`
	WorkspaceTabs []WorkspaceTab `json:"workspaceTabs"`
	// Projects are the folders opened as projects, one per space (version
	// 3; see projects.go).
	Projects []Project `json:"projects"`
	// Plugins are the installed plugins (version 4; see plugins.go).
	Plugins  []Plugin    `json:"plugins"`
	Settings AppSettings `json:"settings"`
}

// Space is one workspace of the rail: a name, a color, and optionally the
// project folder it is bound to.
type Space struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Color string `json:"color"`
	// Cwd is the absolute project folder of the space, "" for none.
	Cwd string `json:"cwd,omitempty"`
	// ProjectID is the project bound to the space, nil for none. It follows
	// [State.Projects] ([State.NormalizeProjects] sets it).
	ProjectID *string `json:"projectId"`
	// Layout is how the space's workspace is arranged in the window.
	Layout    Layout `json:"layout"`
	CreatedAt int64  `json:"createdAt"` // Unix milliseconds
	UpdatedAt int64  `json:"updatedAt"` // Unix milliseconds
}

// Browser tab modes ([BrowserTab.Mode]).
const (
	BrowserModeWeb    = "web"
	BrowserModePlugin = "plugin"
)

// BrowserTab is a browser tab of a space: the record of a page, which the
// browser engine keeps live while it is open. The page fields (URL, Title,
// Favicon, LoadState, CanGoBack, CanGoForward, ErrorText) mirror the live
// page; the record outlives the page, so a tab reopens after a restart.
// Fields added after version 2 are additive: a record without them is still
// valid.
type BrowserTab struct {
	ID      string `json:"id"`
	SpaceID string `json:"spaceId"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Favicon string `json:"favicon,omitempty"`
	// LoadState is loading | complete | failed.
	LoadState    string `json:"loadState"`
	CanGoBack    bool   `json:"canGoBack"`
	CanGoForward bool   `json:"canGoForward"`
	// ErrorText says why the last navigation failed (LoadState failed).
	ErrorText string `json:"errorText,omitempty"`
	// OwnerID is who holds automation control (browser_use_start): a
	// session id or a caller name; nil when the tab is free.
	OwnerID *string `json:"ownerId"`
	// Mode is web, or plugin for a tab meith opened for a plugin
	// (backend/pluginhost): its page holds the plugin's bridge, and only
	// the window may drive it.
	Mode string `json:"mode"`
	// PluginID names the plugin of a plugin tab ("" for web tabs).
	PluginID string `json:"pluginId,omitempty"`
	// ContextKey names the tab's browser context ("space:<id>",
	// "session:<id>" or, for plugin tabs, "plugin:<id>"): tabs with one
	// key share cookies and storage.
	ContextKey string `json:"contextKey"`
	// Active marks the active browser tab of its space (at most one).
	Active bool `json:"active"`
	// Pane is the pane of the space's workspace that holds the tab.
	Pane      string `json:"pane"`
	CreatedAt int64  `json:"createdAt"` // Unix milliseconds
	UpdatedAt int64  `json:"updatedAt"` // Unix milliseconds
}

// SpaceContextKey is the browser context shared by a space's tabs.
func SpaceContextKey(spaceID string) string { return "space:" + spaceID }

// SessionContextKey is the browser context of an agent session's isolated
// tabs.
func SessionContextKey(sessionID string) string { return "session:" + sessionID }

// PluginContextKey is the browser context of a plugin's tabs: no other
// page shares its cookies, storage or windows.
func PluginContextKey(pluginID string) string { return "plugin:" + pluginID }

// BrowserContext returns the tab's browser context key: ContextKey, or the
// space's for a record that has none.
func (t BrowserTab) BrowserContext() string {
	if t.ContextKey != "" {
		return t.ContextKey
	}
	return SpaceContextKey(t.SpaceID)
}

// Clone returns a deep copy of t.
func (t BrowserTab) Clone() BrowserTab {
	c := t
	c.OwnerID = clonePtr(t.OwnerID)
	return c
}

// WorkspaceTab is an editor, terminal, agent, preview or git tab of a space.
type WorkspaceTab struct {
	ID      string `json:"id"`
	SpaceID string `json:"spaceId"`
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Cwd     string `json:"cwd"`
	// Active marks the active workspace tab of its space (at most one).
	Active bool `json:"active"`
	// Pane is the pane of the space's workspace that holds the tab.
	Pane string `json:"pane"`
	// TerminalID is the live terminal session of a terminal tab.
	TerminalID *string `json:"terminalId"`
	// ActiveFilePath is the focused file of an editor tab (relative to Cwd).
	ActiveFilePath *string `json:"activeFilePath"`
	// OpenFilePaths are the open files of an editor tab (relative to Cwd).
	OpenFilePaths []string `json:"openFilePaths"`
	// SelectedGitFilePath is the selected file of a git tab (relative to Cwd).
	SelectedGitFilePath *string `json:"selectedGitFilePath"`
	CreatedAt           int64   `json:"createdAt"` // Unix milliseconds
}

// AppSettings are the global app settings.
type AppSettings struct {
	AutoRunOnOpen         bool   `json:"autoRunOnOpen"`
	ConfirmOnClose        bool   `json:"confirmOnClose"`
	StopServersOnClose    bool   `json:"stopServersOnClose"`
	ShowOutputOnRun       bool   `json:"showOutputOnRun"`
	DefaultPackageManager string `json:"defaultPackageManager"`
	DebugMode             bool   `json:"debugMode"`
	// StopOrphansOnStart stops, at start-up, the dev servers and terminals
	// an earlier run left running (else they are only listed, as orphans).
	StopOrphansOnStart bool `json:"stopOrphansOnStart"`
	// DevServerOpenBrowser is what the window does when a dev server
	// reports its port: offer a browser tab, open one, or nothing
	// (one of [DevServerOpenBrowserModes]).
	DevServerOpenBrowser string      `json:"devServerOpenBrowser"`
	Git                  GitSettings `json:"git"`
	// Audit is the retention of the audit log's archives (Settings →
	// Storage).
	Audit AuditSettings `json:"audit"`
}

// AuditSettings bound the archives of audit.jsonl (see backend/audit): an
// archive older than RetentionDays days is removed, and the oldest while
// the audit files take more than MaxMB megabytes. The live file is kept.
type AuditSettings struct {
	RetentionDays int `json:"retentionDays"`
	MaxMB         int `json:"maxMB"`
}

// Limits and defaults of [AuditSettings] (the same as backend/audit's).
const (
	DefaultAuditRetentionDays = 90
	DefaultAuditMaxMB         = 200
	MinAuditRetentionDays     = 1
	MaxAuditRetentionDays     = 3650
	MinAuditMaxMB             = 1
	MaxAuditMaxMB             = 10_000
)

// validate checks that both values are within their limits.
func (a AuditSettings) validate() error {
	if a.RetentionDays < MinAuditRetentionDays || a.RetentionDays > MaxAuditRetentionDays {
		return fmt.Errorf("audit retention of %d days is outside [%d, %d]", a.RetentionDays, MinAuditRetentionDays, MaxAuditRetentionDays)
	}
	if a.MaxMB < MinAuditMaxMB || a.MaxMB > MaxAuditMaxMB {
		return fmt.Errorf("audit size limit of %d MB is outside [%d, %d]", a.MaxMB, MinAuditMaxMB, MaxAuditMaxMB)
	}
	return nil
}

// Values of [AppSettings.DevServerOpenBrowser].
const (
	DevServerBrowserOffer = "offer"
	DevServerBrowserOpen  = "open"
	DevServerBrowserOff   = "off"
)

// DevServerOpenBrowserModes lists the valid [AppSettings.DevServerOpenBrowser]
// values.
var DevServerOpenBrowserModes = []string{DevServerBrowserOffer, DevServerBrowserOpen, DevServerBrowserOff}

// GitSettings are the settings of the git tools and the Git panel.
type GitSettings struct {
	// RefreshIntervalMs is how often the Git panel re-reads when no file
	// watcher event arrives (the watcher is the normal path).
	RefreshIntervalMs int `json:"refreshIntervalMs"`
	// ShowUntrackedFiles lists untracked files under Changes.
	ShowUntrackedFiles bool `json:"showUntrackedFiles"`
	// ConfirmBeforeRestore asks before discarding changes.
	ConfirmBeforeRestore bool `json:"confirmBeforeRestore"`
	// CheckpointBeforeAgentRun takes a checkpoint before every agent run.
	CheckpointBeforeAgentRun bool `json:"checkpointBeforeAgentRun"`
	// IdentityProfiles are the saved commit identities.
	IdentityProfiles []IdentityProfile `json:"identityProfiles"`
	// ActiveIdentityProfileID is the profile git_commit uses as author and
	// committer; nil uses the repository's git config.
	ActiveIdentityProfileID *string `json:"activeIdentityProfileId"`
}

// IdentityProfile is a saved commit identity ("gitacct_…").
// The maxLength tags bound the profiles set_app_settings takes (see
// MaxIDLength and MaxNameLength).
type IdentityProfile struct {
	ID    string `json:"id" maxLength:"256"`
	Label string `json:"label" maxLength:"256"`
	Name  string `json:"name" maxLength:"256"`
	Email string `json:"email" maxLength:"256"`
}

// IdentityProfilePrefix is the id prefix of identity profiles.
const IdentityProfilePrefix = "gitacct"

// Limits of [GitSettings.RefreshIntervalMs].
const (
	MinGitRefreshMs = 500
	MaxGitRefreshMs = 60_000
)

// ActiveIdentity returns the active identity profile, or nil when none is
// chosen (or the chosen id no longer exists).
func (g GitSettings) ActiveIdentity() *IdentityProfile {
	if g.ActiveIdentityProfileID == nil {
		return nil
	}
	for _, p := range g.IdentityProfiles {
		if p.ID == *g.ActiveIdentityProfileID {
			p := p
			return &p
		}
	}
	return nil
}

// Clone returns a deep copy of s.
func (s AppSettings) Clone() AppSettings {
	c := s
	c.Git.IdentityProfiles = slices.Clone(s.Git.IdentityProfiles)
	if c.Git.IdentityProfiles == nil {
		c.Git.IdentityProfiles = []IdentityProfile{}
	}
	c.Git.ActiveIdentityProfileID = clonePtr(s.Git.ActiveIdentityProfileID)
	return c
}

// DefaultSettings returns the settings of a fresh install.
func DefaultSettings() AppSettings {
	return AppSettings{
		AutoRunOnOpen:         false,
		ConfirmOnClose:        true,
		StopServersOnClose:    true,
		ShowOutputOnRun:       true,
		DefaultPackageManager: "unknown",
		DebugMode:             false,
		StopOrphansOnStart:    true,
		DevServerOpenBrowser:  DevServerBrowserOffer,
		Git: GitSettings{
			RefreshIntervalMs: 2500, ShowUntrackedFiles: true, ConfirmBeforeRestore: true,
			CheckpointBeforeAgentRun: true, IdentityProfiles: []IdentityProfile{},
		},
		Audit: AuditSettings{RetentionDays: DefaultAuditRetentionDays, MaxMB: DefaultAuditMaxMB},
	}
}

// Default returns the state of a fresh install: one space named "Default",
// active, with no tabs and default settings. now is Unix milliseconds.
func Default(now int64) State {
	sp := NewSpace(DefaultSpaceName, Palette[defaultSpaceColorIx], now)
	return State{
		Version:       CurrentVersion,
		Spaces:        []Space{sp},
		ActiveSpaceID: sp.ID,
		BrowserTabs:   []BrowserTab{},
		WorkspaceTabs: []WorkspaceTab{},
		Projects:      []Project{},
		Plugins:       []Plugin{},
		Settings:      DefaultSettings(),
	}
}

// NewSpace returns a space with a fresh id.
func NewSpace(name, color string, now int64) Space {
	return Space{ID: newID(SpacePrefix), Name: name, Color: color, Layout: DefaultLayout(), CreatedAt: now, UpdatedAt: now}
}

// Space returns a pointer to the space with id in s, or nil.
func (s *State) Space(id string) *Space {
	for i := range s.Spaces {
		if s.Spaces[i].ID == id {
			return &s.Spaces[i]
		}
	}
	return nil
}

// WorkspaceTab returns a pointer to the workspace tab with id in s, or nil.
func (s *State) WorkspaceTab(id string) *WorkspaceTab {
	for i := range s.WorkspaceTabs {
		if s.WorkspaceTabs[i].ID == id {
			return &s.WorkspaceTabs[i]
		}
	}
	return nil
}

// Clone returns a deep copy of s.
func (s State) Clone() State {
	c := s
	c.Spaces = slices.Clone(s.Spaces)
	if c.Spaces == nil {
		c.Spaces = []Space{}
	}
	for i := range c.Spaces {
		c.Spaces[i].ProjectID = clonePtr(c.Spaces[i].ProjectID)
	}
	c.BrowserTabs = make([]BrowserTab, len(s.BrowserTabs))
	for i, t := range s.BrowserTabs {
		c.BrowserTabs[i] = t.Clone()
	}
	c.WorkspaceTabs = make([]WorkspaceTab, len(s.WorkspaceTabs))
	for i, t := range s.WorkspaceTabs {
		c.WorkspaceTabs[i] = t.Clone()
	}
	c.Projects = make([]Project, len(s.Projects))
	for i, p := range s.Projects {
		c.Projects[i] = p.Clone()
	}
	c.Plugins = make([]Plugin, len(s.Plugins))
	for i, p := range s.Plugins {
		c.Plugins[i] = p.Clone()
	}
	c.Settings = s.Settings.Clone()
	return c
}

// Clone returns a deep copy of t.
func (t WorkspaceTab) Clone() WorkspaceTab {
	c := t
	c.TerminalID = clonePtr(t.TerminalID)
	c.ActiveFilePath = clonePtr(t.ActiveFilePath)
	c.SelectedGitFilePath = clonePtr(t.SelectedGitFilePath)
	c.OpenFilePaths = slices.Clone(t.OpenFilePaths)
	if c.OpenFilePaths == nil {
		c.OpenFilePaths = []string{}
	}
	return c
}

// Clone returns a deep copy of sp.
func (sp Space) Clone() Space {
	c := sp
	c.ProjectID = clonePtr(sp.ProjectID)
	return c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Validate checks the invariants of a state: the current version; at least
// one space; unique, non-empty ids across spaces and tabs; non-empty space
// names; an active space that exists; every tab in an existing space; valid
// workspace tab kinds; at most one active workspace tab per space; layouts
// as [State.NormalizeLayouts] leaves them; the project invariants (one
// project per folder and per space, its space existing and naming it, see
// validateProjects); the plugin invariants (see validatePlugins); names,
// titles and paths within
// their bounds (see limits.go); a known default package manager and
// devServerOpenBrowser mode.
func (s *State) Validate() error {
	if s.Version != CurrentVersion {
		return fmt.Errorf("version %d, want %d", s.Version, CurrentVersion)
	}
	if len(s.Spaces) == 0 {
		return fmt.Errorf("there must be at least one space")
	}
	ids := map[string]bool{}
	seen := func(id, what string) error {
		if id == "" {
			return fmt.Errorf("a %s has an empty id", what)
		}
		if ids[id] {
			return fmt.Errorf("duplicate id %s", id)
		}
		ids[id] = true
		return nil
	}
	spaces := map[string]bool{}
	for _, sp := range s.Spaces {
		if err := seen(sp.ID, "space"); err != nil {
			return err
		}
		if sp.Name == "" {
			return fmt.Errorf("space %s has an empty name", sp.ID)
		}
		spaces[sp.ID] = true
	}
	if !spaces[s.ActiveSpaceID] {
		return fmt.Errorf("active space %q does not exist", s.ActiveSpaceID)
	}
	for _, t := range s.BrowserTabs {
		if err := seen(t.ID, "browser tab"); err != nil {
			return err
		}
		if !spaces[t.SpaceID] {
			return fmt.Errorf("browser tab %s is in space %q, which does not exist", t.ID, t.SpaceID)
		}
	}
	active := map[string]string{}
	for _, t := range s.WorkspaceTabs {
		if err := seen(t.ID, "workspace tab"); err != nil {
			return err
		}
		if !spaces[t.SpaceID] {
			return fmt.Errorf("workspace tab %s is in space %q, which does not exist", t.ID, t.SpaceID)
		}
		if !slices.Contains(WorkspaceTabKinds, t.Kind) {
			return fmt.Errorf("workspace tab %s has unknown kind %q", t.ID, t.Kind)
		}
		if t.Active {
			if other, ok := active[t.SpaceID]; ok {
				return fmt.Errorf("workspace tabs %s and %s are both active in space %s", other, t.ID, t.SpaceID)
			}
			active[t.SpaceID] = t.ID
		}
	}
	if err := s.validateProjects(seen); err != nil {
		return err
	}
	if err := s.validatePlugins(); err != nil {
		return err
	}
	if err := s.validateLayouts(); err != nil {
		return err
	}
	if err := s.validateLengths(); err != nil {
		return err
	}
	if !slices.Contains(PackageManagers, s.Settings.DefaultPackageManager) {
		return fmt.Errorf("unknown default package manager %q", s.Settings.DefaultPackageManager)
	}
	if !slices.Contains(DevServerOpenBrowserModes, s.Settings.DevServerOpenBrowser) {
		return fmt.Errorf("unknown devServerOpenBrowser %q (one of offer, open, off)", s.Settings.DevServerOpenBrowser)
	}
	if err := s.Settings.Audit.validate(); err != nil {
		return err
	}
	return s.Settings.Git.validate()
}

// validate checks the git settings: a refresh interval within its limits,
// unique non-empty profile ids, and an active profile that exists.
func (g GitSettings) validate() error {
	if g.RefreshIntervalMs < MinGitRefreshMs || g.RefreshIntervalMs > MaxGitRefreshMs {
		return fmt.Errorf("git refresh interval %d ms is outside [%d, %d]", g.RefreshIntervalMs, MinGitRefreshMs, MaxGitRefreshMs)
	}
	ids := map[string]bool{}
	for _, p := range g.IdentityProfiles {
		if p.ID == "" {
			return fmt.Errorf("an identity profile has an empty id")
		}
		if ids[p.ID] {
			return fmt.Errorf("duplicate identity profile id %s", p.ID)
		}
		ids[p.ID] = true
	}
	if g.ActiveIdentityProfileID != nil && !ids[*g.ActiveIdentityProfileID] {
		return fmt.Errorf("active identity profile %q does not exist", *g.ActiveIdentityProfileID)
	}
	return nil
}
