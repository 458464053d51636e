package process

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/protocol"
	"github.com/meith-dev/meith/backend/redact"
)

// maxLineBytes bounds a line held while waiting for its newline; a longer
// one is emitted in pieces.
const maxLineBytes = 64 << 10

// exitDrain is how long the exit waits for the output pipes to reach EOF
// (children that outlive the leader may hold them open).
const exitDrain = 250 * time.Millisecond

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
	// ProjectID is the project the server runs for ("" for none).
	ProjectID string `json:"projectId,omitempty"`
	// SpaceID is the space the server belongs to ("" for none), so a port
	// offer opens in that space.
	SpaceID string `json:"spaceId,omitempty"`
}

// DevSpec says what dev server to start. Without Args the command runs
// through the shell (`$SHELL -c command`); with Args it is the argv
// (Command, then Args).
type DevSpec struct {
	Cwd     string
	Command string
	Args    []string
	Name    string
	// ProjectID and SpaceID link the server to a project and its space
	// (copied to [DevServer]).
	ProjectID string
	SpaceID   string
	// Env is added to the server's environment ("KEY=value"; later entries
	// win over the runtime's).
	Env []string
}

// devProc is one dev server and its goroutines: two readers (stdout,
// stderr) that end at EOF, and a waiter that ends with the process.
type devProc struct {
	m    *Manager
	id   string
	spec DevSpec
	log  *logRing

	mu            sync.Mutex // guards the fields below; taken before log.mu
	state         DevServer
	pgid          int // also its session id (it runs in a session of its own)
	leaderStart   uint64
	escapees      []procKey // members outside its session, seen by the tracker or a stop
	tracked       bool      // started and not forgotten: the tracker looks at it
	stopRequested bool
	partial       [2][]byte
	lines         [][]byte // consume's scratch
	readersLeft   int
	readersDone   chan struct{} // closed when both readers hit EOF
	exited        chan struct{} // closed once the exit is recorded
}

func (d *devProc) info() DevServer {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.state
	s.Args = append([]string{}, s.Args...)
	return s
}

// mayHaveProcesses reports whether the server started and was not yet
// found to have no process left (then none can appear: a process carrying
// its ProcessIDEnv is a descendant of one).
func (d *devProc) mayHaveProcesses() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pgid != 0 && d.tracked
}

