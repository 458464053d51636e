// Package process runs the processes meith manages: dev servers (in their
// own session and process group, output split into a sequence-numbered
// ring of lines bounded by count and bytes, the first port sniffed from the
// output) and terminals (real PTYs running the user's shell), and finds the
// ones an earlier runtime left behind. Answers of a log ([Manager.LogPage],
// the OutputHandler) are bounded in bytes and page with seqs.
//
// A dev server's processes are more than its group: its session (`set -m`
// jobs), the descendants that left it (`setsid`; tracked with their start
// times, and recorded for the next start) and every process carrying its
// [ProcessIDEnv]. Stops, shutdown and the orphan sweep act on all of them;
// a reused pid is never signalled.
package process

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"
)

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

// Kinds of a managed process (in [ProcessInfo], [Orphan] and OnChange).
const (
	KindDevServer = "dev-server"
	KindTerminal  = "terminal"
	KindOrphan    = "orphan"
)

// MaxLogEntries bounds each dev server's log ring (the original's).
const MaxLogEntries = 5000

// MaxLogBytes bounds the text a running dev server's log ring holds (a
// line is at most 64 KiB, so 5,000 long lines would be 312 MiB): 4 MiB is
// some 40,000 lines of 100 characters, more than MaxLogEntries ever keeps
// of ordinary output.
const MaxLogBytes = 4 << 20

// endedLogBytes bounds the text an ended dev server's log ring keeps: up
// to maxEndedDevServers of them stay listed, and their logs are only read
// now (the reason it ended is at the end).
const endedLogBytes = 256 << 10

// StopGrace is how long a stop waits after SIGTERM before SIGKILL.
const StopGrace = 5 * time.Second

// stopGrace is the grace in use (tests shorten it).
var stopGrace = StopGrace

// maxEndedDevServers bounds how many ended dev servers (and their logs)
// stay listed; the oldest ended ones are forgotten first.
const maxEndedDevServers = 50

// LogEntry is one line of a dev server (or one chunk of a terminal's
// output, stream "pty").
type LogEntry struct {
	Seq    int64  `json:"seq"`
	Stream string `json:"stream"`
	Text   string `json:"text"`
	TS     int64  `json:"ts"` // Unix milliseconds
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
	// LauncherDir, if set, is the folder of the managed `meith` launcher: it
	// comes first on the PATH of every process, and a terminal's shell starts
	// through an init wrapper that puts it first again after the user's
	// profile ran (see shellinit.go), so a profile resetting PATH cannot
	// drop it.
	LauncherDir string
	// ScrollbackDir keeps each terminal's scrollback when the runtime
	// shuts down, for a terminal of the next start to show above its new
	// shell (see [TermSpec.RestoreFrom]); "" keeps none.
	ScrollbackDir string
	// ShellInitDir is where the shells' init wrappers are written (needed
	// with LauncherDir; "" leaves terminals with the PATH of their
	// environment only).
	ShellInitDir string
}

// Manager runs the managed processes. It is safe for concurrent use.
type Manager struct {
	opts Options

	mu      sync.Mutex
	devs    []*devProc  // oldest first
	terms   []*termProc // oldest first
	orphans []record
	// foreignOwner is the pid of another live runtime that owns the
	// record file (0: this one does); the file is then never written.
	foreignOwner int
	// recordsFrozen is set by Shutdown: the record file is not written
	// again (guarded by recMu).
	recordsFrozen bool
	own           map[string]record // records of this runtime's live groups
	// saved holds the scrollback of an earlier run's terminals, by id,
	// until a terminal restores it.
	saved  map[string]savedScrollback
	closed bool
	// trackStop and trackDone run the escapee tracker (see trackOnce);
	// nil until the first dev server starts.
	trackStop, trackDone chan struct{}

	recMu sync.Mutex // serialises record file writes
}

