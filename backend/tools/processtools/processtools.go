// Package processtools registers the process tools of the original
// (reference §3.4): create_terminal, list_terminals, write_terminal,
// resize_terminal, kill_terminal, close_terminal, get_terminal_snapshot,
// start_dev_server, list_dev_servers, stop_dev_server, get_process_tree,
// get_process_logs and attach_process_logs — plus restart_dev_server,
// remove_dev_server, clear_process_logs and stop_orphan_process, which the
// original lacked. create_terminal's restoreFrom starts a terminal below
// the scrollback an earlier run saved of a tab's terminal.
//
// The processes themselves are run by the engine ([process.Manager]): dev
// servers in their own session and process group with their output kept as
// a ring of numbered lines (at most 4 MiB), terminals as real PTYs.
// get_process_logs answers at most 4 MiB (as JSON) and pages with `after`.
// attach_process_logs replays a dev server's lines and then streams new
// ones as log events of at most 64 KiB until the call is cancelled (`meith
// devlogs` follows it until Ctrl+C).
package processtools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/process"
	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/registry"
)

// Deps is what the process tools need.
type Deps struct {
	// Manager runs the dev servers and terminals.
	Manager *process.Manager
}

// AttachTimeout is attach_process_logs' timeout: the original's
// 2_147_483_647 ms, so a follow runs until the caller cancels it.
const AttachTimeout = 2_147_483_647 * time.Millisecond

// MaxLogsLimit bounds get_process_logs' limit.
const MaxLogsLimit = 10_000

// CreateTerminalInput is the input of create_terminal.
type CreateTerminalInput struct {
	Cwd   string `json:"cwd,omitempty" jsonschema:"working directory; a leading ~ is the home folder, a missing folder falls back to its nearest existing parent (default: the caller's working directory, else the home folder)"`
	Shell string `json:"shell,omitempty" jsonschema:"the shell to run (default: $SHELL)"`
	Cols  int    `json:"cols,omitempty" jsonschema:"columns" minimum:"1" maximum:"1000" default:"80"`
	Rows  int    `json:"rows,omitempty" jsonschema:"rows" minimum:"1" maximum:"1000" default:"24"`
	// RestoreFrom names a terminal of an earlier run: the new one begins
	// with its saved scrollback.
	RestoreFrom string `json:"restoreFrom,omitempty" jsonschema:"a terminal of an earlier meith run (term_…, e.g. a tab's terminal before meith quit): its saved output is shown above the new shell; ignored when none was saved"`
}

// TerminalInput is the input of the tools that take only a terminal.
type TerminalInput struct {
	TerminalID string `json:"terminalId" jsonschema:"the terminal session (term_…)"`
}

// WriteTerminalInput is the input of write_terminal.
type WriteTerminalInput struct {
	TerminalID string `json:"terminalId" jsonschema:"the terminal session (term_…)"`
	Data       string `json:"data" jsonschema:"raw input; include \\r to submit a line"`
}

// ResizeTerminalInput is the input of resize_terminal.
type ResizeTerminalInput struct {
	TerminalID string `json:"terminalId" jsonschema:"the terminal session (term_…)"`
	Cols       int    `json:"cols" jsonschema:"columns" minimum:"1" maximum:"1000"`
	Rows       int    `json:"rows" jsonschema:"rows" minimum:"1" maximum:"1000"`
}

// KillTerminalInput is the input of kill_terminal.
type KillTerminalInput struct {
	TerminalID string `json:"terminalId" jsonschema:"the terminal session (term_…)"`
	Signal     string `json:"signal,omitempty" jsonschema:"signal to send to the terminal's process group, e.g. SIGINT (default SIGHUP)"`
}

// StartDevServerInput is the input of start_dev_server.
type StartDevServerInput struct {
	Cwd     string   `json:"cwd" jsonschema:"the project folder (a leading ~ is the home folder; relative to the caller's working directory)"`
	Command string   `json:"command" jsonschema:"the command; without args it runs through the shell (\"npm run dev\")"`
	Args    []string `json:"args,omitempty" jsonschema:"arguments: command and args then run as an argv, without a shell"`
	Name    string   `json:"name,omitempty" jsonschema:"a display name"`
}

