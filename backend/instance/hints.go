package instance

import (
	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/state"
)

// HintSources are the engines that announce their changes to subscribers;
// [PublishHints] turns those announcements into hints. The process and
// agent engines announce theirs through a callback instead, which the
// instance gives them when it builds them.
type HintSources struct {
	State     *state.Store
	Approvals *permission.Approvals
	Logs      *applog.Logger
	Git       *watch.Hub
	Files     *fswatch.Hub
	Audit     *audit.Log
}

// PublishHints publishes the changes of the engines in src on bus: a state
// change as [hint.StateChanged], an approval event as
// [hint.ApprovalsChanged] with the number still pending, a log entry as
// [hint.LogsAppended] (gathered by the bus), a change of a watched
// repository as [hint.GitChanged], a batch of file changes as
// [hint.FilesChanged] (gathered by the bus), a batch of audit entries as
// [hint.AuditAppended] (gathered; entries of audit_query do not count, or
// the Audit panel's own re-reading would announce itself for ever). Nil
// engines are skipped. stop ends the
// subscriptions. The instance calls it for its own engines; tests call it
// for engines of their own.
func PublishHints(bus *hint.Bus, src HintSources) (stop func()) {
	var stops []func()
	if src.State != nil {
		stops = append(stops, src.State.Subscribe(func(c state.Change) {
			ids := c.IDs
			if ids == nil {
				ids = []string{}
			}
			bus.Publish(hint.StateChanged{Kind: c.Kind, IDs: ids})
		}))
	}
	if appr := src.Approvals; appr != nil {
		stops = append(stops, appr.Subscribe(func(ev permission.ApprovalEvent) {
			bus.Publish(hint.ApprovalsChanged{Kind: string(ev.Kind), ID: ev.Request.ID, Pending: len(appr.Pending())})
		}))
	}
	if src.Logs != nil {
		stops = append(stops, src.Logs.Subscribe(func(applog.Entry) { bus.Publish(hint.LogsAppended{Count: 1}) }))
	}
	if src.Git != nil {
		stops = append(stops, src.Git.Subscribe(func(c watch.Change) {
			bus.Publish(hint.GitChanged{Root: c.Root, Count: len(c.Paths)})
		}))
	}
	if src.Files != nil {
		stops = append(stops, src.Files.Subscribe(func(b fswatch.Batch) {
			bus.Publish(filesChanged(b))
		}))
	}
	if src.Audit != nil {
		stops = append(stops, src.Audit.Subscribe(func(es []audit.Entry) {
			n := 0
			for i := range es {
				if es[i].ToolName != AuditQueryTool {
					n++
				}
			}
			if n > 0 {
				bus.Publish(hint.AuditAppended{Count: n})
			}
		}))
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// AuditQueryTool is the tool whose audit entries announce no hint.
const AuditQueryTool = "audit_query"

// filesChanged is the hint of a batch of file changes: its paths, or
// "many" (none, a count above the maximum) when they do not fit or the
// watcher lost track.
func filesChanged(b fswatch.Batch) hint.FilesChanged {
	if b.Overflow || b.Count > hint.MaxFilesHintPaths || len(b.Changes) < b.Count {
		return hint.FilesChanged{Root: b.Root, Paths: []string{}, Count: max(b.Count, hint.MaxFilesHintPaths+1)}
	}
	paths := make([]string, 0, len(b.Changes))
	for _, c := range b.Changes {
		paths = append(paths, c.Path)
	}
	return hint.FilesChanged{Root: b.Root, Paths: paths, Count: b.Count}
}

// publishProcessChange is the process engine's OnChange: a dev server or
// terminal was added, removed, or changed status or port.
func (i *Instance) publishProcessChange(kind, id string) {
	i.hints.Publish(hint.ProcessChanged{Kind: kind, ID: id})
}

// publishAgentChange is the agent service's OnChange.
func (i *Instance) publishAgentChange(c agent.Change) {
	i.hints.Publish(hint.AgentChanged{SessionID: c.SessionID, Kind: c.Kind})
}

// Hints returns the change bus every engine publishes to (the window
// forwards its hints as Wails events).
func (i *Instance) Hints() *hint.Bus { return i.hints }
