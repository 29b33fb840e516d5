package claudecode

import (
	"runtime"
	"testing"
)

// AllocatedPerRun runs fn once, so that it fills the pools it takes its
// buffers from, then n times, and returns the bytes it allocated per run:
// how the tests hold a load's buffer reuse to account. Under the race
// detector, which empties sync.Pools at random on purpose, reuse cannot be
// measured and it skips t.
func AllocatedPerRun(t *testing.T, n int, fn func()) uint64 {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector empties sync.Pools at random: reuse cannot be measured")
	}
	fn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}
