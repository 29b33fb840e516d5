package policy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// The index answers as a pass over the recording does (the two scans
// below are the functions it replaced), at every message and for both
// meters, on a recording with what the scans skip: unknown positions,
// persisted outputs a boundary lists, outputs out of message order (they
// come in file-name order), a compaction of another strategy, a clear
// recorded only by its ids, and two compactions at one message.
func TestRecordedIndexMatchesScan(t *testing.T) {
	s := &corpus.Session{Messages: make([]corpus.Message, 12)}
	s.Recorded.Compactions = []corpus.Compaction{
		{Strategy: "microcompact", AtMessage: 3, TokensSaved: 1000},
		{Strategy: "compact", AtMessage: 5},
		{Strategy: "microcompact", AtMessage: -1, TokensSaved: 7777},
		{Strategy: "prune", AtMessage: 5, ClearedIDs: []string{"x"}, TokensSaved: 40},
		{Strategy: "compact", AtMessage: 9},
		{Strategy: "microcompact", AtMessage: 9, TokensSaved: 300},
	}
	s.Recorded.Persisted = []corpus.Persisted{
		{ToolCallID: "b", AtMessage: 8, Boundary: -1, Bytes: 4001, Chars: 3990, Marker: "<persisted-output>b</persisted-output>"},
		{ToolCallID: "a", AtMessage: 2, Boundary: -1, Bytes: 900, Chars: 880, Marker: "<m>"},
		{ToolCallID: "c", AtMessage: 4, Boundary: 0, Bytes: 5000, Chars: 5000, Marker: "<m>"},
		{ToolCallID: "d", AtMessage: -1, Boundary: -1, Bytes: 6000, Chars: 6000, Marker: "<m>"},
	}
	x := NewRecordedIndex(s)
	for _, name := range []string{MeterBytes4, MeterChars4} {
		m, err := NewMeter(name, MeterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for at := -1; at <= len(s.Messages); at++ {
			if got, want := x.clears(at, m), scanClears(s, at, m); got != want {
				t.Errorf("%s: clears at %d = %d, want %d", name, at, got, want)
			}
		}
	}
	for _, strategies := range [][]string{{"compact"}, {"compact", "prune"}, {"compact", "compact"}, {"nothing"}, nil} {
		for at := -1; at <= len(s.Messages); at++ {
			if got, want := x.before(at, strategies), scanBefore(s, at, strategies); got != want {
				t.Errorf("%v: before %d = %d, want %d", strategies, at, got, want)
			}
		}
	}
	// Spot values, so that the scans are not the only statement of what
	// is counted: by message 9, boundaries 1,000 + 40 + 300 and outputs
	// a (880 chars, marker 3) and b (3,990 chars, marker 38).
	m, _ := NewMeter(MeterChars4, MeterOptions{})
	if got, want := x.clears(9, m), 1340+(882/4-5/4)+(3992/4-40/4); got != want {
		t.Errorf("clears at 9 = %d, want %d", got, want)
	}
	if got := fmt.Sprint(x.before(8, []string{"compact"}), x.before(9, []string{"compact"})); got != "1 2" {
		t.Errorf("compacts before 8 and 9: %s, want 1 2", got)
	}
	if e := NewRecordedIndex(nil); e.clears(100, m) != 0 || e.before(100, []string{"compact"}) != 0 {
		t.Error("an index of no session counts something")
	}
}

func scanClears(s *corpus.Session, at int, m *Meter) int {
	n := 0
	for i := range s.Recorded.Compactions {
		if c := &s.Recorded.Compactions[i]; c.Clearing() && c.AtMessage >= 0 && c.AtMessage <= at {
			n += c.TokensSaved
		}
	}
	for i := range s.Recorded.Persisted {
		p := &s.Recorded.Persisted[i]
		if p.Boundary >= 0 || p.AtMessage < 0 || p.AtMessage > at {
			continue
		}
		if m.Name() == MeterBytes4 {
			n += int((p.Bytes - int64(len(p.Marker))) / 4)
		} else {
			n += (p.Chars+2)/4 - (len(p.Marker)+2)/4
		}
	}
	return n
}

func scanBefore(s *corpus.Session, at int, strategies []string) int {
	n := 0
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		if c.AtMessage >= 0 && c.AtMessage <= at && slices.Contains(strategies, c.Strategy) {
			n++
		}
	}
	return n
}

