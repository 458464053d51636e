package cli

// launch.go: the commands that start meith when it is not running —
// `meith .` / `meith <dir>` (project_open), `meith new [name]`
// (project_create, its dev server started) — and `meith` with no arguments
// while it runs (focus its window, see [Focus]). After an open the app's
// window is raised, so the folder's space is in front. Ensuring a runtime (ensureRuntime) is separate from
// the tool each command then calls, so it is tested on its own.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/client"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/protocol"
)

// WindowBuild is set by the executable when it is a desktop build: run with
// no arguments it opens a window. The CLI then starts it as the app when a
// display is available, else as `meith serve`.
var WindowBuild bool

// Launch polling (reference §5.3): every 300 ms for up to 15 s.
const (
	launchPoll    = 300 * time.Millisecond
	launchTimeout = 15 * time.Second
)

// LaunchLogFile is the file under the user data dir that receives the
// output of a runtime the CLI started.
const LaunchLogFile = "launch.log"

// appCommand returns the program (and its arguments) that starts a runtime
// detached: MEITH_APP_BIN (run without arguments, as the app); else this
// executable — the desktop app when it is a desktop build and DISPLAY or
// WAYLAND_DISPLAY is set, else `meith serve`.
func appCommand() (string, []string, error) {
	if bin := os.Getenv("MEITH_APP_BIN"); bin != "" {
		if !filepath.IsAbs(bin) {
			return "", nil, errors.New("MEITH_APP_BIN must be an absolute path to the meith app")
		}
		if fi, err := os.Stat(bin); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			return "", nil, errors.New("MEITH_APP_BIN is not an executable file")
		}
		return bin, nil, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("find this executable: %w", err)
	}
	if WindowBuild && (os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "") {
		return exe, nil, nil
	}
	return exe, []string{"serve"}, nil
}

// dialLive connects to the target runtime when one answers; nil when none.
func (r *runner) dialLive(ctx context.Context) (conn, Target) {
	r.target, r.targetErr = nil, nil // resolve afresh: a record may have appeared
	t, err := r.resolve()
	if err != nil {
		return nil, t
	}
	c, err := r.dial(ctx, t.SocketPath)
	if err != nil {
		return nil, t
	}
	return c, t
}

