// Package hint is the runtime's change bus: the one road by which the
// engines' change notices reach whoever shows them. Today that is the
// desktop window, which forwards every hint unchanged as the Wails event of
// its topic ("state_changed", "git_changed", …) and then re-reads what
// changed through tool calls.
//
// A hint says what changed — a kind, ids, a count — never the data itself:
// WebKit keeps the JavaScript it evaluates for each event, so payloads stay
// a few bytes. Each payload type names its topic ([Payload.Topic]); a new
// family of tools adds a payload type and a Topic constant here (and, if
// its changes come in bursts, a row of [gathered]).
//
// Publishers never wait for subscribers: [Bus.Publish] queues the hint for
// each subscriber and returns. Each subscriber's function runs on a
// goroutine of its own, one hint at a time, in the order the hints entered
// the bus; a subscriber more than [MaxQueued] hints behind loses its oldest
// ones ([Bus.Dropped] counts them).
//
// Topics whose changes come in bursts are gathered: the hints of one topic
// published within its window go out together when the window ends. Log
// appends become one [LogsAppended] with the sum of the counts (audit
// appends one [AuditAppended]); process and
// agent changes go out once per distinct payload, or as one zero payload
// ("re-read everything") when more than the topic's maximum changed; file
// changes go out once per root, their paths joined.
//
// The instance (backend/instance) owns the bus and wires every engine to
// it. The package imports nothing of meith's.
package hint

import "time"

// The topics, which are also the names of the Wails events the window
// receives.
const (
	TopicState     = "state_changed"
	TopicApprovals = "approvals_changed"
	TopicLogs      = "logs_appended"
	TopicGit       = "git_changed"
	TopicProcess   = "process_changed"
	TopicAgent     = "agent_changed"
	TopicFiles     = "files_changed"
	TopicAudit     = "audit"
)

// Topics lists every topic, in the order of the constants above. The
// window's list of event names (frontend/src/lib/bridge/types.ts) is
// checked against it by a test of package app.
func Topics() []string {
	return []string{TopicState, TopicApprovals, TopicLogs, TopicGit, TopicProcess, TopicAgent, TopicFiles, TopicAudit}
}

// Payload is the payload of a hint. Its type decides its topic.
type Payload interface {
	// Topic names the hint's topic (one of the Topic constants).
	Topic() string
}

// StateChanged is a hint of [TopicState]: what kind of app state changed
// ("spaces", "tabs" or "settings") and the ids of the spaces or tabs
// concerned (empty for settings), never the state itself.
type StateChanged struct {
	Kind string   `json:"kind"`
	IDs  []string `json:"ids"`
}

// Topic returns [TopicState].
func (StateChanged) Topic() string { return TopicState }

// ApprovalsChanged is a hint of [TopicApprovals]: a request was added to
// ("pending") or left ("resolved") the list of calls waiting for the
// user's approval, and how many are pending now. The UI re-reads the list.
type ApprovalsChanged struct {
	Kind    string `json:"kind"`
	ID      string `json:"id"`
	Pending int    `json:"pending"`
}

// Topic returns [TopicApprovals].
func (ApprovalsChanged) Topic() string { return TopicApprovals }

// LogsAppended is a hint of [TopicLogs]: how many app log entries were
// written since the last hint (the UI re-reads them with app_get_logs),
// never the entries themselves.
type LogsAppended struct {
	Count int `json:"count"`
}

// Topic returns [TopicLogs].
func (LogsAppended) Topic() string { return TopicLogs }

// merge adds the counts of two hints of one window.
func (l LogsAppended) merge(o Payload) Payload {
	return LogsAppended{Count: l.Count + o.(LogsAppended).Count}
}

// AuditAppended is a hint of [TopicAudit]: how many audit entries were
// written since the last hint (the Audit panel re-reads them with
// audit_query), never the entries themselves.
type AuditAppended struct {
	Count int `json:"count"`
}

// Topic returns [TopicAudit].
func (AuditAppended) Topic() string { return TopicAudit }

// merge adds the counts of two hints of one window.
func (a AuditAppended) merge(o Payload) Payload {
	return AuditAppended{Count: a.Count + o.(AuditAppended).Count}
}

// GitChanged is a hint of [TopicGit]: the worktree root of a watched
// repository whose files, index, HEAD or branches changed, and how many
// paths changed (0: unknown, re-read everything).
type GitChanged struct {
	Root  string `json:"root"`
	Count int    `json:"count"`
}

// Topic returns [TopicGit].
func (GitChanged) Topic() string { return TopicGit }

