package instance

import (
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/state"
)

// ApprovalRulesFile keeps the "always for this folder" approval rules
// (under the user data dir, 0600).
const ApprovalRulesFile = "approval-rules.json"

// terminalShells is the permission service's [permission.Options.Terminals]:
// the shells of the running terminals, each labelled with the space its tab
// belongs to ("Terminal · todo-api").
func (i *Instance) terminalShells() []permission.TerminalShell {
	if i.procs == nil {
		return nil
	}
	shells := i.procs.TerminalShells()
	if len(shells) == 0 {
		return nil
	}
	st := i.state.Get()
	out := make([]permission.TerminalShell, 0, len(shells))
	for _, sh := range shells {
		out = append(out, permission.TerminalShell{ID: sh.ID, PID: sh.PID, StartTime: sh.StartTime, Label: terminalLabel(st, sh.ID)})
	}
	return out
}

// terminalLabel names terminal id by the space of its tab, else by the
// tab's title; "" when no tab shows it.
func terminalLabel(st state.State, id string) string {
	for _, t := range st.WorkspaceTabs {
		if t.Kind != state.KindTerminal || t.TerminalID == nil || *t.TerminalID != id {
			continue
		}
		for _, sp := range st.Spaces {
			if sp.ID == t.SpaceID && sp.Name != "" {
				return sp.Name
			}
		}
		return t.Title
	}
	return ""
}

// revokeClosedTerminal drops the "this terminal" approvals of a terminal
// that is no longer running (the process engine's change of kind
// terminal).
func (i *Instance) revokeClosedTerminal(kind, id string) {
	if kind != process.KindTerminal || i.perms == nil || i.procs == nil {
		return
	}
	for _, sh := range i.procs.TerminalShells() {
		if sh.ID == id {
			return
		}
	}
	i.perms.RevokeTerminal(id)
}
