package sweep

import (
	"container/heap"
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// Measure turns one job's trace into its result, in the worker that ran
// it, so only that (small) result outlives the job: memory does not grow
// with the grid. s is the session replayed (a chain's first), set the
// parameter set's index in the whole grid.
type Measure[T any] func(set int64, s *corpus.Session, p policy.Policy, t *replay.Trace) T

// Runner runs a sweep while its corpus loads. Add hands it each session as
// soon as it is read: a worker builds the session's loss index and starts
// its jobs at once, so no core waits for the last file, for the indexes of
// every session or for the report's set-up. Seal names the corpus (its
// order, without the sessions the loader dropped); the jobs still to run
// then run in job order (Plan.Jobs), and Wait returns the results in that
// order, whatever ran when: the report does not depend on the timing or
// on the number of workers.
//
// Before Seal, the ready session whose next parameter set comes first
// runs (the first added on a tie), so the sets finish roughly in order
// even while loading. Workers share one mutex, held only to pick a task or
// to store a result.
type Runner[T any] struct {
	plan    Plan
	measure Measure[T]
	parent  context.Context
	ctx     context.Context
	cancel  context.CancelFunc
	stop    func() bool // unregisters the wake-up on cancellation
	sets    []int64     // the shard's parameter sets, in grid order
	workers int         // how many may run
	started int         // how many run: no more than the jobs known
	wg      sync.WaitGroup

	mu   sync.Mutex
	wake *sync.Cond
	// added maps each session Add or Seal saw to its state.
	added map[*corpus.Session]*entry
	// unprepared are the sessions waiting for their loss index or count
	// memo, which their jobs read.
	unprepared []*entry
	// ready are the sessions with jobs to start, by their next set.
	ready   readyHeap
	running int // index builds and jobs under way
	sealed  bool
	// memoize says whether jobs meter with a meter whose counts are worth
	// sharing (Plan.sharesMemo).
	memoize bool
	// Set by Seal: the corpus size, the results in job order and who
	// hears of each.
	sessions int
	out      []T
	ok       []bool
	done     func(Job, T)
	// early are the results finished before Seal, when a session's place
	// in the corpus is not known yet.
	early []earlyResult[T]
	err   error
}

// entry is a session's state in a Runner.
type entry struct {
	s     *corpus.Session
	index *loss.Index
	// memo is the session's count memo, shared by its jobs (nil when the
	// plan's meters count nothing worth sharing).
	memo *policy.TokenMemo
	// next is the shard-local index of the next parameter set to start:
	// a session's sets start in grid order.
	next int
	// order breaks ties between sessions: the order Add saw them in,
	// their place in the corpus once sealed.
	order int
	// final is the place in the sealed corpus, -1 for a session the
	// loader dropped (a file given twice).
	final int
}

type earlyResult[T any] struct {
	e *entry
	k int
	r T
}

// task is one piece of a worker's work: preparing a session (its loss
// index, its count memo), or the job of its k-th parameter set.
type task struct {
	e       *entry
	k       int
	prepare bool
}

// Start starts a sweep's workers (Plan.Workers; 0: GOMAXPROCS), idle
// until sessions are added. Every Runner must end with Wait after Seal,
// or with Stop.
func Start[T any](ctx context.Context, p Plan, measure Measure[T]) *Runner[T] {
	r := &Runner[T]{plan: p, measure: measure, parent: ctx, added: map[*corpus.Session]*entry{}, memoize: p.sharesMemo()}
	r.wake = sync.NewCond(&r.mu)
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.stop = context.AfterFunc(r.ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.wake.Broadcast()
	})
	for set := range p.Grid.Points() {
		if p.Shard.Has(set) {
			r.sets = append(r.sets, set)
		}
	}
	r.workers = p.Workers
	if r.workers <= 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	return r
}

// Add hands sessions to the sweep as they are read; it may be called from
// several goroutines at once.
func (r *Runner[T]) Add(ss []*corpus.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range ss {
		if r.added[s] == nil {
			r.addLocked(s, len(r.added), -1)
		}
	}
	r.wake.Broadcast()
}

// addLocked adds s, the order-th session seen, final-th in the corpus.
func (r *Runner[T]) addLocked(s *corpus.Session, order, final int) {
	e := &entry{s: s, order: order, final: final}
	r.added[s] = e
	for r.started < min(r.workers, len(r.added)*len(r.sets)) {
		r.started++
		r.wg.Add(1)
		go r.work()
	}
	if r.plan.indexes() || r.memoize {
		r.unprepared = append(r.unprepared, e)
	} else {
		r.readyLocked(e)
	}
}

// readyLocked queues e's jobs, unless it has none left or was dropped.
func (r *Runner[T]) readyLocked(e *entry) {
	if e.next < len(r.sets) && (!r.sealed || e.final >= 0) {
		heap.Push(&r.ready, e)
	}
}

