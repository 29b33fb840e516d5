package replay

import (
	"slices"
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// completedRows answers, for each compaction k of a session, which earlier
// compaction clai would build k's view from (latest) and which summary k's
// window should start with (previous). Asked of every row, a pass over
// all rows each made re-deriving a database of thousands of compactions
// quadratic; these lists answer each in O(log n).
type completedRows struct {
	cs []corpus.Compaction
	// before[k] is the best usable row among rows 0..k-1 (-1: none), and
	// zeroBefore[k] the same among those without a completion time: the
	// rows that count as completed in their recorded order.
	before, zeroBefore []int
	// timed are the usable rows with a completion time, ascending by
	// (completed_at, created_at, position): the order in which a later
	// one is the better.
	timed []int
	// done[k] is the nearest row before k completed with a summary id.
	done []int
}

func newCompletedRows(cs []corpus.Compaction) *completedRows {
	r := &completedRows{cs: cs, before: make([]int, len(cs)+1), zeroBefore: make([]int, len(cs)+1), done: make([]int, len(cs)+1)}
	r.before[0], r.zeroBefore[0], r.done[0] = -1, -1, -1
	for j := range cs {
		c := &cs[j]
		r.before[j+1], r.zeroBefore[j+1], r.done[j+1] = r.before[j], r.zeroBefore[j], r.done[j]
		if c.Status == "completed" && c.SummaryID != "" {
			r.done[j+1] = j
		}
		if !usable(c) {
			continue
		}
		r.before[j+1] = r.better(r.before[j], j)
		if c.CompletedAt.IsZero() {
			r.zeroBefore[j+1] = r.better(r.zeroBefore[j], j)
		} else {
			r.timed = append(r.timed, j)
		}
	}
	slices.SortFunc(r.timed, func(a, b int) int {
		if c := r.cs[a].CompletedAt.Compare(r.cs[b].CompletedAt); c != 0 {
			return c
		}
		if c := r.cs[a].CreatedAt.Compare(r.cs[b].CreatedAt); c != 0 {
			return c
		}
		return a - b
	})
	return r
}

// better is the better of rows best (-1: none) and j by repository.rs's
// ORDER BY completed_at DESC, created_at DESC, j winning a tie: the later
// row, as clai's query returns it, when j > best.
func (r *completedRows) better(best, j int) int {
	if best < 0 {
		return j
	}
	b, c := &r.cs[best], &r.cs[j]
	if c.CompletedAt.After(b.CompletedAt) || (c.CompletedAt.Equal(b.CompletedAt) && !c.CreatedAt.Before(b.CreatedAt)) {
		return j
	}
	return best
}

// latest is the latest compaction (repository.rs:1263-1287) completed
// before row k was created: ORDER BY completed_at DESC, created_at DESC.
// Rows without a completion time count as completed in their recorded
// order, and when k has no creation time so do all rows.
func (r *completedRows) latest(k int) int {
	if r.cs[k].CreatedAt.IsZero() {
		return r.before[k]
	}
	// The timed rows completed by k's creation, any position but k's own:
	// the last such in their order is the best of them.
	created := r.cs[k].CreatedAt
	n := sort.Search(len(r.timed), func(i int) bool { return r.cs[r.timed[i]].CompletedAt.After(created) })
	timed := -1
	for i := n - 1; i >= 0 && timed < 0; i-- {
		if r.timed[i] != k {
			timed = r.timed[i]
		}
	}
	if timed < 0 {
		return r.zeroBefore[k]
	}
	// A completion time is after the zero time: an untimed row before k
	// never ties with a timed one, whichever comes first.
	return r.better(r.zeroBefore[k], timed)
}

// previous is the nearest earlier completed row with a summary id, whose
// summary k's window should start with.
func (r *completedRows) previous(k int) int {
	return r.done[k]
}
