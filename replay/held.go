package replay

import (
	"slices"

	"github.com/calib-dev/calib/corpus"
)

// heldResults says which message of a working history holds each tool
// result, by id. Agree asks at every recorded clear which of the ids it
// names the history holds, and stubs them: reading the whole history for
// both made a log of thousands of clears quadratic (10,000 boundaries, each
// after a Read: 7.1 s, of which 5 s went to those reads).
type heldResults struct {
	at map[string]int // id -> index in the history of the message holding it
	// dup says some id is held twice (a log that reuses an id): at then
	// names one holder only, and only a scan finds them all.
	dup bool
}

func newHeldResults() *heldResults { return &heldResults{at: map[string]int{}} }

// add notes the results of m, the history's message i.
func (r *heldResults) add(m *corpus.Message, i int) {
	for j := range m.Blocks {
		if b := &m.Blocks[j]; b.Kind == corpus.KindToolResult {
			if _, ok := r.at[b.ToolCallID]; ok {
				r.dup = true
				continue
			}
			r.at[b.ToolCallID] = i
		}
	}
}

// reset forgets every result: the history restarts.
func (r *heldResults) reset() {
	clear(r.at)
	r.dup = false
}

// has reports whether the history holds a result with this id.
func (r *heldResults) has(id string) bool {
	_, ok := r.at[id]
	return ok
}

// holders are the indices of the messages holding any of ids, ascending
// and distinct, and false when an id may have more holders than at knows.
func (r *heldResults) holders(ids []string) ([]int, bool) {
	if r.dup {
		return nil, false
	}
	var ms []int
	for _, id := range ids {
		if i, ok := r.at[id]; ok {
			ms = append(ms, i)
		}
	}
	slices.Sort(ms)
	return slices.Compact(ms), true
}
