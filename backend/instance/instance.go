// Package instance is the composition root of the meith runtime: it resolves
// the paths, opens the log and audit files, builds the permission service and
// the registry, registers every tool family, wires every engine to the
// change bus (package hint; see hints.go), and owns the lifecycle of the
// socket, config.json and the instance record. The desktop app and
// `meith serve` both run one Instance; tests use instancetest.
package instance

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/agent"
	"github.com/meith-dev/meith/backend/agent/mcpbridge"
	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/audit"
	"github.com/meith-dev/meith/backend/browser"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/files"
	"github.com/meith-dev/meith/backend/files/fswatch"
	"github.com/meith-dev/meith/backend/git/watch"
	"github.com/meith-dev/meith/backend/hint"
	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"github.com/meith-dev/meith/backend/lsp"
	"github.com/meith-dev/meith/backend/permission"
	"github.com/meith-dev/meith/backend/plugin"
	"github.com/meith-dev/meith/backend/pluginhost"
	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/project"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/socket"
	"github.com/meith-dev/meith/backend/state"
	"github.com/meith-dev/meith/backend/storage"
	"github.com/meith-dev/meith/backend/tools/apptools"
	"github.com/meith-dev/meith/backend/tools/audittools"
	"github.com/meith-dev/meith/backend/tools/browsertools"
	"github.com/meith-dev/meith/backend/tools/gittools"
	"github.com/meith-dev/meith/backend/tools/permissiontools"
	"github.com/meith-dev/meith/backend/tools/processtools"
	"github.com/meith-dev/meith/backend/tools/settingstools"
	"github.com/meith-dev/meith/backend/tools/spacetools"
	"github.com/meith-dev/meith/backend/tools/storagetools"
)

// Config configures an [Instance]. Empty Home and UserData fall back to
// MEITH_HOME / MEITH_USER_DATA and then to ~/.meith and
// os.UserConfigDir()/meith.
type Config struct {
	Home     string
	UserData string
	// Label names the instance in `meith app list` (default: the base name
	// of the user data dir).
	Label string
	// AppPath is the executable to record in config.json and the record.
	AppPath string
	// GrantCLI is the operator's policy: capabilities every same-user CLI
	// session holds (meith serve --grant-cli).
	GrantCLI []protocol.Capability
	// Desktop marks a runtime that runs the desktop window (record kind).
	Desktop bool
	// ApprovalUI makes privileged CLI calls without a grant wait for a
	// decision through [Instance.Approvals], as the desktop app does (set
	// implicitly by Desktop; tests set it to stand in for the window).
	ApprovalUI bool
	// LogMirror, if set, receives a human line per log entry (serve: stderr).
	LogMirror io.Writer
	// ApprovalTimeout bounds how long a CLI call waits for the user's
	// decision (default: the permission package's).
	ApprovalTimeout time.Duration
	// CaptureWindow, if set, returns a PNG of the main window for
	// app_screenshot (the desktop app sets it); nil means headless.
	CaptureWindow func(ctx context.Context) ([]byte, error)
	// FocusWindow, if set, shows, unminimises and raises the main window for
	// app_focus_window (the desktop app sets it); nil means headless.
	FocusWindow func(ctx context.Context) error
	// WebKitVersion is the WebKitGTK version the window runs on, for
	// app_about (the desktop app sets it; nothing under backend/ links
	// WebKit). "" means headless.
	WebKitVersion string
}

// ConfigFromEnv returns a Config whose paths come from MEITH_HOME and
// MEITH_USER_DATA (or their defaults).
func ConfigFromEnv() (Config, error) {
	p, err := discovery.ResolvePaths("", "")
	if err != nil {
		return Config{}, err
	}
	exe, _ := os.Executable()
	return Config{Home: p.Home, UserData: p.UserData, AppPath: exe}, nil
}

// File names under the user data dir.
const (
	AuditFile = "audit.jsonl"
	LogsFile  = "logs.jsonl"
	StateFile = "state.json"
	// ProcessesFile records the process groups this runtime started, for
	// the next start's orphan sweep.
	ProcessesFile = "processes.json"
)

