package sweep

import (
	"context"
	"fmt"
	"slices"
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
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", w), func(b *testing.B) {
			sw.Workers = w
			for b.Loop() {
				_, _, err := Run(context.Background(), sw, sessions,
					func(_ int64, _ *corpus.Session, _ policy.Policy, t *replay.Trace) int { return len(t.Events) }, nil)
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkBuild assembles the report of a 32-set sweep over 8 sessions
// (rows with every metric of a smith-staged replay, sorted and Pareto
// marked): the serial work between the last job and the output.
//
//	go test ./replay/sweep -run '^$' -bench BenchmarkBuild -benchmem
func BenchmarkBuild(b *testing.B) {
	names := []string{"tokens_sent", "compactions", "peak_tokens", "billed_tokens", "usd", "unpriced_sessions",
		"input_tokens", "cache_write_tokens", "cache_read_tokens", "output_tokens", "cache_hit_rate", "cache_breaks",
		"summary_calls", "prompt_tokens", "results_mangled", "results_dropped", "results_hidden", "results_unseen",
		"results_needed", "results_refetched", "results_lost", "refetch_tokens", "bytes_removed", "target_misses",
		"exhausted", "violations", "requests", "reclaimed_thinking", "reclaimed_attachments", "reclaimed_duplicates",
		"reclaimed_truncate", "reclaimed_summarize"}
	h := Header{Policy: "smith-staged", Points: 32, Shard: "1/1"}
	for s := range 8 {
		h.Sessions = append(h.Sessions, fmt.Sprintf("s%d", s))
	}
	var rows []Row
	for set := range 32 {
		for s, id := range h.Sessions {
			m := make(map[string]float64, len(names))
			for i, n := range names {
				m[n] = float64((set*31 + s*7 + i) % 97)
			}
			rows = append(rows, Row{Set: set, Session: id, Params: policy.Params{{Name: "x", Value: fmt.Sprint(set)}}, Metrics: m})
		}
	}
	view := View{Sort: "tokens_sent,results_lost", Pareto: []string{"tokens_sent", "cache_hit_rate"}}
	for b.Loop() {
		if _, err := Build(h, view, true, slices.Clone(rows)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarkPareto marks the front of n sets whose metrics trade off
// exactly (one falls as the other rises, so every set is on the front and
// no pair stops the old test early), sorted (the front found after a
// sort) and, up to 4,000 sets, by the pair test it replaced (pairPareto,
// rows_test.go): ns per set stays flat for the first and grows with n for
// the second.
//
//	go test ./replay/sweep -run '^$' -bench BenchmarkMarkPareto -benchtime 3x
func BenchmarkMarkPareto(b *testing.B) {
	rowsOf := func(n int) []Row {
		rows := make([]Row, n)
		for i := range rows {
			rows[i] = row(i, map[string]float64{"billed_tokens": float64(i), "results_lost": float64(n - i)})
		}
		return rows
	}
	for _, n := range []int{1000, 4000, 16000, 64000} {
		rows := rowsOf(n)
		b.Run(fmt.Sprintf("sorted/sets=%d", n), func(b *testing.B) {
			for b.Loop() {
				markPareto(rows, "billed_tokens", "results_lost")
			}
			if front := countFront(rows); front != n {
				b.Fatalf("%d of %d sets on the front, want all", front, n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/set")
		})
		if n > 4000 {
			continue
		}
		b.Run(fmt.Sprintf("pairs/sets=%d", n), func(b *testing.B) {
			for b.Loop() {
				if front := pairPareto(rows, "billed_tokens", "results_lost"); !front[n-1] {
					b.Fatal("the last set is off the front")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/set")
		})
	}
}

func countFront(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Pareto {
			n++
		}
	}
	return n
}
