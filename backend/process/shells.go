package process

// TerminalShell is the shell process of a running terminal, for callers
// that ask whether a process descends from a terminal meith started (the
// permission service's "this terminal" approvals).
type TerminalShell struct {
	// ID is the terminal's id (term_…).
	ID string
	// PID and StartTime (/proc/<pid>/stat field 22, taken when the shell
	// started) name the shell process; a reused pid has another start time.
	PID       int
	StartTime uint64
}

// TerminalShells lists the shells of the running terminals, oldest first.
// A terminal whose shell exited or that was closed is not listed.
func (m *Manager) TerminalShells() []TerminalShell {
	m.mu.Lock()
	terms := append([]*termProc(nil), m.terms...)
	m.mu.Unlock()
	var out []TerminalShell
	for _, t := range terms {
		select {
		case <-t.exited:
			continue
		default:
		}
		info := t.info()
		if info.Status != StatusRunning || t.shellStart == 0 {
			continue
		}
		out = append(out, TerminalShell{ID: t.id, PID: info.PID, StartTime: t.shellStart})
	}
	return out
}
