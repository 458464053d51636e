// Package project is the projects service: a folder opened as a project
// gets its own space (spaces and projects are 1:1), a detection
// (backend/project/detect), a run configuration, and dev servers that
// record their project and space (backend/process). It opens and lists
// projects, runs their commands, stops and retries their servers, sets
// their run configuration, creates new ones from templates
// (backend/project/template, with a prewarm buffer), and stops a project's
// servers when its space is closed.
//
// The records live in state.json ([state.Project]); this package only
// changes them through [state.Store.Update]. The settings autoRunOnOpen
// (run the default command when a project opens) and defaultPackageManager
// (the package manager of a Node project without a lockfile) are read at
// each call.
package project

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/project/detect"
	"github.com/meith-dev/meith/backend/project/template"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/state"
)

// Options configure a [Service].
type Options struct {
	// Store holds the project records, the spaces and the settings.
	Store *state.Store
	// Procs runs the dev servers.
	Procs *process.Manager
	// Now returns the current time (default time.Now).
	Now func() time.Time
	// Root returns the folder new projects go to (default template.Root).
	Root func() (string, error)
	// Logf receives warnings (nil: none).
	Logf func(format string, args ...any)
}

// Service is the projects service. It is safe for concurrent use.
type Service struct {
	opts Options

	openMu sync.Mutex // one open at a time: dedup by folder is check-then-act

	bufMu  sync.Mutex
	buffer *template.Buffer // the prewarm buffer, made on first use
	closed bool
}

// New returns a projects service.
func New(opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Root == nil {
		opts.Root = template.Root
	}
	return &Service{opts: opts}
}

func (s *Service) now() int64 { return s.opts.Now().UnixMilli() }

func (s *Service) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// Close stops the prewarm buffer's background work. The dev servers are
// the process engine's (stopped at shutdown by its own setting).
func (s *Service) Close() error {
	s.bufMu.Lock()
	defer s.bufMu.Unlock()
	s.closed = true
	if s.buffer != nil {
		s.buffer.Close()
	}
	return nil
}

// Folder resolves a project folder: it must exist and be a folder; the
// result is its real path (symlinks resolved). The error is a
// *FolderError.
func Folder(dir string) (string, error) {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "", &FolderError{Path: dir, Problem: "does not exist"}
	case err != nil:
		return "", &FolderError{Path: dir, Problem: "cannot be read", Err: err}
	case !fi.IsDir():
		return "", &FolderError{Path: dir, Problem: "is not a folder"}
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", &FolderError{Path: dir, Problem: "cannot be resolved", Err: err}
	}
	return real, nil
}

// Detect says what the folder dir holds (without opening it).
func (s *Service) Detect(dir string) (detect.Detection, []string, error) {
	d, err := s.SetupDetect(dir)
	return d.Detection, d.Problems, err
}

// SetupDetect is Detect plus env files, workspaces and setup notes.
func (s *Service) SetupDetect(dir string) (detect.SetupDetection, error) {
	real, err := Folder(dir)
	if err != nil {
		return detect.SetupDetection{}, err
	}
	d, err := detect.SetupDetect(real)
	if err != nil {
		return detect.SetupDetection{}, &FolderError{Path: dir, Problem: "could not be inspected", Err: err}
	}
	return d, nil
}

// List returns the projects, oldest first; a project whose folder is gone
// is listed with Missing set.
func (s *Service) List() []state.Project {
	st := s.opts.Store.Get()
	out := st.Projects
	for i := range out {
		if fi, err := os.Stat(out[i].Cwd); err != nil || !fi.IsDir() {
			out[i].Missing = true
			out[i].Detection.Framework = "unknown"
		}
	}
	return out
}

// Get returns one project (an *UnknownProjectError when there is none).
func (s *Service) Get(id string) (state.Project, error) {
	st := s.opts.Store.Get()
	p := st.Project(id)
	if p == nil {
		return state.Project{}, &UnknownProjectError{ID: id}
	}
	return *p, nil
}

// ProjectAt returns the project whose folder is dir or holds it (the
// deepest one), by real path.
func (s *Service) ProjectAt(dir string) (state.Project, bool) {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var best state.Project
	found := false
	for _, p := range s.opts.Store.Get().Projects {
		if (dir == p.Cwd || strings.HasPrefix(dir, strings.TrimSuffix(p.Cwd, "/")+"/")) && len(p.Cwd) > len(best.Cwd) {
			best, found = p, true
		}
	}
	return best, found
}

