// Package projecttools registers the 15 project tools of the original
// (reference §3.5): project_list, project_detect, project_setup_detect,
// project_open, project_start_dev_server, project_stop_dev_server,
// project_run, project_set_run_config, project_list_templates,
// project_create, project_create_plugin, project_prewarm,
// project_prewarm_status, project_allocate and project_retry_dev_server.
//
// The work is the projects service's ([project.Service]): a folder opened
// as a project gets its own space and a record in state.json, and its run
// commands run as managed dev servers that carry the project and space.
// Every cwd argument goes through call.Path.
package projecttools

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/project"
	"github.com/meith-dev/meith/backend/project/detect"
	"github.com/meith-dev/meith/backend/project/template"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Deps is what the project tools need.
type Deps struct {
	// Projects is the projects service.
	Projects *project.Service
	// Store is the state the service changes; the tools wait for its
	// write (diagnostics say when it failed).
	Store *state.Store
}

// DetectInput is the input of project_detect and project_setup_detect.
type DetectInput struct {
	Cwd string `json:"cwd,omitempty" jsonschema:"the folder (a leading ~ is the home folder; relative to the caller's working directory; default: the caller's working directory)" maxLength:"4096"`
}

// OpenProjectInput is the input of project_open.
type OpenProjectInput struct {
	Cwd            string `json:"cwd,omitempty" jsonschema:"the project folder (a leading ~ is the home folder; relative to the caller's working directory; default: the caller's working directory)" maxLength:"4096"`
	SpaceID        string `json:"spaceId,omitempty" jsonschema:"open a new project into this existing space (it must hold no project); by default the project gets a space of its own" maxLength:"256"`
	Kind           string `json:"kind,omitempty" jsonschema:"app or plugin" enum:"app,plugin" default:"app"`
	StartDevServer *bool  `json:"startDevServer,omitempty" jsonschema:"run the default run command after opening (default: the autoRunOnOpen setting)"`
	DevScript      string `json:"devScript,omitempty" jsonschema:"a package.json script to run instead of the default command (with startDevServer)" maxLength:"200"`
}

// StartInput is the input of project_start_dev_server.
type StartInput struct {
	ProjectID string `json:"projectId,omitempty" jsonschema:"the project (proj_…, see project_list; default: the project of the caller's working directory)" maxLength:"256"`
	Script    string `json:"script,omitempty" jsonschema:"a package.json script to run through the project's package manager (default: the project's default run command)" maxLength:"200"`
}

// StopInput is the input of project_stop_dev_server.
type StopInput struct {
	ProjectID string `json:"projectId,omitempty" jsonschema:"the project (proj_…, see project_list; default: the project of the caller's working directory)" maxLength:"256"`
	Signal    string `json:"signal,omitempty" jsonschema:"signal sent first, e.g. SIGINT; SIGKILL follows after 5 s (default SIGTERM)" maxLength:"32"`
}

// RunInput is the input of project_run.
type RunInput struct {
	ProjectID string `json:"projectId,omitempty" jsonschema:"the project (proj_…, see project_list; default: the project of the caller's working directory)" maxLength:"256"`
	CommandID string `json:"commandId,omitempty" jsonschema:"the run command's id (runConfig.commands[].id; default: runConfig.defaultCommandId)" maxLength:"64"`
}

// SetRunConfigInput is the input of project_set_run_config.
type SetRunConfigInput struct {
	ProjectID string            `json:"projectId,omitempty" jsonschema:"the project (proj_…, see project_list; default: the project of the caller's working directory)" maxLength:"256"`
	RunConfig *detect.RunConfig `json:"runConfig" jsonschema:"{commands:[{id,label,command,isDevServer}], defaultCommandId, env}; null resets to the detected commands. Commands with an empty command are dropped"`
}

// CreateProjectInput is the input of project_create.
type CreateProjectInput struct {
	Template       string `json:"template" jsonschema:"the template (see project_list_templates): app-basic or plugin-basic" maxLength:"64"`
	Name           string `json:"name,omitempty" jsonschema:"the project's name; its folder is a slug of it that never collides (default meith-app)" maxLength:"256"`
	Open           *bool  `json:"open,omitempty" jsonschema:"open it into a new space" default:"true"`
	StartDevServer *bool  `json:"startDevServer,omitempty" jsonschema:"run its dev server once opened (default: the autoRunOnOpen setting)"`
}