// Instance is one running meith runtime.
type Instance struct {
	cfg       Config
	paths     discovery.Paths
	startedAt time.Time

	hints     *hint.Bus // the change bus every engine publishes to
	unhint    func()    // ends the engines' subscriptions to the bus
	log       *applog.Logger
	git       *watch.Hub   // git status engines and repository watchers
	fileWatch *fswatch.Hub // the watcher of open workspaces
	unfollow  func()       // ends following the editor tabs' folders
	audit     *audit.Log
	state     *state.Store
	approvals *permission.Approvals
	perms     *permission.Service
	reg       *registry.Registry
	browser   *browser.Manager // Chromium starts on the first tool that needs a live page
	procs     *process.Manager // dev servers and terminals
	agents    *agent.Service   // agent sessions and the approval gate
	bridge    *mcpbridge.Bridge
	launcher  string           // the managed CLI launcher's path ("" : none; see launcher.go)
	files     *files.Engine    // the workspace file tools' engine
	lsp       *lsp.Manager     // language servers of get_diagnostics
	projects  *project.Service // projects: one space each, their runs
	plugins   *plugin.Service  // installed plugins and their grants
	// pluginHost runs plugin pages (tabs of the browser engine) and their
	// bridges; pluginHostRef is how the browser engine, built first,
	// reaches it to reopen a plugin tab.
	pluginHost    *pluginhost.Host
	pluginHostRef atomic.Pointer[pluginhost.Host]

	mu         sync.Mutex
	sock       *socket.Server
	recordPath string
	closed     bool
}

// New builds an instance: directories, logs, audit, permissions, registry
// and tools. Nothing listens until [Instance.Start].
func New(cfg Config) (*Instance, error) {
	paths, err := discovery.ResolvePaths(cfg.Home, cfg.UserData)
	if err != nil {
		return nil, err
	}
	if cfg.Label == "" {
		cfg.Label = filepath.Base(paths.UserData)
	}
	for _, dir := range []string{paths.Home, paths.InstancesDir, paths.UserData} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("instance: create %s: %w", dir, err)
		}
	}
	if err := os.Chmod(paths.UserData, 0o700); err != nil {
		return nil, fmt.Errorf("instance: secure %s: %w", paths.UserData, err)
	}
	i := &Instance{cfg: cfg, paths: paths, startedAt: time.Now(), hints: hint.New()}
	if i.log, err = applog.Open(filepath.Join(paths.UserData, LogsFile), cfg.LogMirror); err != nil {
		return nil, fmt.Errorf("instance: %w", err)
	}
	logf := func(format string, args ...any) { i.log.Logf(protocol.LevelError, "audit", format, args...) }
	if i.audit, err = audit.Open(filepath.Join(paths.UserData, AuditFile), audit.Options{Logf: logf}); err != nil {
		i.log.Close()
		return nil, fmt.Errorf("instance: %w", err)
	}
	i.state, err = state.Open(filepath.Join(paths.UserData, StateFile), state.Options{Logf: func(format string, args ...any) {
		i.log.Logf(protocol.LevelWarn, "state", format, args...)
	}})
	if err != nil {
		i.audit.Close()
		i.log.Close()
		return nil, fmt.Errorf("instance: %w", err)
	}
	i.log.SetDebug(i.state.Settings().DebugMode)
	i.audit.SetRetention(auditRetention(i.state.Settings()))
	aopts := permission.ApprovalsOptions{}
	if cfg.Desktop {
		// The socket answers before the window is up: a call that must
		// ask (`meith .` that started the app) waits for it.
		aopts.FirstUIGrace = FirstWindowGrace
	}
	i.approvals = permission.NewApprovals(aopts)
	i.plugins = i.newPlugins()
	popts := permission.Options{CLIGrants: cfg.GrantCLI, ApprovalTimeout: cfg.ApprovalTimeout, AgentGate: i.gateAgent,
		Terminals: i.terminalShells, RulesFile: filepath.Join(paths.UserData, ApprovalRulesFile), PluginGrants: i.plugins.Grants}
	if cfg.Desktop || cfg.ApprovalUI {
		// Only a runtime with a window (or a test standing in for one) can
		// ask a person; a headless runtime denies at once and says how to
		// grant with --grant-cli.
		popts.Approvals = i.approvals
	}
	i.perms = permission.New(popts)
	if err := i.perms.RulesLoadError(); err != nil {
		i.log.Logf(protocol.LevelWarn, "permission", "approval rules: %v (starting without them)", err)
	}
	i.reg = registry.New(registry.Options{Authorizer: i.perms, Audit: i.onOutcome, Admit: i.admit})
	i.git = watch.NewHub(watch.Options{Logf: func(format string, args ...any) {
		i.log.Logf(protocol.LevelWarn, "git", format, args...)
	}})
	i.fileWatch = i.newFileWatch()
	i.browser = i.newBrowser()
	i.pluginHost = i.newPluginHost()
	i.pluginHostRef.Store(i.pluginHost)
	i.launcher = i.installLauncher()
	i.procs = i.newProcesses()
	i.lsp = i.newLanguageServers()
	if i.agents, err = i.newAgents(); err != nil {
		i.state.Close()
		i.audit.Close()
		i.log.Close()
		return nil, fmt.Errorf("instance: %w", err)
	}
	i.files = i.newFiles()
	i.projects = i.newProjects()
	i.unhint = PublishHints(i.hints, HintSources{State: i.state, Approvals: i.approvals, Logs: i.log, Git: i.git, Files: i.fileWatch, Audit: i.audit})
	i.unfollow = i.followEditorRoots()
	i.registerTools()
	return i, nil
}