// EffectiveRunConfig is what Run executes for p: its own run configuration,
// else the detected one (with the default package manager setting).
func (s *Service) EffectiveRunConfig(p state.Project) detect.RunConfig {
	if p.RunConfig != nil {
		return state.CloneRunConfig(*p.RunConfig)
	}
	return state.CloneRunConfig(detect.DefaultRunConfig(p.Detection, s.opts.Store.Settings().DefaultPackageManager))
}

// OpenOptions are the arguments of [Service.Open].
type OpenOptions struct {
	// Cwd is the project folder (absolute).
	Cwd string
	// SpaceID binds a new project to this space (it must hold no project);
	// "" binds it to a space of that folder without a project, else a new
	// space named after the project.
	SpaceID string
	// Kind is app (default) or plugin.
	Kind string
	// StartDevServer runs the default command (or DevScript); nil follows
	// the autoRunOnOpen setting.
	StartDevServer *bool
	// DevScript is a package.json script to run instead of the default
	// command.
	DevScript string
}

// OpenResult is what [Service.Open] did.
type OpenResult struct {
	Project      state.Project      `json:"project"`
	Space        state.Space        `json:"space"`
	WorkspaceTab state.WorkspaceTab `json:"workspaceTab"`
	// Created is true when the project record is new.
	Created bool `json:"created"`
	// DevServer is the server started, nil when none was.
	DevServer *process.DevServer `json:"devServer"`
	// Notes say what was not done and why (the tools turn them into
	// diagnostics).
	Notes []string `json:"-"`
}

// Open opens the folder as a project: the same folder (by real path) always
// returns its project and space, made active; a new one gets a space, an
// editor tab and a record. It then starts the default command when asked
// (or when autoRunOnOpen is on and the caller did not say).
func (s *Service) Open(ctx context.Context, o OpenOptions) (OpenResult, error) {
	if o.Kind == "" {
		o.Kind = state.ProjectKindApp
	}
	if !slices.Contains(state.ProjectKinds, o.Kind) {
		return OpenResult{}, &InputError{Field: "kind", Msg: "must be app or plugin"}
	}
	real, err := Folder(o.Cwd)
	if err != nil {
		return OpenResult{}, err
	}
	sd, err := detect.SetupDetect(real)
	if err != nil {
		return OpenResult{}, &FolderError{Path: o.Cwd, Problem: "could not be inspected", Err: err}
	}
	d := sd.Detection
	s.openMu.Lock()
	var res OpenResult
	now := s.now()
	err = s.opts.Store.Update(func(st *state.State) error {
		res = OpenResult{}
		p := st.ProjectByCwd(real)
		if p != nil {
			p.Detection = d
			p.OpenedAt, p.UpdatedAt = now, now
		} else {
			sp, err := s.spaceFor(st, o.SpaceID, real, d.Name, now)
			if err != nil {
				return err
			}
			st.Projects = append(st.Projects, state.Project{
				ID: protocol.NewID(state.ProjectPrefix), Name: projectName(d, real), Cwd: real, Kind: o.Kind,
				Detection: d, SpaceID: sp.ID, OpenedAt: now, UpdatedAt: now,
			})
			p = &st.Projects[len(st.Projects)-1]
			res.Created = true
		}
		sp := st.Space(p.SpaceID)
		if sp.Cwd == "" {
			sp.Cwd = real
		}
		st.ActiveSpaceID = sp.ID
		tab := editorTab(st, sp.ID, real)
		if tab == nil {
			t := state.WorkspaceTab{ID: protocol.NewID(state.WorkspaceTabPrefix), SpaceID: sp.ID, Kind: state.KindEditor,
				Title: p.Name, Cwd: real, Pane: sp.Layout.FocusedPane, OpenFilePaths: []string{}, CreatedAt: now}
			if t.Pane == "" {
				t.Pane = state.PanePrimary
			}
			st.WorkspaceTabs = append(st.WorkspaceTabs, t)
			tab = &st.WorkspaceTabs[len(st.WorkspaceTabs)-1]
		}
		if err := st.ShowTab(tab.ID); err != nil {
			return err
		}
		res.Project = p.Clone()
		res.WorkspaceTab = st.WorkspaceTab(tab.ID).Clone()
		return nil
	})
	s.openMu.Unlock()
	if err != nil {
		return OpenResult{}, err
	}
	// The store set the space's projectId: read the space back.
	snap := s.opts.Store.Get()
	if sp := snap.Space(res.Project.SpaceID); sp != nil {
		res.Space = sp.Clone()
	}
	// A broken project file does not stop the open (it can be fixed in the
	// editor), but the caller hears of it.
	res.Notes = append(res.Notes, sd.Problems...)
	start := s.opts.Store.Settings().AutoRunOnOpen
	if o.StartDevServer != nil {
		start = *o.StartDevServer
	}
	if start {
		srv, err := s.StartDevServer(ctx, res.Project.ID, o.DevScript)
		switch {
		case err == nil:
			res.DevServer = &srv
		case o.StartDevServer == nil: // autoRunOnOpen: the open stands
			res.Notes = append(res.Notes, "autoRunOnOpen: "+err.Error())
		default:
			return res, err
		}
	}
	return res, nil
}