// StartDevServer starts a dev server (status starting, then running; a
// spawn failure gives errored and a system line, not an error). A cwd that
// is not an existing directory, or an empty command, is an error for which
// [IsInvalid] is true. ctx only bounds the start: the server outlives it.
func (m *Manager) StartDevServer(ctx context.Context, spec DevSpec) (DevServer, error) {
	if err := ctx.Err(); err != nil {
		return DevServer{}, err
	}
	if strings.TrimSpace(spec.Command) == "" {
		return DevServer{}, invalidf("command is required")
	}
	if spec.Cwd == "" {
		return DevServer{}, invalidf("cwd is required")
	}
	cwd, err := filepath.Abs(spec.Cwd)
	if err != nil {
		return DevServer{}, invalidf("cwd %q: %v", spec.Cwd, err)
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return DevServer{}, invalidf("cwd %s is not an existing directory", cwd)
	}
	spec.Cwd = cwd
	spec.Args = append([]string{}, spec.Args...)
	spec.Env = append([]string{}, spec.Env...)

	id := protocol.NewID("dev")
	var cmd *exec.Cmd
	if len(spec.Args) == 0 {
		cmd = exec.Command(userShell(), "-c", spec.Command)
	} else {
		cmd = exec.Command(spec.Command, spec.Args...)
	}
	cmd.Dir = cwd
	// Every descendant that keeps its environment carries the server's id.
	cmd.Env = m.processEnv(slices.Concat(spec.Env, []string{ProcessIDEnv + "=" + id})...)
	// Its own session, so its own group (stopped as a whole) and a session
	// its `set -m` jobs stay in; no Pdeathsig: it outlives a crashed
	// runtime, and the next start finds it in the records.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}

	d := &devProc{
		m: m, id: id, spec: spec,
		log:         newLogRing(MaxLogEntries, MaxLogBytes),
		readersDone: make(chan struct{}),
		exited:      make(chan struct{}),
	}
	d.state = DevServer{
		ID: d.id, Name: spec.Name, Cwd: cwd, Command: spec.Command, Args: spec.Args,
		Status: StatusStarting, StartedAt: time.Now().UnixMilli(), ProjectID: spec.ProjectID, SpaceID: spec.SpaceID,
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return DevServer{}, errClosed
	}
	m.devs = append(m.devs, d)
	pruned := m.pruneDevsLocked()
	m.startTrackerLocked()
	m.mu.Unlock()
	for _, id := range pruned {
		m.changed(KindDevServer, id)
	}
	m.changed(KindDevServer, d.id)

	outR, outW, err := os.Pipe()
	if err != nil {
		d.spawnFailed(err)
		return d.info(), nil
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		d.spawnFailed(err)
		return d.info(), nil
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		d.spawnFailed(err)
		return d.info(), nil
	}
	pid := cmd.Process.Pid
	d.mu.Lock()
	d.state.PID = pid
	d.pgid = pid
	d.leaderStart = procStartTime(pid)
	d.tracked = true
	d.state.Status = StatusRunning
	d.readersLeft = 2
	d.mu.Unlock()
	m.logf("info", "dev server %s started (pid %d): %s", d.id, pid, redactedCommandLine(spec))
	m.remember(record{
		ID: d.id, Kind: KindDevServer, PID: pid, PGID: pid, Cwd: cwd,
		Command: commandLine(spec), StartedAt: d.state.StartedAt, StartTime: procStartTime(pid),
	})
	go d.read(outR, 0)
	go d.read(errR, 1)
	go d.wait(cmd)
	m.changed(KindDevServer, d.id)
	return d.info(), nil
}

// commandLine is the spec's command as one line.
func commandLine(spec DevSpec) string {
	if len(spec.Args) == 0 {
		return spec.Command
	}
	return spec.Command + " " + strings.Join(spec.Args, " ")
}

// redactedCommandLine is commandLine with the secrets in it replaced by
// [redact.Marker], for the log: GITHUB_TOKEN=…, --password …, URL
// userinfo, known tokens (the args as an argv, so --password's value goes
// whole).
func redactedCommandLine(spec DevSpec) string {
	return redact.String(commandLine(DevSpec{Command: spec.Command, Args: redact.Args(spec.Args)}))
}

// pruneDevsLocked forgets the oldest ended dev servers beyond
// maxEndedDevServers and returns their ids.
func (m *Manager) pruneDevsLocked() []string {
	ended := 0
	for _, d := range m.devs {
		if d.ended() {
			ended++
		}
	}
	var gone []string
	kept := m.devs[:0]
	for _, d := range m.devs {
		if ended > maxEndedDevServers && d.ended() {
			ended--
			gone = append(gone, d.id)
			continue
		}
		kept = append(kept, d)
	}
	clear(m.devs[len(kept):])
	m.devs = kept
	return gone
}

func (d *devProc) ended() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state.Status {
	case StatusExited, StatusErrored, StatusStopped:
		return true
	}
	return false
}

// spawnFailed records a start that did not happen.
func (d *devProc) spawnFailed(err error) {
	now := time.Now().UnixMilli()
	d.mu.Lock()
	d.state.Status = StatusErrored
	d.state.EndedAt = &now
	d.log.add(StreamSystem, "failed to start: "+err.Error())
	d.mu.Unlock()
	d.log.end()
	d.log.shrink(endedLogBytes)
	close(d.exited)
	d.m.logf("warn", "dev server %s failed to start: %v", d.id, err)
	d.m.changed(KindDevServer, d.id)
}

