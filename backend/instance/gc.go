package instance

import (
	"runtime/debug"
)

// The garbage collector settings of `meith serve` (see
// docs/decisions/2026-12-02-socket-inline-calls-and-serve-gc.md). A busy
// runtime allocates a few kilobytes per tool call and keeps little of it:
// with Go's default (GOGC=100) the collector ran about every 4 MB of
// garbage and cost about a tenth of each call's CPU in socketbench.
const (
	// ServeGCPercent lets the heap grow to 5× what is live before a
	// collection, instead of 2×.
	ServeGCPercent = 400
	// ServeMemoryLimit is a soft limit on the Go runtime's memory: as it
	// is approached the collector runs sooner, so the headroom above stays
	// bounded when the live heap is large (a big repository's status, say).
	ServeMemoryLimit = 1 << 30
)

// ApplyServeGC, called by `meith serve` (and socketbench, which measures
// such a runtime), applies [ServeGCPercent] and [ServeMemoryLimit] unless the
// environment sets GOGC or GOMEMLIMIT (whose values the Go runtime already
// applied: an operator's choice wins). It reports whether it changed them.
func ApplyServeGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(ServeGCPercent)
	debug.SetMemoryLimit(ServeMemoryLimit)
	return true
}