// ensureRuntime returns a connection to the target runtime, starting one
// detached when none answers (and no --socket/--instance names one): its own
// session, stdin from /dev/null, its output appended to
// <user data>/launch.log. It says "Starting meith…" on stderr and waits,
// polling every 300 ms, up to 15 s. On failure it prints why and returns a
// nil conn and the exit code.
func (r *runner) ensureRuntime(ctx context.Context) (conn, Target, int) {
	if c, t := r.dialLive(ctx); c != nil {
		return c, t, exitOK
	}
	if r.socket != "" || r.instance != "" {
		return r.connect(ctx) // a named runtime is never started: say why it is unreachable
	}
	paths, err := discovery.ResolvePaths("", "")
	if err != nil {
		return nil, Target{}, r.p.usage("%s", err)
	}
	bin, args, err := appCommand()
	if err != nil {
		r.p.stderr("error: %s. Could not find a meith app to launch: set MEITH_APP_BIN, or start it yourself (\"meith serve\"), then re-run your command.", err)
		return nil, Target{}, exitFailure
	}
	logPath := filepath.Join(paths.UserData, LaunchLogFile)
	exited, err := startDetached(bin, args, logPath)
	if err != nil {
		r.p.stderr("error: start meith: %v", err)
		return nil, Target{}, exitFailure
	}
	if !r.p.quiet {
		r.p.stderr("Starting meith…")
	}
	deadline := time.NewTimer(launchTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(launchPoll)
	defer tick.Stop()
	for {
		if c, t := r.dialLive(ctx); c != nil {
			return c, t, exitOK
		}
		select {
		case <-ctx.Done():
			return nil, Target{}, exitInterrupted
		case <-exited:
			if c, t := r.dialLive(ctx); c != nil { // the app handed over to a runtime that was starting
				return c, t, exitOK
			}
			r.p.stderr("error: meith exited while starting; its output is in %s", logPath)
			return nil, Target{}, exitFailure
		case <-deadline.C:
			r.p.stderr("App is starting; re-run your command once it is ready. (Its output is in %s.)", logPath)
			return nil, Target{}, exitFailure
		case <-tick.C:
		}
	}
}

// startDetached starts bin in a session of its own with its output
// appended to logPath; the returned channel is closed when it exits.
func startDetached(bin string, args []string, logPath string) (<-chan struct{}, error) {
	if err := os.MkdirAll(filepath.Dir(logPath), 0o700); err != nil {
		return nil, err
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own descriptor
	fmt.Fprintf(logf, "--- %s: meith started by the CLI (%s)\n", time.Now().Format(time.RFC3339), filepath.Base(bin))
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf // stdin: /dev/null
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	return exited, nil
}

// callOn calls tool on c and renders the outcome like invoke.
func (r *runner) callOn(ctx context.Context, c conn, t Target, tool string, args any, render renderer) int {
	raw, err := json.Marshal(args)
	if err != nil {
		return r.p.usage("encode parameters: %v", err)
	}
	res, err := c.Call(ctx, tool, raw, client.CallOptions{ClientInfo: clientInfo(), Timeout: r.timeout, OnEvent: r.p.event})
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return r.p.fail(t.SocketPath, err)
	}
	code := r.p.result(res, render)
	if ctx.Err() != nil {
		return exitInterrupted
	}
	return code
}

// openedProject is the part of project_open's and project_create's results
// the CLI prints.
type openedProject struct {
	Cwd     string `json:"cwd"`
	Project *struct {
		Name      string `json:"name"`
		Detection struct {
			Label string `json:"label"`
		} `json:"detection"`
	} `json:"project"`
	Space *struct {
		Name string `json:"name"`
	} `json:"space"`
	DevServer *struct {
		Command string `json:"command"`
	} `json:"devServer"`
}

// renderOpened prints "Opened <name> (<label>) in space <space>".
func renderOpened(content json.RawMessage) (string, bool) {
	var o openedProject
	if json.Unmarshal(content, &o) != nil || o.Project == nil || o.Space == nil {
		return "", false
	}
	line := "Opened " + o.Project.Name
	if o.Project.Detection.Label != "" {
		line += " (" + o.Project.Detection.Label + ")"
	}
	return line + " in space " + o.Space.Name, true
}

// renderCreated prints "Created <cwd>" and, when it was opened, the
// Opened line and the dev server's command ("Running npm run dev").
func renderCreated(content json.RawMessage) (string, bool) {
	var o openedProject
	if json.Unmarshal(content, &o) != nil || o.Cwd == "" {
		return "", false
	}
	out := "Created " + o.Cwd
	if opened, ok := renderOpened(content); ok {
		out += "\n" + opened
	}
	if o.DevServer != nil && o.DevServer.Command != "" {
		out += "\nRunning " + o.DevServer.Command
	}
	return out, true
}

// expandHome expands a leading "~" or "~/".
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

// folderArg returns the absolute folder cmd names when it is one (an
// existing directory: ".", "~/x", a relative or absolute path), else "".
func folderArg(cmd string) string {
	p := expandHome(cmd)
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return abs
}

// looksLikePath reports whether cmd is written as a path ("./x", "../x",
// "~/x", "/x"), so that a missing one is reported as a missing folder.
func looksLikePath(cmd string) bool {
	return cmd == "." || cmd == ".." || cmd == "~" || strings.ContainsRune(cmd, '/')
}

// openFolder is `meith <dir>`: project_open {cwd} in the running app,
// starting it first when none runs.
func (r *runner) openFolder(ctx context.Context, dir string, rest []string) int {
	if len(rest) > 0 {
		return r.p.usage("meith <folder> takes one folder (got another argument).")
	}
	c, t, code := r.ensureRuntime(ctx)
	if c == nil {
		return code
	}
	defer c.Close()
	return r.raiseAfter(ctx, c, r.callOn(ctx, c, t, "project_open", map[string]any{"cwd": dir}, renderOpened))
}

// raiseAfter asks the app to raise its window (app_focus_window) when the
// open that returned code succeeded, so the opened space is in front; it
// says nothing (a headless runtime has no window) and returns code.
func (r *runner) raiseAfter(ctx context.Context, c conn, code int) int {
	if code == exitOK {
		_, _ = c.Call(ctx, "app_focus_window", json.RawMessage(`{}`), client.CallOptions{ClientInfo: clientInfo(), Timeout: 10 * time.Second})
	}
	return code
}

// newProject is `meith new [name]`: project_create {template: "app-basic",
// name?, startDevServer: true} (the new app opens running), starting the
// app first when none runs.
func (r *runner) newProject(ctx context.Context, rest []string) int {
	if len(rest) > 1 {
		return r.p.usage("meith new takes at most one name (quote a name with spaces).")
	}
	args := map[string]any{"template": "app-basic", "startDevServer": true}
	if len(rest) == 1 {
		args["name"] = rest[0]
	}
	c, t, code := r.ensureRuntime(ctx)
	if c == nil {
		return code
	}
	defer c.Close()
	return r.raiseAfter(ctx, c, r.callOn(ctx, c, t, "project_create", args, renderCreated))
}

// Focus is `meith` with no arguments while meith runs: it asks the newest
// live runtime to focus its window (app_focus_window) and says so — "meith
// is already running; its window is focused", or "meith is running headless
// (no window)" — and returns 0 with running true. With no live runtime it
// returns running false and prints nothing: the caller starts the app. A
// nil s means [System].
func Focus(ctx context.Context, s *Streams) (code int, running bool) {
	if s == nil {
		s = System()
	}
	r := &runner{s: s, dial: dialClient, p: &printer{out: s.Out, err: s.Err}}
	t, err := ResolveTarget("", "")
	if err != nil || t.Source != SourceNewest {
		return exitOK, false
	}
	c, err := r.dial(ctx, t.SocketPath)
	if err != nil {
		return exitOK, false
	}
	defer c.Close()
	res, err := c.Call(ctx, "app_focus_window", json.RawMessage(`{}`), client.CallOptions{ClientInfo: clientInfo(), Timeout: 10 * time.Second})
	if err != nil {
		if ctx.Err() != nil {
			return exitInterrupted, true
		}
		r.p.stdout("meith is already running (pid %d).", t.Instance.PID)
		return exitOK, true
	}
	var f struct {
		Focused bool   `json:"focused"`
		Reason  string `json:"reason"`
	}
	switch {
	case !res.OK && res.Error != nil && res.Error.Code == protocol.CodeUnknownTool:
		r.p.stdout("meith is already running (pid %d).", t.Instance.PID) // an older runtime
	case !res.OK || json.Unmarshal(res.Content, &f) != nil:
		r.p.stdout("meith is already running (pid %d); its window could not be focused.", t.Instance.PID)
	case f.Focused:
		r.p.stdout("meith is already running; its window is focused")
	case f.Reason == "headless":
		r.p.stdout("meith is running headless (no window)")
	default:
		r.p.stdout("meith is already running; its window could not be focused: %s", f.Reason)
	}
	return exitOK, true
}
