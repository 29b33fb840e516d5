package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/sweep"
)

// sweepOptions are the flags of `calib sweep`.
type sweepOptions struct {
	policy     string
	set        []string
	grid       []string
	gridFile   string
	jobs       int
	shard      string
	yes        bool
	out        string
	sort       string
	top        int
	pareto     []string
	perSession bool
	plotMetric string
	rotations  int
	seed       uint64
	compare    bool
	cost       costFlags
	columns    columnsFlag
}

func newSweepCmd(a *app) *cobra.Command {
	o := &sweepOptions{}
	cmd := &cobra.Command{
		Use:   "sweep PATH...",
		Short: "Sweep a policy's parameters over a corpus, in parallel",
		Long: `Replay the corpus once per parameter set of a grid and report, per set and per
session, what each choice costs (tokens sent across all requests, the
bill through the provider's prompt cache, compactions, peak context) and
loses (tool results mangled or summarized away, bytes removed, target
misses, exhausted contexts, digest growth for rotation policies).

Grids: repeat --grid name=v1,v2,v3 or name=a..b:step (integers or
fractions, end inclusive); the cartesian product runs in a stable order, the
first --grid varying slowest. --grid-file takes a JSON object
{"name": [v1, v2], "name2": "a..b:step"}. Every name and value is checked
before any work starts.

The corpus is loaded once and shared by every job; jobs run on --jobs
workers and the report is in grid order whatever the parallelism. Ctrl-C
stops promptly, writes the rows finished so far and exits 130. --out FILE
streams rows as JSON lines as they finish, written in job order (sets in
grid order, each over the sessions in corpus order), so the file is the
same whatever --jobs. --columns NAMES keeps only the
named metric columns of the tables, in that order (after set and the
swept parameters); JSON always carries every metric. A usd that covers
only some sessions (a model without a price; --prices adds one) is marked,
1.9731*, with a footnote naming the models, and --sort, --pareto or
--plot-metric usd is then refused; csv shows unpriced_sessions beside it.

--shard k/n runs every n-th parameter set starting at the k-th, so a CI
matrix or a batch array can split a large sweep; calib merge combines the
shards' --format json reports into the report one run would have given.`,
		Example: `  calib sweep --demo --policy smith-staged --grid compact_at=0.7,0.8,0.9 --grid window_turns=1..3
  calib sweep sessions/ -p smith-staged --grid old_result_bytes=256..4096:256 --sort tokens_sent --top 10
  calib sweep --demo -p smith-staged --grid compact_at=0.7,0.8,0.9 --columns tokens_sent,billed_tokens,results_lost
  calib sweep sessions/ -p smith-staged --grid-file grid.json --shard 2/4 --format json > shard-2.json`,
		GroupID: groupAnalysis,
		Args:    pathArgs(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSweep(cmd.Context(), a, o, args)
		},
	}
	f := cmd.Flags()
	policyFlags(cmd, &o.policy, &o.set, "smith-staged")
	f.StringArrayVarP(&o.grid, "grid", "g", nil, "sweep a parameter: `name=v1,v2` or name=a..b:step (repeatable)")
	f.StringVar(&o.gridFile, "grid-file", "", "read the grid from a JSON `FILE`")
	f.IntVarP(&o.jobs, "jobs", "j", 0, "replays run at once (0: one per core)")
	f.StringVar(&o.shard, "shard", "", "run only shard `k/n` of the parameter sets")
	f.BoolVar(&o.yes, "yes", false, fmt.Sprintf("run a grid of more than %d parameter sets", sweep.MaxPoints))
	f.StringVar(&o.out, "out", "", "stream rows as JSON lines to `FILE` as they finish, in job order")
	viewFlags(cmd, o)
	f.IntVarP(&o.rotations, "rotations", "n", 0, "for rotation policies: chain each session to `N` rotations (see digest-growth)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic turns added by --rotations")
	f.BoolVar(&o.compare, "compare-recorded", false, "add agreement with the clearing events the agent recorded (agreement_* metrics; sort by them to find the agent's rule)")
	addCostFlags(cmd, &o.cost)
	return cmd
}

// viewFlags are the flags sweep and merge share: how the sets are shown.
func viewFlags(cmd *cobra.Command, o *sweepOptions) {
	f := cmd.Flags()
	f.StringVar(&o.sort, "sort", "", "order parameter sets best first by `METRIC[,METRIC...]` (later ones break ties; see calib metrics)")
	f.IntVar(&o.top, "top", 0, "show only the first `N` parameter sets (0: all)")
	f.StringSliceVar(&o.pareto, "pareto", nil, "mark the sets no other set beats on both `METRIC_A,METRIC_B`")
	f.BoolVar(&o.perSession, "per-session", false, "also print one row per (parameter set, session) (JSON always has them)")
	f.StringVar(&o.plotMetric, "plot-metric", "billed_tokens", "`METRIC` drawn by --plot's heat map and line chart")
	addColumnsFlag(cmd, &o.columns, "all")
}