// DevServerInput is the input of restart_dev_server and remove_dev_server.
type DevServerInput struct {
	DevServerID string `json:"devServerId" jsonschema:"the dev server (dev_…)"`
}

// StopDevServerInput is the input of stop_dev_server.
type StopDevServerInput struct {
	DevServerID string `json:"devServerId" jsonschema:"the dev server (dev_…)"`
	Signal      string `json:"signal,omitempty" jsonschema:"signal sent to the server's process group first; SIGKILL follows after 5 s (default SIGTERM)"`
}

// ProcessLogsInput is the input of get_process_logs.
type ProcessLogsInput struct {
	ProcessID string `json:"processId" jsonschema:"a dev server (dev_…) or terminal (term_…)"`
	Limit     int    `json:"limit,omitempty" jsonschema:"only the newest N entries (default: all held, at most 5000 lines and 4 MiB per dev server)" minimum:"1" maximum:"10000"`
	After     *int64 `json:"after,omitempty" jsonschema:"only entries with a greater seq, oldest first: to page on after a truncated answer, pass its last entry's seq (default: the newest entries)" minimum:"0"`
}

// AttachInput is the input of attach_process_logs.
type AttachInput struct {
	DevServerID string `json:"devServerId,omitempty" jsonschema:"the dev server (dev_…)"`
	Cwd         string `json:"cwd,omitempty" jsonschema:"a folder: the newest dev server running in it (or below it)"`
	Replay      bool   `json:"replay,omitempty" jsonschema:"first replay the lines captured so far" default:"true"`
}

// ProcessInput is the input of clear_process_logs.
type ProcessInput struct {
	ProcessID string `json:"processId" jsonschema:"a dev server (dev_…) or terminal (term_…)"`
}

// OrphanInput is the input of stop_orphan_process.
type OrphanInput struct {
	ID string `json:"id" jsonschema:"the orphan's id, as get_process_tree lists it (kind orphan)"`
}

// WriteResult is the result of write_terminal.
type WriteResult struct {
	TerminalID string `json:"terminalId"`
	Written    int    `json:"written"`
}

// CloseResult is the result of close_terminal.
type CloseResult struct {
	TerminalID string `json:"terminalId"`
	Closed     bool   `json:"closed"`
}

// StopResult is the result of stop_dev_server.
type StopResult struct {
	DevServerID string `json:"devServerId"`
	Stopped     bool   `json:"stopped"`
}

// TreeResult is the result of get_process_tree.
type TreeResult struct {
	Processes []process.ProcessInfo `json:"processes"`
}

// LogsResult is the result of get_process_logs. One answer holds at most
// process.MaxLogPageBytes of entries (as JSON): when more were asked for,
// Truncated is set and Logs holds the newest that fit (without after) or
// the oldest after `after` (with it); the entries left out can be asked for
// with after.
type LogsResult struct {
	ProcessID string             `json:"processId"`
	Logs      []process.LogEntry `json:"logs"`
	// NextSeq is the seq the process's next entry will get.
	NextSeq int64 `json:"nextSeq"`
	// Truncated says entries asked for were left out to bound the answer.
	Truncated bool `json:"truncated"`
}

// AttachResult is the result of attach_process_logs once it is cancelled.
// The handler returns it as soon as its context ends; the registry keeps it
// when it is there as the call ends and answers CANCELLED otherwise, so a
// caller must accept either.
type AttachResult struct {
	DevServerID string `json:"devServerId"`
	Attached    bool   `json:"attached"`
}

// RemoveResult is the result of remove_dev_server.
type RemoveResult struct {
	DevServerID string `json:"devServerId"`
	Removed     bool   `json:"removed"`
}

// ClearLogsResult is the result of clear_process_logs.
type ClearLogsResult struct {
	ProcessID string `json:"processId"`
	Cleared   bool   `json:"cleared"`
}

