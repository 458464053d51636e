package process

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"syscall"

	"github.com/meith-dev/meith/backend/atomicfile"
)

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

// record is one process group in the RecordFile.
type record struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	PID       int    `json:"pid"`
	PGID      int    `json:"pgid"`
	Cwd       string `json:"cwd"`
	Command   string `json:"command"`
	StartedAt int64  `json:"startedAt"` // Unix milliseconds
	// StartTime is /proc/<pid>/stat field 22 of the leader, to tell a
	// reused pid apart.
	StartTime uint64 `json:"startTime"`
	// RuntimePID and RuntimeStartTime identify the runtime that started it.
	RuntimePID       int    `json:"runtimePid"`
	RuntimeStartTime uint64 `json:"runtimeStartTime,omitempty"`
}

// recordDoc is the RecordFile's content.
type recordDoc struct {
	Version   int      `json:"version"`
	Processes []record `json:"processes"`
}

var (
	selfPID       = os.Getpid()
	selfStartTime = procStartTime(selfPID)
)

func (r record) orphan() Orphan {
	return Orphan{ID: r.ID, Kind: r.Kind, PID: r.PID, PGID: r.PGID, Cwd: r.Cwd, Command: r.Command, StartedAt: r.StartedAt}
}

// sweep reads the RecordFile: the groups of dead runtimes that still run
// (the same processes: same start time) become orphans; the rest is
// dropped, and the file rewritten.
func (m *Manager) sweep() {
	b, err := os.ReadFile(m.opts.RecordFile)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		m.logf("warn", "process records: %v", err)
	}
	var doc recordDoc
	if len(b) > 0 {
		if err := json.Unmarshal(b, &doc); err != nil {
			m.logf("warn", "process records %s unreadable, starting afresh: %v", m.opts.RecordFile, err)
		}
	}
	snap := newProcSnapshot()
	for _, r := range doc.Processes {
		if r.PGID <= 0 || r.RuntimePID == selfPID {
			continue
		}
		if procAlive(r.RuntimePID, r.RuntimeStartTime) {
			// A live runtime owns this file (a second runtime on the
			// same user data, which will not get to start): never
			// rewrite its records.
			m.foreignOwner = r.RuntimePID
			continue
		}
		if !snap.groupAlive(r.PGID) {
			continue
		}
		// The leader, if still there, must be the same process; once it is
		// gone the group id cannot be reused while members remain.
		if st, ok := snap.procs[r.PID]; ok && st.state != 'Z' && r.StartTime != 0 && st.startTime != r.StartTime {
			continue
		}
		m.orphans = append(m.orphans, r)
		m.logf("info", "orphan %s %s (pgid %d) left by runtime %d: %s", r.Kind, r.ID, r.PGID, r.RuntimePID, r.Command)
	}
	if m.foreignOwner != 0 {
		m.logf("warn", "process records %s belong to the running runtime %d: this one keeps none", m.opts.RecordFile, m.foreignOwner)
		m.orphans = nil
		return
	}
	if err := m.saveRecords(); err != nil {
		m.logf("warn", "process records: %v", err)
	}
}

// groupAlive reports whether the snapshot holds a live member of pgid.
func (s *procSnapshot) groupAlive(pgid int) bool {
	for _, st := range s.procs {
		if st.pgid == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}

// remember records a group this runtime started.
func (m *Manager) remember(r record) {
	if m.opts.RecordFile == "" {
		return
	}
	r.RuntimePID, r.RuntimeStartTime = selfPID, selfStartTime
	m.mu.Lock()
	m.own[r.ID] = r
	m.mu.Unlock()
	if err := m.saveRecords(); err != nil {
		m.logf("warn", "process records: %v", err)
	}
}

// forget drops the record of a group that is gone. It writes the file
// even when another goroutine dropped the record first, so the file is
// up to date when it returns.
func (m *Manager) forget(id string) {
	if m.opts.RecordFile == "" {
		return
	}
	m.mu.Lock()
	delete(m.own, id)
	m.mu.Unlock()
	if err := m.saveRecords(); err != nil {
		m.logf("warn", "process records: %v", err)
	}
}

// saveRecords writes this runtime's records and the orphans atomically.
func (m *Manager) saveRecords() error {
	if m.opts.RecordFile == "" || m.foreignOwner != 0 {
		return nil
	}
	m.recMu.Lock()
	defer m.recMu.Unlock()
	if m.recordsFrozen {
		return nil
	}
	m.mu.Lock()
	doc := recordDoc{Version: 1, Processes: []record{}}
	for _, r := range m.own {
		doc.Processes = append(doc.Processes, r)
	}
	slices.SortFunc(doc.Processes, func(a, b record) int { return cmp.Compare(a.StartedAt, b.StartedAt) })
	doc.Processes = append(doc.Processes, m.orphans...)
	m.mu.Unlock()
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("process records: %w", err)
	}
	return atomicfile.WriteFile(m.opts.RecordFile, append(b, '\n'), 0o600)
}

// Orphans returns the process groups an earlier runtime left running
// (read from RecordFile at New) that still run.
func (m *Manager) Orphans() []Orphan {
	return m.liveOrphans(newProcSnapshot())
}

func (m *Manager) liveOrphans(snap *procSnapshot) []Orphan {
	m.mu.Lock()
	recs := slices.Clone(m.orphans)
	m.mu.Unlock()
	out := []Orphan{}
	for _, r := range recs {
		if snap.groupAlive(r.PGID) {
			out = append(out, r.orphan())
		}
	}
	return out
}

// StopOrphan stops an orphan's process group (TERM, then KILL after
// StopGrace) and forgets it.
func (m *Manager) StopOrphan(ctx context.Context, id string) error {
	m.mu.Lock()
	i := slices.IndexFunc(m.orphans, func(r record) bool { return r.ID == id })
	var r record
	if i >= 0 {
		r = m.orphans[i]
	}
	m.mu.Unlock()
	if i < 0 {
		return &unknownError{id: id}
	}
	if err := StopGroup(ctx, r.PGID, syscall.SIGTERM, stopGrace); err != nil {
		return fmt.Errorf("stop orphan %s: %w", id, err)
	}
	m.mu.Lock()
	m.orphans = slices.DeleteFunc(m.orphans, func(o record) bool { return o.ID == id })
	m.mu.Unlock()
	m.logf("info", "orphan %s (pgid %d) stopped", id, r.PGID)
	return m.saveRecords()
}
