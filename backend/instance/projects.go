package instance

import (
	"context"
	"time"

	"github.com/meith-dev/meith/backend/project"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/tools/projecttools"
)

// newProjects builds the projects service over the state and the process
// engine.
func (i *Instance) newProjects() *project.Service {
	return project.New(project.Options{Store: i.state, Procs: i.procs, Logf: func(format string, args ...any) {
		i.log.Logf(protocol.LevelWarn, "project", format, args...)
	}})
}

// registerProjectTools adds the project tools.
func (i *Instance) registerProjectTools() {
	projecttools.Register(i.reg, projecttools.Deps{Projects: i.projects, Store: i.state})
}

// onSpaceClosed is close_space's hook: the space's live browser pages
// close, and its project's dev servers stop when stopServersOnClose is on
// (the project record went with the space).
func (i *Instance) onSpaceClosed(ctx context.Context, spaceID string, tabIDs []string) {
	i.closeSpaceTabs(ctx, spaceID, tabIDs)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	i.projects.SpaceClosed(ctx, spaceID)
}

// Projects returns the projects service behind the project tools.
func (i *Instance) Projects() *project.Service { return i.projects }