// spaceFor picks the space of a new project: the given one (it must exist
// and hold no project), else a space of that folder without a project,
// else a new space named after the project.
func (s *Service) spaceFor(st *state.State, spaceID, cwd, name string, now int64) (*state.Space, error) {
	if spaceID != "" {
		sp := st.Space(spaceID)
		if sp == nil {
			return nil, &UnknownSpaceError{ID: spaceID}
		}
		if other := st.ProjectOfSpace(spaceID); other != nil {
			return nil, &SpaceTakenError{SpaceID: spaceID, Project: other.Name}
		}
		if sp.Cwd != "" && sp.Cwd != cwd {
			sp.Cwd = cwd
		}
		return sp, nil
	}
	for i := range st.Spaces {
		if sp := &st.Spaces[i]; sp.Cwd == cwd && st.ProjectOfSpace(sp.ID) == nil {
			return sp, nil
		}
	}
	if name == "" {
		name = filepath.Base(cwd)
	}
	sp := state.NewSpace(truncateName(name), state.Palette[len(st.Spaces)%len(state.Palette)], now)
	sp.Cwd = cwd
	st.Spaces = append(st.Spaces, sp)
	return &st.Spaces[len(st.Spaces)-1], nil
}

// editorTab returns the space's editor tab of the folder, if any.
func editorTab(st *state.State, spaceID, cwd string) *state.WorkspaceTab {
	for i := range st.WorkspaceTabs {
		t := &st.WorkspaceTabs[i]
		if t.SpaceID == spaceID && t.Kind == state.KindEditor && t.Cwd == cwd {
			return t
		}
	}
	return nil
}

func projectName(d detect.Detection, cwd string) string {
	if strings.TrimSpace(d.Name) != "" {
		return truncateName(d.Name)
	}
	return truncateName(filepath.Base(cwd))
}

func truncateName(n string) string {
	r := []rune(n)
	if len(r) > state.MaxNameLength {
		return string(r[:state.MaxNameLength])
	}
	return n
}

// StartDevServer starts the project's default run command, or the
// package.json script named script through the project's package manager.
// A project without any command is a *NoCommandError.
func (s *Service) StartDevServer(ctx context.Context, projectID, script string) (process.DevServer, error) {
	p, err := s.Get(projectID)
	if err != nil {
		return process.DevServer{}, err
	}
	rc := s.EffectiveRunConfig(p)
	if script != "" {
		if !slices.ContainsFunc(p.Detection.Scripts, func(sc detect.Script) bool { return sc.Name == script }) {
			return process.DevServer{}, &InputError{Field: "script", Msg: "is not a script of the project's package.json"}
		}
		cmd := detect.RunCommand{ID: "script-" + script, Label: script,
			Command: scriptCommand(s.packageManager(p), script), IsDevServer: true}
		return s.run(ctx, p, cmd, rc.Env)
	}
	cmd, ok := defaultCommand(rc)
	if !ok {
		return process.DevServer{}, &NoCommandError{Project: p.Name}
	}
	return s.run(ctx, p, cmd, rc.Env)
}

