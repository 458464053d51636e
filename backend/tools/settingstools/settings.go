// Package settingstools registers the app settings tools, get_app_settings and
// set_app_settings, and app_get_state, which returns the whole persisted
// app state. They read and change a [state.Store].
package settingstools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the settings tools need.
type Deps struct {
	Store *state.Store
	// OnChange, if set, is called with the new settings after
	// set_app_settings changed them (the instance applies debugMode to the
	// logger and the audit retention to the audit log).
	OnChange func(state.AppSettings)
}

// Result is the content of get_app_settings and set_app_settings.
type Result struct {
	Settings state.AppSettings `json:"settings"`
}

// Patch is a partial [state.AppSettings]: only the given keys change. A
// null value leaves its key unchanged.
type Patch struct {
	AutoRunOnOpen         *bool       `json:"autoRunOnOpen,omitempty" jsonschema:"start the dev server when a project is opened"`
	ConfirmOnClose        *bool       `json:"confirmOnClose,omitempty" jsonschema:"ask before closing a space or tab"`
	StopServersOnClose    *bool       `json:"stopServersOnClose,omitempty" jsonschema:"stop a project's servers when its space closes"`
	ShowOutputOnRun       *bool       `json:"showOutputOnRun,omitempty" jsonschema:"open the Output panel when a project runs"`
	DefaultPackageManager *string     `json:"defaultPackageManager,omitempty" jsonschema:"package manager for projects without a lockfile (unknown: detect)" enum:"unknown,npm,pnpm,yarn,bun"`
	DebugMode             *bool       `json:"debugMode,omitempty" jsonschema:"keep debug-level entries in logs.jsonl"`
	StopOrphansOnStart    *bool       `json:"stopOrphansOnStart,omitempty" jsonschema:"at start-up, stop the dev servers and terminals an earlier run left running (false: only list them as orphans)"`
	DevServerOpenBrowser  *string     `json:"devServerOpenBrowser,omitempty" jsonschema:"what the window does when a dev server reports its port: offer a browser tab, open one, or nothing" enum:"offer,open,off"`
	Git                   *GitPatch   `json:"git,omitempty" jsonschema:"git settings to change; keys not given keep their value"`
	Audit                 *AuditPatch `json:"audit,omitempty" jsonschema:"audit log retention to change (applied at once); keys not given keep their value"`
}

// AuditPatch is a partial [state.AuditSettings].
type AuditPatch struct {
	RetentionDays *int `json:"retentionDays,omitempty" jsonschema:"remove audit archives older than this many days" minimum:"1" maximum:"3650"`
	MaxMB         *int `json:"maxMB,omitempty" jsonschema:"remove the oldest audit archives while the audit files take more than this many megabytes (the live file is kept)" minimum:"1" maximum:"10000"`
}

// GitPatch is a partial [state.GitSettings]. identityProfiles, when given,
// replaces the whole list; activeIdentityProfileId takes a profile id, or
// null for "use the repository's git config".
type GitPatch struct {
	RefreshIntervalMs        *int                    `json:"refreshIntervalMs,omitempty" jsonschema:"how often the Git panel re-reads without a watcher event (ms)" minimum:"500" maximum:"60000"`
	ShowUntrackedFiles       *bool                   `json:"showUntrackedFiles,omitempty" jsonschema:"list untracked files in the Git panel"`
	ConfirmBeforeRestore     *bool                   `json:"confirmBeforeRestore,omitempty" jsonschema:"ask before discarding changes"`
	CheckpointBeforeAgentRun *bool                   `json:"checkpointBeforeAgentRun,omitempty" jsonschema:"take a checkpoint before every agent run"`
	IdentityProfiles         []state.IdentityProfile `json:"identityProfiles,omitempty" jsonschema:"the saved commit identities (replaces the list)"`
	ActiveIdentityProfileID  json.RawMessage         `json:"activeIdentityProfileId,omitempty" jsonschema:"the profile git_commit uses (an id), or null for the repository's git config"`
}

// SetInput is the input of set_app_settings.
type SetInput struct {
	Settings Patch `json:"settings" jsonschema:"the settings to change; keys not given keep their value"`
}

