// Package apptools registers the runtime's own diagnostic tools: app_ping,
// app_health, app_list_instances, app_get_logs, app_set_debug_mode,
// app_export_bug_report, app_screenshot and app_focus_window.
package apptools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/meith-dev/meith/backend/applog"
	"github.com/meith-dev/meith/backend/discovery"
	"github.com/meith-dev/meith/backend/internal/buildinfo"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
	"github.com/meith-dev/meith/backend/state"
)

// Check is one line of app_health.
type Check struct {
	Name    string         `json:"name"`
	OK      bool           `json:"ok"`
	Message string         `json:"message,omitempty"`
	Details map[string]any `json:"details,omitempty"`
}

// Deps is what the app tools read; the instance fills it.
type Deps struct {
	Version      string
	StartedAt    time.Time
	UserData     string
	InstancesDir string
	// SocketPath returns the socket's path ("" before the socket starts).
	SocketPath func() string
	Logger     *applog.Logger
	Registry   *registry.Registry
	// Checks returns the checks of other services (the instance gives
	// browser, processes, agents and permissions). May be nil.
	Checks func(ctx context.Context) []Check
	// Collections lists the durable files under UserData for the storage
	// check (e.g. "audit" → audit.jsonl).
	Collections map[string]string
	// FileHealth, if set, says how the writes of the collections fare
	// (keyed like Collections); the storage check fails while one of them
	// cannot be written. May be nil.
	FileHealth func() map[string]FileHealth
	// PersistDebugMode, if set, saves the debug mode setting before
	// app_set_debug_mode applies it (the instance stores settings.debugMode
	// in state.json and waits for the write). A *state.WriteError means the
	// setting changed but could not be saved: the result says so in a
	// diagnostic. May be nil.
	PersistDebugMode func(ctx context.Context, enabled bool) error
	// Label names the instance (in the bug report).
	Label string
	// State is the app state, summarized in the bug report. May be nil.
	State *state.Store
	// CaptureWindow returns a PNG of the main application window for
	// app_screenshot; nil means there is no window (a headless runtime).
	CaptureWindow func(ctx context.Context) ([]byte, error)
	// FocusWindow shows, unminimises and raises the main window for
	// app_focus_window; nil means there is no window (a headless runtime).
	FocusWindow func(ctx context.Context) error
	// Build is the running binary's build stamp for app_about.
	Build buildinfo.Stamp
	// WebKitVersion is the WebKitGTK version the window runs on, for
	// app_about ("" : no window).
	WebKitVersion string
	// ChromiumPath returns the Chromium the browser tools run, for
	// app_about's version (nil or an error: none found).
	ChromiumPath func() (string, error)
}

// ReasonHeadless is the reason of app_focus_window on a runtime without a
// window.
const ReasonHeadless = "headless"

// FocusResult is the result of app_focus_window.
type FocusResult struct {
	Focused bool `json:"focused"`
	// Reason says why the window was not focused: ReasonHeadless, or what
	// went wrong.
	Reason string `json:"reason,omitempty"`
}

// FileHealth is how the writes of one durable file fare, for the storage
// check of app_health.
type FileHealth struct {
	// Error is why writes fail, while they do ("" when they work).
	Error string
	// LastErrorAt is when a write last failed (zero: never).
	LastErrorAt time.Time
	// LastWriteAt is when the file was last written (zero: not yet).
	LastWriteAt time.Time
	// Details are more facts, shown as they are (entries kept in memory…).
	Details map[string]any
}

// PingInput is the input of app_ping.
type PingInput struct {
	DelayMs       int    `json:"delayMs,omitempty" jsonschema:"milliseconds to wait before answering, with progress events while waiting" minimum:"0" maximum:"600000" default:"0"`
	ProgressSteps int    `json:"progressSteps,omitempty" jsonschema:"number of progress events spread over the delay; 0 means one every 500 ms" minimum:"0" maximum:"100" default:"0"`
	Message       string `json:"message,omitempty" jsonschema:"text echoed back in the result"`
}

