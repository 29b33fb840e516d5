package policy

import (
	"slices"

	"github.com/calib-dev/calib/corpus"
)

// overwrite keeps the messages of a lent history (Checkpoint.Owned) that a
// compaction replaced in place: one contiguous run of them as they were
// handed, from at (Outcome.Overwrote and OverwroteAt). A compaction that
// writes near the end of the history keeps a short run, so a checkpoint
// costs what it writes. The preset stages (compState.writable) and the
// recorded policy's clears keep theirs here.
type overwrite struct {
	msgs []corpus.Message
	at   int
}

// keep adds h[lo:hi] to the run before they are replaced. Outside the run
// every message of h is as handed, so the run grows by copying h.
func (w *overwrite) keep(h []corpus.Message, lo, hi int) {
	if w.msgs == nil {
		w.msgs, w.at = slices.Clone(h[lo:hi]), lo
		return
	}
	if lo < w.at {
		w.msgs, w.at = append(slices.Clone(h[lo:w.at]), w.msgs...), lo
	}
	if end := w.at + len(w.msgs); hi > end {
		w.msgs = append(w.msgs, h[end:hi]...)
	}
}

// undo puts the kept messages back into h, the history as handed, and
// empties the run: for a compaction that went on to make a new history
// from them.
func (w *overwrite) undo(h []corpus.Message) {
	if w.msgs != nil {
		copy(h[w.at:], w.msgs)
		w.msgs = nil
	}
}
