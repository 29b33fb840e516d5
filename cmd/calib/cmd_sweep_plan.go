package main

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// sweepPlan is a validated sweep, before the corpus is loaded.
type sweepPlan struct {
	cost  *costSetup
	def   policy.Def
	fixed map[string]string
	grid  sweep.Grid
	shard sweep.Shard
	view  sweep.View
	// columns are the chosen metric columns (nil: all).
	columns []string
	// setup is what else the rows depend on (sweep.Header.Setup).
	setup policy.Params
}

func planSweep(o *sweepOptions) (*sweepPlan, error) {
	def, err := policy.Lookup(o.policy)
	if err != nil {
		return nil, &usageError{err}
	}
	if o.rotations > 0 {
		if err := needsRotation(o.policy, "--rotations"); err != nil {
			return nil, err
		}
	}
	// The larger cap, for chains whose digest is bounded, is checked
	// before the grid is read; the cap for digests that grow once every
	// set is built and says which kind it is.
	if err := replay.CheckRotations(o.rotations, true); err != nil {
		return nil, usageErrorf("--rotations %d: %v", o.rotations, err)
	}
	fixed, err := policy.ParseSet(o.set)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--set %w", err)}
	}
	costSet, fixed := splitCostSet(fixed)
	cs, err := newCostSetup(o.cost, costSet)
	if err != nil {
		return nil, err
	}
	if _, err := policy.Resolve(def.Name, def.Specs, fixed); err != nil {
		return nil, &usageError{err}
	}
	g, err := sweepGrid(o, def, fixed)
	if err != nil {
		return nil, err
	}
	var sh sweep.Shard
	if o.shard != "" {
		if sh, err = sweep.ParseShard(o.shard); err != nil {
			return nil, usageErrorf("--shard %w", err)
		}
	}
	view := sweep.View{Sort: o.sort, Top: o.top, Pareto: o.pareto}
	have := func(n metrics.Needs) bool {
		return n == metrics.NeedsCompare && o.compare || n == metrics.NeedsRotation && def.Rotates
	}
	cols, err := checkView(view, o.plotMetric, o.columns, have)
	if err != nil {
		return nil, err
	}
	stages := metrics.StageOrder(def.Name)
	for _, n := range cols {
		if m, _ := metrics.Lookup(n); m.Family && !slices.Contains(stages, strings.TrimPrefix(n, m.Name)) {
			return nil, usageErrorf("--columns %s: policy %s has no such stage (its stages: %s)", n, def.Name, strings.Join(stages, ", "))
		}
	}
	// Every set of the shard is built once here, so a combination the
	// policy rejects (compact_to not below compact_at) stops the sweep
	// before the corpus is even loaded.
	bounded, sets, secs := true, 0, 0.0
	for i := range g.Points() {
		if sh.Has(i) {
			p, err := def.Build(g.Set(i, fixed), nil)
			if err != nil {
				return nil, usageErrorf("parameter set %d (%s): %v", i, sweptParams(g, i), err)
			}
			bounded = bounded && boundedDigest(p)
			sets++
			secs += replay.ChainSeconds(o.rotations, boundedDigest(p))
		}
	}
	if err := checkChainRotations(o.rotations, bounded, "a grid whose every set has a bounded digest (variant=fixed, or clamp=on, with a budget up to 200000)"); err != nil {
		return nil, err
	}
	// Each chain passes the per-chain limits, but a sweep chains every
	// session once per set: 1,000 legacy sets at 500 rotations started a
	// run of hours with no estimate.
	if o.rotations > 0 && secs > maxChainSecondsPerSession && !o.yes {
		return nil, usageErrorf("--rotations %d over %s parameter set(s) chains every session once per set: about %s per session of the demo's size (replay.ChainSeconds); use fewer sets or rotations, split it with --shard k/n, or pass --yes",
			o.rotations, report.FormatInt(int64(sets)), replay.AboutDuration(secs))
	}
	return &sweepPlan{cost: cs, def: def, fixed: fixed, grid: g, shard: sh, view: view, columns: cols,
		setup: sweepSetup(o, cs)}, nil
}

// maxChainSecondsPerSession is the estimated chaining time per session
// past which a rotation sweep needs --yes, as a grid of more than
// sweep.MaxPoints sets does: ten minutes.
const maxChainSecondsPerSession = 600

