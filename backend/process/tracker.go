package process

import (
	"slices"
	"time"
)

// trackInterval is how often the tracker looks for a dev server's escapees
// (tests shorten it).
var trackInterval = 2 * time.Second

// startTrackerLocked starts the tracker if it does not run yet (m.mu held;
// the manager is not closed).
func (m *Manager) startTrackerLocked() {
	if m.trackStop != nil {
		return
	}
	m.trackStop, m.trackDone = make(chan struct{}), make(chan struct{})
	go m.track(m.trackStop, m.trackDone)
}

// stopTracker stops the tracker and waits for it (after m.closed is set;
// again: only waits).
func (m *Manager) stopTracker() {
	m.mu.Lock()
	stop, done := m.trackStop, m.trackDone
	if stop != nil && stop != closedChan {
		close(stop)
		m.trackStop = closedChan
	}
	m.mu.Unlock()
	if done != nil {
		<-done
	}
}

// closedChan stands for a tracker already told to stop.
var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// track runs trackOnce every trackInterval until stop is closed. Between
// two runs it remembers which processes it read the environment of, so
// each is read once.
func (m *Manager) track(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	known := map[procKey]string{}
	t := time.NewTicker(trackInterval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		m.trackOnce(known)
	}
}

// trackOnce reads /proc once and, for every dev server still tracked,
// records the processes of it that left its session (descendants of its
// processes, and processes carrying its ProcessIDEnv) with their start
// times, in the server and its record: a stop signals them too, and after
// a crash of the runtime the next start finds them in the RecordFile. A
// server that ended and has no process left is forgotten. known caches
// the environment reads (nil: none).
func (m *Manager) trackOnce(known map[procKey]string) {
	m.mu.Lock()
	devs := slices.Clone(m.devs)
	m.mu.Unlock()
	devs = slices.DeleteFunc(devs, func(d *devProc) bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return !d.tracked
	})
	if len(devs) == 0 {
		clear(known)
		return
	}
	snap := newProcSnapshot()
	ids := map[string]uint64{}
	for _, d := range devs {
		ids[d.id] = d.memberSpec().leaderStart
	}
	for k := range known {
		if st, ok := snap.procs[k.PID]; !ok || st.startTime != k.StartTime {
			delete(known, k)
		}
	}
	marked := snap.markerScan(ids, known)
	changed := false
	var gone []string
	for _, d := range devs {
		spec := d.memberSpec()
		members := snap.members(spec, marked[d.id])
		escapees, _ := mergeEscapees(snap.liveEscapees(spec.escapees), escapeesOf(spec, members))
		if len(members) == 0 && d.ended() {
			gone = append(gone, d.id)
			continue
		}
		d.mu.Lock()
		updated := d.tracked && !slices.Equal(d.escapees, escapees)
		if updated {
			d.escapees = escapees
		}
		d.mu.Unlock()
		if updated {
			changed = true
			m.mu.Lock()
			if r, ok := m.own[d.id]; ok {
				r.Escapees = slices.Clone(escapees)
				m.own[d.id] = r
			}
			m.mu.Unlock()
		}
	}
	for _, id := range gone {
		m.forget(id)
	}
	if changed {
		if err := m.saveRecords(); err != nil {
			m.logf("warn", "process records: %v", err)
		}
	}
}