// Run runs one of the project's run commands (the default when commandID
// is "") as a managed dev server, through the shell as one string with the
// project's env. A run of that command still going is stopped first.
func (s *Service) Run(ctx context.Context, projectID, commandID string) (string, process.DevServer, error) {
	p, err := s.Get(projectID)
	if err != nil {
		return "", process.DevServer{}, err
	}
	rc := s.EffectiveRunConfig(p)
	var cmd detect.RunCommand
	if commandID == "" {
		c, ok := defaultCommand(rc)
		if !ok {
			return "", process.DevServer{}, &NoCommandError{Project: p.Name}
		}
		cmd = c
	} else {
		i := slices.IndexFunc(rc.Commands, func(c detect.RunCommand) bool { return c.ID == commandID })
		if i < 0 {
			return "", process.DevServer{}, &InputError{Field: "commandId", Msg: "is not one of the project's run commands (see runConfig.commands of project_list)"}
		}
		cmd = rc.Commands[i]
	}
	srv, err := s.run(ctx, p, cmd, rc.Env)
	return cmd.ID, srv, err
}

// run stops the project's running servers of the same command line and
// starts it.
func (s *Service) run(ctx context.Context, p state.Project, cmd detect.RunCommand, env map[string]string) (process.DevServer, error) {
	for _, d := range s.servers(p.ID) {
		if running(d) && d.Command == cmd.Command {
			if err := s.opts.Procs.StopDevServer(ctx, d.ID, ""); err != nil && !process.IsUnknown(err) {
				return process.DevServer{}, fmt.Errorf("stop the earlier run %s: %w", d.ID, err)
			}
		}
	}
	envList := make([]string, 0, len(env))
	for _, k := range sortedKeys(env) {
		envList = append(envList, k+"="+env[k])
	}
	name := p.Name
	if cmd.Label != "" {
		name += ": " + cmd.Label
	}
	srv, err := s.opts.Procs.StartDevServer(ctx, process.DevSpec{Cwd: p.Cwd, Command: cmd.Command, Name: name,
		ProjectID: p.ID, SpaceID: p.SpaceID, Env: envList})
	if err != nil {
		if process.IsInvalid(err) {
			return process.DevServer{}, &FolderError{Path: p.Cwd, Problem: "cannot run the command there: " + err.Error()}
		}
		return process.DevServer{}, err
	}
	return s.settle(ctx, srv)
}

// StartGrace is how long a run is watched after it starts: a command that
// fails within it (a typo, a missing package, a port in use) fails the
// call that started it with an [ExitedAtOnceError]. A server that
// announces its port, or ends well, answers at once.
const StartGrace = 1500 * time.Millisecond

// settle waits up to [StartGrace] for srv to show a port, end or keep
// running, and turns a failed end into an [ExitedAtOnceError].
func (s *Service) settle(ctx context.Context, srv process.DevServer) (process.DevServer, error) {
	deadline := time.NewTimer(StartGrace)
	defer deadline.Stop()
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for {
		cur, ok := s.opts.Procs.DevServer(srv.ID)
		if !ok {
			return srv, nil
		}
		srv = cur
		switch {
		case srv.Port != nil:
			return srv, nil
		case srv.Status == process.StatusErrored, // it did not start
			srv.Status == process.StatusExited && (srv.Signal != nil || srv.ExitCode != nil && *srv.ExitCode != 0):
			tail, last := s.tailAndLastOutput(srv.ID, 20)
			return srv, &ExitedAtOnceError{Server: srv, Tail: tail, LastOutput: last}
		case srv.Status != process.StatusStarting && srv.Status != process.StatusRunning:
			return srv, nil // exited 0 or stopped: not a failure
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return srv, nil
		case <-ctx.Done():
			return srv, nil // the caller is gone; the server runs on
		}
	}
}

// tail is the last n lines of a process's output, joined.
func (s *Service) tail(id string, n int) string {
	t, _ := s.tailAndLastOutput(id, n)
	return t
}

// tailAndLastOutput is the last n lines of a process's output, joined,
// and the last of them the process printed itself (not meith's own
// "exited with code N").
func (s *Service) tailAndLastOutput(id string, n int) (tail, last string) {
	entries, _, err := s.opts.Procs.Logs(id, 0, n)
	if err != nil {
		return "", ""
	}
	lines := make([]string, len(entries))
	for i, e := range entries {
		lines[i] = e.Text
		if e.Stream != process.StreamSystem && strings.TrimSpace(e.Text) != "" {
			last = e.Text
		}
	}
	return strings.Join(lines, "\n"), last
}

