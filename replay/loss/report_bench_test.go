package loss_test

import (
	"context"
	"testing"

	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// BenchmarkReportReal is the index built and the report read for the hides
// clear-tool-results makes on every real Claude Code session: the part of
// BenchmarkLossReal's extra-built that is not the tracker.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkReportReal -benchtime 100x -cpu 1 -benchmem
func BenchmarkReportReal(b *testing.B) {
	ss := loss.RealSessions(b)
	p, err := policy.New("clear-tool-results", nil)
	if err != nil {
		b.Fatal(err)
	}
	hides := make([][]loss.Hide, len(ss))
	for i, s := range ss {
		t, err := replay.Run(context.Background(), s, p, replay.Options{Loss: loss.Build(s, loss.Options{})})
		if err != nil {
			b.Fatal(err)
		}
		for _, sg := range t.Loss.Signals {
			hides[i] = append(hides[i], sg.Hide)
		}
	}
	b.ReportAllocs()
	sc := new(loss.Scratch) // one for all the sessions, as `calib replay` has
	start := cpuTime()
	for b.Loop() {
		for i, s := range ss {
			loss.Build(s, loss.Options{Scratch: sc}).Report(hides[i])
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
}