// CreatePluginInput is the input of project_create_plugin.
type CreatePluginInput struct {
	Name string `json:"name,omitempty" jsonschema:"the plugin's name (default meith-app)" maxLength:"256"`
	Open *bool  `json:"open,omitempty" jsonschema:"open it into a new space" default:"true"`
}

// PrewarmInput is the input of project_prewarm.
type PrewarmInput struct {
	Count int `json:"count,omitempty" jsonschema:"how many ready projects to keep" minimum:"1" maximum:"10" default:"1"`
}

// AllocateInput is the input of project_allocate.
type AllocateInput struct {
	Name           string `json:"name,omitempty" jsonschema:"the project's name (default meith-app)" maxLength:"256"`
	StartDevServer *bool  `json:"startDevServer,omitempty" jsonschema:"run its dev server once opened" default:"true"`
}

// RetryInput is the input of project_retry_dev_server.
type RetryInput struct {
	ProjectID    string `json:"projectId,omitempty" jsonschema:"the project (proj_…, see project_list; default: the project of the caller's working directory)" maxLength:"256"`
	LogTailLines int    `json:"logTailLines,omitempty" jsonschema:"how many of the last log lines of the previous server to return" minimum:"1" maximum:"500" default:"50"`
}

// ProjectsResult is the result of project_list.
type ProjectsResult struct {
	Projects []state.Project `json:"projects"`
}

// RunResult is the result of project_run.
type RunResult struct {
	CommandID string            `json:"commandId"`
	DevServer process.DevServer `json:"devServer"`
}

// StopServersResult is the result of project_stop_dev_server.
type StopServersResult struct {
	Stopped []string `json:"stopped"`
}

// TemplatesResult is the result of project_list_templates.
type TemplatesResult struct {
	Templates []template.Template `json:"templates"`
}

// PrewarmResult is the result of project_prewarm.
type PrewarmResult struct {
	Ready int `json:"ready"`
}

// PrewarmStatusResult is the result of project_prewarm_status.
type PrewarmStatusResult struct {
	Ready  int    `json:"ready"`
	Target int    `json:"target"`
	Root   string `json:"root"`
}

// RetryResult is the result of project_retry_dev_server.
type RetryResult struct {
	DevServer        process.DevServer `json:"devServer"`
	PreviousLogsTail string            `json:"previousLogsTail"`
}

