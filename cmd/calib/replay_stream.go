package main

import (
	"context"
	"strings"
	"sync"

	"github.com/calib-dev/calib/corpus"
)

// streamReplay replays each session as the loader hands it over
// (loadSessionsEach) and then lets go of its messages, so a replay's
// memory is the sessions in flight, not the corpus: loading everything
// first kept every session live to the end, and with the live heap that
// large no collection ran while the replays allocated, so every byte they
// wrote landed on a fresh page.
//
// add runs on the loader's goroutine and returns when the sessions it was
// handed are replayed: a loader cannot read its next file before, so
// loading never runs ahead of the replays (at most one unit per loader,
// GOMAXPROCS of them, is in memory). Inside, at most jobs sessions replay
// at once (the --jobs semaphore), those of one unit (a clai database, a
// Claude Code log and its subagents) side by side.
type streamReplay struct {
	ctx    context.Context
	cancel context.CancelFunc
	slots  chan struct{}
	job    func(ctx context.Context, s *corpus.Session) (replayResult, error)

	mu   sync.Mutex
	done map[*corpus.Session]replayResult
	// err is the first job error, as replay.Map reports it; the jobs not
	// started yet are then skipped.
	err error
}

// newStreamReplay replays with job, jobs (at least 1) sessions at once.
// Every streamReplay must end with close.
func newStreamReplay(ctx context.Context, jobs int, job func(ctx context.Context, s *corpus.Session) (replayResult, error)) *streamReplay {
	ctx, cancel := context.WithCancel(ctx)
	return &streamReplay{ctx: ctx, cancel: cancel, slots: make(chan struct{}, jobs), job: job, done: map[*corpus.Session]replayResult{}}
}

// add replays ss and releases each session (release) once its result is
// kept; it may be called from several goroutines at once.
func (r *streamReplay) add(ss []*corpus.Session) {
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

// results are the replays of sessions, in their order. ok is false when a
// job failed (err) or the replay was cancelled.
func (r *streamReplay) results(sessions []*corpus.Session) (out []replayResult, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return nil, r.err
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	out = make([]replayResult, len(sessions))
	for i, s := range sessions {
		out[i] = r.done[s]
	}
	return out, nil
}

// close ends the replay: no job runs after it returns.
func (r *streamReplay) close() { r.cancel() }

// release empties a replayed session but for what is read of it after
// the replays, copied out of the file's buffer (the smith reader's strings
// point into one buffer per file, so one kept substring keeps the whole
// file): its id, format, path and warnings (readOnce, file names, plot
// names, load warnings, --format github annotations) and its Meta (the
// loader puts a Claude Code subagent after its parent by Meta.Parent once
// the folder is read).
func release(s *corpus.Session) {
	var ws []corpus.Warning
	for _, w := range s.Warnings {
		ws = append(ws, corpus.Warning{File: strings.Clone(w.File), Line: w.Line, Message: strings.Clone(w.Message)})
	}
	m := s.Meta
	for _, f := range []*string{&m.AgentVersion, &m.Model, &m.Provider, &m.Cwd, &m.Title, &m.Kind, &m.Parent} {
		*f = strings.Clone(*f)
	}
	*s = corpus.Session{ID: strings.Clone(s.ID), Format: s.Format, Path: strings.Clone(s.Path), Meta: m, Warnings: ws}
}

// detach copies the strings r keeps of its session (ids, tool names,
// subjects, excerpts) out of the session's file buffer, so that r does
// not pin the buffer once the session is released: the ~5,000 loss rows
// of a 26 MB smith transcript kept all of it. A string repeated across
// rows (the session id, a tool name) is copied once.
func (r *replayResult) detach() {
	kept := map[string]string{}
	keep := func(s string) string {
		if c, ok := kept[s]; ok {
			return c
		}
		c := strings.Clone(s)
		kept[c] = c
		return c
	}
	cloneAll := func(ss []string) {
		for i := range ss {
			ss[i] = keep(ss[i])
		}
	}
	se := &r.session
	se.ID, se.Path, se.recorded = keep(se.ID), keep(se.Path), keep(se.recorded)
	for i := range se.ViolationList {
		se.ViolationList[i].Detail = keep(se.ViolationList[i].Detail)
	}
	if d := se.Compare; d != nil {
		d.What, d.Want, d.Got = keep(d.What), keep(d.Want), keep(d.Got)
	}
	for i := range se.Rederived {
		d := &se.Rederived[i]
		d.CompactionID, d.Trigger, d.Status, d.Kind, d.Verdict = keep(d.CompactionID), keep(d.Trigger), keep(d.Status), keep(d.Kind), keep(d.Verdict)
		d.From, d.To, d.WantFrom, d.WantTo = keep(d.From), keep(d.To), keep(d.WantFrom), keep(d.WantTo)
	}
	for i := range r.events {
		e := &r.events[i]
		e.Session, e.Strategy, e.Summarizer = keep(e.Session), keep(e.Strategy), keep(e.Summarizer)
	}
	for i := range r.losses {
		d := &r.losses[i]
		d.Session, d.ToolCallID, d.Tool, d.Subject = keep(d.Session), keep(d.ToolCallID), keep(d.Tool), keep(d.Subject)
		d.Stage, d.NeededBy = keep(d.Stage), keep(d.NeededBy)
	}
	if c := r.cost; c != nil {
		c.Session, c.Model = keep(c.Session), keep(c.Model)
		cloneAll(c.Notes)
	}
	if a := r.agreement; a != nil {
		a.Session, a.Policy = keep(a.Session), keep(a.Policy)
		for i := range a.Events {
			e := &a.Events[i]
			for _, ss := range [][]string{e.Recorded, e.Predicted, e.Missing, e.Extra, e.Unknown} {
				cloneAll(ss)
			}
		}
	}
	for i := range r.compactions {
		c := &r.compactions[i]
		c.Session, c.Kind = keep(c.Session), keep(c.Kind)
	}
}
