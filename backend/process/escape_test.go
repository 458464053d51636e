package process

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var sleepSeq atomic.Int64

// uniqueSleeps returns n sleep durations no other test (or test binary)
// uses, to find those sleeps in /proc.
func uniqueSleeps(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = 6_000_000 + (os.Getpid()%10_000)*100 + int(sleepSeq.Add(1))
	}
	return out
}

// sleepsAlive returns the durations of the given ones that a live
// (non-zombie) `sleep N` process runs, with its pid.
func sleepsAlive(durations []int) map[int]int {
	out := map[int]int{}
	for pid, st := range readProcs() {
		if !live(st) || st.comm != "sleep" {
			continue
		}
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) != 2 {
			continue
		}
		if n, err := strconv.Atoi(args[1]); err == nil && slices.Contains(durations, n) {
			out[n] = pid
		}
	}
	return out
}

// killSleeps SIGKILLs what is left of the given sleeps (test clean-up).
func killSleeps(durations []int) {
	for _, pid := range sleepsAlive(durations) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// escapingCommand is the attack's dev server (2026-12-01, R2): it ignores
// SIGTERM and starts a child in a session of its own (setsid), one in a
// process group of its own (set -m) whose parent exits at once, and a
// nohup child; all of them ignore SIGTERM too.
func escapingCommand(s []int) string {
	return fmt.Sprintf(`trap '' TERM; setsid sh -c "trap '' TERM; exec sleep %d" & (set -m; sleep %d &); nohup sh -c 'sleep %d' & wait`, s[0], s[1], s[2])
}

func shortGrace(t *testing.T) {
	old := stopGrace
	stopGrace = 300 * time.Millisecond
	t.Cleanup(func() { stopGrace = old })
}

// TestStopDevServerStopsEscapees: stop_dev_server stops the processes
// that left the server's process group (setsid, set -m, nohup).
func TestStopDevServerStopsEscapees(t *testing.T) {
	shortGrace(t)
	sleeps := uniqueSleeps(3)
	t.Cleanup(func() { killSleeps(sleeps) })
	m := newManager(t, Options{})
	d := startDev(t, m, DevSpec{Command: escapingCommand(sleeps)})
	waitFor(t, "the three sleeps", func() bool { return len(sleepsAlive(sleeps)) == 3 })
	if err := m.StopDevServer(context.Background(), d.ID, ""); err != nil {
		t.Fatal(err)
	}
	if left := sleepsAlive(sleeps); len(left) != 0 {
		t.Errorf("sleeps (duration → pid) alive after StopDevServer: %v", left)
	}
	if d, _ := m.DevServer(d.ID); d.Status != StatusStopped {
		t.Errorf("status %s, want stopped", d.Status)
	}
}

// TestShutdownStopsEscapees: the runtime's shutdown (servers stopped on
// close) stops them too, and leaves no record.
func TestShutdownStopsEscapees(t *testing.T) {
	shortGrace(t)
	sleeps := uniqueSleeps(3)
	t.Cleanup(func() { killSleeps(sleeps) })
	rec := filepath.Join(t.TempDir(), "processes.json")
	m := New(Options{RecordFile: rec})
	startDev(t, m, DevSpec{Command: escapingCommand(sleeps)})
	waitFor(t, "the three sleeps", func() bool { return len(sleepsAlive(sleeps)) == 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := m.Shutdown(ctx, true); err != nil {
		t.Fatal(err)
	}
	if left := sleepsAlive(sleeps); len(left) != 0 {
		t.Errorf("sleeps (duration → pid) alive after Shutdown: %v", left)
	}
	if o := New(Options{RecordFile: rec}).Orphans(); len(o) != 0 {
		t.Errorf("orphans after a clean shutdown: %+v", o)
	}
}

// TestTrackerRecordsEscapees: a descendant that left the session (and
// cleared its environment, so no ProcessIDEnv finds it) is recorded with
// its start time while its parent runs; once its parent exits, the stop
// still finds it through the record.
func TestTrackerRecordsEscapees(t *testing.T) {
	shortGrace(t)
	oldTrack := trackInterval
	trackInterval = 50 * time.Millisecond
	t.Cleanup(func() { trackInterval = oldTrack })
	sleeps := uniqueSleeps(2)
	t.Cleanup(func() { killSleeps(sleeps) })
	rec := filepath.Join(t.TempDir(), "processes.json")
	m := newManager(t, Options{RecordFile: rec})
	d := startDev(t, m, DevSpec{Command: fmt.Sprintf(`env -i setsid sleep %d & exec sleep %d`, sleeps[0], sleeps[1])})
	var escapee int
	waitFor(t, "the escapee in the record file", func() bool {
		escapee = sleepsAlive(sleeps)[sleeps[0]]
		b, _ := os.ReadFile(rec)
		return escapee != 0 && bytes.Contains(b, fmt.Appendf(nil, `"pid": %d,`, escapee))
	})
	// The leader (the second sleep) exits: the escapee's parent is gone,
	// its session and group are not the server's, its environment is empty.
	syscall.Kill(d.PID, syscall.SIGKILL)
	waitEnded(t, m, d.ID)
	if st, _ := readStat(escapee); st.ppid == d.PID {
		t.Fatalf("escapee %d still a child of the leader", escapee)
	}
	b, _ := os.ReadFile(rec)
	if !bytes.Contains(b, []byte(d.ID)) {
		t.Errorf("the record of %s went while its escapee %d runs:\n%s", d.ID, escapee, b)
	}
	if err := m.StopDevServer(context.Background(), d.ID, ""); err != nil {
		t.Fatal(err)
	}
	if left := sleepsAlive(sleeps); len(left) != 0 {
		t.Errorf("sleeps (duration → pid) alive after StopDevServer: %v", left)
	}
}

func childRuntimeCommands(recordFile, commandsJSON string) int {
	trackInterval = 50 * time.Millisecond
	var cmds []string
	if err := json.Unmarshal([]byte(commandsJSON), &cmds); err != nil {
		fmt.Println("failed", err)
		return 1
	}
	want, _ := strconv.Atoi(os.Getenv(childEscapeesEnv))
	m := New(Options{RecordFile: recordFile})
	for _, c := range cmds {
		d, err := m.StartDevServer(context.Background(), DevSpec{Cwd: os.TempDir(), Command: c})
		if err != nil || d.Status != StatusRunning {
			fmt.Println("failed", err, d.Status)
			return 1
		}
		fmt.Printf("server %s %d\n", d.ID, d.PID)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var doc struct {
			Processes []struct{ Escapees []json.RawMessage }
		}
		b, _ := os.ReadFile(recordFile)
		_ = json.Unmarshal(b, &doc)
		n := 0
		for _, r := range doc.Processes {
			n += len(r.Escapees)
		}
		if n >= want {
			break
		}
		if time.Now().After(deadline) {
			fmt.Printf("failed: %d escapees recorded, want %d\n", n, want)
			return 1
		}
	}
	fmt.Println("ready")
	select {}
}

// TestOrphanEscapees: after a SIGKILL of the runtime, the next start lists
// a dev server whose processes left its group as an orphan — also one of
// which only a process that left its session (found by its record) is
// left — and StopOrphan stops all of those processes.
func TestOrphanEscapees(t *testing.T) {
	shortGrace(t)
	sleeps := uniqueSleeps(5)
	t.Cleanup(func() { killSleeps(sleeps) })
	rec := filepath.Join(t.TempDir(), "processes.json")
	cmds, _ := json.Marshal([]string{
		escapingCommand(sleeps[:3]),
		fmt.Sprintf(`env -i setsid sleep %d & exec sleep %d`, sleeps[3], sleeps[4]),
	})
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+rec, childCommandsEnv+"="+string(cmds), childEscapeesEnv+"=2")
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	var leaders []int
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadString('\n')
		if err != nil || strings.HasPrefix(line, "failed") {
			child.Process.Kill()
			child.Wait()
			t.Fatalf("child runtime: %q %v", line, err)
		}
		var id string
		var pid int
		if _, err := fmt.Sscanf(line, "server %s %d", &id, &pid); err == nil {
			ids, leaders = append(ids, id), append(leaders, pid)
			t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
			continue
		}
		if line == "ready\n" {
			break
		}
		t.Fatalf("child said %q", line)
	}
	waitFor(t, "the five sleeps", func() bool { return len(sleepsAlive(sleeps)) == 5 })
	// The runtime crashes; then the second server's leader exits, so only
	// its escapee (other session, empty environment, parent gone) is left.
	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	syscall.Kill(leaders[1], syscall.SIGKILL)
	waitFor(t, "the second leader to go", func() bool { _, ok := sleepsAlive(sleeps)[sleeps[4]]; return !ok })
	escapees := slices.DeleteFunc(slices.Clone(sleeps), func(n int) bool { return n == sleeps[4] })
	if left := sleepsAlive(escapees); len(left) != 4 {
		t.Fatalf("sleeps alive after the runtime died: %v, want %v", left, escapees)
	}

	m := newManager(t, Options{RecordFile: rec})
	var listed []string
	for _, o := range m.Orphans() {
		listed = append(listed, o.ID)
	}
	slices.Sort(listed)
	if want := slices.Sorted(slices.Values(ids)); !slices.Equal(listed, want) {
		t.Fatalf("Orphans() = %v, want %v", listed, want)
	}
	for _, p := range m.Processes() {
		if p.Kind == KindOrphan && p.Tree == nil {
			t.Errorf("orphan %s listed without a tree", p.ID)
		}
	}
	for _, id := range ids {
		if err := m.StopOrphan(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	if left := sleepsAlive(sleeps); len(left) != 0 {
		t.Errorf("sleeps (duration → pid) alive after StopOrphan: %v", left)
	}
	if o := New(Options{RecordFile: rec}).Orphans(); len(o) != 0 {
		t.Errorf("orphans after StopOrphan: %+v", o)
	}
}