// sweepSetup is what a sweep's rows depend on besides its policy, its
// parameters and its corpus, for merge to tell shards run differently
// apart: run with another --cache, --prices, --rotations or without
// --compare-recorded, a shard merged with the others gave a report no
// single run gives (a bill 4 times another set's), with exit 0.
func sweepSetup(o *sweepOptions, cs *costSetup) policy.Params {
	ps := policy.Params{{Name: "cache", Value: cmp.Or(cs.preset, "auto")}}
	keys := slices.Sorted(maps.Keys(cs.set))
	for _, k := range keys {
		ps = append(ps, policy.Param{Name: k, Value: cs.set[k]})
	}
	if cs.model != "" {
		ps = append(ps, policy.Param{Name: "model", Value: cs.model})
	}
	ps = append(ps, policy.Param{Name: "prices", Value: cs.prices.Fingerprint()})
	if o.rotations > 0 {
		ps = append(ps, policy.Param{Name: "rotations", Value: fmt.Sprint(o.rotations)}, policy.Param{Name: "seed", Value: fmt.Sprint(o.seed)})
	}
	if o.compare {
		ps = append(ps, policy.Param{Name: "compare_recorded", Value: "true"})
	}
	return ps
}

// sweepGrid is the grid of --grid-file and the --grid flags, each axis
// checked against the policy def and the fixed parameters, and its size
// against the limits, before any set is built.
func sweepGrid(o *sweepOptions, def policy.Def, fixed map[string]string) (sweep.Grid, error) {
	var g sweep.Grid
	if o.gridFile != "" {
		data, err := readFlagFile("grid-file", o.gridFile, sweep.MaxGridFileBytes,
			`a grid file lists a few values per parameter: give a long axis as a range string such as "0.5..0.95:0.05"`)
		if err != nil {
			return nil, err
		}
		if g, err = sweep.ParseGridFile(data); err != nil {
			var ge *sweep.GridFileError
			if errors.As(err, &ge) {
				return nil, usageErrorf("%s:%d: %v", o.gridFile, ge.Line, ge.Err)
			}
			return nil, &usageError{fmt.Errorf("%s: %w", o.gridFile, err)}
		}
		// Each parameter is checked here, so that a name or value the
		// policy refuses is named with its file and line.
		for _, ax := range g {
			if err := sweptAndFixed(ax, fixed, o.gridFile); err != nil {
				return nil, err
			}
			if err := (sweep.Grid{ax}).Validate(def, fixed); err != nil {
				return nil, usageErrorf("%s:%d: %v", o.gridFile, ax.Line, err)
			}
		}
	}
	// Every --grid name first, before any values are expanded: a typo is
	// the error to fix first, not a grid too large for the other flags.
	// The size is still checked flag by flag, so that many large ranges
	// are never all held at once.
	for _, s := range o.grid {
		name, _, _ := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		if name != "" && !slices.ContainsFunc(def.Specs, func(p policy.ParamSpec) bool { return p.Name == name }) {
			_, err := policy.Resolve(def.Name, def.Specs, map[string]string{name: ""})
			return nil, &usageError{err}
		}
	}
	for _, s := range o.grid {
		ax, err := sweep.ParseAxis(s)
		if err != nil {
			return nil, usageErrorf("--grid %w", err)
		}
		if i := slices.IndexFunc(g, func(f sweep.Axis) bool { return f.Name == ax.Name && f.Line > 0 }); i >= 0 {
			return nil, usageErrorf("--grid %s: %s is also in --grid-file %s (line %d); give each parameter in one place", s, ax.Name, o.gridFile, g[i].Line)
		}
		g = append(g, ax)
		if err := sweep.CheckRows(g.Points(), 1); err != nil {
			return nil, &usageError{err}
		}
	}
	if n := g.Points(); n > sweep.MaxPoints && !o.yes {
		return nil, usageErrorf("the grid has %s parameter sets; a sweep that size runs for hours: use coarser steps, split it with --shard k/n, or pass --yes", report.FormatInt(n))
	}
	// The mistakes Validate names in its own terms, named here by the
	// flags that made them.
	if len(g) == 0 {
		return nil, usageErrorf("empty grid: give at least one --grid name=v1,v2 (or --grid-file)")
	}
	swept := map[string]bool{}
	for _, a := range g {
		if swept[a.Name] {
			return nil, usageErrorf("--grid %s is given twice", a.Name)
		}
		swept[a.Name] = true
		if err := sweptAndFixed(a, fixed, o.gridFile); err != nil {
			return nil, err
		}
	}
	if err := g.Validate(def, fixed); err != nil {
		// A grid file's axes were validated above, with their lines: this
		// one came from a --grid flag.
		var same *sweep.SameValuesError
		if errors.As(err, &same) {
			return nil, usageErrorf("--grid %w", err)
		}
		return nil, &usageError{err}
	}
	return g, nil
}

