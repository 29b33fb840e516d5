package loss

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// RealSessions loads every real Claude Code session (main threads and
// subagents) for the tests and benchmarks of both test packages (loss_test
// sees it as loss.RealSessions, as an export_test.go name). Without
// ../shared it skips, or fails when CI requires the real logs
// (realcorpus.Dir).
func RealSessions(tb testing.TB) []*corpus.Session {
	tb.Helper()
	ss, err := load.Load([]string{realcorpus.Dir(tb, "claude-code")}, corpus.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return ss
}