// OrphanResult is the result of stop_orphan_process.
type OrphanResult struct {
	ID      string `json:"id"`
	Stopped bool   `json:"stopped"`
}

// Register adds the process tools to r.
func Register(r *registry.Registry, d Deps) {
	t := &tools{m: d.Manager}
	startsProc := protocol.StartsProcess()
	registry.RegisterAll(r, []registry.Def{
		{Name: "create_terminal", Description: "Spawn a new interactive terminal session.",
			Capabilities: startsProc, Handler: registry.Handle(t.createTerminal)},
		{Name: "list_terminals", Description: "List active terminal sessions.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listTerminals)},
		{Name: "write_terminal", Description: "Write raw input to a terminal session (include \\r to submit).",
			Capabilities: startsProc, Handler: registry.Handle(t.writeTerminal)},
		{Name: "resize_terminal", Description: "Resize a terminal's PTY viewport.",
			Capabilities: startsProc, Handler: registry.Handle(t.resizeTerminal)},
		{Name: "kill_terminal", Description: "Send a termination signal to a terminal session.",
			Capabilities: startsProc, Handler: registry.Handle(t.killTerminal)},
		{Name: "close_terminal", Description: "Kill and forget a terminal session entirely.",
			Capabilities: startsProc, Handler: registry.Handle(t.closeTerminal)},
		{Name: "get_terminal_snapshot", Description: "Return a terminal's metadata plus its replayable scrollback buffer.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.terminalSnapshot)},
		{Name: "start_dev_server", Description: "Spawn a managed dev-server process and capture its output (through the shell without args, as an argv with args).",
			Capabilities: protocol.StartsProcess().Plus(protocol.CapAccessesNetwork), Handler: registry.Handle(t.startDevServer)},
		{Name: "list_dev_servers", Description: "List managed dev servers and their status/port.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.listDevServers)},
		{Name: "stop_dev_server", Description: "Stop a managed dev server by killing its process group.",
			Capabilities: startsProc, Handler: registry.Handle(t.stopDevServer)},
		{Name: "restart_dev_server", Description: "Stop a managed dev server and start it again with the same command (the new server has a new id).",
			Capabilities: startsProc, Handler: registry.Handle(t.restartDevServer)},
		{Name: "remove_dev_server", Description: "Forget a dev server that has ended, with its captured output (one that still runs must be stopped first).",
			Capabilities: startsProc, Handler: registry.Handle(t.removeDevServer)},
		{Name: "get_process_tree", Description: "Return managed child processes (dev servers, terminals, and orphans an earlier run left) with their detected OS subtree and listening ports.",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.processTree)},
		{Name: "stop_orphan_process", Description: "Stop a process group an earlier meith run left running (listed by get_process_tree with kind orphan).",
			Capabilities: startsProc, Handler: registry.Handle(t.stopOrphan)},
		{Name: "get_process_logs", Description: "Return captured logs for a managed process (dev server or terminal) by id: at most 4 MiB per answer (truncated: true when entries were left out; page with after).",
			Capabilities: protocol.ReadOnly(), Handler: registry.Handle(t.processLogs)},
		{Name: "clear_process_logs", Description: "Drop the output captured so far of a dev server or terminal (new output is still captured).",
			Capabilities: startsProc, Handler: registry.Handle(t.clearLogs)},
		{Name: "attach_process_logs", Description: "Replay a dev server's captured logs and stream new lines as log events until the call is cancelled. Resolve a target by id or by cwd.",
			Capabilities: protocol.ReadOnly(), Timeout: AttachTimeout, Handler: registry.Handle(t.attachLogs)},
	})
}

// tools carries the dependencies of the handlers.
type tools struct{ m *process.Manager }

// createTerminal is create_terminal.
func (t *tools) createTerminal(ctx context.Context, call *registry.Call, in CreateTerminalInput) (process.Terminal, error) {
	cwd, err := terminalCwd(call, in.Cwd)
	if err != nil {
		return process.Terminal{}, err
	}
	term, err := t.m.CreateTerminal(ctx, process.TermSpec{Cwd: cwd, Shell: in.Shell, Cols: in.Cols, Rows: in.Rows, RestoreFrom: in.RestoreFrom})
	if err != nil {
		return process.Terminal{}, engineError(err, nil)
	}
	return term, nil
}

// listTerminals is list_terminals.
func (t *tools) listTerminals(ctx context.Context, call *registry.Call, _ registry.NoArgs) ([]process.Terminal, error) {
	return orEmpty(t.m.Terminals()), nil
}

// writeTerminal is write_terminal.
func (t *tools) writeTerminal(ctx context.Context, call *registry.Call, in WriteTerminalInput) (WriteResult, error) {
	if err := required("terminalId", in.TerminalID); err != nil {
		return WriteResult{}, err
	}
	n, err := t.m.WriteTerminal(in.TerminalID, in.Data)
	if err != nil {
		return WriteResult{}, engineError(err, unknownTerminal(in.TerminalID))
	}
	return WriteResult{TerminalID: in.TerminalID, Written: n}, nil
}

// resizeTerminal is resize_terminal.
func (t *tools) resizeTerminal(ctx context.Context, call *registry.Call, in ResizeTerminalInput) (process.Terminal, error) {
	if err := required("terminalId", in.TerminalID); err != nil {
		return process.Terminal{}, err
	}
	term, err := t.m.ResizeTerminal(in.TerminalID, in.Cols, in.Rows)
	if err != nil {
		return process.Terminal{}, engineError(err, unknownTerminal(in.TerminalID))
	}
	return term, nil
}

// killTerminal is kill_terminal.
func (t *tools) killTerminal(ctx context.Context, call *registry.Call, in KillTerminalInput) (process.Terminal, error) {
	if err := required("terminalId", in.TerminalID); err != nil {
		return process.Terminal{}, err
	}
	if err := checkSignal(in.Signal); err != nil {
		return process.Terminal{}, err
	}
	term, err := t.m.KillTerminal(in.TerminalID, in.Signal)
	if err != nil {
		return process.Terminal{}, engineError(err, unknownTerminal(in.TerminalID))
	}
	return term, nil
}

// closeTerminal is close_terminal.
func (t *tools) closeTerminal(ctx context.Context, call *registry.Call, in TerminalInput) (CloseResult, error) {
	if err := required("terminalId", in.TerminalID); err != nil {
		return CloseResult{}, err
	}
	if err := t.m.CloseTerminal(ctx, in.TerminalID); err != nil {
		return CloseResult{}, engineError(err, unknownTerminal(in.TerminalID))
	}
	return CloseResult{TerminalID: in.TerminalID, Closed: true}, nil
}

// terminalSnapshot is get_terminal_snapshot.
func (t *tools) terminalSnapshot(ctx context.Context, call *registry.Call, in TerminalInput) (process.Snapshot, error) {
	if err := required("terminalId", in.TerminalID); err != nil {
		return process.Snapshot{}, err
	}
	snap, err := t.m.TerminalSnapshot(in.TerminalID)
	if err != nil {
		return process.Snapshot{}, engineError(err, unknownTerminal(in.TerminalID))
	}
	return snap, nil
}

// startDevServer is start_dev_server.
func (t *tools) startDevServer(ctx context.Context, call *registry.Call, in StartDevServerInput) (process.DevServer, error) {
	if err := required("cwd", in.Cwd); err != nil {
		return process.DevServer{}, err
	}
	if err := required("command", in.Command); err != nil {
		return process.DevServer{}, err
	}
	cwd, err := absPath(call, "cwd", in.Cwd)
	if err != nil {
		return process.DevServer{}, err
	}
	srv, err := t.m.StartDevServer(ctx, process.DevSpec{Cwd: cwd, Command: in.Command, Args: in.Args, Name: in.Name})
	if err != nil {
		return process.DevServer{}, engineError(err, nil)
	}
	return srv, nil
}

// listDevServers is list_dev_servers.
func (t *tools) listDevServers(ctx context.Context, call *registry.Call, _ registry.NoArgs) ([]process.DevServer, error) {
	return orEmpty(t.m.DevServers()), nil
}

// stopDevServer is stop_dev_server.
func (t *tools) stopDevServer(ctx context.Context, call *registry.Call, in StopDevServerInput) (StopResult, error) {
	if err := required("devServerId", in.DevServerID); err != nil {
		return StopResult{}, err
	}
	if err := checkSignal(in.Signal); err != nil {
		return StopResult{}, err
	}
	if err := t.m.StopDevServer(ctx, in.DevServerID, in.Signal); err != nil {
		return StopResult{}, engineError(err, unknownDevServer(in.DevServerID))
	}
	return StopResult{DevServerID: in.DevServerID, Stopped: true}, nil
}

// restartDevServer is restart_dev_server.
func (t *tools) restartDevServer(ctx context.Context, call *registry.Call, in DevServerInput) (process.DevServer, error) {
	if err := required("devServerId", in.DevServerID); err != nil {
		return process.DevServer{}, err
	}
	srv, err := t.m.RestartDevServer(ctx, in.DevServerID)
	if err != nil {
		return process.DevServer{}, engineError(err, unknownDevServer(in.DevServerID))
	}
	return srv, nil
}

// removeDevServer is remove_dev_server.
func (t *tools) removeDevServer(ctx context.Context, call *registry.Call, in DevServerInput) (RemoveResult, error) {
	if err := required("devServerId", in.DevServerID); err != nil {
		return RemoveResult{}, err
	}
	if err := t.m.RemoveDevServer(in.DevServerID); err != nil {
		return RemoveResult{}, engineError(err, unknownDevServer(in.DevServerID))
	}
	return RemoveResult{DevServerID: in.DevServerID, Removed: true}, nil
}

// clearLogs is clear_process_logs.
func (t *tools) clearLogs(ctx context.Context, call *registry.Call, in ProcessInput) (ClearLogsResult, error) {
	if err := required("processId", in.ProcessID); err != nil {
		return ClearLogsResult{}, err
	}
	if err := t.m.ClearLogs(in.ProcessID); err != nil {
		return ClearLogsResult{}, engineError(err, unknownProcess(in.ProcessID))
	}
	return ClearLogsResult{ProcessID: in.ProcessID, Cleared: true}, nil
}

// processTree is get_process_tree.
func (t *tools) processTree(ctx context.Context, call *registry.Call, _ registry.NoArgs) (TreeResult, error) {
	return TreeResult{Processes: orEmpty(t.m.Processes())}, nil
}

// stopOrphan is stop_orphan_process.
func (t *tools) stopOrphan(ctx context.Context, call *registry.Call, in OrphanInput) (OrphanResult, error) {
	if err := required("id", in.ID); err != nil {
		return OrphanResult{}, err
	}
	if err := t.m.StopOrphan(ctx, in.ID); err != nil {
		return OrphanResult{}, engineError(err, unknownProcess(in.ID))
	}
	return OrphanResult{ID: in.ID, Stopped: true}, nil
}

// processLogs is get_process_logs.
func (t *tools) processLogs(ctx context.Context, call *registry.Call, in ProcessLogsInput) (LogsResult, error) {
	if err := required("processId", in.ProcessID); err != nil {
		return LogsResult{}, err
	}
	q := process.LogQuery{Limit: in.Limit, Newest: true}
	if in.After != nil {
		if *in.After < 0 {
			return LogsResult{}, registry.InvalidArg("after", "after must be a seq of 0 or more")
		}
		q.After, q.Newest = *in.After, false
	}
	page, err := t.m.LogPage(in.ProcessID, q)
	if err != nil {
		return LogsResult{}, engineError(err, unknownProcess(in.ProcessID))
	}
	return LogsResult{ProcessID: in.ProcessID, Logs: orEmpty(page.Entries), NextSeq: page.NextSeq, Truncated: page.Truncated}, nil
}

// attachLogs is attach_process_logs.
func (t *tools) attachLogs(ctx context.Context, call *registry.Call, in AttachInput) (AttachResult, error) {
	srv, err := resolveServer(t.m, call, in)
	if err != nil {
		return AttachResult{}, err
	}
	if err := follow(ctx, t.m, call, srv.ID, in.Replay); err != nil {
		return AttachResult{}, err
	}
	return AttachResult{DevServerID: srv.ID, Attached: true}, nil
}

// resolveServer finds attach_process_logs' dev server: by id, else the
// newest one running in (or below) cwd.
func resolveServer(m *process.Manager, call *registry.Call, in AttachInput) (process.DevServer, error) {
	switch {
	case in.DevServerID != "":
		srv, ok := m.DevServer(in.DevServerID)
		if !ok {
			return process.DevServer{}, unknownDevServer(in.DevServerID)
		}
		return srv, nil
	case in.Cwd != "":
		cwd, err := absPath(call, "cwd", in.Cwd)
		if err != nil {
			return process.DevServer{}, err
		}
		if srv, ok := m.DevServerByCwd(cwd); ok {
			return srv, nil
		}
		// The caller may name the folder through a symlink (/tmp on some
		// systems) while the server was started under its real path.
		if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
			if srv, ok := m.DevServerByCwd(real); ok {
				return srv, nil
			}
		}
		return process.DevServer{}, protocol.Errorf(protocol.CodeToolFailed, "No dev server running in %s", cwd)
	}
	// The original's words as they are, without registry.InvalidArg's
	// "Invalid arguments: " prefix.
	const msg = "Provide either devServerId or cwd"
	return process.DevServer{}, &protocol.ToolError{Code: protocol.CodeValidation, Message: msg,
		Details: registry.ValidationDetails{Issues: []registry.Issue{{Path: "devServerId", Message: msg}}}}
}

// endedPollInterval is how often follow re-checks a server whose WaitLogs
// returned nothing although it still runs (it should not happen; this only
// keeps such a case from spinning).
const endedPollInterval = 200 * time.Millisecond

// follow streams a dev server's log lines to the call as log events, from
// the first held line when replay is set, else from now, until ctx ends. A
// server that exits keeps being followed (its exit line is streamed like any
// other); only the caller's cancellation ends a follow.
func follow(ctx context.Context, m *process.Manager, call *registry.Call, id string, replay bool) error {
	entries, next, err := m.Logs(id, 0, 0)
	if err != nil {
		return engineError(err, unknownDevServer(id))
	}
	if replay {
		emitEntries(call, entries)
	}
	after := next - 1
	for ctx.Err() == nil {
		entries, next, err := m.WaitLogs(ctx, id, after)
		if ctx.Err() != nil {
			// Lines that arrived with the cancellation are still sent: the
			// registry drops them if the call has already resolved.
			emitEntries(call, entries)
			return nil
		}
		if process.IsUnknown(err) {
			// An ended server the engine no longer lists: nothing more
			// will come.
			<-ctx.Done()
			return nil
		}
		if err != nil {
			return engineError(err, unknownDevServer(id))
		}
		emitEntries(call, entries)
		if len(entries) > 0 {
			after = entries[len(entries)-1].Seq
			continue
		}
		after = max(after, next-1)
		srv, ok := m.DevServer(id)
		if !ok || ended(srv.Status) {
			// Nothing more will come: wait for the caller to let go.
			<-ctx.Done()
			return nil
		}
		select {
		case <-ctx.Done():
		case <-time.After(endedPollInterval):
		}
	}
	return nil
}

// ended reports whether a status is final.
func ended(status string) bool {
	return status == process.StatusExited || status == process.StatusErrored || status == process.StatusStopped
}

// maxEventBytes bounds the message of one batched log event.
const maxEventBytes = 64 << 10

// emitEntries sends the entries as log events: level warn for stderr, info
// otherwise; each line prefixed "[stream] " unless it is stdout or pty.
// Consecutive lines of one level travel in one event, joined by newlines
// (up to 64 KiB): a reader printing messages prints the same lines, and a
// flood costs one socket frame per batch instead of one per line, so a
// follower keeps up with a process that prints as fast as it can.
func emitEntries(call *registry.Call, entries []process.LogEntry) {
	var b strings.Builder
	var level protocol.LogLevel
	flush := func() {
		if b.Len() > 0 {
			call.Log(level, b.String())
			b.Reset()
		}
	}
	for _, e := range entries {
		msg := messageOf(e)
		if l := levelOf(e); l != level || b.Len()+len(msg)+1 > maxEventBytes {
			flush()
			level = l
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(msg)
	}
	flush()
}

// messageOf is the log event message of a log entry: its text, prefixed
// "[stream] " unless the stream is stdout or pty.
func messageOf(e process.LogEntry) string {
	if e.Stream == process.StreamStdout || e.Stream == process.StreamPTY {
		return e.Text
	}
	return "[" + e.Stream + "] " + e.Text
}

func levelOf(e process.LogEntry) protocol.LogLevel {
	if e.Stream == process.StreamStderr {
		return protocol.LevelWarn
	}
	return protocol.LevelInfo
}

// checkSignal refuses a signal argument the engine would not know ("TERM",
// "SIGTERM", "sigterm" and "15" are all fine; "" is the default).
func checkSignal(s string) error {
	if _, err := process.ParseSignal(s, syscall.SIGTERM); err != nil {
		return registry.InvalidArg("signal", err.Error())
	}
	return nil
}

// absPath makes a path argument absolute: a leading ~ is the home folder,
// a relative path is relative to the caller's working directory.
func absPath(call *registry.Call, field, p string) (string, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", registry.InvalidArg(field, fmt.Sprintf("%s %q starts with ~ but the home folder is unknown: %v", field, p, err))
		}
		p = filepath.Join(home, p[1:])
	}
	if !filepath.IsAbs(p) {
		base := call.Client.Cwd
		if base == "" || !filepath.IsAbs(base) {
			return "", registry.InvalidArg(field, fmt.Sprintf("%s %q is relative and the caller sent no working directory: give an absolute path", field, p))
		}
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p), nil
}

