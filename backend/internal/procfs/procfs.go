// Package procfs reads what Linux's /proc says about a process: its parent
// and its start time, enough to walk a process's ancestry without being
// fooled by a reused pid.
package procfs

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxStatBytes bounds the read of /proc/<pid>/stat (a comm is at most 16
// bytes; the whole line is a few hundred).
const maxStatBytes = 4 << 10

// ErrMalformedStat is wrapped by [ReadStat] when /proc/<pid>/stat cannot
// be parsed.
var ErrMalformedStat = errors.New("malformed /proc stat line")

// Stat is what /proc/<pid>/stat tells about a process.
type Stat struct {
	PID  int
	PPID int
	// StartTime is field 22: clock ticks after boot when the process
	// started. A pid and its StartTime name one process for good: a reused
	// pid has a later start time.
	StartTime uint64
}

// ReadStat reads /proc/<pid>/stat. A process that is gone gives an error
// satisfying errors.Is(err, fs.ErrNotExist).
func ReadStat(pid int) (Stat, error) {
	if pid <= 0 {
		return Stat{}, fmt.Errorf("read stat of pid %d: %w", pid, os.ErrNotExist)
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Stat{}, fmt.Errorf("read stat of pid %d: %w", pid, err)
	}
	defer f.Close()
	buf := make([]byte, maxStatBytes)
	n, err := f.Read(buf)
	if err != nil {
		return Stat{}, fmt.Errorf("read stat of pid %d: %w", pid, err)
	}
	return ParseStat(pid, string(buf[:n]))
}

// ParseStat parses the content of /proc/<pid>/stat.
func ParseStat(pid int, s string) (Stat, error) {
	end := strings.LastIndexByte(s, ')') // the comm may hold spaces and parens
	if end < 0 {
		return Stat{}, fmt.Errorf("stat of pid %d: %w", pid, ErrMalformedStat)
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3 (state)
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("stat of pid %d: %w", pid, ErrMalformedStat)
	}
	ppid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return Stat{}, fmt.Errorf("stat of pid %d: %w", pid, ErrMalformedStat)
	}
	return Stat{PID: pid, PPID: ppid, StartTime: start}, nil
}

// MaxAncestry bounds [Ancestry]'s walk.
const MaxAncestry = 64

// Ancestry returns pid and its ancestors, nearest first, up to
// [MaxAncestry] entries, stopping below pid 1. When start is not zero, pid
// must still have that start time (it is the process that was seen
// before), else Ancestry returns nil. A parent that started after its child
// is a reused pid (the real parent died): the walk stops there.
func Ancestry(pid int, start uint64) []Stat {
	st, err := ReadStat(pid)
	if err != nil || (start != 0 && st.StartTime != start) {
		return nil
	}
	out := []Stat{st}
	for len(out) < MaxAncestry && st.PPID > 1 {
		parent, err := ReadStat(st.PPID)
		if err != nil || parent.StartTime > st.StartTime {
			break
		}
		out = append(out, parent)
		st = parent
	}
	return out
}