// defaultCommand is the run configuration's default command (else its
// first).
func defaultCommand(rc detect.RunConfig) (detect.RunCommand, bool) {
	for _, c := range rc.Commands {
		if c.ID == rc.DefaultCommandID {
			return c, true
		}
	}
	if len(rc.Commands) > 0 {
		return rc.Commands[0], true
	}
	return detect.RunCommand{}, false
}

// packageManager is the project's package manager: the lockfile's, else
// the defaultPackageManager setting, else npm.
func (s *Service) packageManager(p state.Project) string {
	if p.Detection.Lockfile && p.Detection.PackageManager != "" {
		return p.Detection.PackageManager
	}
	if pm := s.opts.Store.Settings().DefaultPackageManager; pm != "" && pm != "unknown" {
		return pm
	}
	return "npm"
}

// scriptCommand is how pm runs a package.json script.
func scriptCommand(pm, script string) string {
	switch pm {
	case "npm", "bun":
		return pm + " run " + script
	}
	return pm + " " + script
}

func running(d process.DevServer) bool {
	return d.Status == process.StatusRunning || d.Status == process.StatusStarting
}

// servers lists the dev servers of a project, oldest first.
func (s *Service) servers(projectID string) []process.DevServer {
	var out []process.DevServer
	for _, d := range s.opts.Procs.DevServers() {
		if d.ProjectID == projectID {
			out = append(out, d)
		}
	}
	return out
}

// Stop stops every running dev server of the project and returns their
// ids.
func (s *Service) Stop(ctx context.Context, projectID, signal string) ([]string, error) {
	if _, err := s.Get(projectID); err != nil {
		return nil, err
	}
	return s.stopWhere(ctx, signal, func(d process.DevServer) bool { return d.ProjectID == projectID })
}

func (s *Service) stopWhere(ctx context.Context, signal string, match func(process.DevServer) bool) ([]string, error) {
	stopped := []string{}
	var errs []error
	for _, d := range s.opts.Procs.DevServers() {
		if !match(d) || !running(d) {
			continue
		}
		if err := s.opts.Procs.StopDevServer(ctx, d.ID, signal); err != nil && !process.IsUnknown(err) {
			errs = append(errs, err)
			continue
		}
		stopped = append(stopped, d.ID)
	}
	return stopped, errors.Join(errs...)
}

// MaxLogTailLines bounds Retry's log tail.
const MaxLogTailLines = 500

// Retry stops the project's running servers, keeps the last tailLines
// lines of its newest server's log (the one that errored, typically) and
// starts the default command again.
func (s *Service) Retry(ctx context.Context, projectID string, tailLines int) (process.DevServer, string, error) {
	p, err := s.Get(projectID)
	if err != nil {
		return process.DevServer{}, "", err
	}
	tailLines = min(max(tailLines, 1), MaxLogTailLines)
	tail := ""
	if servers := s.servers(p.ID); len(servers) > 0 {
		tail = s.tail(servers[len(servers)-1].ID, tailLines)
	}
	if _, err := s.Stop(ctx, p.ID, ""); err != nil {
		return process.DevServer{}, tail, err
	}
	srv, err := s.StartDevServer(ctx, p.ID, "")
	return srv, tail, err
}

// SetRunConfig sets (or with nil resets to the detected one) the
// project's run configuration. Commands with an empty command line are
// dropped first (as the window's editor does), a default that was dropped
// falls back to the first dev server command; the rest must pass
// [state.ValidateRunConfig] (its *state.RunConfigError names the field).
func (s *Service) SetRunConfig(projectID string, rc *detect.RunConfig) (state.Project, error) {
	if rc != nil {
		c := state.CloneRunConfig(*rc)
		c.Commands = slices.DeleteFunc(c.Commands, func(cmd detect.RunCommand) bool { return strings.TrimSpace(cmd.Command) == "" })
		if !slices.ContainsFunc(c.Commands, func(cmd detect.RunCommand) bool { return cmd.ID == c.DefaultCommandID }) {
			c.DefaultCommandID = ""
			if d, ok := firstDevServer(c.Commands); ok {
				c.DefaultCommandID = d
			}
		}
		if err := state.ValidateRunConfig(c); err != nil {
			return state.Project{}, err
		}
		rc = &c
	}
	var out state.Project
	err := s.opts.Store.Update(func(st *state.State) error {
		p := st.Project(projectID)
		if p == nil {
			return &UnknownProjectError{ID: projectID}
		}
		p.RunConfig = rc
		p.UpdatedAt = s.now()
		out = p.Clone()
		return nil
	})
	return out, err
}

