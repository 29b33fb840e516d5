package claudecode

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// AllocatedPerRun runs fn once, so that it fills the pools it takes its
// buffers from, then n times, and returns the bytes it allocated per run:
// how the tests hold a load's buffer reuse to account. Under the race
// detector, which empties sync.Pools at random on purpose, reuse cannot be
// measured and it skips t. It measures on one P with the collector off:
// a pool keeps what a P put back in that P's private slot, which a run
// moved to the other P does not see, and a collection empties the pools;
// on a loaded 2-core machine either made the measure fail now and then.
func AllocatedPerRun(t *testing.T, n int, fn func()) uint64 {
	t.Helper()
	if raceEnabled {
		t.Skip("the race detector empties sync.Pools at random: reuse cannot be measured")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(n)
}
