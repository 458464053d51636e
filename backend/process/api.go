// Package process runs the processes meith manages: dev servers (in their
// own process group, output split into a sequence-numbered ring of lines,
// the first port sniffed from the output) and terminals (real PTYs running
// the user's shell), and finds the ones an earlier runtime left behind.
package process

// This file is the engine's contract while it is being built; the stubs
// return errNotBuilt until the real code replaces them (same names).

import (
	"context"
	"errors"
	"net/http"
	"time"
)

var errNotBuilt = errors.New("process: not built yet")

// Streams of a [LogEntry].
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
	StreamPTY    = "pty"
	StreamSystem = "system"
)

// Statuses of a dev server or terminal.
const (
	StatusStarting = "starting"
	StatusRunning  = "running"
	StatusExited   = "exited"
	StatusErrored  = "errored"
	StatusStopped  = "stopped"
)

// MaxLogEntries bounds each dev server's log ring (the original's).
const MaxLogEntries = 5000

// StopGrace is how long a stop waits after SIGTERM before SIGKILL.
const StopGrace = 5 * time.Second

// LogEntry is one line of a dev server (or one chunk of a terminal's
// output, stream "pty").
type LogEntry struct {
	Seq    int64  `json:"seq"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
	TS     int64  `json:"ts"` // Unix milliseconds
}

// DevServer is a managed dev server.
type DevServer struct {
	ID        string   `json:"id"` // dev_…
	Name      string   `json:"name,omitempty"`
	Cwd       string   `json:"cwd"`
	Command   string   `json:"command"`
	Args      []string `json:"args"`
	Status    string   `json:"status"`
	PID       int      `json:"pid"`
	Port      *int     `json:"port"`
	ExitCode  *int     `json:"exitCode"`
	Signal    *string  `json:"signal"`
	StartedAt int64    `json:"startedAt"` // Unix milliseconds
	EndedAt   *int64   `json:"endedAt,omitempty"`
}

// DevSpec says what dev server to start. Without Args the command runs
// through the shell (`$SHELL -c command`); with Args it is the argv.
type DevSpec struct {
	Cwd     string
	Command string
	Args    []string
	Name    string
}

// Terminal is a terminal session.
type Terminal struct {
	ID        string `json:"id"` // term_…
	Cwd       string `json:"cwd"`
	Shell     string `json:"shell"`
	PID       int    `json:"pid"`
	Cols      int    `json:"cols"`
	Rows      int    `json:"rows"`
	Status    string `json:"status"`
	CreatedAt int64  `json:"createdAt"`
	ExitCode  *int   `json:"exitCode"`
}

// TermSpec says what terminal to open ("" / 0 take the defaults: the
// user's home, $SHELL, 80×24).
type TermSpec struct {
	Cwd   string
	Shell string
	Cols  int
	Rows  int
}

// Snapshot is a terminal with its replayable scrollback.
type Snapshot struct {
	Terminal
	Buffer  string `json:"buffer"`
	NextSeq int64  `json:"nextSeq"`
}

// ProcessNode is an OS process in a managed process's subtree.
type ProcessNode struct {
	PID      int           `json:"pid"`
	PPID     int           `json:"ppid"`
	Command  string        `json:"command"`
	Ports    []int         `json:"ports"`
	Children []ProcessNode `json:"children"`
}

// ProcessInfo is one managed process with its OS subtree and the TCP ports
// its subtree listens on.
type ProcessInfo struct {
	Kind    string       `json:"kind"` // dev-server | terminal | orphan
	ID      string       `json:"id"`
	PID     int          `json:"pid"`
	Cwd     string       `json:"cwd"`
	Command string       `json:"command,omitempty"`
	Status  string       `json:"status"`
	Ports   []int        `json:"ports"`
	Tree    *ProcessNode `json:"tree"`
}

// Orphan is a process group an earlier runtime started and left running.
type Orphan struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"` // dev-server | terminal
	PID       int    `json:"pid"`
	PGID      int    `json:"pgid"`
	Cwd       string `json:"cwd"`
	Command   string `json:"command"`
	StartedAt int64  `json:"startedAt"`
}

// Options configures a [Manager].
type Options struct {
	// Env is added to every process's environment (MEITH_SOCKET,
	// MEITH_HOME, MEITH_USER_DATA); PATH gets the login shell's PATH.
	Env []string
	// RecordFile keeps the pids and process groups this runtime started
	// (for the orphan sweep of the next start); "" keeps none.
	RecordFile string
	// Logf receives the engine's log lines (level debug|info|warn|error).
	Logf func(level, format string, args ...any)
	// OnChange is called (from an engine goroutine) when a process
	// changes status or port, or one is added or removed; kind is
	// "dev-server" or "terminal".
	OnChange func(kind, id string)
}

