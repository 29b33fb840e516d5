package policy

import (
	"sync"

	"github.com/calib-dev/calib/corpus"
)

// workPool keeps the workings of a policy's finished compactions, so that
// the next compaction reuses their scratch (sizes, owned, the maps and
// lists of the stages) instead of allocating it again: at a checkpoint
// past the trigger, smith rebuilds them over the whole history, and in a
// sweep they were a fifth of the bytes the jobs allocated, which the
// collector then competed with the workers for. A policy may compact for
// several goroutines at once (a replay shares it between sessions), so the
// pool is a sync.Pool; its zero value is ready. Nothing a compaction
// returns is in the pool: the history array goes with the outcome, and
// put drops every reference into it.
type workPool struct{ pool sync.Pool }

// get is a working history of h, with a pooled working's scratch when
// there is one, that builds a new history in spare when it can
// (Checkpoint.Spare).
func (p *workPool) get(h []corpus.Message, m *Meter, spare []corpus.Message) *working {
	w, _ := p.pool.Get().(*working)
	if w == nil {
		w = newWorking(h, m)
	} else {
		w.reset(h, m)
	}
	w.spare = spare
	return w
}

// put hands w back once its compaction is over. The history and every
// pointer or string into it are dropped, so that the pool keeps no
// message alive and the next compaction starts from empty scratch.
func (p *workPool) put(w *working) {
	w.msgs, w.meter, w.spare = nil, nil, nil
	clear(w.uses)
	w.uses = w.uses[:0]
	clear(w.calls)
	clear(w.newest)
	w.cands = w.cands[:0]
	p.pool.Put(w)
}
