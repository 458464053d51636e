package process

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ProcessNode is an OS process in a managed process's subtree.
type ProcessNode struct {
	PID      int           `json:"pid"`
	PPID     int           `json:"ppid"`
	Command  string        `json:"command"`
	Ports    []int         `json:"ports"`
	Children []ProcessNode `json:"children"`
}

// ProcessInfo is one managed process with its OS subtree (the leader's;
// once it is gone, the first remaining process's) and the TCP ports its
// processes listen on (also those that left its session).
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

// procStat is what /proc/<pid>/stat tells about a process.
type procStat struct {
	pid, ppid, pgid int
	sid             int // session
	state           byte
	comm            string
	startTime       uint64 // field 22: clock ticks after boot
}

// readStat parses /proc/<pid>/stat.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	return parseStat(pid, string(b))
}

func parseStat(pid int, s string) (procStat, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return procStat{}, false
	}
	st := procStat{pid: pid, comm: s[open+1 : end], state: f[0][0]}
	st.ppid, _ = strconv.Atoi(f[1])
	st.pgid, _ = strconv.Atoi(f[2])
	st.sid, _ = strconv.Atoi(f[3])
	st.startTime, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

// procStartTime is the start time of pid (/proc/<pid>/stat field 22), 0
// if it is gone.
func procStartTime(pid int) uint64 {
	st, ok := readStat(pid)
	if !ok {
		return 0
	}
	return st.startTime
}

// procAlive reports whether pid runs (not a zombie) and, with a non-zero
// startTime, is the process that started then (not a reused pid).
func procAlive(pid int, startTime uint64) bool {
	st, ok := readStat(pid)
	if !ok || st.state == 'Z' || st.state == 'X' {
		return false
	}
	return startTime == 0 || st.startTime == startTime
}

// readProcs reads /proc/*/stat once.
func readProcs() map[int]procStat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procStat, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out[pid] = st
		}
	}
	return out
}

// groupAlive reports whether a process group has a live (non-zombie)
// member: zombies stay until their parent reaps them, which a container's
// init may never do.
func groupAlive(pgid int) bool {
	if pgid <= 0 {
		return false
	}
	if err := syscall.Kill(-pgid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	for _, st := range readProcs() {
		if st.pgid == pgid && st.state != 'Z' && st.state != 'X' {
			return true
		}
	}
	return false
}

// groupPollInterval is how often a stop checks whether the group is gone.
const groupPollInterval = 20 * time.Millisecond

// killWait bounds the wait for a group to vanish after SIGKILL.
const killWait = 5 * time.Second

// StopGroup signals the process group pgid, waits up to grace for it to
// be gone, then SIGKILLs it and waits until it is gone (zombies count as
// gone). If ctx ends first the group is SIGKILLed at once and ctx's error
// returned. A group that is already gone is not an error.
func StopGroup(ctx context.Context, pgid int, sig syscall.Signal, grace time.Duration) error {
	if pgid <= 0 {
		return nil
	}
	if err := syscall.Kill(-pgid, sig); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil
		}
		return fmt.Errorf("signal group %d: %w", pgid, err)
	}
	if sig != syscall.SIGKILL && waitGroupGone(ctx, pgid, grace) {
		return nil
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	if err := ctx.Err(); err != nil {
		return err
	}
	if !waitGroupGone(ctx, pgid, killWait) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("process group %d still has processes after SIGKILL", pgid)
	}
	return nil
}

// waitGroupGone polls until the group is gone (true), for at most d or
// until ctx ends (false).
func waitGroupGone(ctx context.Context, pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if !groupAlive(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(groupPollInterval):
		}
	}
}

// procSnapshot is /proc read once: every process, its children, and (for
// the processes asked about) its listening ports.
type procSnapshot struct {
	procs    map[int]procStat
	children map[int][]int
	listen   map[uint64]int // socket inode → port; read lazily
	self     map[int]bool   // the runtime and its ancestors; built lazily
}

func newProcSnapshot() *procSnapshot {
	s := &procSnapshot{procs: readProcs(), children: map[int][]int{}}
	for pid, st := range s.procs {
		s.children[st.ppid] = append(s.children[st.ppid], pid)
	}
	for _, c := range s.children {
		slices.Sort(c)
	}
	return s
}

// tree builds the subtree of pid and the sorted ports it listens on; nil
// if pid is gone (or a zombie).
func (s *procSnapshot) tree(pid int) (*ProcessNode, []int) {
	st, ok := s.procs[pid]
	if !ok || st.state == 'Z' {
		return nil, []int{}
	}
	all := map[int]bool{}
	seen := map[int]bool{}
	node := s.build(st, all, seen)
	return &node, sortedPorts(all)
}

func (s *procSnapshot) build(st procStat, all, seen map[int]bool) ProcessNode {
	seen[st.pid] = true
	n := ProcessNode{PID: st.pid, PPID: st.ppid, Command: command(st), Ports: s.ports(st.pid), Children: []ProcessNode{}}
	for _, p := range n.Ports {
		all[p] = true
	}
	for _, c := range s.children[st.pid] {
		if cst, ok := s.procs[c]; ok && !seen[c] && cst.state != 'Z' {
			n.Children = append(n.Children, s.build(cst, all, seen))
		}
	}
	return n
}

func (s *procSnapshot) ports(pid int) []int {
	inodes := socketInodes(pid)
	if len(inodes) == 0 {
		return []int{}
	}
	if s.listen == nil {
		s.listen = listeningPorts()
	}
	set := map[int]bool{}
	for _, ino := range inodes {
		if p, ok := s.listen[ino]; ok {
			set[p] = true
		}
	}
	return sortedPorts(set)
}

func sortedPorts(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// command is a process's command line, or its name.
func command(st procStat) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(st.pid) + "/cmdline")
	if err == nil && len(b) > 0 {
		return strings.TrimSpace(strings.ReplaceAll(strings.TrimRight(string(b), "\x00"), "\x00", " "))
	}
	return st.comm
}

// Processes lists the managed processes (and orphans) with their OS
// subtrees and listening ports. It reads /proc once.
func (m *Manager) Processes() []ProcessInfo {
	snap := newProcSnapshot()
	out := []ProcessInfo{}
	m.mu.Lock()
	devs := slices.Clone(m.devs)
	m.mu.Unlock()
	for _, dp := range devs {
		d := dp.info()
		pi := ProcessInfo{Kind: KindDevServer, ID: d.ID, PID: d.PID, Cwd: d.Cwd, Command: commandLine(DevSpec{Command: d.Command, Args: d.Args}), Status: d.Status, Ports: []int{}}
		if d.PID > 0 {
			pi.Tree, pi.Ports = snap.memberTree(d.PID, snap.members(dp.memberSpec(), nil))
		}
		out = append(out, pi)
	}
	for _, t := range m.Terminals() {
		pi := ProcessInfo{Kind: KindTerminal, ID: t.ID, PID: t.PID, Cwd: t.Cwd, Command: t.Shell, Status: t.Status, Ports: []int{}}
		if t.PID > 0 {
			pi.Tree, pi.Ports = snap.tree(t.PID)
		}
		out = append(out, pi)
	}
	for _, o := range m.liveOrphans(snap) {
		pi := ProcessInfo{Kind: KindOrphan, ID: o.ID, PID: o.PID, Cwd: o.Cwd, Command: o.Command, Status: StatusRunning}
		pi.Tree, pi.Ports = snap.memberTree(o.PID, snap.members(o.memberSpec(), nil))
		out = append(out, pi)
	}
	return out
}
