package replay

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// The scans completedRows replaced, kept as its oracle.

// latestCompletedScan is the latest compaction (repository.rs:1263-1287)
// completed before cs[k] was created: ORDER BY completed_at DESC,
// created_at DESC. Rows without a completion time count as completed in
// their recorded order.
func latestCompletedScan(cs []corpus.Compaction, k int) int {
	best := -1
	for j := range cs {
		c := &cs[j]
		if j == k || !usable(c) {
			continue
		}
		if c.CompletedAt.IsZero() || cs[k].CreatedAt.IsZero() {
			if j > k {
				continue
			}
		} else if c.CompletedAt.After(cs[k].CreatedAt) {
			continue
		}
		if best < 0 || c.CompletedAt.After(cs[best].CompletedAt) ||
			(c.CompletedAt.Equal(cs[best].CompletedAt) && !c.CreatedAt.Before(cs[best].CreatedAt)) {
			best = j
		}
	}
	return best
}

// previousCompletedScan is the nearest earlier completed row with a summary
// id, whose summary k's window should start with.
func previousCompletedScan(cs []corpus.Compaction, k int) int {
	for j := k - 1; j >= 0; j-- {
		if cs[j].Status == "completed" && cs[j].SummaryID != "" {
			return j
		}
	}
	return -1
}

// randomRows is n compaction rows with few distinct times (ties), some
// without a creation or completion time, and every status.
func randomRows(r *rand.Rand, n int) []corpus.Compaction {
	t0 := time.Date(2026, 6, 20, 9, 0, 0, 0, time.UTC)
	at := func() time.Time {
		if r.IntN(6) == 0 {
			return time.Time{}
		}
		return t0.Add(time.Duration(r.IntN(8)) * time.Second)
	}
	cs := make([]corpus.Compaction, n)
	for j := range cs {
		c := &cs[j]
		c.Status = []string{"completed", "completed", "completed", "running", "failed"}[r.IntN(5)]
		if r.IntN(8) > 0 {
			c.SummaryID = fmt.Sprintf("s%d", j)
		}
		if r.IntN(8) > 0 {
			c.SourceTo = fmt.Sprintf("m%d", j)
		}
		c.CreatedAt, c.CompletedAt = at(), at()
	}
	return cs
}

// TestCompletedRowsMatchScan: the lists give every row the latest and
// previous completed rows the scans over all rows give.
func TestCompletedRowsMatchScan(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 11))
	for trial := range 3000 {
		cs := randomRows(r, 1+r.IntN(12))
		rows := newCompletedRows(cs)
		for k := range cs {
			if got, want := rows.latest(k), latestCompletedScan(cs, k); got != want {
				t.Fatalf("trial %d, row %d of %+v: latest %d, the scan gives %d", trial, k, cs, got, want)
			}
			if got, want := rows.previous(k), previousCompletedScan(cs, k); got != want {
				t.Fatalf("trial %d, row %d: previous %d, the scan gives %d", trial, k, got, want)
			}
		}
	}
}

// TestHistoryViewMatchesSearch: the view from the session's id index is
// the view policy.ClaiHistoryView searches for, with ids repeated (before
// and after the prefix), missing or empty.
func TestHistoryViewMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 13))
	for trial := range 3000 {
		n := 1 + r.IntN(10)
		msgs := make([]corpus.Message, n)
		for i := range msgs {
			msgs[i] = corpus.Message{ID: fmt.Sprintf("m%d", r.IntN(n+2)), Line: i + 1, Summary: r.IntN(4) == 0}
		}
		byID := map[string]int{}
		for i := range msgs {
			byID[msgs[i].ID] = i
		}
		prefix := msgs[:r.IntN(n+1)]
		id := func() string {
			if r.IntN(6) == 0 {
				return ""
			}
			return fmt.Sprintf("m%d", r.IntN(n+2))
		}
		sum, to := id(), id()
		got, gotOK := historyView(prefix, byID, sum, to)
		want, wantOK := policy.ClaiHistoryView(prefix, sum, to)
		if gotOK != wantOK || !slices.EqualFunc(got, want, func(a, b corpus.Message) bool { return a.Line == b.Line }) {
			t.Fatalf("trial %d: view of %q..%q is %v (%v), the search gives %v (%v)", trial, sum, to, got, gotOK, want, wantOK)
		}
	}
}