// ProcessChanged is a hint of [TopicProcess]: a managed process (kind
// "dev-server" or "terminal") was added, removed, or changed status or
// port. Empty kind and id: many changed, re-read everything.
type ProcessChanged struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
}

// Topic returns [TopicProcess].
func (ProcessChanged) Topic() string { return TopicProcess }

// AgentChanged is a hint of [TopicAgent]: something of an agent session
// changed (kind "sessions", "transcript", "permission" or "deleted").
// Empty session id: the list, or many sessions.
type AgentChanged struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
}

// Topic returns [TopicAgent].
func (AgentChanged) Topic() string { return TopicAgent }

// FilesChanged is a hint of [TopicFiles]: files or folders changed under
// a workspace root, through the file tools or on disk. Paths are relative
// to Root with forward slashes, at most [MaxFilesHintPaths]; an empty
// Paths with a Count says that many changed: re-read the folder. Make one
// with [NewFilesChanged].
type FilesChanged struct {
	Root  string   `json:"root"`
	Paths []string `json:"paths"`
	Count int      `json:"count"`
}

// Topic returns [TopicFiles].
func (FilesChanged) Topic() string { return TopicFiles }

// NewFilesChanged is the hint that paths changed under root: the paths
// themselves when there are at most [MaxFilesHintPaths], else only their
// count.
func NewFilesChanged(root string, paths []string) FilesChanged {
	if len(paths) > MaxFilesHintPaths {
		return FilesChanged{Root: root, Paths: []string{}, Count: len(paths)}
	}
	return FilesChanged{Root: root, Paths: append([]string{}, paths...), Count: len(paths)}
}

// mergeKey gathers the hints of one root.
func (f FilesChanged) mergeKey() string { return f.Root }

// merge joins two hints of one root: the union of their paths, or only a
// count once past the maximum.
func (f FilesChanged) merge(o Payload) Payload {
	g := o.(FilesChanged)
	if len(f.Paths) == 0 || len(g.Paths) == 0 {
		return FilesChanged{Root: f.Root, Paths: []string{}, Count: f.Count + g.Count}
	}
	seen := make(map[string]bool, len(f.Paths)+len(g.Paths))
	union := make([]string, 0, len(f.Paths)+len(g.Paths))
	for _, p := range append(append([]string{}, f.Paths...), g.Paths...) {
		if !seen[p] {
			seen[p] = true
			union = append(union, p)
		}
	}
	return NewFilesChanged(f.Root, union)
}

// The windows and maxima of the gathered topics.
const (
	// LogsWindow is the most often a [LogsAppended] hint goes out.
	LogsWindow = 200 * time.Millisecond
	// AuditWindow is the most often an [AuditAppended] hint goes out.
	AuditWindow = 200 * time.Millisecond
	// ProcessWindow is the most often [ProcessChanged] hints go out.
	ProcessWindow = 150 * time.Millisecond
	// MaxProcessHints is how many distinct processes one window announces
	// one by one; beyond it one empty hint says "re-read everything".
	MaxProcessHints = 8
	// AgentWindow is the most often [AgentChanged] hints go out: a
	// streaming answer announces itself at most this often.
	AgentWindow = 100 * time.Millisecond
	// MaxAgentHints is how many distinct (session, kind) hints one window
	// sends one by one; beyond it one empty hint says "re-read".
	MaxAgentHints = 16
	// FilesWindow is the most often a [FilesChanged] hint goes out for one
	// root: the changes of a window are joined per root.
	FilesWindow = 100 * time.Millisecond
	// MaxFilesHintPaths is how many paths one [FilesChanged] names.
	MaxFilesHintPaths = 64
)

// gathering says how the hints of a topic are gathered within a window.
type gathering struct {
	window time.Duration
	// max is how many distinct payloads one window sends; beyond it the
	// window sends only all. Unused for merged payloads.
	max int
	// all is the hint that says "re-read everything".
	all Payload
}

// keyedMerger is a payload whose hints of one window add up to one hint
// per key.
type keyedMerger interface {
	Payload
	mergeKey() string
	merge(Payload) Payload
}

// merger is a payload whose hints of one window add up to one hint.
type merger interface {
	Payload
	merge(Payload) Payload
}

// gathered lists the topics whose hints are gathered; the hints of the
// other topics go out at once, each on its own.
var gathered = map[string]gathering{
	TopicLogs:    {window: LogsWindow},
	TopicAudit:   {window: AuditWindow},
	TopicProcess: {window: ProcessWindow, max: MaxProcessHints, all: ProcessChanged{}},
	TopicAgent:   {window: AgentWindow, max: MaxAgentHints, all: AgentChanged{}},
	TopicFiles:   {window: FilesWindow}, // one hint per root (keyedMerger)
}