// New returns a Manager. With a RecordFile it reads the records an
// earlier runtime left, keeps the groups still alive as orphans and
// rewrites the file.
func New(opts Options) *Manager {
	m := &Manager{opts: opts, own: map[string]record{}, saved: map[string]savedScrollback{}}
	go loginPATH() // warm the cache; ends within loginPathTimeout
	if opts.RecordFile != "" {
		m.sweep()
	}
	if opts.ScrollbackDir != "" && m.foreignOwner == 0 {
		m.loadScrollback()
	}
	return m
}

func (m *Manager) logf(level, format string, args ...any) {
	if m.opts.Logf != nil {
		m.opts.Logf(level, format, args...)
	}
}

// changed calls OnChange; never call it with a lock held.
func (m *Manager) changed(kind, id string) {
	if m.opts.OnChange != nil {
		m.opts.OnChange(kind, id)
	}
}

func (m *Manager) dev(id string) *devProc {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range m.devs {
		if d.id == id {
			return d
		}
	}
	return nil
}

func (m *Manager) term(id string) *termProc {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.terms {
		if t.id == id {
			return t
		}
	}
	return nil
}

// ring returns the log of a dev server or terminal, and its status.
func (m *Manager) ring(id string) (*logRing, func() string, error) {
	if d := m.dev(id); d != nil {
		return d.log, func() string { return d.info().Status }, nil
	}
	if t := m.term(id); t != nil {
		return t.log, func() string { return t.info().Status }, nil
	}
	return nil, nil, &unknownError{id: id}
}

// Logs returns up to limit entries of a dev server or terminal with a seq
// greater than after (limit <= 0: all held; otherwise the newest limit of
// them), and the seq the next entry will get. Seqs start at 1.
func (m *Manager) Logs(id string, after int64, limit int) ([]LogEntry, int64, error) {
	r, _, err := m.ring(id)
	if err != nil {
		return nil, 0, err
	}
	out, next := r.since(after, limit)
	return out, next, nil
}

// WaitLogs blocks until a dev server or terminal has entries after `after`
// (or it ended, or ctx ends) and returns them. When the process has ended
// it returns what there is, possibly nothing; when ctx ends it returns
// ctx's error with the next seq.
func (m *Manager) WaitLogs(ctx context.Context, id string, after int64) ([]LogEntry, int64, error) {
	r, _, err := m.ring(id)
	if err != nil {
		return nil, 0, err
	}
	return r.wait(ctx, after)
}

// Shutdown saves every terminal's scrollback (with Options.ScrollbackDir),
// stops every terminal and, with stopServers, every dev server
// with the processes that left its session (TERM, then KILL after
// StopGrace); servers left running stay recorded, with those processes,
// for the next start's sweep. Starts fail after it.
func (m *Manager) Shutdown(ctx context.Context, stopServers bool) error {
	m.mu.Lock()
	m.closed = true
	terms := append([]*termProc(nil), m.terms...)
	devs := append([]*devProc(nil), m.devs...)
	m.mu.Unlock()

	var (
		wg   sync.WaitGroup
		emu  sync.Mutex
		errs []error
	)
	fail := func(err error) {
		if err != nil {
			emu.Lock()
			errs = append(errs, err)
			emu.Unlock()
		}
	}
	// Before the shells hear SIGHUP: their last words are not worth keeping.
	fail(m.saveScrollback(terms))
	for _, t := range terms {
		wg.Go(func() { fail(m.CloseTerminal(ctx, t.id)) })
	}
	m.stopTracker()
	if stopServers {
		for _, d := range devs {
			if !d.mayHaveProcesses() {
				continue
			}
			wg.Go(func() { fail(m.StopDevServer(ctx, d.id, "")) })
		}
	}
	wg.Wait()
	// What is left running is recorded with the processes that left its
	// session, for the next start.
	m.trackOnce(nil)
	fail(m.saveRecords())
	// From now on the file is the next start's: a server left running that
	// ends later (the runtime is on its way out) must stay recorded.
	m.recMu.Lock()
	m.recordsFrozen = true
	m.recMu.Unlock()
	return errors.Join(errs...)
}

// homeDir is $HOME, or "/".
func homeDir() string {
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return h
	}
	return "/"
}