// newBrowser builds the browser engine (Chromium starts later, on demand)
// with its callbacks tied to the tab records. Claims of socket sessions
// from an earlier run are dropped first: their connections are gone.
func (i *Instance) newBrowser() *browser.Manager {
	err := i.state.Update(func(s *state.State) error {
		s.ReleaseBrowserTabs(func(owner string) bool { return strings.HasPrefix(owner, "socket:") })
		return nil
	})
	if err != nil {
		i.log.Logf(protocol.LevelWarn, "browser", "release the browser tabs of ended sessions: %v", err)
	}
	opts := browsertools.StateHooks(i.state, browser.Options{
		DataDir:     filepath.Join(i.paths.UserData, "browser"),
		CookieDir:   filepath.Join(i.paths.UserData, "browser", "cookies"),
		DownloadDir: filepath.Join(i.paths.UserData, apptools.ArtifactsDir, "downloads"),
		Logf: func(level, format string, args ...any) {
			i.log.Logf(protocol.LogLevel(level), "browser", format, args...)
		},
		OnDownload: func(id string, d browser.Download) {
			i.log.Write(applog.Entry{Level: protocol.LevelInfo, Source: "browser",
				Message: fmt.Sprintf("download %s: %s", d.State, cmp.Or(d.Path, d.URL)),
				Data:    map[string]any{"tabId": id, "url": d.URL, "path": d.Path, "filename": d.Filename, "state": d.State, "bytes": d.Bytes}})
		},
	}, nil)
	// A plugin tab is reopened by the plugin host (a fresh bridge, or the
	// notice of a disabled plugin), never as a plain page.
	opts.Lookup = pluginhost.WrapLookup(opts.Lookup, i.pluginHostRef.Load)
	return browser.New(opts)
}

// newProcesses builds the process engine. Every process it starts can reach
// this runtime: MEITH_SOCKET, MEITH_HOME and MEITH_USER_DATA are in its
// environment (the socket path is known before Start: it derives from the
// user data dir), and with the managed launcher its folder comes first on
// PATH (kept there in terminals by a shell init wrapper) with MEITH_CLI_BIN.
func (i *Instance) newProcesses() *process.Manager {
	launcherDir := ""
	if i.launcher != "" {
		launcherDir = filepath.Dir(i.launcher)
	}
	return process.New(process.Options{
		Env:          i.runtimeEnv(),
		LauncherDir:  launcherDir,
		ShellInitDir: filepath.Join(i.paths.UserData, "shell-init"),
		RecordFile:   filepath.Join(i.paths.UserData, ProcessesFile),
		// Each terminal's scrollback, saved at shutdown for its tab's next shell.
		ScrollbackDir: filepath.Join(i.paths.UserData, "terminal-scrollback"),
		Logf: func(level, format string, args ...any) {
			i.log.Logf(protocol.LogLevel(level), "process", format, args...)
		},
		OnChange: func(kind, id string) {
			i.revokeClosedTerminal(kind, id)
			i.publishProcessChange(kind, id)
		},
	})
}

