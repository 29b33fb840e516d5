package replay

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// chainedClai is a clai session of n compactions, each over the gap
// messages written since the one before, chained as clai chains them
// (each window starts with the previous summary), built in memory: the
// rows' contents do not matter to the cost, their number does.
func chainedClai(n, gap int) *corpus.Session {
	s := &corpus.Session{Format: corpus.FormatClai}
	p := policy.ClaiDefaults(policy.ClaiLegacy)
	t0 := time.Date(2026, 6, 20, 9, 0, 0, 0, time.UTC)
	summary, to := "", "" // the latest compaction's summary and window end
	toAt := 0             // where to is in s.Messages
	at := map[string]int{}
	for k := range n {
		for i := range gap {
			role := corpus.RoleUser
			if i%2 == 1 {
				role = corpus.RoleAssistant
			}
			id := fmt.Sprintf("m%d", len(s.Messages))
			s.Messages = append(s.Messages, corpus.Message{ID: id, Role: role, Line: len(s.Messages) + 1,
				Time:   t0.Add(time.Duration(len(s.Messages)) * time.Second),
				Blocks: []corpus.Block{{Kind: corpus.KindText, Text: fmt.Sprintf("message %d %s", len(s.Messages), strings.Repeat("x", 80))}}})
		}
		// The view from the latest compaction is its summary and what
		// came after its window.
		view, _ := policy.ClaiHistoryView(s.Messages[toAt:], summary, to)
		if k == 0 {
			view, _ = policy.ClaiHistoryView(s.Messages, "", "")
		}
		window, ok := policy.ClaiSelectCompactionWindow(view, false, p.MinMessages, p.TailMessages)
		if !ok {
			panic("no window")
		}
		for i := toAt; i < len(s.Messages); i++ {
			at[s.Messages[i].ID] = i
		}
		created := t0.Add(time.Duration(len(s.Messages)) * time.Second)
		sid := fmt.Sprintf("s%d", k)
		c := corpus.Compaction{Index: k, ID: fmt.Sprintf("c%d", k), Strategy: "local_summary", Trigger: "automatic", Status: "completed",
			SourceFrom: window[0].ID, SourceTo: window[len(window)-1].ID, InputMessages: len(window), SummaryID: sid,
			Summary: "summary " + sid, Kind: corpus.DigestModel, CreatedAt: created, CompletedAt: created.Add(time.Millisecond), Line: k + 1, AtMessage: len(s.Messages) + 1}
		s.Messages = append(s.Messages, corpus.Message{ID: sid, Role: corpus.RoleSystem, Summary: true, Line: len(s.Messages) + 1, Time: created,
			Blocks: []corpus.Block{{Kind: corpus.KindText, Text: c.Summary}}})
		s.Recorded.Compactions = append(s.Recorded.Compactions, c)
		summary, to, toAt = sid, c.SourceTo, at[c.SourceTo]
	}
	return s
}

// BenchmarkRederiveManyCompactions re-derives every compaction of a chain
// of growing length: each one's view starts at the previous compaction's
// summary, so ns per compaction stays flat when finding that summary and
// the latest completed row do not read the whole session or every row.
//
//	go test ./replay -run '^$' -bench BenchmarkRederiveManyCompactions -benchtime 3x
func BenchmarkRederiveManyCompactions(b *testing.B) {
	p := policy.ClaiDefaults(policy.ClaiLegacy)
	for _, n := range []int{2000, 4000, 8000} {
		s := chainedClai(n, 50)
		b.Run(fmt.Sprintf("compactions=%d", n), func(b *testing.B) {
			for b.Loop() {
				rs := RederiveClai(s, p)
				if len(rs) != n || rs[n-1].Verdict != RederiveSkipped || !rs[n-1].WindowOK {
					b.Fatalf("%d re-derived, the last %+v", len(rs), rs[n-1])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/compaction")
		})
	}
}