// terminalCwd is create_terminal's folder: the argument (or the caller's
// working directory) made absolute, walked up to the nearest existing
// folder; "" (the engine's default, the home folder) when neither is given.
func terminalCwd(call *registry.Call, p string) (string, error) {
	if p == "" {
		p = call.Client.Cwd
		if p == "" || !filepath.IsAbs(p) {
			return "", nil
		}
	}
	dir, err := absPath(call, "cwd", p)
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// required refuses an empty string argument.
func required(field, v string) error {
	if strings.TrimSpace(v) == "" {
		return registry.InvalidArg(field, field+" must not be empty")
	}
	return nil
}

// engineError maps an engine error to a tool error ([registry.MapError]):
// an unknown id becomes unknown (when given), input the engine refused (a
// cwd that is not a folder, a bad size) VALIDATION_ERROR, a context's end
// stays itself (the registry reports CANCELLED or TIMEOUT), anything else
// is TOOL_FAILED with the engine's message.
func engineError(err error, unknown error) error {
	return registry.MapError(err, func(err error) error {
		switch {
		case unknown != nil && process.IsUnknown(err):
			return unknown
		case process.IsInvalid(err):
			te := registry.InvalidArg("", err.Error())
			te.Err = err
			return te
		}
		return nil
	})
}

func unknownTerminal(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "Unknown terminal: %s", id)
}

func unknownProcess(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "Unknown process: %s", id)
}

func unknownDevServer(id string) error {
	return protocol.Errorf(protocol.CodeToolFailed, "Unknown dev server: %s", id)
}

// orEmpty turns nil into an empty slice, so lists marshal as [].
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