// runtimeEnv is the environment that points a child process (a dev server,
// a terminal, an agent) back at this runtime.
func (i *Instance) runtimeEnv() []string {
	env := []string{
		"MEITH_SOCKET=" + discovery.SocketPath(i.paths.UserData),
		"MEITH_HOME=" + i.paths.Home,
		"MEITH_USER_DATA=" + i.paths.UserData,
	}
	if i.launcher != "" {
		env = append(env, "MEITH_CLI_BIN="+i.launcher)
	}
	return env
}

// orphanSweepTimeout bounds the start-up sweep of orphans (each stop sends
// SIGTERM, then SIGKILL after process.StopGrace).
const orphanSweepTimeout = process.StopGrace + 5*time.Second

// sweepOrphans deals with the process groups an earlier run left running:
// with the stopOrphansOnStart setting they are stopped (all at once, each
// logged), else each is logged as a warning and stays listed by
// get_process_tree (kind orphan) for stop_orphan_process.
func (i *Instance) sweepOrphans(ctx context.Context) {
	orphans := i.procs.Orphans()
	if len(orphans) == 0 {
		return
	}
	if !i.state.Settings().StopOrphansOnStart {
		for _, o := range orphans {
			i.log.Logf(protocol.LevelWarn, "process", "orphaned %s %s (pid %d) left by an earlier run is still running in %s; "+
				"stop it with stop_orphan_process %s", o.Kind, o.Command, o.PID, o.Cwd, o.ID)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), orphanSweepTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, o := range orphans {
		wg.Go(func() {
			if err := i.procs.StopOrphan(ctx, o.ID); err != nil {
				i.log.Logf(protocol.LevelWarn, "process", "stop orphaned %s %s (pid %d) left by an earlier run: %v", o.Kind, o.Command, o.PID, err)
				return
			}
			what := "dev server"
			if o.Kind == "terminal" {
				what = "terminal"
			}
			i.log.Logf(protocol.LevelInfo, "process", "stopped orphaned %s %s (pid %d) left by an earlier run", what, o.Command, o.PID)
		})
	}
	wg.Wait()
}

// releaseSessionTabs drops the browser tab claims of a session that ended.
func (i *Instance) releaseSessionTabs(sessionID string) {
	err := i.state.Update(func(s *state.State) error {
		s.ReleaseBrowserTabs(func(owner string) bool { return owner == sessionID })
		return nil
	})
	if err != nil && !errors.Is(err, state.ErrClosed) {
		i.log.Logf(protocol.LevelWarn, "browser", "release the browser tabs of session %s: %v", sessionID, err)
	}
}

// closeSpaceTabs closes the live pages of a closed space's browser tabs,
// disposes of its browser context and deletes its saved cookies. It never
// starts Chromium.
func (i *Instance) closeSpaceTabs(ctx context.Context, spaceID string, tabIDs []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, id := range tabIDs { // isolated tabs live in a context of their own
		if err := i.browser.CloseTab(ctx, id); err != nil {
			i.log.Logf(protocol.LevelWarn, "browser", "close tab %s of closed space %s: %v", id, spaceID, err)
		}
	}
	// Also when Chromium is not running: the space's saved cookies go.
	if err := i.browser.CloseContext(ctx, state.SpaceContextKey(spaceID)); err != nil {
		i.log.Logf(protocol.LevelWarn, "browser", "close the browser context of space %s: %v", spaceID, err)
	}
}

// closeTerminals ends the terminal sessions of closed terminal tabs (one
// already gone is fine: its shell exited, or the window closed it first).
func (i *Instance) closeTerminals(ctx context.Context, ids []string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, id := range ids {
		if err := i.procs.CloseTerminal(ctx, id); err != nil && !process.IsUnknown(err) {
			i.log.Logf(protocol.LevelWarn, "process", "close terminal %s of a closed tab: %v", id, err)
		}
	}
}

// registerTools is the one place that lists every tool family.
func (i *Instance) registerTools() {
	apptools.Register(i.reg, apptools.Deps{
		Version:       buildinfo.Version,
		StartedAt:     i.startedAt,
		UserData:      i.paths.UserData,
		InstancesDir:  i.paths.InstancesDir,
		SocketPath:    i.SocketPath,
		Logger:        i.log,
		Registry:      i.reg,
		Collections:   map[string]string{"audit": AuditFile, "logs": LogsFile, "state": StateFile},
		Checks:        i.checks,
		Label:         i.cfg.Label,
		State:         i.state,
		CaptureWindow: i.cfg.CaptureWindow,
		FocusWindow:   i.cfg.FocusWindow,
		FileHealth:    i.fileHealth,
		Build:         buildinfo.Read(),
		WebKitVersion: i.cfg.WebKitVersion,
		ChromiumPath:  browser.FindChrome,
		PersistDebugMode: func(ctx context.Context, enabled bool) error {
			if err := i.state.Update(func(s *state.State) error { s.Settings.DebugMode = enabled; return nil }); err != nil {
				return err
			}
			return i.state.Sync(ctx)
		},
	})
	spacetools.Register(i.reg, spacetools.Deps{Store: i.state, OnSpaceClosed: i.onSpaceClosed, OnTerminalsReleased: i.closeTerminals})
	browsertools.Register(i.reg, browsertools.Deps{Store: i.state, Browser: i.browser,
		ArtifactsDir: filepath.Join(i.paths.UserData, apptools.ArtifactsDir)})
	gittools.Register(i.reg, gittools.Deps{Hub: i.git, Settings: i.state.Settings})
	processtools.Register(i.reg, processtools.Deps{Manager: i.procs})
	permissiontools.Register(i.reg, permissiontools.Deps{Service: i.perms})
	settingstools.Register(i.reg, settingstools.Deps{Store: i.state, OnChange: func(s state.AppSettings) {
		i.log.SetDebug(s.DebugMode)
		i.audit.SetRetention(auditRetention(s))
	}})
	audittools.Register(i.reg, audittools.Deps{Log: i.audit})
	i.registerAgentTools()
	i.registerFileTools()
	i.registerProjectTools()
	i.registerPluginTools()
	storagetools.Register(i.reg, storagetools.Deps{Store: storage.New(storage.Options{
		UserData: i.paths.UserData, State: i.state, Logs: i.log, Audit: i.audit, Agents: i.agents})})
}

// auditRetention is the audit log's retention of the settings.
func auditRetention(s state.AppSettings) audit.Retention {
	return audit.Retention{Days: s.Audit.RetentionDays, MaxMB: s.Audit.MaxMB}
}

// checks adds the instance's own health lines to app_health.
func (i *Instance) checks(ctx context.Context) []apptools.Check {
	return []apptools.Check{i.browserCheck(), i.processCheck(), i.agentCheck(), {
		Name: "permissions", OK: true,
		Details: map[string]any{
			"cliGrants":        capsOrEmpty(i.cfg.GrantCLI),
			"approvalUIs":      i.approvals.Attached(),
			"pendingApprovals": len(i.approvals.Pending()),
			"auditPath":        filepath.Join(i.paths.UserData, AuditFile),
		},
	}}
}

// browserCheck says whether the browser tools can run: the Chromium they
// would start (or why there is none) and whether it runs.
func (i *Instance) browserCheck() apptools.Check {
	c := apptools.Check{Name: "browser", OK: true, Details: map[string]any{"running": i.browser.Running()}}
	if pid := i.browser.PID(); pid != 0 {
		c.Details["pid"] = pid
	}
	c.Details["framesServed"] = i.browser.FramesServed()
	c.Details["liveTabs"] = i.browser.LiveTabs()
	sandbox := i.browser.Sandbox()
	c.Details["sandbox"] = sandbox.String()
	if !sandbox.On {
		c.Message = "Chromium runs without its sandbox (" + sandbox.Reason + ")"
	}
	c.Details["blockedConnections"] = i.browser.BlockedConnections()
	if exe, err := browser.FindChrome(); err != nil {
		c.OK = false
		c.Details["error"] = err.Error()
	} else {
		c.Details["executable"] = exe
	}
	return c
}

// processCheck counts the managed processes: running dev servers,
// terminals, and orphans an earlier run left.
func (i *Instance) processCheck() apptools.Check {
	running := 0
	servers := i.procs.DevServers()
	for _, s := range servers {
		if s.Status == process.StatusRunning || s.Status == process.StatusStarting {
			running++
		}
	}
	terminals := 0
	for _, t := range i.procs.Terminals() {
		if t.Status == process.StatusRunning || t.Status == process.StatusStarting {
			terminals++
		}
	}
	orphans := len(i.procs.Orphans())
	c := apptools.Check{Name: "processes", OK: true, Details: map[string]any{
		"devServersRunning": running,
		"devServers":        len(servers),
		"terminals":         terminals,
		"orphans":           orphans,
	}}
	if orphans > 0 {
		c.Message = fmt.Sprintf("%d process group(s) left by an earlier run are still running (get_process_tree lists them as orphans)", orphans)
	}
	return c
}

func capsOrEmpty(c []protocol.Capability) []protocol.Capability {
	if c == nil {
		return []protocol.Capability{}
	}
	return c
}

// auditProbeTimeout bounds how long a call that changes something waits
// for the audit writer's retry while audit.jsonl cannot be written.
const auditProbeTimeout = 2 * time.Second

// admit refuses a call that changes something (any capability but
// read-only) while audit.jsonl cannot be written, so that no such call runs
// unaudited; read-only calls keep working. While writes fail, each such
// call first makes the audit writer retry (a probe), so the first call
// after the cause is gone runs. See
// docs/decisions/2026-12-01-refuse-unauditable-calls.md.
func (i *Instance) admit(ctx context.Context, tool protocol.ToolDescriptor) error {
	ctx, cancel := context.WithTimeout(ctx, auditProbeTimeout)
	defer cancel()
	var we *audit.WriteError
	if err := i.audit.Writable(ctx); !errors.As(err, &we) {
		return nil
	}
	return &protocol.ToolError{Code: protocol.CodeToolFailed,
		Message: fmt.Sprintf("%s was not run: the audit log cannot be written (%s); free space (or fix the cause) under %s "+
			"and try again; read-only tools keep working", tool.Name, we.Reason(), i.paths.UserData),
		Details: map[string]any{"reason": "audit_unwritable", "auditPath": we.Path,
			"failingSince": we.Since.UTC().Format(time.RFC3339Nano)}}
}

// fileHealth says how the writes of state.json, audit.jsonl and logs.jsonl
// fare, for the storage check of app_health.
func (i *Instance) fileHealth() map[string]apptools.FileHealth {
	st := i.state.WriteStatus()
	sh := apptools.FileHealth{LastErrorAt: st.LastErrorAt, LastWriteAt: st.LastWriteAt,
		Details: map[string]any{"unsavedChanges": st.Pending}}
	if st.Failing {
		sh.Error = errorReason(st.LastError)
	}
	if load := i.state.Loaded(); load.Backup != "" || len(load.Repairs) > 0 {
		sh.Details["load"] = load
	}
	at := i.audit.WriteStatus()
	ah := apptools.FileHealth{LastErrorAt: at.LastErrorAt, LastWriteAt: at.LastWriteAt,
		Details: map[string]any{"entriesKeptInMemory": at.Retained, "entriesLost": at.Lost}}
	if at.Failing {
		ah.Error = errorReason(at.LastError)
	}
	lt := i.log.WriteStatus()
	lh := apptools.FileHealth{LastErrorAt: lt.LastErrorAt, LastWriteAt: lt.LastWriteAt}
	if lt.Failing {
		lh.Error = errorReason(lt.LastError)
	}
	return map[string]apptools.FileHealth{"state": sh, "audit": ah, "logs": lh}
}

// errorReason is an error in the system's words ("no space left on
// device"), without the paths of the wrapping errors.
func errorReason(err error) string {
	var errno syscall.Errno
	switch {
	case err == nil:
		return ""
	case errors.As(err, &errno):
		return errno.Error()
	}
	return err.Error()
}

// onOutcome audits every call and logs failures.
func (i *Instance) onOutcome(o registry.Outcome) {
	i.audit.Audit(o)
	if o.Result.OK || o.Result.Error == nil {
		// Reading the logs does not write one (a live Logs panel would feed
		// itself); debug mode keeps the rest.
		if i.log.Debug() && o.ToolName != "app_get_logs" {
			i.log.Write(applog.Entry{Level: protocol.LevelDebug, Source: "registry", Message: "tool call ok",
				ToolName: o.ToolName, Caller: string(o.Client.Caller), SessionID: o.Client.SessionID,
				Data: map[string]any{"requestId": o.RequestID, "durationMs": o.Duration.Milliseconds()}})
		}
		return
	}
	msg := fmt.Sprintf("tool call failed: %s: %s", o.Result.Error.Code, o.Result.Error.Message)
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	tool := o.ToolName
	if len(tool) > 100 {
		tool = tool[:100] + "…"
	}
	i.log.Write(applog.Entry{Level: protocol.LevelInfo, Source: "registry", Message: msg, ToolName: tool,
		Caller: string(o.Client.Caller), SessionID: o.Client.SessionID,
		Data: map[string]any{"requestId": o.RequestID, "durationMs": o.Duration.Milliseconds()}})
}

// Start reaps stale instance records, starts the socket, publishes
// config.json and instances/<pid>.json, and then deals with the processes
// an earlier run left running (see the stopOrphansOnStart setting). Only a
// runtime that owns the socket sweeps: a second one for the same user data
// dir fails first.
func (i *Instance) Start(ctx context.Context) error {
	if err := i.start(ctx); err != nil {
		return err
	}
	i.sweepOrphans(ctx)
	return nil
}

// start is Start up to the orphan sweep, under the instance's lock.
func (i *Instance) start(ctx context.Context) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return errors.New("instance: start after close")
	}
	if i.sock != nil {
		return errors.New("instance: already started")
	}
	if _, err := discovery.Reap(i.paths.InstancesDir); err != nil {
		i.log.Logf(protocol.LevelWarn, "instance", "reap stale instances: %v", err)
	}
	cwd, _ := os.Getwd()
	sock, err := socket.Listen(ctx, socket.Options{
		Path:       discovery.SocketPath(i.paths.UserData),
		Registry:   i.reg,
		Logf:       i.log.With("socket"),
		DefaultCwd: cwd,
		OnSessionEnd: func(_ protocol.Caller, sessionID string) {
			// A connection may have called as cli and as plugin: its
			// grants under either die with it.
			for _, c := range []protocol.Caller{protocol.CallerCLI, protocol.CallerPlugin} {
				i.perms.RevokeSession(c, sessionID)
			}
			// Its browser tab claims too: nobody could release them.
			i.releaseSessionTabs(sessionID)
		},
	})
	if err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	i.sock = sock
	pid := os.Getpid()
	kind := "serve"
	if i.cfg.Desktop {
		kind = "desktop"
	}
	rec := discovery.Record{
		PID: pid, SocketPath: sock.Path(), UserDataPath: i.paths.UserData, AppVersion: buildinfo.Version,
		ProtocolVersion: protocol.ProtocolVersion, StartedAt: i.startedAt.UnixMilli(), Cwd: cwd,
		Label: i.cfg.Label, AppPath: i.cfg.AppPath, Kind: kind,
	}
	i.recordPath = discovery.RecordPath(i.paths.InstancesDir, pid)
	if err := discovery.WriteConfig(i.paths.ConfigFile, discovery.Config{
		UserDataPath: i.paths.UserData, SocketPath: sock.Path(), Version: 1, AppVersion: buildinfo.Version,
		ProtocolVersion: protocol.ProtocolVersion, PID: pid, StartedAt: rec.StartedAt,
		InstancesDir: i.paths.InstancesDir, InstancePath: i.recordPath, AppPath: i.cfg.AppPath,
	}); err != nil {
		i.log.Logf(protocol.LevelWarn, "instance", "write config.json: %v", err)
	}
	if _, err := discovery.WriteRecord(i.paths.InstancesDir, rec); err != nil {
		sock.Close(ctx)
		i.sock = nil
		return fmt.Errorf("instance: write instance record: %w", err)
	}
	i.log.Logf(protocol.LevelInfo, "instance", "runtime %s started (pid %d) on %s", buildinfo.Version, pid, sock.Path())
	return nil
}

