package instance

import (
	"math"
	"runtime/debug"
	"testing"
)

// `meith serve` applies its GC settings unless GOGC or GOMEMLIMIT is set.
func TestApplyServeGC(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

	for _, set := range []string{"GOGC", "GOMEMLIMIT"} {
		if ApplyServeGC(env(map[string]string{set: "200"})) {
			t.Errorf("applied with %s set", set)
		}
		if p := gcPercent(); p != 100 {
			t.Errorf("GC percent with %s set = %d, want 100 (unchanged)", set, p)
		}
	}
	if !ApplyServeGC(env(nil)) {
		t.Fatal("not applied without GOGC and GOMEMLIMIT")
	}
	if p := gcPercent(); p != ServeGCPercent {
		t.Errorf("GC percent = %d, want %d", p, ServeGCPercent)
	}
	if l := debug.SetMemoryLimit(-1); l != ServeMemoryLimit {
		t.Errorf("memory limit = %d, want %d", l, ServeMemoryLimit)
	}
}

// gcPercent reads the GC percent (setting it is the only way to read it).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