// Register adds the project tools to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{p: d.Projects, store: d.Store}
	run := protocol.StartsProcess().Plus(protocol.CapAccessesNetwork)
	registry.RegisterAll(r, []registry.Def{
		{Name: "project_list", Description: "List the opened projects (one per space) with their detection, run configuration (null = the detected commands) and space; missing: true when the folder is gone.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.list)},
		{Name: "project_detect", Description: "Inspect a folder without opening it: name, stacks, framework, package manager, scripts, candidate run commands, likely port and workspaces. Nothing is executed.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.detect)},
		{Name: "project_setup_detect", Description: "project_detect plus what setting the folder up needs: .env files (names only), monorepo workspaces, likely port and setup notes (e.g. a missing install).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.setupDetect)},
		{Name: "project_open", Description: "Open a folder as a project in its own space (1:1): the same folder always returns its space and makes it active; a new one is detected, recorded, gets a space named after it and an editor tab. Pass spaceId to bind a new project to an existing space without one. startDevServer runs the default run command (the call then needs starts-process and accesses-network too).",
			Capabilities: protocol.WritesFiles(), ArgCapabilities: t.openRuns(run), Handler: registry.Handle(t.open)},
		{Name: "project_start_dev_server", Description: "Start a project's dev server: its default run command, or the package.json script `script` through the project's package manager (yarn.lock + dev → `yarn dev`). The server's output and port show in list_dev_servers and get_process_logs.",
			Capabilities: run, Handler: registry.Handle(t.startDevServer)},
		{Name: "project_stop_dev_server", Description: "Stop every running dev server of a project (its whole process group); returns the ids stopped.",
			Capabilities: protocol.StartsProcess(), Handler: registry.Handle(t.stopDevServer)},
		{Name: "project_run", Description: "Run one of a project's run commands (default: its default command) as a managed dev server: one shell string, in the project folder, with the run configuration's env added. A run of the same command still going is stopped first.",
			Capabilities: run, Handler: registry.Handle(t.run)},
		{Name: "project_set_run_config", Description: "Set what a project's Run executes: {commands:[{id,label,command,isDevServer}], defaultCommandId, env}; null resets to the detected commands. Up to 50 commands with unique ids of a-z, 0-9 and -; env keys are variable names.",
			Capabilities: protocol.WritesFiles().Plus(protocol.CapStartsProcess), Handler: registry.Handle(t.setRunConfig)},
		{Name: "project_list_templates", Description: "List the project templates (app-basic: a small web app whose dev server prints its port; plugin-basic: a meith plugin skeleton).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.templates)},
		{Name: "project_create", Description: "Create a project from a template in the projects folder ($MEITH_PROJECTS_DIR, else $XDG_DOCUMENTS_DIR/meith, else ~/Documents/meith) under a slug of the name that never collides, then (open: true) open it in a new space.",
			Capabilities: protocol.WritesFiles(), ArgCapabilities: t.createRuns(run), Handler: registry.Handle(t.create)},
		{Name: "project_create_plugin", Description: "Create a meith plugin project from the plugin-basic template in the projects folder, then (open: true) open it in a new space.",
			Capabilities: protocol.WritesFiles(), Handler: registry.Handle(t.createPlugin)},
		{Name: "project_prewarm", Description: "Keep `count` ready app projects in the projects folder's prewarm buffer so a new project (project_allocate) is instant; returns how many are ready.",
			Capabilities: protocol.WritesFiles(), Handler: registry.Handle(t.prewarm)},
		{Name: "project_prewarm_status", Description: "How many prewarmed app projects are ready, the target, and the projects folder.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.prewarmStatus)},
		{Name: "project_allocate", Description: "Take a ready app project from the prewarm buffer (or generate one), name it, open it in a new space and start its dev server.",
			Capabilities: protocol.WritesFiles().Plus(protocol.CapStartsProcess, protocol.CapAccessesNetwork), Handler: registry.Handle(t.allocate)},
		{Name: "project_retry_dev_server", Description: "Retry a project's dev server after it failed: stop its running servers, return the last log lines of the previous one (previousLogsTail) and start the default command again.",
			Capabilities: run, Handler: registry.Handle(t.retry)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct {
	p     *project.Service
	store *state.Store
}

// startsServer tells whether a call whose startDevServer is start runs a
// dev server: as asked, else as the autoRunOnOpen setting says.
func (t *tools) startsServer(start *bool) bool {
	if start != nil {
		return *start
	}
	return t.store != nil && t.store.Settings().AutoRunOnOpen
}

// openRuns is project_open's ArgCapabilities: opening with a dev server
// (asked for, or by autoRunOnOpen) needs what project_start_dev_server
// needs, so a caller allowed to write files only cannot start a process
// through it.
func (t *tools) openRuns(run []protocol.Capability) func(json.RawMessage) []protocol.Capability {
	return func(args json.RawMessage) []protocol.Capability {
		var in OpenProjectInput
		if json.Unmarshal(args, &in) != nil || t.startsServer(in.StartDevServer) {
			return run
		}
		return nil
	}
}

// createRuns is project_create's ArgCapabilities: as [tools.openRuns] when
// the new project is opened (open defaults to true).
func (t *tools) createRuns(run []protocol.Capability) func(json.RawMessage) []protocol.Capability {
	return func(args json.RawMessage) []protocol.Capability {
		var in CreateProjectInput
		if json.Unmarshal(args, &in) != nil || ((in.Open == nil || *in.Open) && t.startsServer(in.StartDevServer)) {
			return run
		}
		return nil
	}
}

// synced waits for the state write and turns a failed one into
// diagnostics.
func (t *tools) synced(ctx context.Context, call *registry.Call) {
	if t.store == nil {
		return
	}
	for _, d := range t.store.SyncDiagnostics(ctx) {
		call.Diagnose(d)
	}
}

func notes(call *registry.Call, ns []string) {
	for _, n := range ns {
		call.Diagnose(protocol.Diagnostic{Level: "warn", Message: n})
	}
}

// required refuses an empty argument with VALIDATION_ERROR naming it.
func required(field, v string) error {
	if v == "" {
		return registry.InvalidArg(field, field+" is required")
	}
	return nil
}

// cwdArg resolves a folder argument (call.Path); without one, the
// caller's working directory.
func cwdArg(call *registry.Call, cwd string) (string, error) {
	if cwd != "" {
		return call.Path(cwd), nil
	}
	if call != nil && filepath.IsAbs(call.Client.Cwd) {
		return call.Client.Cwd, nil
	}
	return "", registry.InvalidArg("cwd", "cwd is required (the caller has no working directory)")
}

// projectID is the projectId argument, else the project whose folder holds
// the caller's working directory.
func (t *tools) projectID(call *registry.Call, id string) (string, error) {
	if id != "" {
		return id, nil
	}
	if call != nil && filepath.IsAbs(call.Client.Cwd) {
		if p, ok := t.p.ProjectAt(call.Client.Cwd); ok {
			return p.ID, nil
		}
	}
	return "", registry.InvalidArg("projectId", "projectId is required outside a project's folder (project_list lists the projects)")
}

// mapError maps the service's errors: bad input to VALIDATION_ERROR naming
// the field, the rest to TOOL_FAILED with the service's message.
func mapError(err error) error {
	return registry.MapError(err, func(err error) error {
		var in *project.InputError
		var rc *state.RunConfigError
		var early *project.ExitedAtOnceError
		switch {
		case errors.As(err, &early):
			return &protocol.ToolError{Code: protocol.CodeToolFailed, Message: early.Error(), Err: err,
				Details: earlyDetails(early)}
		case errors.As(err, &in):
			return registry.InvalidArg(in.Field, in.Error())
		case errors.As(err, &rc):
			return registry.InvalidArg("runConfig."+rc.Field, "runConfig."+rc.Error())
		case process.IsInvalid(err):
			return registry.InvalidArg("signal", err.Error())
		}
		return nil
	})
}

func (t *tools) list(ctx context.Context, call *registry.Call, _ registry.NoArgs) (ProjectsResult, error) {
	return ProjectsResult{Projects: t.p.List()}, nil
}

func (t *tools) detect(ctx context.Context, call *registry.Call, in DetectInput) (detect.Detection, error) {
	cwd, err := cwdArg(call, in.Cwd)
	if err != nil {
		return detect.Detection{}, err
	}
	d, problems, err := t.p.Detect(cwd)
	notes(call, problems)
	return d, mapError(err)
}

func (t *tools) setupDetect(ctx context.Context, call *registry.Call, in DetectInput) (detect.SetupDetection, error) {
	cwd, err := cwdArg(call, in.Cwd)
	if err != nil {
		return detect.SetupDetection{}, err
	}
	d, err := t.p.SetupDetect(cwd)
	return d, mapError(err)
}

func (t *tools) open(ctx context.Context, call *registry.Call, in OpenProjectInput) (project.OpenResult, error) {
	cwd, err := cwdArg(call, in.Cwd)
	if err != nil {
		return project.OpenResult{}, err
	}
	res, err := t.p.Open(ctx, project.OpenOptions{Cwd: cwd, SpaceID: in.SpaceID, Kind: in.Kind,
		StartDevServer: in.StartDevServer, DevScript: in.DevScript})
	if err != nil {
		return project.OpenResult{}, mapError(err)
	}
	t.synced(ctx, call)
	notes(call, res.Notes)
	return res, nil
}

func (t *tools) startDevServer(ctx context.Context, call *registry.Call, in StartInput) (process.DevServer, error) {
	id, err := t.projectID(call, in.ProjectID)
	if err != nil {
		return process.DevServer{}, err
	}
	srv, err := t.p.StartDevServer(ctx, id, in.Script)
	return srv, mapError(err)
}

func (t *tools) stopDevServer(ctx context.Context, call *registry.Call, in StopInput) (StopServersResult, error) {
	id, err := t.projectID(call, in.ProjectID)
	if err != nil {
		return StopServersResult{}, err
	}
	if in.Signal != "" {
		if _, err := process.ParseSignal(in.Signal, 0); err != nil {
			return StopServersResult{}, registry.InvalidArg("signal", "signal is not a known signal name (SIGTERM, SIGINT, SIGKILL, …)")
		}
	}
	stopped, err := t.p.Stop(ctx, id, in.Signal)
	if err != nil {
		return StopServersResult{}, mapError(err)
	}
	return StopServersResult{Stopped: stopped}, nil
}

func (t *tools) run(ctx context.Context, call *registry.Call, in RunInput) (RunResult, error) {
	id, err := t.projectID(call, in.ProjectID)
	if err != nil {
		return RunResult{}, err
	}
	cmdID, srv, err := t.p.Run(ctx, id, in.CommandID)
	if err != nil {
		return RunResult{}, mapError(err)
	}
	return RunResult{CommandID: cmdID, DevServer: srv}, nil
}

func (t *tools) setRunConfig(ctx context.Context, call *registry.Call, in SetRunConfigInput) (state.Project, error) {
	id, err := t.projectID(call, in.ProjectID)
	if err != nil {
		return state.Project{}, err
	}
	p, err := t.p.SetRunConfig(id, in.RunConfig)
	if err != nil {
		return state.Project{}, mapError(err)
	}
	t.synced(ctx, call)
	return p, nil
}

func (t *tools) templates(ctx context.Context, call *registry.Call, _ registry.NoArgs) (TemplatesResult, error) {
	return TemplatesResult{Templates: t.p.Templates()}, nil
}

func (t *tools) create(ctx context.Context, call *registry.Call, in CreateProjectInput) (project.CreateResult, error) {
	if err := required("template", in.Template); err != nil {
		return project.CreateResult{}, err
	}
	return t.created(ctx, call)(t.p.Create(ctx, in.Template, in.Name, in.Open == nil || *in.Open, in.StartDevServer))
}

func (t *tools) createPlugin(ctx context.Context, call *registry.Call, in CreatePluginInput) (project.CreateResult, error) {
	no := false
	return t.created(ctx, call)(t.p.Create(ctx, "plugin-basic", in.Name, in.Open == nil || *in.Open, &no))
}

// created finishes the tools that make a project: diagnostics, the state
// write, errors mapped.
func (t *tools) created(ctx context.Context, call *registry.Call) func(project.CreateResult, error) (project.CreateResult, error) {
	return func(res project.CreateResult, err error) (project.CreateResult, error) {
		if err != nil {
			return project.CreateResult{}, mapError(err)
		}
		t.synced(ctx, call)
		notes(call, res.Notes)
		return res, nil
	}
}

func (t *tools) prewarm(ctx context.Context, call *registry.Call, in PrewarmInput) (PrewarmResult, error) {
	count := in.Count
	if count == 0 {
		count = 1
	}
	b, _, err := t.p.Buffer()
	if err != nil {
		return PrewarmResult{}, mapError(err)
	}
	ready, err := b.Fill(ctx, count)
	if err != nil {
		return PrewarmResult{}, mapError(err)
	}
	return PrewarmResult{Ready: ready}, nil
}

func (t *tools) prewarmStatus(ctx context.Context, call *registry.Call, _ registry.NoArgs) (PrewarmStatusResult, error) {
	b, root, err := t.p.Buffer()
	if err != nil {
		return PrewarmStatusResult{}, mapError(err)
	}
	st := b.Status()
	return PrewarmStatusResult{Ready: st.Ready, Target: st.Target, Root: root}, nil
}

func (t *tools) allocate(ctx context.Context, call *registry.Call, in AllocateInput) (project.CreateResult, error) {
	return t.created(ctx, call)(t.p.Allocate(ctx, in.Name, in.StartDevServer == nil || *in.StartDevServer))
}

func (t *tools) retry(ctx context.Context, call *registry.Call, in RetryInput) (RetryResult, error) {
	id, err := t.projectID(call, in.ProjectID)
	if err != nil {
		return RetryResult{}, err
	}
	n := in.LogTailLines
	if n == 0 {
		n = 50
	}
	srv, tail, err := t.p.Retry(ctx, id, n)
	if err != nil {
		return RetryResult{}, mapError(err)
	}
	return RetryResult{DevServer: srv, PreviousLogsTail: tail}, nil
}

// earlyDetails are the details of a run that failed at once: the server
// (still listed, with its output), how it ended and its last lines.
func earlyDetails(e *project.ExitedAtOnceError) map[string]any {
	d := map[string]any{"devServerId": e.Server.ID, "logsTail": e.Tail}
	if e.Server.ExitCode != nil {
		d["exitCode"] = *e.Server.ExitCode
	}
	if e.Server.Signal != nil {
		d["signal"] = *e.Server.Signal
	}
	return d
}