// Close shuts the runtime down: new calls get RUNTIME_SHUTTING_DOWN, the
// instance record is removed, in-flight calls are cancelled, the socket is
// closed and removed, terminals end (and dev servers, with the
// stopServersOnClose setting), the browser stops, pending state is written to
// state.json, and the log and audit files are closed. It is
// idempotent.
func (i *Instance) Close(ctx context.Context) error {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return nil
	}
	i.closed = true
	sock := i.sock
	i.mu.Unlock()

	i.reg.BeginShutdown()
	var errs []error
	if i.recordPath != "" {
		if err := discovery.RemoveRecord(i.paths.InstancesDir, os.Getpid()); err != nil {
			errs = append(errs, err)
		}
	}
	if sock != nil {
		if err := sock.Close(ctx); err != nil {
			errs = append(errs, fmt.Errorf("close socket: %w", err))
		}
	}
	if sock != nil {
		i.log.Logf(protocol.LevelInfo, "instance", "runtime stopped")
	}
	// Agents first: their runs are cancelled and their processes end before
	// the tools they were using go away.
	if err := i.agents.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close the agents: %w", err))
	}
	if err := i.bridge.Close(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close the MCP bridge: %w", err))
	}
	// Every call is cancelled and answered by now, but the registry answers
	// a cancelled call without waiting for its handler: the engines go away
	// only after the handlers have returned.
	if err := i.reg.WaitIdle(ctx); err != nil {
		errs = append(errs, fmt.Errorf("close: tool handlers still running: %w", err))
	}
	_ = i.git.Close()
	_ = i.lsp.Close()
	i.unfollow()
	_ = i.fileWatch.Close()
	_ = i.projects.Close()
	// Terminals always end with the runtime; dev servers as the user chose.
	// Servers left running stay recorded for the next start's sweep.
	if err := i.procs.Shutdown(ctx, i.state.Settings().StopServersOnClose); err != nil {
		errs = append(errs, fmt.Errorf("stop the processes: %w", err))
	}
	i.pluginHost.Shutdown(ctx)
	if err := i.browser.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stop the browser: %w", err))
	}
	if err := i.state.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close state: %w", err))
	}
	errs = append(errs, i.audit.Close(), i.log.Close())
	i.unhint()
	i.hints.Close()
	return errors.Join(errs...)
}