func firstDevServer(cmds []detect.RunCommand) (string, bool) {
	for _, c := range cmds {
		if c.IsDevServer {
			return c.ID, true
		}
	}
	if len(cmds) > 0 {
		return cmds[0].ID, true
	}
	return "", false
}

// SpaceClosed is the close-space hook: with stopServersOnClose on, the dev
// servers of that space (its project's) are stopped. The project record
// went with the space (state.NormalizeProjects).
func (s *Service) SpaceClosed(ctx context.Context, spaceID string) {
	if !s.opts.Store.Settings().StopServersOnClose {
		return
	}
	stopped, err := s.stopWhere(ctx, "", func(d process.DevServer) bool { return d.SpaceID == spaceID })
	if err != nil {
		s.logf("stop the dev servers of closed space %s: %v", spaceID, err)
	}
	_ = stopped
}

// CreateResult is what [Service.Create] and [Service.Allocate] made.
type CreateResult struct {
	Cwd string `json:"cwd"`
	// FromBuffer is set by Allocate when a prewarmed project was used.
	FromBuffer bool               `json:"fromBuffer"`
	Project    *state.Project     `json:"project"`
	Space      *state.Space       `json:"space"`
	DevServer  *process.DevServer `json:"devServer"`
	Notes      []string           `json:"-"`
}

// Templates lists the project templates.
func (s *Service) Templates() []template.Template { return template.List() }

// Create makes a project from tmpl under the projects root and, with open,
// opens it (starting its default command per startDevServer, as Open).
func (s *Service) Create(ctx context.Context, tmpl, name string, open bool, startDevServer *bool) (CreateResult, error) {
	i := slices.IndexFunc(template.List(), func(t template.Template) bool { return t.Name == tmpl })
	if i < 0 {
		return CreateResult{}, &InputError{Field: "template", Msg: "is not a template (see project_list_templates)"}
	}
	kind := template.List()[i].Kind
	root, err := s.opts.Root()
	if err != nil {
		return CreateResult{}, fmt.Errorf("find the projects folder: %w", err)
	}
	dir, err := template.Create(ctx, root, tmpl, name)
	if err != nil {
		return CreateResult{}, fmt.Errorf("create the project in %s: %w", root, err)
	}
	res := CreateResult{Cwd: dir}
	if !open {
		return res, nil
	}
	return s.openCreated(ctx, res, kind, startDevServer)
}

func (s *Service) openCreated(ctx context.Context, res CreateResult, kind string, startDevServer *bool) (CreateResult, error) {
	o, err := s.Open(ctx, OpenOptions{Cwd: res.Cwd, Kind: kind, StartDevServer: startDevServer})
	if o.Project.ID != "" {
		res.Project, res.Space = &o.Project, &o.Space
	}
	res.DevServer, res.Notes = o.DevServer, o.Notes
	return res, err
}

// Buffer returns the prewarm buffer (made on first use under the projects
// root).
func (s *Service) Buffer() (*template.Buffer, string, error) {
	root, err := s.opts.Root()
	if err != nil {
		return nil, "", fmt.Errorf("find the projects folder: %w", err)
	}
	s.bufMu.Lock()
	defer s.bufMu.Unlock()
	if s.closed {
		return nil, "", errors.New("the projects service is closed")
	}
	if s.buffer == nil {
		b, err := template.NewBuffer(root, template.BufferOptions{OnError: func(err error) {
			s.logf("prewarm: %v", err)
		}})
		if err != nil {
			return nil, "", fmt.Errorf("prewarm buffer: %w", err)
		}
		s.buffer = b
	}
	return s.buffer, root, nil
}

// Allocate takes a ready project from the prewarm buffer (or makes one),
// names it and opens it, starting its dev server when startDevServer.
func (s *Service) Allocate(ctx context.Context, name string, startDevServer bool) (CreateResult, error) {
	b, _, err := s.Buffer()
	if err != nil {
		return CreateResult{}, err
	}
	dir, fromBuffer, err := b.Allocate(ctx, name)
	if err != nil {
		return CreateResult{}, fmt.Errorf("allocate a project: %w", err)
	}
	return s.openCreated(ctx, CreateResult{Cwd: dir, FromBuffer: fromBuffer}, state.ProjectKindApp, &startDevServer)
}