func runSweep(ctx context.Context, a *app, o *sweepOptions, args []string) error {
	pl, err := planSweep(o)
	if err != nil {
		return err
	}
	sw := sweep.Plan{Policy: pl.def, Grid: pl.grid, Fixed: pl.fixed, Shard: pl.shard, Workers: o.jobs,
		Options: replay.Options{KeepFinal: true}, Rotations: o.rotations, TrackLoss: true,
		Extend: func(s *corpus.Session) func(int) []corpus.Message { return synth.NewExtension(s, o.seed).Turns }}
	stages := metrics.StageOrder(pl.def.Name)
	measure := func(set int64, s *corpus.Session, p policy.Policy, t *replay.Trace) sweep.Row {
		var agree *replay.Agreement
		if o.compare && s.HasClearing() {
			a := replay.Agree(s, p)
			agree = &a
		}
		var timing []replay.CompactionAgreement
		if o.compare {
			timing = replay.AgreeCompactions(s, p, t)
		}
		m := metrics.SessionMetrics(t, stages, agree, timing)
		// The bill through the prompt-cache model; a model the --prices
		// file does not price refuses the sweep once the corpus is
		// loaded, and this row is then thrown away.
		row := sweep.Row{Set: int(set), Params: sweptParams(pl.grid, set), Session: s.ID, Metrics: m}
		if sc, err := pl.cost.cost(t); err == nil {
			for k, v := range metrics.CostMetrics(sc) {
				m[k] = v
			}
			if !sc.Priced {
				row.UnpricedModels = []string{sc.Model}
			}
		}
		return row
	}
	// The jobs of each session start as soon as it is read, while the
	// rest of the corpus loads; every check on the whole corpus still
	// comes before any output, and a refused sweep's rows are dropped.
	r := sweep.Start(ctx, sw, measure)
	l, err := a.loadSessionsEach(ctx, args, r.Add)
	if err != nil {
		r.Stop()
		return err
	}
	h, stream, err := pl.open(a, o, l)
	if err != nil {
		r.Stop()
		return err
	}
	bar := a.progress(len(sw.Jobs(len(l.Sessions))), "sweep")
	r.Seal(l.Sessions, func(j sweep.Job, row sweep.Row) {
		stream.Add(j.Index, row)
		_ = bar.Add(1)
	})
	go boundHeap() // its full collection runs beside the jobs
	rows, ok, runErr := r.Wait()
	_ = bar.Finish()
	interrupted := errors.Is(runErr, context.Canceled)
	if runErr != nil && !interrupted {
		_ = stream.Close(false) // runErr says why the sweep stopped
		return runErr
	}
	var finished []sweep.Row
	for i, r := range rows {
		if ok[i] {
			finished = append(finished, r)
		}
	}
	if err := closeStream(stream, o.out, !interrupted); err != nil {
		return err
	}
	rep, err := sweep.Build(h, pl.view, !interrupted, finished)
	if err != nil {
		return &usageError{err}
	}
	files := map[string]string{}
	for _, s := range l.Sessions {
		if _, ok := files[s.ID]; !ok {
			files[s.ID] = s.Path
		}
	}
	broke, warn := sweepViolations(rep, files)
	if err := writeSweep(a, rep, o.perSession, o.plotMetric, pl.columns, broke); err != nil {
		return err
	}
	a.warnf(warn)
	if interrupted {
		return runErr
	}
	return l.Err()
}

// open checks the loaded corpus against the sweep (its rows, its prices),
// then writes the report's header to --out.
func (pl *sweepPlan) open(a *app, o *sweepOptions, l *loaded) (sweep.Header, *sweep.Stream, error) {
	if err := sweep.CheckRows(pl.grid.Points(), len(l.Sessions)); err != nil {
		return sweep.Header{}, nil, &usageError{err}
	}
	if err := pl.cost.check(l.Sessions); err != nil {
		return sweep.Header{}, nil, err
	}
	if err := refuseUSDRanking(usdRanked(pl.view, o.plotMetric, a.plotsWanted()), pl.cost.coverage(l.Sessions)); err != nil {
		return sweep.Header{}, nil, err
	}
	h := pl.header(l.Sessions)
	stream, err := newStream(o.out, h, pl.view)
	return h, stream, err
}

// boundHeap sets a soft memory limit near what is live once the corpus is
// loaded. A sweep's live data is the corpus plus one replay per worker;
// everything else is garbage, and without a limit the Go collector lets
// the heap grow to twice the live data, i.e. twice the corpus. With it, a
// 1,000-point sweep needs about the memory of one replay, for some more
// collector work (see README, Speed). GOMEMLIMIT, when set, wins. The
// jobs run meanwhile, and the report does not wait for it: on a small
// sweep the collection would otherwise be the last thing left to do.
func boundHeap() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(float64(ms.HeapAlloc)*1.25) + 64<<20)
}

// newStream opens --out (nothing when path is empty) and writes its header.
func newStream(path string, h sweep.Header, v sweep.View) (*sweep.Stream, error) {
	if path == "" {
		return sweep.NewStream(nil, h, v)
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, &outputError{fmt.Errorf("--out %s: %s", path, createErrorText(path, err))}
	}
	s, err := sweep.NewStream(f, h, v)
	if err != nil {
		return nil, &outputError{fmt.Errorf("--out %s: %w", path, err)}
	}
	return s, nil
}

// closeStream finishes --out; a write that failed on the way is reported
// here, with the path, as an output error (exit 3).
func closeStream(s *sweep.Stream, path string, complete bool) error {
	if err := s.Close(complete); err != nil {
		return &outputError{fmt.Errorf("--out %s: %w (the file is incomplete)", path, err)}
	}
	return nil
}