// holders finds a recorded clear's results by their lines, passes over an
// id no result holds, and gives up (the clear then reads the whole
// history) on an id it cannot place for sure: two results hold it, its
// message has no line, or it is not in the history at that line.
func TestRecordedHolders(t *testing.T) {
	result := func(line int, ids ...string) corpus.Message {
		m := corpus.Message{Role: corpus.RoleUser, Line: line}
		for _, id := range ids {
			m.Blocks = append(m.Blocks, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: "out " + id})
		}
		return m
	}
	text := func(line int) corpus.Message {
		return corpus.Message{Role: corpus.RoleAssistant, Line: line, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "t"}}}
	}
	s := &corpus.Session{Messages: []corpus.Message{
		text(1), result(2, "a", "b"), text(3), result(3, "c"), result(4, "dup"), result(5, "dup"),
		result(0, "noline"), text(6), result(7, "d"),
	}}
	s.Recorded.Persisted = []corpus.Persisted{{ToolCallID: "a", Marker: "first"}, {ToolCallID: "a", Marker: "second"}}
	full := s.Messages
	// A history whose front was summarized away: result 2 is gone.
	cut := append([]corpus.Message{text(3)}, s.Messages[3:]...)
	for _, tt := range []struct {
		name string
		h    []corpus.Message
		ids  []string
		want []int // nil: not placed
	}{
		{"one", full, []string{"c"}, []int{3}},
		{"two in one message, and one more", full, []string{"d", "b", "a"}, []int{1, 8}},
		{"a line shared by two messages", full, []string{"c", "a"}, []int{1, 3}},
		{"the same line after a cut", cut, []string{"c", "d"}, []int{1, 6}},
		{"no result holds it", full, []string{"zz"}, []int{}},
		{"no result holds one of them", full, []string{"zz", "d", "yy"}, []int{8}},
		{"two results hold it", full, []string{"dup"}, nil},
		{"no line", full, []string{"noline"}, nil},
		{"cut away", cut, []string{"a"}, nil},
		{"one of two cut away", cut, []string{"c", "b"}, nil},
	} {
		x := NewRecordedIndex(s)
		at, ok := x.holders(s, tt.h, tt.ids)
		if ok != (tt.want != nil) || fmt.Sprint(at) != fmt.Sprint(tt.want) {
			t.Errorf("%s: holders = %v, %v; want %v", tt.name, at, ok, tt.want)
		}
		if x.markers["a"] != "first" {
			t.Errorf("%s: marker of a = %q, want the first listed", tt.name, x.markers["a"])
		}
	}
}

// scanNearest is the summarizer's lookup as it was before the index
// (nearestCompaction): a pass over the recording keeping the first
// strictly nearer compaction of the strategies. The oracle of
// TestNearestMatchesScan.
func scanNearest(s *corpus.Session, raw int, strategies []string) int {
	best, bestD := -1, 0
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		if !slices.Contains(strategies, c.Strategy) || c.AtMessage < 0 {
			continue
		}
		if d := absInt(c.AtMessage - raw); best < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// The index finds the compaction the scan finds at every message, on
// recordings out of message order, with ties between the compaction
// before and after a message, several at one message, unknown positions
// and two strategies.
func TestNearestMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	kinds := []string{"compact", "compacted", "microcompact"}
	for round := range 500 {
		s := &corpus.Session{}
		for range rng.IntN(12) {
			s.Recorded.Compactions = append(s.Recorded.Compactions,
				corpus.Compaction{Strategy: kinds[rng.IntN(len(kinds))], AtMessage: rng.IntN(20) - 2})
		}
		x := NewRecordedIndex(s)
		for _, strategies := range [][]string{{"compact"}, {"compacted", "compact"}, {"compact", "compact"}, {"nothing"}, nil} {
			for raw := -3; raw <= 22; raw++ {
				if got, want := x.nearest(raw, strategies), scanNearest(s, raw, strategies); got != want {
					t.Fatalf("round %d, %v at %d: nearest = %d, the scan finds %d in %+v", round, strategies, raw, got, want, s.Recorded.Compactions)
				}
			}
		}
	}
	// Spot values: compacts at 4 (twice) and 10, listed 10 first; 7 is
	// as near to both, and the first listed wins.
	s := &corpus.Session{Recorded: corpus.Recorded{Compactions: []corpus.Compaction{
		{Strategy: "compact", AtMessage: 10}, {Strategy: "compact", AtMessage: 4}, {Strategy: "compact", AtMessage: 4}}}}
	x := NewRecordedIndex(s)
	for raw, want := range map[int]int{0: 1, 4: 1, 6: 1, 7: 0, 8: 0, 30: 0} {
		if got := x.nearest(raw, []string{"compact"}); got != want {
			t.Errorf("nearest to %d = %d, want %d", raw, got, want)
		}
	}
}

func TestNearestAt(t *testing.T) {
	for _, tt := range []struct {
		ats, order []int
		target     int
		want       int
	}{
		{nil, nil, 5, -1},
		{[]int{3}, []int{0}, -10, 0},
		{[]int{3}, []int{0}, 10, 0},
		{[]int{2, 6}, []int{0, 1}, 4, 0},       // a tie: the lower order
		{[]int{2, 6}, []int{1, 0}, 4, 1},       // a tie: the lower order, after
		{[]int{2, 6}, []int{0, 1}, 5, 1},       // nearer after
		{[]int{2, 2, 6}, []int{3, 4, 0}, 3, 0}, // the first of the equal values
		{[]int{2, 6, 6}, []int{5, 1, 2}, 5, 1},
		{[]int{2, 6, 6}, []int{5, 1, 2}, 6, 1},
	} {
		if got := NearestAt(tt.ats, tt.order, tt.target); got != tt.want {
			t.Errorf("NearestAt(%v, %v, %d) = %d, want %d", tt.ats, tt.order, tt.target, got, tt.want)
		}
	}
}
