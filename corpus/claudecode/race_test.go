//go:build race

package claudecode

// raceEnabled says the tests run under the race detector, which drops a
// quarter of what goes into a sync.Pool on purpose (to find code that
// relies on reuse) and instruments allocation: the tests that measure
// what reuse saves skip then.
const raceEnabled = true
