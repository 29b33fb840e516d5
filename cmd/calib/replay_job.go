package main

import (
	"context"
	"runtime"
	"sync"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/replay/loss"
)

// replayResult is one session's replay, reduced to what the report needs.
type replayResult struct {
	trace       *replay.Trace
	cost        *cache.SessionCost
	agreement   *replay.Agreement
	compactions []replay.CompactionAgreement
	events      []metrics.EventRow
	session     replaySessionJSON
	losses      []metrics.LossDetail
}

// replayJob is what `calib replay` does to each session, on as many
// sessions at once as it has jobs: replay it, price it, and, with
// --compare-recorded, compare it with what the agent recorded.
type replayJob struct {
	o     *replayOptions
	res   *policyResolver
	cs    *costSetup
	plots bool
	jobs  int

	// A policy's stage order (metrics.StageOrder) builds every policy's
	// declaration, 0.1 ms and 136 KB: once per policy, not per session.
	stagesMu sync.Mutex
	stages   map[string][]string

	// Each running job takes a loss scratch (loss.Scratch, one report at
	// a time) and gives it back: the report of one session reuses the
	// tables the one before grew. At most one per job slot is ever made,
	// so giving one back never blocks.
	scratches chan *loss.Scratch
}

func newReplayJob(o *replayOptions, plots bool) (*replayJob, error) {
	res, err := newPolicyResolver(o.policy, o.set)
	if err != nil {
		return nil, err
	}
	cs, err := newCostSetup(o.cost, res.cost)
	if err != nil {
		return nil, err
	}
	jobs := o.jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	return &replayJob{o: o, res: res, cs: cs, plots: plots, jobs: jobs,
		stages: map[string][]string{}, scratches: make(chan *loss.Scratch, jobs)}, nil
}

func (j *replayJob) stageOrder(name string) []string {
	j.stagesMu.Lock()
	defer j.stagesMu.Unlock()
	if _, ok := j.stages[name]; !ok {
		j.stages[name] = metrics.StageOrder(name)
	}
	return j.stages[name]
}

// run replays one session; it is safe for concurrent use.
func (j *replayJob) run(ctx context.Context, s *corpus.Session) (replayResult, error) {
	o := j.o
	p, err := j.res.forSession(s)
	if err != nil {
		return replayResult{}, err
	}
	var scratch *loss.Scratch
	select {
	case scratch = <-j.scratches:
	default:
		scratch = new(loss.Scratch)
	}
	t, err := replay.Run(ctx, s, p, replay.Options{KeepFinal: true, Loss: loss.Build(s, loss.Options{Scratch: scratch})})
	j.scratches <- scratch
	if err != nil {
		return replayResult{}, err
	}
	sc, err := j.cs.cost(t)
	if err != nil {
		return replayResult{}, err
	}
	r := replayResult{trace: t, cost: sc, events: metrics.Events(t), losses: metrics.LossDetails(t),
		session: replaySessionJSON{SessionRow: metrics.Session(t), Policy: p.Name(), Params: p.Params(), Path: s.Path}}
	if o.compareRecorded && s.Recorded.History != nil {
		d := replay.CompareHistory(t.Final, s.Recorded.History)
		r.session.Compare = &d
	}
	if o.compareRecorded && s.HasClearing() {
		a := replay.Agree(s, p)
		r.agreement = &a
	}
	if o.compareRecorded {
		r.compactions = replay.AgreeCompactions(s, p, t)
		r.session.Rederived = replay.Rederive(s, p)
	}
	r.session.Metrics = metrics.RowMetrics(r.session.SessionRow, t, j.stageOrder(p.Name()), r.agreement, r.compactions)
	if o.compareRecorded {
		r.session.recorded = recordedNote(s, r.session.Compactions, r.agreement, p.Name())
	}
	r.trace = plotTrace(t, j.plots)
	r.detach()
	return r, nil
}
