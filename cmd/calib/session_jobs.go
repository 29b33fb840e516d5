package main

import (
	"context"
	"sync"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/replay"
)

// sessionJobs runs a job on each session as the loader hands it over
// (loadSessionsEach) and then lets go of the session's messages, so a
// command's memory is the sessions in flight, not the corpus: loading
// everything first kept every session live to the end, and with the live
// heap that large no collection ran while the jobs allocated, so every
// byte they wrote landed on a fresh page. replay, inspect, compare and
// digest-growth use it.
//
// add runs on the loader's goroutine and returns when the sessions it was
// handed are done: a loader cannot read its next file before, so loading
// never runs ahead of the jobs (at most one unit per loader, GOMAXPROCS of
// them, is in memory). Inside, at most jobs sessions run at once (replay's
// --jobs), those of one unit (a clai database, a Claude Code log and its
// subagents) side by side. A job's result must not pin its session's
// file buffer (see detach).
type sessionJobs[T any] struct {
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	job    func(ctx context.Context, s *corpus.Session) (T, error)

	mu   sync.Mutex
	done map[*corpus.Session]T
	// err is the first job error, as replay.Map reports it; the jobs not
	// started yet are then skipped.
	err error
}

// newSessionJobs runs job, on jobs (at least 1) sessions at once. Every
// sessionJobs must end with close.
func newSessionJobs[T any](ctx context.Context, jobs int, job func(ctx context.Context, s *corpus.Session) (T, error)) *sessionJobs[T] {
	ctx, cancel := context.WithCancel(ctx)
	return &sessionJobs[T]{ctx: ctx, cancel: cancel, slots: make(chan struct{}, jobs), job: job, done: map[*corpus.Session]T{}}
}

// add runs the job on ss and releases each session (release) once its
// result is kept; it may be called from several goroutines at once.
func (r *sessionJobs[T]) add(ss []*corpus.Session) {
	var wg sync.WaitGroup
	for _, s := range ss {
		select {
		case r.slots <- struct{}{}:
		case <-r.ctx.Done():
			wg.Wait()
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-r.slots }()
			if r.ctx.Err() != nil {
				return
			}
			res, err := r.job(r.ctx, s)
			r.mu.Lock()
			defer r.mu.Unlock()
			if err != nil {
				if r.err == nil {
					r.err = err
					r.cancel()
				}
				return
			}
			r.done[s] = res
			release(s)
		}()
	}
	wg.Wait()
}

// results are the jobs' results for sessions, in their order; err is the
// first job error, or the context's when it was cancelled before every
// session was done. A session the loader did not hand over runs here.
func (r *sessionJobs[T]) results(sessions []*corpus.Session) (out []T, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	out = make([]T, len(sessions))
	for i, s := range sessions {
		res, ok := r.done[s]
		if !ok {
			if err := r.ctx.Err(); err != nil {
				return nil, err
			}
			if res, err = r.job(r.ctx, s); err != nil {
				return nil, err
			}
		}
		out[i] = res
	}
	return out, nil
}

// close ends the jobs: no job starts after it returns.
func (r *sessionJobs[T]) close() { r.cancel() }

// replaySlots bound the replays of all the sessions in flight, for a job
// that replays its session several times (compare's policies,
// digest-growth's variants): they run side by side, at most cap(slots) at
// once over every session. They are apart from sessionJobs' own slots,
// which a job holds while it waits for these.
type replaySlots chan struct{}

// mapSlots is replay.Map over n pieces of work on one session, each run
// holding one of slots.
func mapSlots[T any](ctx context.Context, slots replaySlots, n int, fn func(ctx context.Context, i int) (T, error), done func(int, T)) ([]T, error) {
	out, _, err := replay.Map(ctx, n, n, func(ctx context.Context, i int) (T, error) {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		defer func() { <-slots }()
		return fn(ctx, i)
	}, done)
	return out, err
}
