package process

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/meith-dev/meith/backend/protocol"
)

// Terminal scrollback and read coalescing.
const (
	scrollbackBytes = 1 << 20  // held per terminal
	chunkBytes      = 32 << 10 // one read, and the size that flushes at once
	coalesceDelay   = 4 * time.Millisecond
	closeWait       = 2 * time.Second // after SIGHUP, before SIGKILL
)

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
	// RestoredFrom is the terminal of an earlier run whose scrollback
	// this one began with (omitted when none).
	RestoredFrom string `json:"restoredFrom,omitempty"`
}

// TermSpec says what terminal to open ("" / 0 take the defaults: the
// user's home, $SHELL, 80×24).
type TermSpec struct {
	Cwd   string
	Shell string
	Cols  int
	Rows  int
	// RestoreFrom names a terminal of an earlier run (a tab's terminal
	// before meith quit): when its scrollback was saved, the new terminal
	// begins with it and [SessionEndedNote] (see scrollback.go).
	RestoreFrom string
}

// Snapshot is a terminal with its replayable scrollback.
type Snapshot struct {
	Terminal
	Buffer  string `json:"buffer"`
	NextSeq int64  `json:"nextSeq"`
}

// termProc is one terminal and its goroutines: a reader (ends when the
// PTY closes), a flusher (ends with the reader) and a waiter (ends with the
// shell).
type termProc struct {
	m   *Manager
	id  string
	log *logRing
	pty *os.File // non-blocking master: Close ends a pending Read
	// shellStart is the shell's start time (see procStartTime), taken
	// once it runs: with its pid it names the shell even after a reuse.
	shellStart uint64

	mu    sync.Mutex
	state Terminal

	outMu    sync.Mutex // guards pending and orders the appends
	pending  []byte
	kick     chan struct{}
	readDone chan struct{}
	exited   chan struct{}
}

func (t *termProc) info() Terminal {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.state
}

// resolveShell picks the shell: spec, $SHELL, /bin/bash, /bin/sh.
func resolveShell(shell string) (string, error) {
	if shell == "" {
		shell = os.Getenv("SHELL")
	}
	if shell == "" {
		shell = "/bin/bash"
		if _, err := os.Stat(shell); err != nil {
			shell = "/bin/sh"
		}
	}
	p, err := exec.LookPath(shell)
	if err != nil {
		return "", invalidf("shell %q not found", shell)
	}
	return p, nil
}

// resolveTermCwd expands a leading ~ and falls back to $HOME for a
// directory that does not exist.
func resolveTermCwd(cwd string) string {
	home := homeDir()
	if cwd == "~" {
		cwd = home
	} else if strings.HasPrefix(cwd, "~/") {
		cwd = filepath.Join(home, cwd[2:])
	}
	if cwd == "" {
		return home
	}
	if abs, err := filepath.Abs(cwd); err == nil {
		cwd = abs
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return home
	}
	return cwd
}

