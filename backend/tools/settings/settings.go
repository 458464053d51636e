// Package settings registers the app settings tools, get_app_settings and
// set_app_settings, and app_get_state, which returns the whole persisted
// app state. They read and change a [state.Store].
package settings

import (
	"context"
	"errors"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the settings tools need.
type Deps struct {
	Store *state.Store
	// OnChange, if set, is called with the new settings after
	// set_app_settings changed them (the instance applies debugMode to the
	// logger).
	OnChange func(state.AppSettings)
}

// Result is the content of get_app_settings and set_app_settings.
type Result struct {
	Settings state.AppSettings `json:"settings"`
}

// Patch is a partial [state.AppSettings]: only the given keys change. A
// null value leaves its key unchanged.
type Patch struct {
	AutoRunOnOpen         *bool   `json:"autoRunOnOpen,omitempty" jsonschema:"start the dev server when a project is opened"`
	ConfirmOnClose        *bool   `json:"confirmOnClose,omitempty" jsonschema:"ask before closing a space or tab"`
	StopServersOnClose    *bool   `json:"stopServersOnClose,omitempty" jsonschema:"stop a project's servers when its space closes"`
	ShowOutputOnRun       *bool   `json:"showOutputOnRun,omitempty" jsonschema:"open the Output panel when a project runs"`
	DefaultPackageManager *string `json:"defaultPackageManager,omitempty" jsonschema:"package manager for projects without a lockfile (unknown: detect)" enum:"unknown,npm,pnpm,yarn,bun"`
	DebugMode             *bool   `json:"debugMode,omitempty" jsonschema:"keep debug-level entries in logs.jsonl"`
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
	return s
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// Register adds get_app_settings, set_app_settings and app_get_state to r.
func Register(r *registry.Registry, d Deps) {
	registry.Register(r, registry.Tool{
		Name:         "get_app_settings",
		Description:  "Read the global app settings.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(ctx context.Context, call *registry.Call, _ registry.NoArgs) (protocol.ToolResult, error) {
		return protocol.OKResult(Result{Settings: d.Store.Settings()}), nil
	})

	registry.Register(r, registry.Tool{
		Name:         "set_app_settings",
		Description:  "Patch global app settings (auto-run, confirm/stop-on-close, show-output-on-run, default package manager). Only the provided keys change.",
		Capabilities: []protocol.Capability{protocol.CapWritesFiles},
	}, func(ctx context.Context, call *registry.Call, in SetInput) (protocol.ToolResult, error) {
		var out state.AppSettings
		err := d.Store.Update(func(s *state.State) error {
			s.Settings = in.Settings.Apply(s.Settings)
			out = s.Settings
			return nil
		})
		if err != nil {
			var te *protocol.ToolError
			if errors.As(err, &te) {
				return protocol.ToolResult{}, err
			}
			return protocol.ToolResult{}, &protocol.ToolError{Code: protocol.CodeToolFailed, Message: err.Error(), Err: err}
		}
		if d.OnChange != nil {
			d.OnChange(out)
		}
		return protocol.OKResult(Result{Settings: out}), nil
	})

	registry.Register(r, registry.Tool{
		Name:         "app_get_state",
		Description:  "Return the persisted app state: spaces, active space, browser and workspace tabs, settings.",
		Capabilities: []protocol.Capability{protocol.CapReadOnly},
	}, func(ctx context.Context, call *registry.Call, _ registry.NoArgs) (state.State, error) {
		return d.Store.Get(), nil
	})
}
