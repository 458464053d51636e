// Package storage is the engine of the storage tools: what meith keeps under
// its user data folder, as collections listed in one table ([Table]), their
// sizes, bounded reads of them, the state export and the support bundle,
// and the destructive maintenance of Settings → Storage (clear logs, audit
// or artifacts; delete old screenshots; prune stale agent sessions).
//
// Every top-level entry of the user data folder belongs to a collection of
// [Table] or is named in [NotCollections]; a test walks the folder of a real
// runtime and fails on an entry neither covers. Nothing here follows a
// symbolic link: sizes count the link itself, and clearing a folder removes
// links, never what they point at.
package storage

import (
	"path"
	"strings"
)

// Kind is how a collection is stored.
type Kind string

// The kinds of a collection.
const (
	KindJSON      Kind = "json"
	KindJSONL     Kind = "jsonl"
	KindDirectory Kind = "directory"
)

// The names of the collections.
const (
	CollectionState         = "state"
	CollectionLogs          = "logs"
	CollectionAudit         = "audit"
	CollectionArtifacts     = "artifacts"
	CollectionScreenshots   = "screenshots"
	CollectionDownloads     = "downloads"
	CollectionBrowser       = "browser"
	CollectionAgentSessions = "agent_sessions"
	CollectionProcesses     = "processes"
	CollectionTrash         = "trash"
	CollectionApprovalRules = "approval_rules"
	CollectionPlugins       = "plugins"
)

// Entry names under the user data folder (and the artifacts folder) that
// the runtime's engines use; the composition root passes the same names to
// them.
const (
	StateFile         = "state.json"
	LogsFile          = "logs.jsonl"
	AuditFile         = "audit.jsonl"
	ArtifactsDir      = "artifacts"
	DownloadsDir      = "downloads"   // under ArtifactsDir
	ScreenshotsDir    = "screenshots" // under ArtifactsDir: the browser's screenshots
	BrowserDir        = "browser"
	AgentDir          = "agent"
	ProcessesFile     = "processes.json"
	ScrollbackDir     = "terminal-scrollback"
	ShellInitDir      = "shell-init"
	TrashDir          = "trash"
	ApprovalRulesFile = "approval-rules.json"
	PluginsDir        = "plugins"
)

// Collection is one row of [Table].
type Collection struct {
	// Name is the collection's name in the tools ("state", "logs", …).
	Name string
	// Kind is how it is stored.
	Kind Kind
	// Path is its main file or folder, relative to the user data folder.
	Path string
	// Description is the one line Settings → Storage shows.
	Description string
	// Clearable says whether storage_clear_collection may clear it.
	Clearable bool
	// Entries are the top-level entries of the user data folder that belong
	// to the collection (Path's first element included); an entry may be
	// shared by several collections (screenshots and downloads live inside
	// artifacts).
	Entries []string
	// Prefixes are name prefixes of top-level entries that belong to it
	// too (the state's corrupt backups, atomic writes' temporary files).
	Prefixes []string
	// Match, when set, picks the files of a collection inside Path (the
	// screenshots among the artifacts); slash-separated paths relative to
	// Path. Nil: every file under Path.
	Match func(rel string) bool
}

