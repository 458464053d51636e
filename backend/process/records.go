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

	"github.com/meith-dev/meith/backend/internal/atomicfile"
)

// Orphan is a process group (with, for a dev server, the processes that
// left it) an earlier runtime started and left running.
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
	// SID is the session of a dev server (its pid: it runs in a session of
	// its own); 0 for a terminal and records of older runtimes.
	SID int `json:"sid,omitempty"`
	// Escapees are processes of a dev server outside its session (they
	// called setsid), as its runtime last saw them.
	Escapees []procKey `json:"escapees,omitempty"`
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

// memberSpec says which processes are the record's: a terminal's group; a
// dev server's session and group, escapees and marked processes.
func (r record) memberSpec() memberSpec {
	spec := memberSpec{leader: r.PID, leaderStart: r.StartTime, pgid: r.PGID}
	if r.Kind == KindDevServer {
		spec.id, spec.sid, spec.escapees = r.ID, r.SID, slices.Clone(r.Escapees)
	}
	return spec
}

// sweep reads the RecordFile: the records of dead runtimes whose
// processes still run (the same processes: same start time; for a dev
// server also the processes that left its session, recorded or carrying
// its ProcessIDEnv) become orphans; the rest is dropped, and the file
// rewritten.
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
	var left []record
	ids := map[string]uint64{} // dev servers → leader start, for the marker scan
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
		left = append(left, r)
		if r.Kind == KindDevServer {
			ids[r.ID] = r.StartTime
		}
	}
	if m.foreignOwner != 0 {
		m.logf("warn", "process records %s belong to the running runtime %d: this one keeps none", m.opts.RecordFile, m.foreignOwner)
		return
	}
	snap := newProcSnapshot()
	marked := snap.markerScan(ids, nil)
	for _, r := range left {
		spec := r.memberSpec()
		members := snap.members(spec, marked[r.ID])
		if len(members) == 0 {
			continue
		}
		r.Escapees, _ = mergeEscapees(snap.liveEscapees(r.Escapees), escapeesOf(spec, members))
		m.orphans = append(m.orphans, r)
		m.logf("info", "orphan %s %s (pgid %d, %d processes) left by runtime %d: %s", r.Kind, r.ID, r.PGID, len(members), r.RuntimePID, r.Command)
	}
	if err := m.saveRecords(); err != nil {
		m.logf("warn", "process records: %v", err)
	}
}

// remember records a group this runtime started.
func (m *Manager) remember(r record) {
	if m.opts.RecordFile == "" {
		return
	}
	r.RuntimePID, r.RuntimeStartTime = selfPID, selfStartTime
	if r.Kind == KindDevServer {
		r.SID = r.PGID // it runs in a session of its own
	}
	m.mu.Lock()
	m.own[r.ID] = r
	m.mu.Unlock()
	if err := m.saveRecords(); err != nil {
		m.logf("warn", "process records: %v", err)
	}
}

// forget drops the record of a process whose processes are all gone (and
// stops tracking it). It writes the file even when another goroutine
// dropped the record first, so the file is up to date when it returns.
func (m *Manager) forget(id string) {
	if d := m.dev(id); d != nil {
		d.mu.Lock()
		d.tracked = false
		d.mu.Unlock()
	}
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
	out := []Orphan{}
	for _, r := range m.liveOrphans(newProcSnapshot()) {
		out = append(out, r.orphan())
	}
	return out
}

// liveOrphans are the records of the orphans with a process left.
func (m *Manager) liveOrphans(snap *procSnapshot) []record {
	m.mu.Lock()
	recs := slices.Clone(m.orphans)
	m.mu.Unlock()
	return slices.DeleteFunc(recs, func(r record) bool { return len(snap.members(r.memberSpec(), nil)) == 0 })
}

// StopOrphan stops an orphan's processes (a terminal's group; a dev
// server's session, group, escapees and the processes carrying its
// ProcessIDEnv, with their descendants): TERM, then KILL after StopGrace.
// Then it forgets it.
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
	if err := stopMembers(ctx, r.memberSpec(), syscall.SIGTERM, stopGrace); err != nil {
		return fmt.Errorf("stop orphan %s: %w", id, err)
	}
	m.mu.Lock()
	m.orphans = slices.DeleteFunc(m.orphans, func(o record) bool { return o.ID == id })
	m.mu.Unlock()
	m.logf("info", "orphan %s (pgid %d) stopped", id, r.PGID)
	return m.saveRecords()
}