// read splits one output pipe into lines until EOF.
func (d *devProc) read(f *os.File, stream int) {
	defer f.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			d.consume(stream, buf[:n])
		}
		if err != nil {
			break
		}
	}
	d.mu.Lock()
	d.flushPartialLocked(stream)
	d.readersLeft--
	if d.readersLeft == 0 {
		close(d.readersDone)
	}
	d.mu.Unlock()
}

var streamNames = [2]string{StreamStdout, StreamStderr}

// maxScratchLines bounds the line scratch a dev server keeps between reads.
const maxScratchLines = 1024

// consume adds the complete lines of data to the log and keeps the rest.
// The lines of one read go into the log in one append (one timestamp);
// the lines the ring would drop at once are counted but never copied.
func (d *devProc) consume(stream int, data []byte) {
	d.mu.Lock()
	p := append(d.partial[stream], data...)
	lines := d.lines[:0]
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, p[:i])
		p = p[i+1:]
	}
	for len(p) > maxLineBytes {
		lines = append(lines, p[:maxLineBytes])
		p = p[maxLineBytes:]
	}
	portFound := d.linesLocked(stream, lines) // before p's array is reused
	clear(lines)
	d.lines = lines[:0]
	if cap(lines) > maxScratchLines { // a flood of empty lines: do not keep its scratch
		d.lines = nil
	}
	d.partial[stream] = append(d.partial[stream][:0], p...)
	d.mu.Unlock()
	if portFound {
		d.m.changed(KindDevServer, d.id)
	}
}

// linesLocked logs lines (each without its \r) and sniffs a port from
// them; it reports whether they gave the server its port.
func (d *devProc) linesLocked(stream int, lines [][]byte) bool {
	found := false
	for i, line := range lines {
		line = bytes.TrimRight(line, "\r")
		lines[i] = line
		if d.state.Port == nil && mayAnnouncePort(line) {
			if port, ok := sniffPortBytes(line); ok {
				d.state.Port = &port
				d.m.logf("info", "dev server %s: port %d", d.id, port)
				found = true
			}
		}
	}
	skip := max(0, len(lines)-MaxLogEntries) // dropped by the ring at once
	texts := make([]string, 0, len(lines)-skip)
	for _, line := range lines[skip:] {
		texts = append(texts, string(line))
	}
	d.log.addLines(streamNames[stream], skip, texts)
	return found
}

func (d *devProc) flushPartialLocked(stream int) bool {
	if len(d.partial[stream]) == 0 {
		return false
	}
	found := d.linesLocked(stream, [][]byte{d.partial[stream]})
	d.partial[stream] = nil
	return found
}