// CreateTerminal opens a PTY running the shell as a login shell (bash and
// zsh get -l; with Options.LauncherDir bash runs through an init wrapper
// that reads the same files, see shellinit.go), in the cwd (a leading ~ expanded; a missing directory falls
// back to $HOME), 80×24 by default.
func (m *Manager) CreateTerminal(ctx context.Context, spec TermSpec) (Terminal, error) {
	if err := ctx.Err(); err != nil {
		return Terminal{}, err
	}
	if spec.Cols < 0 || spec.Rows < 0 || spec.Cols > 0xffff || spec.Rows > 0xffff {
		return Terminal{}, invalidf("terminal size is out of range (cols and rows 0 to 65535)")
	}
	cols, rows := spec.Cols, spec.Rows
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	shell, err := resolveShell(spec.Shell)
	if err != nil {
		return Terminal{}, err
	}
	cwd := resolveTermCwd(spec.Cwd)
	env := m.processEnv("TERM=xterm-256color", "COLORTERM=truecolor")
	args, extra := m.shellStart(shell, env)
	cmd := exec.Command(shell, args...)
	cmd.Dir = cwd
	cmd.Env = append(env, extra...)

	m.mu.Lock()
	closed := m.closed
	m.mu.Unlock()
	if closed {
		return Terminal{}, errClosed
	}
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)})
	if err != nil {
		return Terminal{}, fmt.Errorf("start terminal %s: %w", shell, err)
	}
	master, err := nonBlocking(f)
	if err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		return Terminal{}, fmt.Errorf("start terminal %s: %w", shell, err)
	}
	pid := cmd.Process.Pid
	t := &termProc{
		m: m, id: protocol.NewID("term"), log: newLogRing(0, scrollbackBytes), pty: master,
		kick: make(chan struct{}, 1), readDone: make(chan struct{}), exited: make(chan struct{}),
	}
	t.state = Terminal{ID: t.id, Cwd: cwd, Shell: shell, PID: pid, Cols: cols, Rows: rows, Status: StatusRunning, CreatedAt: time.Now().UnixMilli()}
	t.shellStart = procStartTime(pid)
	if spec.RestoreFrom != "" {
		if saved, ok := m.restoreSaved(spec.RestoreFrom); ok {
			t.log.add(StreamPTY, restoredText(saved.output))
			t.state.RestoredFrom = spec.RestoreFrom
		}
	}
	m.mu.Lock()
	m.terms = append(m.terms, t)
	m.mu.Unlock()
	m.remember(record{ID: t.id, Kind: KindTerminal, PID: pid, PGID: pid, Cwd: cwd, Command: shell, StartedAt: t.state.CreatedAt, StartTime: t.shellStart})
	go t.read()
	go t.flusher()
	go t.wait(cmd)
	m.logf("info", "terminal %s started (pid %d): %s in %s", t.id, pid, shell, cwd)
	m.changed(KindTerminal, t.id)
	return t.info(), nil
}

// nonBlocking replaces the PTY master pty.Start returns (left in blocking
// mode by its ioctls, so Close would not end a pending Read) with a
// non-blocking duplicate that the runtime poller serves.
func nonBlocking(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// read moves the PTY's output into pending until the PTY closes.
func (t *termProc) read() {
	buf := make([]byte, chunkBytes)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			t.outMu.Lock()
			t.pending = append(t.pending, buf[:n]...)
			if len(t.pending) >= chunkBytes {
				t.flushLocked(false)
			}
			t.outMu.Unlock()
			select {
			case t.kick <- struct{}{}:
			default:
			}
		}
		if err != nil {
			break
		}
	}
	t.outMu.Lock()
	t.flushLocked(true)
	t.outMu.Unlock()
	close(t.readDone)
}

// flusher turns what the reader gathered within coalesceDelay into one
// entry, so a flood gives few large entries.
func (t *termProc) flusher() {
	for {
		select {
		case <-t.readDone:
			return
		case <-t.kick:
		}
		timer := time.NewTimer(coalesceDelay)
		select {
		case <-timer.C:
		case <-t.readDone:
			timer.Stop()
			return
		}
		t.outMu.Lock()
		t.flushLocked(false)
		t.outMu.Unlock()
	}
}

// flushLocked adds pending as one entry; unless final it keeps back an
// incomplete UTF-8 sequence at the end for the next read to complete.
func (t *termProc) flushLocked(final bool) {
	cut := len(t.pending)
	if !final {
		cut = completeUTF8(t.pending)
	}
	if cut == 0 {
		return
	}
	t.log.add(StreamPTY, string(t.pending[:cut]))
	t.pending = append(t.pending[:0], t.pending[cut:]...)
}

// completeUTF8 is the length of p without a trailing incomplete rune.
func completeUTF8(p []byte) int {
	for i := 1; i <= utf8.UTFMax && i <= len(p); i++ {
		if utf8.RuneStart(p[len(p)-i]) {
			if !utf8.FullRune(p[len(p)-i:]) {
				return len(p) - i
			}
			break
		}
	}
	return len(p)
}

// wait records the shell's exit and closes the PTY.
func (t *termProc) wait(cmd *exec.Cmd) {
	_ = cmd.Wait()
	select { // let the reader take the last output
	case <-t.readDone:
	case <-time.After(exitDrain):
	}
	_ = t.pty.Close() // ends the reader (and HUPs what still holds the tty)
	<-t.readDone
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	code := ws.ExitStatus()
	if ws.Signaled() {
		code = 128 + int(ws.Signal())
	}
	t.mu.Lock()
	t.state.ExitCode = &code
	t.state.Status = StatusExited
	t.mu.Unlock()
	t.m.forget(t.id)
	t.log.end()
	close(t.exited)
	t.m.logf("info", "terminal %s exited with code %d", t.id, code)
	t.m.changed(KindTerminal, t.id)
}

