package loss_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// BenchmarkLoss replays sessions of 1k, 10k and 100k messages through
// smith-staged and clear-tool-results, without and with the loss signals
// (index, tracker, report). The target: signals cost at most 30% on top of
// the replay, so the ratio of the two lines' ns/msg is what to read; both
// staying flat across sizes shows the cost is linear.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkLoss -benchtime 3x
func BenchmarkLoss(b *testing.B) {
	for _, pol := range []string{"smith-staged", "clear-tool-results"} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			s := synth.ToolHeavySession(n)
			p, err := policy.New(pol, nil)
			if err != nil {
				b.Fatal(err)
			}
			for _, withLoss := range []bool{false, true} {
				b.Run(fmt.Sprintf("policy=%s/messages=%d/loss=%v", pol, n, withLoss), func(b *testing.B) {
					var hidden int
					for b.Loop() {
						opts := replay.Options{}
						if withLoss {
							opts.Loss = loss.Build(s, loss.Options{})
						}
						t, err := replay.Run(context.Background(), s, p, opts)
						if err != nil {
							b.Fatal(err)
						}
						if withLoss {
							hidden = t.Loss.Hidden
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
					b.ReportMetric(float64(hidden), "hidden")
				})
			}
		}
	}
}

// BenchmarkBuild is the recording side alone (the index), per message.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkBuild -benchtime 3x
func BenchmarkBuild(b *testing.B) {
	s := synth.ToolHeavySession(10_000)
	var bytes int64
	for i := range s.Messages {
		for _, bl := range s.Messages[i].Blocks {
			bytes += int64(len(bl.Text) + len(bl.Args))
		}
	}
	for b.Loop() {
		loss.Build(s, loss.Options{})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/10_000, "ns/msg")
	b.ReportMetric(float64(bytes)/1e6, "MB")
	b.SetBytes(bytes)
}

// BenchmarkLossReal replays every real Claude Code session (main threads
// and subagents) through clear-tool-results three ways, interleaved in
// each iteration so that the shared machine's load falls on all three
// alike: without loss signals, with each session's index built for the
// replay (what one replay pays, with one loss.Scratch for all the
// sessions as `calib replay` has), and with the indexes built once before
// (what each further replay of a sweep pays: a sweep builds one index per
// session for all its parameter sets). It reports the two costs as
// fractions of the plain replay, and the first also as a fraction of a
// replay end to end (loading the files, then replaying): what `calib
// replay` pays for the signals, less the report. The -cpu variants are
// the same ratios in CPU time (run it with -cpu 1, so that the process's
// CPU time is the benchmark's).
//
//	go test ./replay/loss -run '^$' -bench BenchmarkLossReal -benchtime 20x -cpu 1
func BenchmarkLossReal(b *testing.B) {
	ss := loss.RealSessions(b)
	p, err := policy.New("clear-tool-results", nil)
	if err != nil {
		b.Fatal(err)
	}
	shared := make([]*loss.Index, len(ss))
	for i, s := range ss {
		shared[i] = loss.Build(s, loss.Options{Shared: true})
	}
	sc := new(loss.Scratch)
	var took, cpu [3]time.Duration
	var loading time.Duration
	hidden := 0
	for b.Loop() {
		start := time.Now()
		loss.RealSessions(b)
		loading += time.Since(start)
		for mode := range took {
			start, startCPU := time.Now(), cpuTime()
			hidden = 0
			for i, s := range ss {
				opts := replay.Options{}
				switch mode {
				case 1:
					opts.Loss = loss.Build(s, loss.Options{Scratch: sc})
				case 2:
					opts.Loss = shared[i]
				}
				t, err := replay.Run(context.Background(), s, p, opts)
				if err != nil {
					b.Fatal(err)
				}
				if t.Loss != nil {
					hidden += t.Loss.Hidden
				}
			}
			took[mode] += time.Since(start)
			cpu[mode] += cpuTime() - startCPU
		}
	}
	b.ReportMetric(float64(took[0].Microseconds())/float64(b.N), "µs-replay/op")
	b.ReportMetric(float64(took[1])/float64(took[0])-1, "extra-built")
	b.ReportMetric(float64(took[2])/float64(took[0])-1, "extra-shared")
	b.ReportMetric(float64(took[1]-took[0])/float64(took[0]+loading), "extra-built-e2e")
	if cpu[0] > 0 {
		// The same ratios in the process's CPU time, which other
		// processes on a loaded machine do not inflate as they do the
		// wall clock.
		b.ReportMetric(float64(cpu[1])/float64(cpu[0])-1, "extra-built-cpu")
		b.ReportMetric(float64(cpu[2])/float64(cpu[0])-1, "extra-shared-cpu")
	}
	b.ReportMetric(float64(len(ss)), "sessions")
	b.ReportMetric(float64(hidden), "hidden")
}
