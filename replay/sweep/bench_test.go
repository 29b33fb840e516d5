package sweep

import (
	"context"
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

// BenchmarkSweepWorkers runs the same 16-point sweep on 1 and 2 workers;
// the ratio of their ns/op is the parallel speed-up.
//
//	go test ./replay/sweep -run '^$' -bench BenchmarkSweepWorkers -benchtime 3x
func BenchmarkSweepWorkers(b *testing.B) {
	var sessions []*corpus.Session
	for i := range 8 {
		s := synth.ToolHeavySession(2000)
		s.ID = fmt.Sprintf("s%d", i)
		sessions = append(sessions, s)
	}
	def, _ := policy.Lookup("smith-staged")
	ax, _ := ParseAxis("compact_at=0.6,0.7,0.8,0.9")
	ax2, _ := ParseAxis("window_turns=1..4")
	sw := Plan{Policy: def, Grid: Grid{ax, ax2}, Options: replay.Options{KeepFinal: true}}
	jobs := sw.Jobs(len(sessions))
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", w), func(b *testing.B) {
			sw.Workers = w
			for b.Loop() {
				_, _, err := Run(context.Background(), sw, sessions, jobs,
					func(j Job, p policy.Policy, t *replay.Trace) int { return len(t.Events) }, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
