package acp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/meith-dev/meith/backend/process"
)

// stderrKeep is how much of the agent's stderr is kept for error messages.
const stderrKeep = 16 << 10

// killGrace is how long Close waits after SIGTERM before SIGKILL.
const killGrace = 3 * time.Second

// proc is the agent's process: its own process group, stdio pipes whose
// read ends we own (so reaping never cuts a read short), and a ring of the
// last stderrKeep bytes of stderr.
type proc struct {
	cmd     *exec.Cmd
	command string
	stdin   *os.File // write end of the agent's stdin
	stdout  *os.File // read end of the agent's stdout
	stderrR *os.File // read end of the agent's stderr
	logf    func(format string, args ...any)
	redact  func(string) string

	ringMu sync.Mutex
	ring   []byte

	stderrDone chan struct{} // closed when stderr reached EOF (or was closed)
	exited     chan struct{} // closed when the process was reaped
	waitErr    error         // the result of cmd.Wait, set before exited closes

	closeOnce sync.Once
}

// startProcess spawns spec's command. A command that cannot be found or
// started yields an error wrapping ErrNotInstalled.
func startProcess(spec Spec, redact func(string) string) (*proc, error) {
	if strings.TrimSpace(spec.Command) == "" {
		return nil, fmt.Errorf("%w: no agent command is configured", ErrNotInstalled)
	}
	path, err := exec.LookPath(spec.Command)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrNotInstalled, notFoundMessage(spec.Command))
	}
	cmd := exec.Command(path, spec.Args...)
	cmd.Args[0] = spec.Command
	cmd.Dir = spec.Cwd
	cmd.Env = append(os.Environ(), spec.Env...)
	if spec.Model != "" {
		cmd.Env = append(cmd.Env, "ACP_MODEL="+spec.Model)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("acp: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("acp: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("acp: stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("%w: cannot start %s: %v", ErrNotInstalled, spec.Command, err)
	}
	// The child holds its own copies now.
	closeAll(inR, outW, errW)

	logf := spec.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	p := &proc{
		cmd:        cmd,
		command:    spec.Command,
		stdin:      inW,
		stdout:     outR,
		stderrR:    errR,
		logf:       logf,
		redact:     redact,
		stderrDone: make(chan struct{}),
		exited:     make(chan struct{}),
	}
	go p.readStderr()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// notFoundMessage says that command is missing and how to get it.
func notFoundMessage(command string) string {
	base := filepath.Base(command)
	switch base {
	case "npx", "node", "npm":
		return fmt.Sprintf("`%s` was not found: install Node.js (apt-get install nodejs npm)", base)
	}
	return fmt.Sprintf("`%s` was not found on PATH: install it or give its full path", command)
}

func (p *proc) readStderr() {
	defer close(p.stderrDone)
	r := bufio.NewReaderSize(p.stderrR, 4096)
	for {
		line, err := r.ReadString('\n')
		if line != "" {
			line = p.redact(line)
			p.ringMu.Lock()
			p.ring = append(p.ring, line...)
			if len(p.ring) > stderrKeep {
				p.ring = append([]byte(nil), p.ring[len(p.ring)-stderrKeep:]...)
			}
			p.ringMu.Unlock()
			p.logf("acp agent %s stderr: %s", p.command, strings.TrimRight(line, "\r\n"))
		}
		if err != nil {
			return
		}
	}
}

// stderrTail returns the kept stderr, trimmed. When the process has exited
// it first waits briefly for the rest of stderr to arrive.
func (p *proc) stderrTail() string {
	select {
	case <-p.exited:
		select {
		case <-p.stderrDone:
		case <-time.After(500 * time.Millisecond):
		}
	default:
	}
	p.ringMu.Lock()
	defer p.ringMu.Unlock()
	return strings.TrimSpace(string(p.ring))
}

// waitExited waits up to d for the process to end and reports whether it did.
func (p *proc) waitExited(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitStatus describes how the process ended ("" while it runs).
func (p *proc) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	var ee *exec.ExitError
	switch {
	case p.waitErr == nil:
		return "exit status 0"
	case errors.As(p.waitErr, &ee):
		return ee.ProcessState.String()
	default:
		return p.waitErr.Error()
	}
}

// close ends the process group: stdin is closed, the whole group gets
// SIGTERM, then SIGKILL after killGrace, and close waits until the group is
// gone and the process reaped. Idempotent.
func (p *proc) close() {
	p.closeOnce.Do(func() {
		_ = p.stdin.Close()
		ctx, cancel := context.WithTimeout(context.Background(), killGrace+10*time.Second)
		_ = process.StopGroup(ctx, p.cmd.Process.Pid, syscall.SIGTERM, killGrace)
		cancel()
		p.waitExited(killGrace) // reaped by the wait goroutine
		// Unblock the readers even if a grandchild still holds the pipes.
		select {
		case <-p.stderrDone:
		case <-time.After(200 * time.Millisecond):
		}
		_ = p.stderrR.Close()
		_ = p.stdout.Close()
	})
}