// PingResult is the result of app_ping.
type PingResult struct {
	Pong            bool   `json:"pong"`
	PID             int    `json:"pid"`
	Version         string `json:"version"`
	ProtocolVersion int    `json:"protocolVersion"`
	ElapsedMs       int64  `json:"elapsedMs"`
	Echo            string `json:"echo,omitempty"`
	Caller          string `json:"caller"`
	SessionID       string `json:"sessionId,omitempty"`
}

// Health is the result of app_health.
type Health struct {
	Status    string  `json:"status"` // ok | degraded
	CheckedAt string  `json:"checkedAt"`
	DebugMode bool    `json:"debugMode"`
	Version   string  `json:"version"`
	PID       int     `json:"pid"`
	UptimeMs  int64   `json:"uptimeMs"`
	Checks    []Check `json:"checks"`
}

// InstancesResult is the result of app_list_instances.
type InstancesResult struct {
	Instances []discovery.Record `json:"instances"`
}

// LogsInput is the input of app_get_logs.
type LogsInput struct {
	Limit     int    `json:"limit,omitempty" jsonschema:"how many of the newest matching entries to return" minimum:"1" maximum:"1000" default:"200"`
	Level     string `json:"level,omitempty" jsonschema:"minimum level" enum:"debug,info,warn,error"`
	Source    string `json:"source,omitempty" jsonschema:"only entries from this source (socket, registry, instance, …)"`
	Caller    string `json:"caller,omitempty" jsonschema:"only entries about this caller" enum:"cli,renderer,agent,plugin,internal"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"only entries about this session"`
	ToolName  string `json:"toolName,omitempty" jsonschema:"only entries about this tool"`
	Search    string `json:"search,omitempty" jsonschema:"case-insensitive text to find in the message"`
}

// DebugInput is the input of app_set_debug_mode.
type DebugInput struct {
	Enabled bool `json:"enabled" jsonschema:"turn debug mode on (true) or off (false)"`
}

// DebugResult is the result of app_set_debug_mode.
type DebugResult struct {
	DebugMode bool `json:"debugMode"`
}

