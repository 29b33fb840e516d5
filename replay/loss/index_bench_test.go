package loss

import (
	"fmt"
	"testing"
)

// BenchmarkIndexReal is the whole index alone (Build, the subjects and
// the evidence of every result) over every real Claude Code session: what
// a sweep pays once per session, and a replay at most (it builds the
// evidence of its hidden results only; BenchmarkLossReal gives that
// ratio). Its allocations do not depend on the shared machine's load.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkIndexReal -benchtime 20x -cpu 1 -count 3
func BenchmarkIndexReal(b *testing.B) {
	ss := RealSessions(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range ss {
			ix := Build(s, Options{})
			ix.prepare()
			ix.fullEvidence()
		}
	}
}

// BenchmarkSignalsReal is what each parameter set of a sweep pays to read
// its signals from the shared, already built indexes: here every result of
// every real Claude Code session hidden as soon as it arrived, the most
// signals (and refetch sizes) a replay can ask for.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkSignalsReal -benchtime 20x -cpu 1 -count 3
func BenchmarkSignalsReal(b *testing.B) {
	ss := RealSessions(b)
	ixs := make([]*Index, len(ss))
	hides := make([][]Hide, len(ss))
	for i, s := range ss {
		ixs[i] = Build(s, Options{Shared: true})
		ixs[i].prepare()
		ixs[i].fullEvidence()
		for _, r := range ixs[i].Results {
			hides[i] = append(hides[i], Hide{CallID: r.ID, At: r.Msg + 1, Event: -1})
		}
	}
	b.ReportAllocs()
	refetched := 0
	for b.Loop() {
		refetched = 0
		for i, ix := range ixs {
			refetched += ix.Report(hides[i]).Counts.Refetched
		}
	}
	b.ReportMetric(float64(refetched), "refetched")
}

// BenchmarkEvidenceReal builds the evidence over every real Claude Code
// session for all results (what a shared index builds once) and for every
// fifth result (what a replay hiding those builds): the second reads the
// other results' lines only to look them up.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkEvidenceReal -benchtime 20x -cpu 1 -count 3
func BenchmarkEvidenceReal(b *testing.B) {
	ss := RealSessions(b)
	ixs := make([]*Index, len(ss))
	for i, s := range ss {
		ixs[i] = Build(s, Options{})
		ixs[i].prepare()
	}
	for _, every := range []int{1, 5} {
		b.Run(fmt.Sprintf("every=%d", every), func(b *testing.B) {
			for b.Loop() {
				for _, ix := range ixs {
					if every == 1 {
						ix.buildEvidence(new(Scratch), ix.all, nil, 0, true)
						continue
					}
					want := make([]bool, len(ix.Results))
					for k := 0; k < len(want); k += every {
						want[k] = true
					}
					ix.buildEvidence(new(Scratch), ix.all, want, 0, false)
				}
			}
		})
	}
}