// Seal gives the corpus as loaded, in its order: its sessions are the
// sweep's (one Add never saw is added now; one it saw and the corpus
// lacks is dropped, its results discarded). done (optional) hears of
// every result, those already finished first, in job order, then each as
// it finishes, from the worker that ran it.
func (r *Runner[T]) Seal(sessions []*corpus.Session, done func(Job, T)) {
	r.mu.Lock()
	r.sealed, r.done = true, done
	r.sessions = len(sessions)
	r.out, r.ok = make([]T, len(r.sets)*len(sessions)), make([]bool, len(r.sets)*len(sessions))
	for _, e := range r.added {
		e.final = -1
	}
	for i, s := range sessions {
		if e := r.added[s]; e != nil {
			e.final, e.order = i, i
		} else {
			r.addLocked(s, i, i)
		}
	}
	r.unprepared = slices.DeleteFunc(r.unprepared, func(e *entry) bool { return e.final < 0 })
	r.ready = slices.DeleteFunc(r.ready, func(e *entry) bool { return e.final < 0 })
	heap.Init(&r.ready)
	var flushed []Job
	for _, er := range r.early {
		if er.e.final >= 0 {
			j := r.jobLocked(er.e, er.k)
			r.out[j.Index], r.ok[j.Index] = er.r, true
			flushed = append(flushed, j)
		}
	}
	r.early = nil
	r.wake.Broadcast()
	r.mu.Unlock()
	if done != nil {
		slices.SortFunc(flushed, func(a, b Job) int { return a.Index - b.Index })
		for _, j := range flushed {
			done(j, r.out[j.Index])
		}
	}
}

// Wait waits for every job of the sealed corpus and returns the results
// in job order. On cancellation, or when a job fails, it returns the
// results finished so far (ok tells which) with the error.
func (r *Runner[T]) Wait() (out []T, ok []bool, err error) {
	r.wg.Wait()
	r.stop()
	r.cancel()
	if r.err != nil {
		return r.out, r.ok, r.err
	}
	return r.out, r.ok, r.parent.Err()
}

// Stop abandons the sweep (the corpus failed to load, or a check refused
// it) and waits for the workers to return.
func (r *Runner[T]) Stop() {
	r.cancel()
	r.wg.Wait()
	r.stop()
}

// jobLocked is the job of e's k-th set in the sealed corpus.
func (r *Runner[T]) jobLocked(e *entry, k int) Job {
	return Job{Index: k*r.sessions + e.final, Set: r.sets[k], Session: e.final}
}

func (r *Runner[T]) work() {
	defer r.wg.Done()
	for {
		t, ok := r.take()
		if !ok {
			return
		}
		if t.prepare {
			var ix *loss.Index
			if r.plan.indexes() {
				ix = loss.Build(t.e.s, loss.Options{Shared: true})
			}
			var memo *policy.TokenMemo
			if r.memoize {
				memo = policy.NewTokenMemo([]*corpus.Session{t.e.s})
			}
			r.mu.Lock()
			t.e.index, t.e.memo = ix, memo
			r.readyLocked(t.e)
			r.running--
			r.wake.Broadcast()
			r.mu.Unlock()
			continue
		}
		res, err := r.run(t.e, t.k)
		r.finish(t.e, t.k, res, err)
	}
}

// take waits for the next task: preparing a session first (its jobs
// wait for it), then the job of the ready session whose next set comes
// first. It reports false when the sweep is over or cancelled.
func (r *Runner[T]) take() (task, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if r.ctx.Err() != nil {
			return task{}, false
		}
		if len(r.unprepared) > 0 {
			e := r.unprepared[0]
			r.unprepared = r.unprepared[1:]
			r.running++
			return task{e: e, prepare: true}, true
		}
		if len(r.ready) > 0 {
			e := r.ready[0]
			k := e.next
			e.next++
			if e.next == len(r.sets) {
				heap.Pop(&r.ready)
			} else {
				heap.Fix(&r.ready, 0)
			}
			r.running++
			return task{e: e, k: k}, true
		}
		if r.sealed && r.running == 0 {
			r.wake.Broadcast() // the others are waiting for nothing
			return task{}, false
		}
		r.wake.Wait()
	}
}

// run replays e's session with its k-th parameter set.
func (r *Runner[T]) run(e *entry, k int) (T, error) {
	var zero T
	set := r.sets[k]
	// e.memo was set before e was ready, under r.mu: its jobs see it.
	p, err := r.plan.Policy.Build(r.plan.Grid.Set(set, r.plan.Fixed), e.memo)
	if err != nil {
		return zero, fmt.Errorf("parameter set %d: %w", set, err)
	}
	var t *replay.Trace
	if r.plan.Rotations > 0 {
		t, err = replay.Chain(r.ctx, e.s, p, r.plan.Rotations, r.plan.Extend, r.plan.Options)
	} else {
		opts := r.plan.Options
		opts.Loss = e.index
		t, err = replay.Run(r.ctx, e.s, p, opts)
	}
	if err != nil {
		return zero, err
	}
	return r.measure(set, e.s, p, t), nil
}

// finish stores a job's result where its place is known (after Seal) and
// tells done; a failed job stops the sweep with the first error.
func (r *Runner[T]) finish(e *entry, k int, res T, err error) {
	r.mu.Lock()
	r.running--
	if r.running == 0 {
		r.wake.Broadcast()
	}
	if err != nil {
		if r.err == nil {
			r.err = err
			r.cancel()
		}
		r.mu.Unlock()
		return
	}
	if !r.sealed {
		r.early = append(r.early, earlyResult[T]{e, k, res})
		r.mu.Unlock()
		return
	}
	if e.final < 0 {
		r.mu.Unlock()
		return
	}
	j := r.jobLocked(e, k)
	r.out[j.Index], r.ok[j.Index] = res, true
	done := r.done
	r.mu.Unlock()
	if done != nil {
		done(j, res)
	}
}

// readyHeap orders ready sessions by their next set, then by order.
type readyHeap []*entry

func (h readyHeap) Len() int { return len(h) }
func (h readyHeap) Less(i, j int) bool {
	if h[i].next != h[j].next {
		return h[i].next < h[j].next
	}
	return h[i].order < h[j].order
}
func (h readyHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)   { *h = append(*h, x.(*entry)) }
func (h *readyHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