// wait records the exit of the leader: status, exit line, records.
func (d *devProc) wait(cmd *exec.Cmd) {
	_ = cmd.Wait()
	select { // let the readers take what the leader wrote
	case <-d.readersDone:
	case <-time.After(exitDrain):
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	now := time.Now().UnixMilli()
	d.mu.Lock()
	d.flushPartialLocked(0)
	d.flushPartialLocked(1)
	var line string
	if ws.Signaled() {
		name := signalName(ws.Signal())
		d.state.Signal = &name
		line = "exited with signal " + name
	} else {
		code := ws.ExitStatus()
		d.state.ExitCode = &code
		line = fmt.Sprintf("exited with code %d", code)
	}
	d.state.Status = StatusExited
	if d.stopRequested {
		d.state.Status = StatusStopped
	}
	d.state.EndedAt = &now
	d.log.add(StreamSystem, line)
	d.mu.Unlock()
	d.log.end()
	d.log.shrink(endedLogBytes)
	close(d.exited)
	d.m.logf("info", "dev server %s %s", d.id, line)
	d.m.changed(KindDevServer, d.id)
	// Its record goes once none of its processes runs (escapees that
	// outlive it keep it, for the tracker, a stop or the next start).
	spec := d.memberSpec()
	snap := newProcSnapshot()
	if len(snap.members(spec, snap.markerScan(map[string]uint64{spec.id: spec.leaderStart}, nil)[spec.id])) == 0 {
		d.m.forget(d.id)
	}
}

// memberSpec says which processes are the server's.
func (d *devProc) memberSpec() memberSpec {
	d.mu.Lock()
	defer d.mu.Unlock()
	return memberSpec{id: d.id, leader: d.pgid, leaderStart: d.leaderStart, pgid: d.pgid, sid: d.pgid, escapees: slices.Clone(d.escapees)}
}

// DevServers lists the dev servers, oldest first.
func (m *Manager) DevServers() []DevServer {
	m.mu.Lock()
	devs := append([]*devProc(nil), m.devs...)
	m.mu.Unlock()
	out := make([]DevServer, 0, len(devs))
	for _, d := range devs {
		out = append(out, d.info())
	}
	return out
}

// DevServer returns one dev server.
func (m *Manager) DevServer(id string) (DevServer, bool) {
	d := m.dev(id)
	if d == nil {
		return DevServer{}, false
	}
	return d.info(), true
}

// DevServerByCwd returns the newest dev server whose cwd is cwd (or
// inside it).
func (m *Manager) DevServerByCwd(cwd string) (DevServer, bool) {
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	servers := m.DevServers()
	for i := len(servers) - 1; i >= 0; i-- {
		s := servers[i]
		if s.Cwd == cwd || strings.HasPrefix(s.Cwd, strings.TrimSuffix(cwd, "/")+"/") {
			return s, true
		}
	}
	return DevServer{}, false
}

// StopDevServer stops a dev server's processes — its session (so its
// process group), the processes that left it (tracked, or found by their
// ProcessIDEnv) and their descendants: signal (default SIGTERM), then
// SIGKILL after StopGrace. It returns when none is left.
func (m *Manager) StopDevServer(ctx context.Context, id, signal string) error {
	d := m.dev(id)
	if d == nil {
		return &unknownError{id: id}
	}
	sig, err := ParseSignal(signal, syscall.SIGTERM)
	if err != nil {
		return err
	}
	d.mu.Lock()
	pgid := d.pgid
	if d.state.Status == StatusRunning || d.state.Status == StatusStarting {
		d.stopRequested = true
	}
	d.mu.Unlock()
	if pgid == 0 { // never started
		return nil
	}
	if err := stopMembers(ctx, d.memberSpec(), sig, stopGrace); err != nil {
		return fmt.Errorf("stop %s: %w", id, err)
	}
	select {
	case <-d.exited:
	case <-ctx.Done():
		return ctx.Err()
	}
	m.forget(id)
	m.logf("info", "dev server %s stopped", id)
	return nil
}

// RestartDevServer stops a dev server and starts it again with the same
// spec (a new id).
func (m *Manager) RestartDevServer(ctx context.Context, id string) (DevServer, error) {
	d := m.dev(id)
	if d == nil {
		return DevServer{}, &unknownError{id: id}
	}
	if err := m.StopDevServer(ctx, id, ""); err != nil {
		return DevServer{}, err
	}
	return m.StartDevServer(ctx, d.spec)
}

// RemoveDevServer forgets an ended dev server and its log; a server that
// still runs (or starts) is an invalid error: stop it first.
func (m *Manager) RemoveDevServer(id string) error {
	m.mu.Lock()
	i := slices.IndexFunc(m.devs, func(d *devProc) bool { return d.id == id })
	if i < 0 {
		m.mu.Unlock()
		return &unknownError{id: id}
	}
	if !m.devs[i].ended() {
		m.mu.Unlock()
		return invalidf("the dev server is still running: stop it first")
	}
	m.devs = slices.Delete(m.devs, i, i+1)
	m.mu.Unlock()
	m.logf("info", "dev server %s removed", id)
	m.changed(KindDevServer, id)
	return nil
}

// ClearLogs drops the held output of a dev server or terminal; the seqs
// go on from where they were.
func (m *Manager) ClearLogs(id string) error {
	r, _, err := m.ring(id)
	if err != nil {
		return err
	}
	r.clear()
	return nil
}
