package policy

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestSmithHistoryRoom checks that a summarized history leaves room to
// grow back to the length the history had: the replay appends to it
// message by message until the next compaction, and an array filled to the
// brim was copied and doubled again and again as it grew.
func TestSmithHistoryRoom(t *testing.T) {
	tests := []struct {
		name     string
		set      string
		strategy Strategy
	}{
		{"summarized", "max_tokens=1000,summarizer=fixed:16", Summarized},
		{"dropped", "max_tokens=1000,summarizer=fail", Dropped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := thinkingHistory()
			o := compact(t, staged(t, tt.set), h)
			if o.Strategy != tt.strategy {
				t.Fatalf("strategy %s, want %s", o.Strategy, tt.strategy)
			}
			if cap(o.History) <= len(h) {
				t.Errorf("history of %d messages (of %d before) has capacity %d, want more than %d", len(o.History), len(h), cap(o.History), len(h))
			}
		})
	}
}

// TestSetBlocksCopiesNothing checks that replacing a message's blocks
// does not first copy the blocks it replaces: dropping the thinking of k
// messages allocates the history copy, its ownership flags and the k new
// block lists, nothing per message beyond that.
func TestSetBlocksCopiesNothing(t *testing.T) {
	h := thinkingHistory()
	k := 0
	for i := range h {
		if hasKind(&h[i], corpus.KindThinking) {
			k++
		}
	}
	m := staged(t, "").(*SmithStaged).meter
	allocs := testing.AllocsPerRun(10, func() {
		w := newWorking(h, m)
		if touched, _ := w.dropStaleThinking(len(h), 0); touched != k {
			t.Fatalf("dropped %d thinking blocks, want %d", touched, k)
		}
	})
	// newWorking's sizes and working itself, the history copy and its flags.
	if want := float64(4 + k); allocs > want {
		t.Errorf("dropping the thinking of %d messages made %v allocations, want at most %v", k, allocs, want)
	}
}