// sweptAndFixed refuses a parameter both swept and given a fixed value
// with --set, naming where it was swept: a grid file's line or --grid.
func sweptAndFixed(a sweep.Axis, fixed map[string]string, gridFile string) error {
	if _, ok := fixed[a.Name]; !ok {
		return nil
	}
	if a.Line > 0 {
		return usageErrorf("%s:%d: parameter %s is both swept (--grid-file) and fixed (--set)", gridFile, a.Line, a.Name)
	}
	return usageErrorf("parameter %s is both swept (--grid) and fixed (--set)", a.Name)
}

// checkView validates the view flags sweep and merge share, before any
// work: every metric must be in the registry and producible by the run.
// It returns the metric columns --columns chose (nil: all).
func checkView(v sweep.View, plotMetric string, columns columnsFlag, have func(metrics.Needs) bool) ([]string, error) {
	if v.Sort != "" {
		keys := strings.Split(v.Sort, ",")
		for i, k := range keys {
			if err := checkMetric("--sort", k, have); err != nil {
				return nil, err
			}
			if slices.Contains(keys[:i], k) {
				// A later key breaks ties of the earlier ones: the same one
				// again breaks none, and is more often a typo for another.
				return nil, usageErrorf("--sort %s: %s is listed twice", v.Sort, k)
			}
		}
	}
	if len(v.Pareto) != 0 && len(v.Pareto) != 2 {
		return nil, usageErrorf("--pareto takes two metrics, e.g. --pareto billed_tokens,results_lost")
	}
	if len(v.Pareto) == 2 && v.Pareto[0] == v.Pareto[1] {
		// One metric against itself marks every set at its best as the
		// front: nothing is traded.
		return nil, usageErrorf("--pareto %s,%s: the same metric twice; a front trades two, e.g. --pareto billed_tokens,results_lost", v.Pareto[0], v.Pareto[1])
	}
	for _, m := range v.Pareto {
		if err := checkMetric("--pareto", m, have); err != nil {
			return nil, err
		}
	}
	if v.Top < 0 {
		return nil, usageErrorf("--top %d: expected a number of sets to show, 0 (all, the default) or more", v.Top)
	}
	if err := checkMetric("--plot-metric", plotMetric, have); err != nil {
		return nil, err
	}
	return columns.resolve(nil, have)
}

func (pl *sweepPlan) header(sessions []*corpus.Session) sweep.Header {
	// A value given at its default is the same sweep as one not given: a
	// shard run with --set max_tokens=120000 (the default) was refused
	// as another sweep.
	fixed := policy.Params{}
	defaults := mustResolve(pl.def, nil).Params()
	for i, p := range mustResolve(pl.def, pl.fixed).Params() {
		if _, given := pl.fixed[p.Name]; given && p.Value != defaults[i].Value {
			fixed = append(fixed, p)
		}
	}
	h := sweep.Header{Policy: pl.def.Name, Fixed: fixed, Corpus: sweep.Fingerprint(sessions),
		Points: pl.grid.Points(), Shard: pl.shard.String(), Sessions: make([]string, len(sessions)), Setup: pl.setup}
	for _, a := range pl.grid {
		h.Grid = append(h.Grid, sweep.Axis{Name: a.Name, Values: a.Values})
	}
	for i, s := range sessions {
		h.Sessions[i] = s.ID
	}
	return h
}

func mustResolve(def policy.Def, set map[string]string) policy.Values {
	v, _ := policy.Resolve(def.Name, def.Specs, set) // validated by planSweep
	return v
}

// sweptParams are the swept values of parameter set i, in grid order.
func sweptParams(g sweep.Grid, i int64) policy.Params {
	set := g.Set(i, nil)
	ps := make(policy.Params, len(g))
	for j, a := range g {
		ps[j] = policy.Param{Name: a.Name, Value: set[a.Name]}
	}
	return ps
}
