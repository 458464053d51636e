package procfs

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name, line string
		want       Stat
		ok         bool
	}{
		{"plain", "42 (sh) S 7 42 42 34816 42 4194304 1 2 3 4 5 6 7 8 20 0 1 0 12345 0 0", Stat{PID: 42, PPID: 7, StartTime: 12345}, true},
		{"comm with parens and spaces", "42 (a) b (c) S 7 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 99 0", Stat{PID: 42, PPID: 7, StartTime: 99}, true},
		{"truncated", "42 (sh) S 7 42", Stat{}, false},
		{"no comm", "garbage", Stat{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat(42, tt.line)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("ParseStat = %+v, %v; want %+v, ok %v", got, err, tt.want, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrMalformedStat) {
				t.Errorf("error %v does not wrap ErrMalformedStat", err)
			}
		})
	}
}

func TestAncestryOfARealChild(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	st, err := ReadStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	chain := Ancestry(cmd.Process.Pid, st.StartTime)
	if len(chain) < 2 || chain[0].PID != cmd.Process.Pid || chain[1].PID != os.Getpid() {
		t.Fatalf("Ancestry = %+v, want the child then this test (pid %d)", chain, os.Getpid())
	}
	if got := Ancestry(cmd.Process.Pid, st.StartTime+1); got != nil {
		t.Errorf("Ancestry with another start time = %+v, want nil (a reused pid)", got)
	}
	if _, err := ReadStat(-1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadStat(-1) = %v, want not exist", err)
	}
}