// FlushAudit waits until every tool call audited so far is written to
// audit.jsonl (the audit log writes in the background), or until ctx ends.
func (i *Instance) FlushAudit(ctx context.Context) error { return i.audit.Flush(ctx) }

// FirstWindowGrace is how long a desktop runtime's CLI calls that need the
// user's approval wait for the window to come up before they are denied.
const FirstWindowGrace = 20 * time.Second

// IsAlreadyRunning reports whether err from [Instance.Start] means another
// live runtime already serves the same user data dir (its socket answers).
func IsAlreadyRunning(err error) bool { return socket.IsInUse(err) }

// AlreadyRunningHint is what to tell a person whose Start failed with
// [IsAlreadyRunning].
func AlreadyRunningHint(userData string) string {
	return fmt.Sprintf("meith is already running for %s (see \"meith app list\"); "+
		"use that instance, or set MEITH_USER_DATA to another directory to run a second one", userData)
}

// Registry returns the tool registry.
func (i *Instance) Registry() *registry.Registry { return i.reg }

// Approvals returns the approval broker a UI attaches to.
func (i *Instance) Approvals() *permission.Approvals { return i.approvals }

// Permissions returns the permission service.
func (i *Instance) Permissions() *permission.Service { return i.perms }

// State returns the app state store (state.json).
func (i *Instance) State() *state.Store { return i.state }

// GitWatch returns the hub of git status engines and repository watchers
// (the window forwards its changes as "git_changed" events).
func (i *Instance) GitWatch() *watch.Hub { return i.git }

// Browser returns the browser engine: the live pages of the browser tabs
// (a live view of the window reads frames and sends input through it).
func (i *Instance) Browser() *browser.Manager { return i.browser }

// Processes returns the process engine: the dev servers and terminals (the
// window's log and terminal views read their output through its
// OutputHandler, and a terminal's keystrokes go to WriteTerminal).
func (i *Instance) Processes() *process.Manager { return i.procs }

// Logger returns the structured log.
func (i *Instance) Logger() *applog.Logger { return i.log }

// Paths returns the resolved paths.
func (i *Instance) Paths() discovery.Paths { return i.paths }

// SocketPath returns the socket's path, or "" before Start.
func (i *Instance) SocketPath() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.sock == nil {
		return ""
	}
	return i.sock.Path()
}