// Apply returns s with the keys given in p changed (a shallow merge).
func (p Patch) Apply(s state.AppSettings) state.AppSettings {
	set(&s.AutoRunOnOpen, p.AutoRunOnOpen)
	set(&s.ConfirmOnClose, p.ConfirmOnClose)
	set(&s.StopServersOnClose, p.StopServersOnClose)
	set(&s.ShowOutputOnRun, p.ShowOutputOnRun)
	set(&s.DefaultPackageManager, p.DefaultPackageManager)
	set(&s.DebugMode, p.DebugMode)
	set(&s.StopOrphansOnStart, p.StopOrphansOnStart)
	set(&s.DevServerOpenBrowser, p.DevServerOpenBrowser)
	if a := p.Audit; a != nil {
		set(&s.Audit.RetentionDays, a.RetentionDays)
		set(&s.Audit.MaxMB, a.MaxMB)
	}
	if g := p.Git; g != nil {
		set(&s.Git.RefreshIntervalMs, g.RefreshIntervalMs)
		set(&s.Git.ShowUntrackedFiles, g.ShowUntrackedFiles)
		set(&s.Git.ConfirmBeforeRestore, g.ConfirmBeforeRestore)
		set(&s.Git.CheckpointBeforeAgentRun, g.CheckpointBeforeAgentRun)
		if g.IdentityProfiles != nil {
			s.Git.IdentityProfiles = slices.Clone(g.IdentityProfiles)
			if s.Git.ActiveIdentity() == nil {
				s.Git.ActiveIdentityProfileID = nil // the active profile was removed
			}
		}
		if len(g.ActiveIdentityProfileID) > 0 {
			var id *string
			_ = json.Unmarshal(g.ActiveIdentityProfileID, &id) // checked by validate
			s.Git.ActiveIdentityProfileID = id
		}
	}
	return s
}

// validate checks what the schema cannot: profile ids, names and the
// active profile id.
func (p Patch) validate() error {
	g := p.Git
	if g == nil {
		return nil
	}
	for i, prof := range g.IdentityProfiles {
		if !strings.HasPrefix(prof.ID, state.IdentityProfilePrefix+"_") {
			return registry.InvalidArg(fmt.Sprintf("settings.git.identityProfiles[%d].id", i),
				fmt.Sprintf("a profile id must start with %q", state.IdentityProfilePrefix+"_"))
		}
	}
	if len(g.ActiveIdentityProfileID) > 0 {
		var id *string
		if err := json.Unmarshal(g.ActiveIdentityProfileID, &id); err != nil {
			return registry.InvalidArg("settings.git.activeIdentityProfileId", "activeIdentityProfileId must be a profile id or null")
		}
		if id != nil && utf8.RuneCountInString(*id) > state.MaxIDLength {
			return registry.InvalidArg("settings.git.activeIdentityProfileId",
				fmt.Sprintf("argument %q must be at most %d characters long", "settings.git.activeIdentityProfileId", state.MaxIDLength))
		}
	}
	return nil
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Register adds get_app_settings, set_app_settings and app_get_state to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{d: d}
	registry.RegisterAll(r, []registry.Def{
		{Name: "get_app_settings", Description: "Read the global app settings.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.getSettings)},
		{Name: "set_app_settings", Description: "Patch global app settings (auto-run, confirm/stop-on-close, show-output-on-run, default package manager, debug mode, stop orphans on start, dev server browser (offer/open/off), audit retention (retentionDays, maxMB), git: refresh, untracked, restore confirmation, checkpoints, identity profiles). Only the provided keys change.",
			Capabilities: protocol.WritesFiles(), Handler: registry.Handle(t.setSettings)},
		{Name: "app_get_state", Description: "Return the persisted app state: spaces, active space, browser and workspace tabs, settings.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.getState)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ d Deps }

// getSettings is get_app_settings.
func (t *tools) getSettings(ctx context.Context, call *registry.Call, _ registry.NoArgs) (protocol.ToolResult, error) {
	return protocol.OKResult(Result{Settings: t.d.Store.Settings()}), nil
}

// setSettings is set_app_settings.
func (t *tools) setSettings(ctx context.Context, call *registry.Call, in SetInput) (protocol.ToolResult, error) {
	if err := in.Settings.validate(); err != nil {
		return protocol.ToolResult{}, err
	}
	var out state.AppSettings
	err := t.d.Store.Update(func(s *state.State) error {
		s.Settings = in.Settings.Apply(s.Settings)
		out = s.Settings
		return nil
	})
	if err != nil {
		// An invariant the patch broke (an unknown active profile, a
		// duplicate id) is the caller's mistake.
		return protocol.ToolResult{}, registry.MapError(err, func(err error) error {
			return &protocol.ToolError{Code: protocol.CodeValidation, Message: "Invalid settings: " + redact.String(err.Error()), Err: err}
		})
	}
	// The change is on disk before the answer; when state.json could not
	// be written the result says so.
	for _, diag := range t.d.Store.SyncDiagnostics(ctx) {
		call.Diagnose(diag)
	}
	if t.d.OnChange != nil {
		t.d.OnChange(out)
	}
	return protocol.OKResult(Result{Settings: out}), nil
}

// getState is app_get_state.
func (t *tools) getState(ctx context.Context, call *registry.Call, _ registry.NoArgs) (state.State, error) {
	return t.d.Store.Get(), nil
}