// Table lists every collection under the user data folder: the one place a
// new kind of stored data must be added (the coverage test fails until it
// is).
var Table = []Collection{
	{Name: CollectionState, Kind: KindJSON, Path: StateFile,
		Description: "App state: spaces, tabs, projects, installed plugins and settings (state.json and its corrupt backups)",
		Entries:     []string{StateFile}, Prefixes: []string{StateFile + ".", "." + StateFile + "."}},
	{Name: CollectionLogs, Kind: KindJSONL, Path: LogsFile, Clearable: true,
		Description: "Structured app logs (logs.jsonl, redacted)",
		Entries:     []string{LogsFile}, Prefixes: []string{LogsFile + "."}},
	{Name: CollectionAudit, Kind: KindJSONL, Path: AuditFile, Clearable: true,
		Description: "Redacted tool-call audit entries (audit.jsonl)",
		Entries:     []string{AuditFile}, Prefixes: []string{AuditFile + ".", "audit-"}},
	{Name: CollectionArtifacts, Kind: KindDirectory, Path: ArtifactsDir, Clearable: true,
		Description: "Files tools produced: screenshots, bug reports, support bundles, downloads",
		Entries:     []string{ArtifactsDir}},
	{Name: CollectionScreenshots, Kind: KindDirectory, Path: ArtifactsDir,
		Description: "Screenshot PNGs among the artifacts (app and browser screenshots)",
		Entries:     []string{ArtifactsDir}, Match: IsScreenshot},
	{Name: CollectionDownloads, Kind: KindDirectory, Path: ArtifactsDir + "/" + DownloadsDir,
		Description: "Files the browser downloaded (inside the artifacts)",
		Entries:     []string{ArtifactsDir}},
	{Name: CollectionBrowser, Kind: KindDirectory, Path: BrowserDir,
		Description: "Chromium profile and cookies",
		Entries:     []string{BrowserDir}},
	{Name: CollectionAgentSessions, Kind: KindDirectory, Path: AgentDir,
		Description: "Agent config, sessions and transcripts",
		Entries:     []string{AgentDir}},
	{Name: CollectionProcesses, Kind: KindJSON, Path: ProcessesFile,
		Description: "Records of started processes, saved terminal scrollback and shell init wrappers",
		Entries:     []string{ProcessesFile, ScrollbackDir, ShellInitDir}, Prefixes: []string{"." + ProcessesFile + "."}},
	{Name: CollectionTrash, Kind: KindDirectory, Path: TrashDir,
		Description: "Workspace files and folders deleted with workspace_delete_path (restorable)",
		Entries:     []string{TrashDir}},
	{Name: CollectionApprovalRules, Kind: KindJSON, Path: ApprovalRulesFile,
		Description: "Approval rules remembered for folders",
		Entries:     []string{ApprovalRulesFile}, Prefixes: []string{"." + ApprovalRulesFile + "."}},
	{Name: CollectionPlugins, Kind: KindDirectory, Path: PluginsDir,
		Description: "Plugins installed from archives, extracted (folder and dev-server plugins stay where they are)",
		Entries:     []string{PluginsDir}},
}

// NotCollections are top-level entries of the user data folder that hold
// no stored data: the runtime's socket, which lives as long as the runtime.
var NotCollections = []string{"tool.sock"}

// IsScreenshot reports whether the artifact at rel (slash-separated,
// relative to the artifacts folder) is a screenshot: an app or browser
// screenshot PNG at the top (app-*.png, screenshot-*.png) or a PNG in the
// browser's screenshots folder.
func IsScreenshot(rel string) bool {
	if !strings.HasSuffix(rel, ".png") {
		return false
	}
	dir, base := path.Split(rel)
	switch dir {
	case "":
		return strings.HasPrefix(base, "app-") || strings.HasPrefix(base, "screenshot-")
	case ScreenshotsDir + "/":
		return true
	}
	return false
}

// Names returns the names of the collections, in table order.
func Names() []string {
	out := make([]string, len(Table))
	for i, c := range Table {
		out[i] = c.Name
	}
	return out
}

// Lookup returns the collection called name.
func Lookup(name string) (Collection, bool) {
	for _, c := range Table {
		if c.Name == name {
			return c, true
		}
	}
	return Collection{}, false
}

// Covers returns the collections a top-level entry of the user data folder
// belongs to (none: it is covered by nothing).
func Covers(entry string) []string {
	var out []string
	for _, c := range Table {
		hit := false
		for _, e := range c.Entries {
			hit = hit || e == entry
		}
		for _, p := range c.Prefixes {
			hit = hit || strings.HasPrefix(entry, p)
		}
		if hit {
			out = append(out, c.Name)
		}
	}
	return out
}