// Register adds the app tools to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{d: d, pid: os.Getpid()} // a system call each time: read once
	registry.RegisterAll(r, []registry.Def{
		{Name: "app_ping", Description: "Check that the runtime answers; optionally wait delayMs with progress events (honours cancel).",
			Capabilities: protocol.ReadOnly(), Timeout: 11 * time.Minute, // delayMs goes up to 10 minutes
			Inline: pingInline, Handler: registry.Handle(t.ping)},
		{Name: "app_health", Description: "Return health status for the app socket, registry, storage, audit and the other runtime services.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.health)},
		{Name: "app_about", Description: "Return what this build is (version, commit, build date, Go, Wails, WebKitGTK and Chromium versions), the user data and socket paths, and the licences of the bundled libraries.",
			Capabilities: protocol.ReadOnly(), Timeout: 15 * time.Second, Handler: registry.Handle(t.about)},
		{Name: "app_list_instances", Description: "Return live registered app instances, newest first.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listInstances)},
		{Name: "app_get_logs", Description: "Return recent structured app log entries (logs.jsonl), newest last, with filters.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.getLogs)},
		{Name: "app_set_debug_mode", Description: "Enable or disable app debug mode (debug-level entries are kept in logs.jsonl while it is on).",
			Capabilities: protocol.WritesFiles(), Handler: registry.Handle(t.setDebugMode)},
		{Name: "app_export_bug_report", Description: "Export a reproducible bug report (state summary, recent logs, tool catalog, health, environment) to <userData>/artifacts/bug-report-<timestamp>.json.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.exportBugReport)},
		{Name: "app_screenshot", Description: "Capture a screenshot of the main application window.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.screenshot)},
		{Name: "app_focus_window", Description: "Show, unminimise and raise the main application window (focused false with reason \"headless\" when the runtime has no window).",
			Capabilities: protocol.ReadOnly(), Timeout: 10 * time.Second, Handler: registry.Handle(t.focusWindow)},
	})
}

// focusWindow is app_focus_window.
func (t *tools) focusWindow(ctx context.Context, call *registry.Call, _ registry.NoArgs) (FocusResult, error) {
	if t.d.FocusWindow == nil {
		return FocusResult{Reason: ReasonHeadless}, nil
	}
	if err := t.d.FocusWindow(ctx); err != nil {
		return FocusResult{Reason: err.Error()}, nil
	}
	return FocusResult{Focused: true}, nil
}

// tools carries the dependencies of the handlers.
type tools struct {
	d        Deps
	pid      int
	chromium chromiumVersions // app_about runs chromium --version once
}

// ping is app_ping.
func (t *tools) ping(ctx context.Context, call *registry.Call, in PingInput) (PingResult, error) {
	start := time.Now()
	if err := wait(ctx, call, time.Duration(in.DelayMs)*time.Millisecond, in.ProgressSteps); err != nil {
		return PingResult{}, err
	}
	return PingResult{
		Pong: true, PID: t.pid, Version: t.d.Version, ProtocolVersion: protocol.ProtocolVersion,
		ElapsedMs: time.Since(start).Milliseconds(), Echo: in.Message,
		Caller: string(call.Client.Caller), SessionID: call.Client.SessionID,
	}, nil
}

// pingInline says that app_ping without a delay cannot block (it answers
// at once), so it runs on the caller's goroutine (see registry.Tool.Inline);
// with a delay it waits, and runs in a goroutine of its own.
func pingInline(args json.RawMessage) bool {
	var in struct {
		DelayMs int `json:"delayMs"`
	}
	return json.Unmarshal(args, &in) == nil && in.DelayMs == 0
}

// health is app_health.
func (t *tools) health(ctx context.Context, call *registry.Call, _ registry.NoArgs) (Health, error) {
	return health(ctx, t.d, t.pid), nil
}

// listInstances is app_list_instances.
func (t *tools) listInstances(ctx context.Context, call *registry.Call, _ registry.NoArgs) (InstancesResult, error) {
	live, err := discovery.List(t.d.InstancesDir)
	if err != nil {
		return InstancesResult{}, fmt.Errorf("list instances: %w", err)
	}
	if live == nil {
		live = []discovery.Record{}
	}
	return InstancesResult{Instances: live}, nil
}

// getLogs is app_get_logs.
func (t *tools) getLogs(ctx context.Context, call *registry.Call, in LogsInput) ([]applog.Entry, error) {
	entries, err := t.d.Logger.Query(applog.Filter{Limit: in.Limit, Level: protocol.LogLevel(in.Level),
		Source: in.Source, Caller: in.Caller, SessionID: in.SessionID, ToolName: in.ToolName, Search: in.Search})
	if err != nil {
		return nil, err
	}
	if entries == nil {
		entries = []applog.Entry{}
	}
	return entries, nil
}

// setDebugMode is app_set_debug_mode.
func (t *tools) setDebugMode(ctx context.Context, call *registry.Call, in DebugInput) (protocol.ToolResult, error) {
	if t.d.PersistDebugMode != nil {
		var we *state.WriteError
		switch err := t.d.PersistDebugMode(ctx, in.Enabled); {
		case errors.As(err, &we):
			call.Diagnose(we.Diagnostic()) // changed, not saved
		case err != nil:
			return protocol.ToolResult{}, fmt.Errorf("save debug mode: %w", err)
		}
	}
	t.d.Logger.SetDebug(in.Enabled)
	t.d.Logger.Write(applog.Entry{Level: protocol.LevelInfo, Source: "app", Message: fmt.Sprintf("debug mode %s", onOff(in.Enabled)),
		Caller: string(call.Client.Caller), SessionID: call.Client.SessionID, ToolName: "app_set_debug_mode"})
	return protocol.OKResult(DebugResult{DebugMode: in.Enabled}), nil
}

// health is the value of app_health (also part of the bug report).
func health(ctx context.Context, d Deps, pid int) Health {
	checks := []Check{socketCheck(ctx, d), registryCheck(d), storageCheck(d)}
	if d.Checks != nil {
		checks = append(checks, d.Checks(ctx)...)
	}
	h := Health{Status: "ok", CheckedAt: time.Now().UTC().Format(time.RFC3339Nano), DebugMode: d.Logger.Debug(),
		Version: d.Version, PID: pid, UptimeMs: time.Since(d.StartedAt).Milliseconds(), Checks: checks}
	for _, c := range checks {
		if !c.OK {
			h.Status = "degraded"
		}
	}
	return h
}

// wait sleeps for delay, emitting steps progress events evenly spread over
// it (one every 500 ms when steps is 0), and returns early with ctx's error
// when the call is cancelled.
func wait(ctx context.Context, call *registry.Call, delay time.Duration, steps int) error {
	if delay <= 0 {
		return ctx.Err()
	}
	if steps <= 0 {
		// By default a waiting call still shows that it is alive.
		steps = int(min(100, max(1, delay/(500*time.Millisecond))))
	}
	start := time.Now()
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for i := 1; i <= steps; i++ {
		t.Reset(time.Until(start.Add(delay * time.Duration(i) / time.Duration(steps))))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		call.Progress(fmt.Sprintf("waiting %d/%d", i, steps), float64(i)/float64(steps))
	}
	return nil
}

func socketCheck(ctx context.Context, d Deps) Check {
	path := ""
	if d.SocketPath != nil {
		path = d.SocketPath()
	}
	c := Check{Name: "socket", Details: map[string]any{"path": path}}
	if path == "" {
		c.Message = "socket not started"
		return c
	}
	dctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(dctx, "unix", path)
	if err != nil {
		c.Message = "socket does not accept connections: " + err.Error()
		return c
	}
	conn.Close()
	c.OK = true
	return c
}

func registryCheck(d Deps) Check {
	c := Check{Name: "registry", OK: d.Registry != nil && !d.Registry.ShuttingDown()}
	if d.Registry != nil {
		c.Details = map[string]any{"tools": len(d.Registry.Names()), "inFlight": d.Registry.InFlight()}
	}
	if !c.OK {
		c.Message = "runtime is shutting down"
	}
	return c
}

// storageProbeBytes is what the storage check writes to see that the data
// directory takes data (creating an empty file works on a full disk).
const storageProbeBytes = 4096

// storageCheck fails when the data directory does not take a small write or
// when a durable file cannot be written (a full disk, say).
func storageCheck(d Deps) Check {
	c := Check{Name: "storage", Details: map[string]any{"dataDirectory": d.UserData}}
	cols := collections(d)
	c.Details["collections"] = cols
	var problems []string
	if err := probeWrite(d.UserData); err != nil {
		problems = append(problems, "data directory does not take a write: "+err.Error())
	}
	if d.FileHealth != nil {
		health := d.FileHealth()
		for _, name := range slices.Sorted(maps.Keys(health)) {
			h := health[name]
			info, ok := cols[name].(map[string]any)
			if !ok {
				info = map[string]any{}
				cols[name] = info
			}
			if !h.LastWriteAt.IsZero() {
				info["lastWriteAt"] = h.LastWriteAt.UTC().Format(time.RFC3339Nano)
			}
			if !h.LastErrorAt.IsZero() {
				info["lastErrorAt"] = h.LastErrorAt.UTC().Format(time.RFC3339Nano)
			}
			maps.Copy(info, h.Details)
			if h.Error != "" {
				info["error"] = h.Error
				problems = append(problems, fmt.Sprintf("%s cannot be written: %s (since %s)",
					cmp.Or(d.Collections[name], name), h.Error, h.LastErrorAt.UTC().Format(time.RFC3339)))
			}
		}
	}
	if len(problems) > 0 {
		c.Message = strings.Join(problems, "; ")
		return c
	}
	c.OK = true
	return c
}

// probeWrite writes and removes a small file in dir.
func probeWrite(dir string) error {
	f, err := os.CreateTemp(dir, ".health-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, storageProbeBytes))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// collections describes the durable files under UserData: name → {path,
// bytes} (bytes only when the file exists).
func collections(d Deps) map[string]any {
	cols := map[string]any{}
	for name, file := range d.Collections {
		info := map[string]any{"path": filepath.Join(d.UserData, file)}
		if fi, err := os.Stat(filepath.Join(d.UserData, file)); err == nil {
			info["bytes"] = fi.Size()
		}
		cols[name] = info
	}
	return cols
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