// Terminals lists the terminal sessions, oldest first.
func (m *Manager) Terminals() []Terminal {
	m.mu.Lock()
	terms := append([]*termProc(nil), m.terms...)
	m.mu.Unlock()
	out := make([]Terminal, 0, len(terms))
	for _, t := range terms {
		out = append(out, t.info())
	}
	return out
}

func (m *Manager) liveTerm(id string) (*termProc, error) {
	t := m.term(id)
	if t == nil {
		return nil, &unknownError{id: id}
	}
	return t, nil
}

// WriteTerminal writes raw input to a terminal.
func (m *Manager) WriteTerminal(id, data string) (int, error) {
	t, err := m.liveTerm(id)
	if err != nil {
		return 0, err
	}
	select {
	case <-t.exited:
		return 0, fmt.Errorf("write terminal %s: it has exited", id)
	default:
	}
	n, err := t.pty.Write([]byte(data))
	if err != nil {
		return n, fmt.Errorf("write terminal %s: %w", id, err)
	}
	return n, nil
}

// ResizeTerminal resizes a terminal's PTY.
func (m *Manager) ResizeTerminal(id string, cols, rows int) (Terminal, error) {
	t, err := m.liveTerm(id)
	if err != nil {
		return Terminal{}, err
	}
	if cols <= 0 || rows <= 0 || cols > 0xffff || rows > 0xffff {
		return Terminal{}, invalidf("terminal size is out of range: cols and rows must be 1 to 65535")
	}
	// pty.Setsize would call Fd() and put the master in blocking mode;
	// the same ioctl through the raw conn keeps it non-blocking.
	rc, err := t.pty.SyscallConn()
	if err != nil {
		return Terminal{}, fmt.Errorf("resize terminal %s: %w", id, err)
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: uint16(cols), Row: uint16(rows)})
	}); err != nil {
		ierr = err
	}
	if ierr != nil {
		return Terminal{}, fmt.Errorf("resize terminal %s: %w", id, ierr)
	}
	t.mu.Lock()
	t.state.Cols, t.state.Rows = cols, rows
	s := t.state
	t.mu.Unlock()
	return s, nil
}

// KillTerminal signals a terminal's process group (default SIGHUP).
func (m *Manager) KillTerminal(id, signal string) (Terminal, error) {
	t, err := m.liveTerm(id)
	if err != nil {
		return Terminal{}, err
	}
	sig, err := ParseSignal(signal, syscall.SIGHUP)
	if err != nil {
		return Terminal{}, err
	}
	select {
	case <-t.exited:
		return t.info(), nil
	default:
	}
	if err := syscall.Kill(-t.info().PID, sig); err != nil && err != syscall.ESRCH {
		return Terminal{}, fmt.Errorf("kill terminal %s: %w", id, err)
	}
	return t.info(), nil
}

// CloseTerminal kills a terminal (SIGHUP, then SIGKILL if the shell is
// still there after a moment) and forgets it. For a terminal of an earlier
// run it discards the saved scrollback.
func (m *Manager) CloseTerminal(ctx context.Context, id string) error {
	t, err := m.liveTerm(id)
	if err != nil {
		if m.discardSaved(id) {
			return nil
		}
		return err
	}
	pgid := t.info().PID
	_ = syscall.Kill(-pgid, syscall.SIGHUP)
	select {
	case <-t.exited:
	case <-time.After(closeWait):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
	m.mu.Lock()
	for i, x := range m.terms {
		if x == t {
			m.terms = append(m.terms[:i], m.terms[i+1:]...)
			break
		}
	}
	m.mu.Unlock()
	m.forget(id)
	m.logf("info", "terminal %s closed", id)
	m.changed(KindTerminal, id)
	return nil
}

// TerminalSnapshot returns a terminal with its scrollback: the held output
// concatenated, and the seq the next chunk will get.
func (m *Manager) TerminalSnapshot(id string) (Snapshot, error) {
	t, err := m.liveTerm(id)
	if err != nil {
		return Snapshot{}, err
	}
	buf, next := t.log.text()
	return Snapshot{Terminal: t.info(), Buffer: buf, NextSeq: next}, nil
}
