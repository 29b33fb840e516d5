package opencode

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// scanPrunes is prunes' placing of each prune as it was before the
// pointer: a pass over the messages per prune for the first written after
// its last mark. The oracle of TestPrunesMatchScan.
func scanPrunes(msgs []corpus.Message, ps []prunedPart) []int {
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return ps[order[i]].at < ps[order[j]].at })
	var ats []int
	for k := 0; k < len(order); {
		end := k + 1
		for end < len(order) && ps[order[end]].at-ps[order[end-1]].at < pruneGap {
			end++
		}
		at := len(msgs)
		for i, m := range msgs {
			if m.Time.After(millis(ps[order[end-1]].at)) {
				at = i
				break
			}
		}
		ats = append(ats, at)
		k = end
	}
	sort.Ints(ats)
	return ats
}

// The pointer places every prune where the pass did, on messages whose
// times are out of order (a clock set back, rows in id order), prunes
// less and more than pruneGap apart, marks after every message, marks at
// a message's own time (not after it), and marks too large for a time
// (read as long past).
func TestPrunesMatchScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := 1767600000000.0
	for round := range 3000 {
		b := &builder{s: &corpus.Session{}}
		for range rng.IntN(12) {
			b.s.Messages = append(b.s.Messages, corpus.Message{Time: millis(base + float64(rng.IntN(20000)))})
		}
		for i := range rng.IntN(10) {
			at := base + float64(rng.IntN(24000))
			switch n := len(b.s.Messages); {
			case rng.IntN(15) == 0:
				at = 1e19
			case n > 0 && rng.IntN(3) == 0: // a mark at a message's own time
				at = float64(b.s.Messages[rng.IntN(n)].Time.UnixMilli())
			}
			b.pruned = append(b.pruned, prunedPart{callID: fmt.Sprint("c", i), at: at})
		}
		want := scanPrunes(b.s.Messages, b.pruned)
		b.prunes()
		var got []int
		for _, c := range b.s.Recorded.Compactions {
			got = append(got, c.AtMessage)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d: prunes at %v, the pass places them at %v", round, got, want)
		}
	}
	// Spot values: messages at 0, 5 and 10 s; marks at 1 s (and 1.2 s,
	// the same prune), 7 s and 12 s.
	b := &builder{s: &corpus.Session{}}
	for _, sec := range []int{0, 5, 10} {
		b.s.Messages = append(b.s.Messages, corpus.Message{Time: time.UnixMilli(int64(base) + int64(sec)*1000)})
	}
	for i, ms := range []float64{1000, 1200, 7000, 12000} {
		b.pruned = append(b.pruned, prunedPart{callID: fmt.Sprint("c", i), at: base + ms})
	}
	b.prunes()
	var got []string
	for _, c := range b.s.Recorded.Compactions {
		got = append(got, fmt.Sprint(c.AtMessage, c.ClearedIDs))
	}
	if fmt.Sprint(got) != "[1 [c0 c1] 2 [c2] 3 [c3]]" {
		t.Errorf("prunes: %v, want [1 [c0 c1] 2 [c2] 3 [c3]]", got)
	}
}
