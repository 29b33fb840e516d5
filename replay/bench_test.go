package replay

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
)

// benchSession is a tool-heavy smith session of about n messages.
func benchSession(b *testing.B, n int) *corpus.Session {
	b.Helper()
	p := synth.ToolHeavy
	p.Turns = 1
	var msgs []corpus.Message
	for seed := uint64(1); len(msgs) < n; seed++ {
		msgs = append(msgs, synth.Smith(p, seed)...)
	}
	return &corpus.Session{ID: fmt.Sprintf("bench-%d", n), Format: corpus.FormatSmithTranscript, Messages: msgs[:n]}
}

// BenchmarkReplay replays smith-staged at its defaults over sessions of
// 1k, 10k and 100k messages and reports the time per message: the replay
// is linear when ns/msg stays flat.
//
//	go test ./replay -run '^$' -bench BenchmarkReplay$ -benchtime 3x
func BenchmarkReplay(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		s := benchSession(b, n)
		p, err := policy.New("smith-staged", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			var events int
			for b.Loop() {
				t, err := Run(context.Background(), s, p, Options{})
				if err != nil {
					b.Fatal(err)
				}
				events = len(t.Events)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
			b.ReportMetric(float64(events), "compactions")
		})
	}
}

// BenchmarkReplayVsLoad loads a written corpus and replays it, reporting
// the replay's time as a fraction of the load's: the issue asks that
// replaying one policy costs at most a fifth of loading.
//
//	go test ./replay -run '^$' -bench BenchmarkReplayVsLoad -benchtime 3x
func BenchmarkReplayVsLoad(b *testing.B) {
	dir := b.TempDir()
	paths, err := synth.WriteSmithSet(filepath.Join(dir, "set"), synth.ToolHeavy, 7, 64<<20, 8<<20)
	if err != nil {
		b.Fatal(err)
	}
	p, err := policy.New("smith-staged", nil)
	if err != nil {
		b.Fatal(err)
	}
	var loadTime, rep time.Duration
	for b.Loop() {
		t0 := time.Now()
		ss, err := load.Load(paths, corpus.Options{})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		for _, s := range ss {
			if _, err := Run(context.Background(), s, p, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		loadTime += t1.Sub(t0)
		rep += time.Since(t1)
	}
	b.ReportMetric(float64(loadTime.Milliseconds())/float64(b.N), "load-ms")
	b.ReportMetric(float64(rep.Milliseconds())/float64(b.N), "replay-ms")
	b.ReportMetric(float64(rep)/float64(loadTime), "replay/load")
}

// BenchmarkSweepWorkers runs the same 16-point sweep on 1 and 2 workers;
// the ratio of their ns/op is the parallel speed-up.
//
//	go test ./replay -run '^$' -bench BenchmarkSweepWorkers -benchtime 3x
func BenchmarkSweepWorkers(b *testing.B) {
	var sessions []*corpus.Session
	for i := range 8 {
		s := benchSession(b, 2000)
		s.ID = fmt.Sprintf("s%d", i)
		sessions = append(sessions, s)
	}
	def, _ := policy.Lookup("smith-staged")
	ax, _ := ParseAxis("compact_at=0.6,0.7,0.8,0.9")
	ax2, _ := ParseAxis("window_turns=1..4")
	sw := Sweep{Policy: def, Grid: Grid{ax, ax2}, Options: Options{KeepFinal: true}}
	jobs := sw.Jobs(len(sessions))
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", w), func(b *testing.B) {
			sw.Workers = w
			for b.Loop() {
				_, _, err := RunSweep(context.Background(), sw, sessions, jobs,
					func(j Job, p policy.Policy, t *Trace) int { return len(t.Events) }, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
