package loss

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
)

// BenchmarkIndexReal is the index alone (Build and the evidence pass a
// first signal runs) over every real Claude Code session: what one
// `calib replay` pays on top of the replay (BenchmarkLossReal gives the
// ratio). Its allocations do not depend on the shared machine's load.
//
//	go test ./replay/loss -run '^$' -bench BenchmarkIndexReal -benchtime 20x -cpu 1 -count 3
func BenchmarkIndexReal(b *testing.B) {
	ss, err := load.Load([]string{realcorpus.Dir(b, "claude-code")}, corpus.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range ss {
			Build(s, Options{}).ready()
		}
	}
}
