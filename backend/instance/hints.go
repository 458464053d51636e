package instance

import (
	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/applog"
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
}

// PublishHints publishes the changes of the engines in src on bus: a state
// change as [hint.StateChanged], an approval event as
// [hint.ApprovalsChanged] with the number still pending, a log entry as
// [hint.LogsAppended] (gathered by the bus), a change of a watched
// repository as [hint.GitChanged]. Nil engines are skipped. stop ends the
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
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
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
