package process

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// ProcessIDEnv is set in a dev server's environment to the server's id
// (dev_…), so every descendant that keeps its environment can be told
// apart from the rest of the system — also one that left the server's
// session (setsid) and whose parent exited, and after the runtime died.
const ProcessIDEnv = "MEITH_PROCESS_ID"

// maxEnvironBytes bounds the read of one /proc/<pid>/environ.
const maxEnvironBytes = 1 << 20

// maxEscapees bounds the escapees tracked per managed process.
const maxEscapees = 1024

// procKey is one process, told apart from a later one with the same pid
// by its start time (/proc/<pid>/stat field 22).
type procKey struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"startTime"`
}

// memberSpec says which processes belong to a managed process:
//   - its process group pgid and its session sid (a dev server runs in a
//     session of its own, so `set -m` jobs and nohup children stay in it),
//     unless the leader's pid now belongs to another process;
//   - the escapees tracked for it (pid and start time);
//   - the processes whose environment has ProcessIDEnv=id (found by a scan);
//   - and every descendant of those (ppid chains).
type memberSpec struct {
	id          string // ProcessIDEnv value; "" for none
	leader      int
	leaderStart uint64 // 0: unknown
	pgid, sid   int    // 0: none
	escapees    []procKey
}

func live(st procStat) bool { return st.state != 'Z' && st.state != 'X' }

// members returns the live members of spec in the snapshot (and the
// processes carrying its marker, from a marker scan), keyed by pid. The
// runtime itself and its ancestors are never members.
func (s *procSnapshot) members(spec memberSpec, marked []procKey) map[int]procStat {
	out := map[int]procStat{}
	var queue []int
	excluded := s.selfAndAncestors()
	add := func(st procStat) {
		if _, ok := out[st.pid]; ok || excluded[st.pid] || !live(st) {
			return
		}
		out[st.pid] = st
		queue = append(queue, st.pid)
	}
	pgid, sid := spec.pgid, spec.sid
	if st, ok := s.procs[spec.leader]; ok && spec.leaderStart != 0 && st.startTime != spec.leaderStart {
		pgid, sid = 0, 0 // the leader's pid is another process's now: so may its group be
	}
	if pgid > 0 || sid > 0 {
		for _, st := range s.procs {
			if (pgid > 0 && st.pgid == pgid) || (sid > 0 && st.sid == sid) {
				add(st)
			}
		}
	}
	for _, k := range slices.Concat(spec.escapees, marked) {
		if st, ok := s.procs[k.PID]; ok && st.startTime == k.StartTime {
			add(st)
		}
	}
	for i := 0; i < len(queue); i++ {
		for _, c := range s.children[queue[i]] {
			add(s.procs[c])
		}
	}
	return out
}

// selfAndAncestors is the runtime's pid and its ancestors' (never
// signalled, whatever their environment says).
func (s *procSnapshot) selfAndAncestors() map[int]bool {
	if s.self != nil {
		return s.self
	}
	s.self = map[int]bool{0: true, 1: true}
	for pid := selfPID; pid > 1 && !s.self[pid]; {
		s.self[pid] = true
		st, ok := s.procs[pid]
		if !ok {
			break
		}
		pid = st.ppid
	}
	return s.self
}

// escapeesOf are the members outside spec's group and session, sorted.
func escapeesOf(spec memberSpec, members map[int]procStat) []procKey {
	var out []procKey
	for _, st := range members {
		if (spec.pgid > 0 && st.pgid == spec.pgid) || (spec.sid > 0 && st.sid == spec.sid) {
			continue
		}
		out = append(out, procKey{PID: st.pid, StartTime: st.startTime})
	}
	slices.SortFunc(out, func(a, b procKey) int { return a.PID - b.PID })
	if len(out) > maxEscapees {
		out = out[:maxEscapees]
	}
	return out
}

// mergeEscapees adds the keys of more that known lacks (up to maxEscapees)
// and reports whether it added any.
func mergeEscapees(known, more []procKey) ([]procKey, bool) {
	added := false
	for _, k := range more {
		if len(known) >= maxEscapees {
			break
		}
		if !slices.Contains(known, k) {
			known = append(known, k)
			added = true
		}
	}
	return known, added
}

// liveEscapees keeps the keys of processes that still run.
func (s *procSnapshot) liveEscapees(keys []procKey) []procKey {
	var out []procKey
	for _, k := range keys {
		if st, ok := s.procs[k.PID]; ok && live(st) && st.startTime == k.StartTime {
			out = append(out, k)
		}
	}
	return out
}

// markerScan finds the live processes whose environment sets ProcessIDEnv
// to one of the ids (id → the start time of its leader: a marked process
// starts at or after it). known caches what earlier scans read (key →
// marker, "" for none or unreadable); it may be nil.
func (s *procSnapshot) markerScan(ids map[string]uint64, known map[procKey]string) map[string][]procKey {
	out := map[string][]procKey{}
	if len(ids) == 0 {
		return out
	}
	since := ^uint64(0)
	for _, t := range ids {
		since = min(since, t)
	}
	var buf bytes.Buffer
	for pid, st := range s.procs {
		if !live(st) || st.startTime < since || pid == selfPID {
			continue
		}
		key := procKey{PID: pid, StartTime: st.startTime}
		marker, seen := known[key]
		if !seen {
			marker = readMarker(pid, &buf)
			if known != nil {
				known[key] = marker
			}
		}
		if t, ok := ids[marker]; ok && marker != "" && st.startTime >= t {
			out[marker] = append(out[marker], key)
		}
	}
	return out
}

// readMarker is the value of ProcessIDEnv in pid's environment ("" when
// unset or unreadable).
func readMarker(pid int, buf *bytes.Buffer) string {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	defer f.Close()
	buf.Reset()
	if _, err := buf.ReadFrom(io.LimitReader(f, maxEnvironBytes)); err != nil {
		return ""
	}
	return envValue(buf.Bytes(), ProcessIDEnv)
}

// envValue is the value of key in a NUL-separated environment block.
func envValue(env []byte, key string) string {
	prefix := []byte(key + "=")
	for len(env) > 0 {
		entry := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			entry, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		if v, ok := bytes.CutPrefix(entry, prefix); ok {
			return string(v)
		}
	}
	return ""
}

// memberTree is the subtree of the leader or, once it is gone, of the
// first member whose parent is no member; with the sorted ports every
// member listens on.
func (s *procSnapshot) memberTree(leader int, members map[int]procStat) (*ProcessNode, []int) {
	all := map[int]bool{}
	for pid := range members {
		for _, p := range s.ports(pid) {
			all[p] = true
		}
	}
	if t, _ := s.tree(leader); t != nil {
		if _, ok := members[leader]; ok {
			return t, sortedPorts(all)
		}
	}
	var roots []int
	for pid, st := range members {
		if _, ok := members[st.ppid]; !ok {
			roots = append(roots, pid)
		}
	}
	slices.Sort(roots)
	if len(roots) == 0 {
		return nil, sortedPorts(all)
	}
	t, _ := s.tree(roots[0])
	return t, sortedPorts(all)
}

// memberPollInterval is how often a stop looks for members left.
const memberPollInterval = 20 * time.Millisecond

// stopMembers stops every member of spec: sig to each (and to its group),
// up to grace for them to be gone, then SIGKILL to those left until none
// is (zombies count as gone). A process that becomes a member meanwhile
// (forked, or a child of a member) gets the same. The members are found
// once with a marker scan, then tracked by pid and start time. If ctx ends
// first the members are SIGKILLed at once and ctx's error returned.
func stopMembers(ctx context.Context, spec memberSpec, sig syscall.Signal, grace time.Duration) error {
	snap := newProcSnapshot()
	var marked []procKey
	if spec.id != "" {
		marked = snap.markerScan(map[string]uint64{spec.id: spec.leaderStart}, nil)[spec.id]
	}
	spec.escapees = slices.Concat(spec.escapees, marked)
	signalled := map[procKey]syscall.Signal{}
	// send signals sig to the members not yet given it (SIGKILL to all
	// every time: a process may fork until it is killed); it reports
	// whether any member is left.
	send := func(snap *procSnapshot, sig syscall.Signal) bool {
		members := snap.members(spec, nil)
		for _, st := range members {
			k := procKey{PID: st.pid, StartTime: st.startTime}
			if sig != syscall.SIGKILL && signalled[k] == sig {
				continue
			}
			signalled[k] = sig
			signalProc(k, sig)
		}
		spec.escapees, _ = mergeEscapees(spec.escapees, escapeesOf(spec, members))
		return len(members) > 0
	}
	if snap.pgidIsOurs(spec) {
		// The group at once (atomic against its members' forks); they
		// are not signalled again one by one.
		_ = syscall.Kill(-spec.pgid, sig)
		snap = newProcSnapshot()
		for _, st := range snap.procs {
			if st.pgid == spec.pgid {
				signalled[procKey{PID: st.pid, StartTime: st.startTime}] = sig
			}
		}
	}
	if !send(snap, sig) {
		return nil
	}
	wait := func(d time.Duration, sig syscall.Signal) bool {
		deadline := time.Now().Add(d)
		for {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(memberPollInterval):
			}
			if !send(newProcSnapshot(), sig) {
				return true
			}
			if time.Now().After(deadline) {
				return false
			}
		}
	}
	if sig != syscall.SIGKILL && wait(grace, sig) {
		return nil
	}
	if snap := newProcSnapshot(); snap.pgidIsOurs(spec) {
		_ = syscall.Kill(-spec.pgid, syscall.SIGKILL)
	}
	send(newProcSnapshot(), syscall.SIGKILL)
	if err := ctx.Err(); err != nil {
		return err
	}
	if !wait(killWait, syscall.SIGKILL) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("processes of %s still run after SIGKILL", cmp.Or(spec.id, "group "+strconv.Itoa(spec.pgid)))
	}
	return nil
}

// pgidIsOurs reports whether spec's group may be signalled as a whole: it
// has one and its leader's pid is not another process's now.
func (s *procSnapshot) pgidIsOurs(spec memberSpec) bool {
	if spec.pgid <= 0 || s.selfAndAncestors()[spec.pgid] {
		return false
	}
	if st, ok := s.procs[spec.leader]; ok && spec.leaderStart != 0 && st.startTime != spec.leaderStart {
		return false
	}
	if self, ok := s.procs[selfPID]; ok && self.pgid == spec.pgid {
		return false
	}
	return true
}