// Manager runs the managed processes. It is safe for concurrent use.
type Manager struct{ opts Options }

// New returns a Manager.
func New(opts Options) *Manager { return &Manager{opts: opts} }

// StartDevServer starts a dev server (status starting, then running; a
// spawn failure gives errored and a system line, not an error).
func (m *Manager) StartDevServer(ctx context.Context, spec DevSpec) (DevServer, error) {
	return DevServer{}, errNotBuilt
}

// DevServers lists the dev servers, oldest first.
func (m *Manager) DevServers() []DevServer { return nil }

// DevServer returns one dev server.
func (m *Manager) DevServer(id string) (DevServer, bool) { return DevServer{}, false }

// DevServerByCwd returns the newest dev server whose cwd is cwd (or
// inside it).
func (m *Manager) DevServerByCwd(cwd string) (DevServer, bool) { return DevServer{}, false }

// StopDevServer stops a dev server's whole process group: signal (default
// SIGTERM), then SIGKILL after StopGrace. It returns when the group is gone.
func (m *Manager) StopDevServer(ctx context.Context, id, signal string) error { return errNotBuilt }

// RestartDevServer stops a dev server and starts it again with the same
// spec (a new id).
func (m *Manager) RestartDevServer(ctx context.Context, id string) (DevServer, error) {
	return DevServer{}, errNotBuilt
}

// Logs returns up to limit entries of a dev server or terminal with a seq
// greater than after (limit <= 0: all held), and the seq the next entry will
// get.
func (m *Manager) Logs(id string, after int64, limit int) ([]LogEntry, int64, error) {
	return nil, 0, errNotBuilt
}

// WaitLogs blocks until a dev server or terminal has entries after `after`
// (or it ended, or ctx ends) and returns them.
func (m *Manager) WaitLogs(ctx context.Context, id string, after int64) ([]LogEntry, int64, error) {
	return nil, 0, errNotBuilt
}

// CreateTerminal opens a PTY running the shell.
func (m *Manager) CreateTerminal(ctx context.Context, spec TermSpec) (Terminal, error) {
	return Terminal{}, errNotBuilt
}

// Terminals lists the terminal sessions, oldest first.
func (m *Manager) Terminals() []Terminal { return nil }

// WriteTerminal writes raw input to a terminal.
func (m *Manager) WriteTerminal(id, data string) (int, error) { return 0, errNotBuilt }

// ResizeTerminal resizes a terminal's PTY.
func (m *Manager) ResizeTerminal(id string, cols, rows int) (Terminal, error) {
	return Terminal{}, errNotBuilt
}

// KillTerminal signals a terminal's process group (default SIGHUP).
func (m *Manager) KillTerminal(id, signal string) (Terminal, error) { return Terminal{}, errNotBuilt }

// CloseTerminal kills a terminal and forgets it.
func (m *Manager) CloseTerminal(ctx context.Context, id string) error { return errNotBuilt }

// TerminalSnapshot returns a terminal with its scrollback.
func (m *Manager) TerminalSnapshot(id string) (Snapshot, error) { return Snapshot{}, errNotBuilt }

// Processes lists the managed processes (and orphans) with their OS
// subtrees and listening ports.
func (m *Manager) Processes() []ProcessInfo { return nil }

// Orphans returns the process groups an earlier runtime left running
// (read from RecordFile at New).
func (m *Manager) Orphans() []Orphan { return nil }

// StopOrphan stops an orphan's process group (TERM, then KILL).
func (m *Manager) StopOrphan(ctx context.Context, id string) error { return errNotBuilt }

// Shutdown stops every terminal and, with stopServers, every dev server
// (TERM, then KILL after StopGrace); servers left running stay recorded
// for the next start's sweep.
func (m *Manager) Shutdown(ctx context.Context, stopServers bool) error { return nil }

// OutputHandler serves the window's log and terminal views:
// GET /_meith/process/<id>/output?after=<seq> answers
// {"entries":[LogEntry…],"nextSeq":N,"status":"running"} as soon as there
// are entries after seq, or after ~2 s with none; 404 for an unknown id.
func (m *Manager) OutputHandler() http.Handler { return http.NotFoundHandler() }

// OutputPath is the URL prefix of [Manager.OutputHandler].
const OutputPath = "/_meith/process/"

// IsUnknown reports whether err says a process id is unknown.
func IsUnknown(err error) bool { return false }
