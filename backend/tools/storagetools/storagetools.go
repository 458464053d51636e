// Package storagetools registers the 7 storage tools over backend/storage:
// storage_list_collections, storage_read_collection, storage_export_state,
// storage_export_support_bundle (read-only), and storage_clear_collection,
// storage_delete_old_screenshots, storage_prune_stale_agent_sessions
// (destructive: each needs a literal confirm:true).
package storagetools

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/storage"
)

// Deps is what the storage tools use; the instance fills it.
type Deps struct {
	Store *storage.Store
}

// CollectionsResult is the result of storage_list_collections.
type CollectionsResult struct {
	DataDirectory string         `json:"dataDirectory"`
	Collections   []storage.Info `json:"collections"`
}

// ReadCollectionInput is the input of storage_read_collection.
type ReadCollectionInput struct {
	Name  string `json:"name" jsonschema:"the collection (e.g. 'state' or 'logs'; storage_list_collections lists them)"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many of the newest records or files to return" minimum:"1" maximum:"5000" default:"200"`
}

// BundleInput is the input of storage_export_support_bundle.
type BundleInput struct {
	LogsLimit int `json:"logsLimit,omitempty" jsonschema:"how many of the newest app log entries to include" minimum:"1" maximum:"2000" default:"500"`
}

// ClearInput is the input of storage_clear_collection.
type ClearInput struct {
	Name    string `json:"name" jsonschema:"the collection to clear" enum:"logs,audit,artifacts"`
	Confirm bool   `json:"confirm" jsonschema:"must be true: the collection's data is deleted"`
}

// AgeInput is the input of storage_delete_old_screenshots and
// storage_prune_stale_agent_sessions.
type AgeInput struct {
	OlderThanDays int  `json:"olderThanDays,omitempty" jsonschema:"delete what is older than this many days" minimum:"1" maximum:"3650" default:"30"`
	Confirm       bool `json:"confirm" jsonschema:"must be true: the data is deleted"`
}

// Register adds the storage tools to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{d: d}
	registry.RegisterAll(r, []registry.Def{
		{Name: "storage_list_collections", Description: "List durable storage collections with kind, path, and size.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.list)},
		{Name: "storage_read_collection", Description: "Read a storage collection by name. For append-only collections, returns the most recent records.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.read)},
		{Name: "storage_export_state", Description: "Export a full snapshot of persisted state plus storage metadata for backup/debugging.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.exportState)},
		{Name: "storage_export_support_bundle", Description: "Export a support bundle with storage metadata, state, recent logs, and recent audit entries (redacted) to <userData>/artifacts/support-bundle-<timestamp>.json.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.exportBundle)},
		{Name: "storage_clear_collection", Description: "Clear a managed storage collection: logs, audit, or artifacts.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(t.clear)},
		{Name: "storage_delete_old_screenshots", Description: "Delete screenshot PNG artifacts older than the requested age.",
			Capabilities: protocol.Destructive(), Handler: registry.Handle(t.deleteScreenshots)},
		{Name: "storage_prune_stale_agent_sessions", Description: "Delete non-running agent sessions whose metadata has not changed within the requested age.",
			Capabilities: protocol.Destructive(), Timeout: 2 * time.Minute, Handler: registry.Handle(t.pruneSessions)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct {
	d Deps
}

// list is storage_list_collections.
func (t *tools) list(ctx context.Context, call *registry.Call, _ registry.NoArgs) (CollectionsResult, error) {
	return CollectionsResult{DataDirectory: t.d.Store.UserData(), Collections: t.d.Store.List()}, nil
}

// read is storage_read_collection.
func (t *tools) read(ctx context.Context, call *registry.Call, in ReadCollectionInput) (storage.CollectionContent, error) {
	r, err := t.d.Store.Read(ctx, in.Name, in.Limit)
	return r, mapError(err)
}

// exportState is storage_export_state.
func (t *tools) exportState(ctx context.Context, call *registry.Call, _ registry.NoArgs) (storage.StateExport, error) {
	return t.d.Store.ExportState(), nil
}

// exportBundle is storage_export_support_bundle.
func (t *tools) exportBundle(ctx context.Context, call *registry.Call, in BundleInput) (storage.BundleResult, error) {
	call.Progress("collecting the support bundle", 0)
	r, err := t.d.Store.ExportSupportBundle(ctx, in.LogsLimit)
	if err != nil {
		return storage.BundleResult{}, mapError(err)
	}
	call.Artifact("application/json", filepath.Base(r.Path), r.Path)
	call.Progress("support bundle written", 1)
	return r, nil
}

// clear is storage_clear_collection.
func (t *tools) clear(ctx context.Context, call *registry.Call, in ClearInput) (storage.ClearResult, error) {
	if !in.Confirm {
		return storage.ClearResult{}, confirmError()
	}
	r, err := t.d.Store.Clear(ctx, in.Name, clearEntry(call, in.Name))
	return r, mapError(err)
}

// deleteScreenshots is storage_delete_old_screenshots.
func (t *tools) deleteScreenshots(ctx context.Context, call *registry.Call, in AgeInput) (storage.ScreenshotsResult, error) {
	if !in.Confirm {
		return storage.ScreenshotsResult{}, confirmError()
	}
	r, err := t.d.Store.DeleteOldScreenshots(ctx, days(in.OlderThanDays))
	return r, mapError(err)
}

// pruneSessions is storage_prune_stale_agent_sessions.
func (t *tools) pruneSessions(ctx context.Context, call *registry.Call, in AgeInput) (storage.PruneResult, error) {
	if !in.Confirm {
		return storage.PruneResult{}, confirmError()
	}
	r, err := t.d.Store.PruneAgentSessions(ctx, days(in.OlderThanDays))
	return r, mapError(err)
}

// days is olderThanDays with its default (the schema bounds it).
func days(n int) int {
	if n <= 0 {
		return storage.DefaultAgeDays
	}
	return n
}

// confirmError is the VALIDATION_ERROR of a destructive call without
// confirm:true.
func confirmError() error {
	return registry.InvalidArg("confirm", "confirm: must be true to delete stored data")
}

// clearEntry is the audit entry that records a clear of the audit: the
// first entry of the new file.
func clearEntry(call *registry.Call, name string) audit.Entry {
	return audit.Entry{
		ID: protocol.NewID("audit"), TS: time.Now().UTC().Format(audit.TimeLayout),
		Caller: call.Client.Caller, ToolName: "storage_clear_collection",
		Capabilities: []string{string(protocol.CapDestructive)}, Decision: audit.DecisionAllow,
		Cwd: call.Client.Cwd, SessionID: call.Client.SessionID, SpaceID: call.Client.SpaceID, TabID: call.Client.TabID,
		ArgsSummary:   fmt.Sprintf(`{"name":%q,"confirm":true}`, name),
		ResultSummary: `{"ok":true,"content":"the audit log was cleared"}`,
	}
}

// mapError turns the engine's unknown collection into a VALIDATION_ERROR
// naming the field and the known collections.
func mapError(err error) error {
	return registry.MapError(err, func(err error) error {
		if storage.IsUnknownCollection(err) {
			return registry.InvalidArg("name", "name: "+err.Error())
		}
		return nil
	})
}
