package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/report"
)

// growthOptions are the flags of `calib digest-growth`.
type growthOptions struct {
	policy    string
	set       []string
	variants  []string
	rotations int
	seed      uint64
	gates     metrics.Gates
	baseline  string
	jobs      int
}

type growthJSON struct {
	Policy   policyRef           `json:"policy"`
	Gates    gatesJSON           `json:"gates"`
	Sessions []growthSessionJSON `json:"sessions"`
	Verdict  string              `json:"verdict"`
}

type gatesJSON struct {
	MaxDigestBytes int     `json:"max_digest_bytes,omitempty"`
	MaxGrowthBytes float64 `json:"max_growth_bytes,omitempty"`
	MaxNesting     int     `json:"max_nesting,omitempty"`
	Baseline       string  `json:"baseline,omitempty"`
	Tolerance      float64 `json:"tolerance,omitempty"`
}

type growthSessionJSON struct {
	metrics.GrowthRow
	Variant string        `json:"variant,omitempty"`
	Params  policy.Params `json:"params"`
	// Recorded re-derives the digests clai stored (clai databases only).
	Recorded []replay.Rederived `json:"recorded,omitempty"`
	// name is the session's name in plot file names (sessionNames), so
	// that two inputs with the same id get a plot each.
	name string
}

// plotName is the chain's session name for plots: its sessionNames name,
// or its id where none was set.
func (g growthSessionJSON) plotName() string {
	return nonEmpty(g.name, g.ID)
}

// key identifies a chain across runs, for --baseline.
func (g growthSessionJSON) key() string {
	if g.Variant == "" {
		return g.ID
	}
	return g.ID + "@" + g.Variant
}

func newDigestGrowthCmd(a *app) *cobra.Command {
	o := &growthOptions{}
	cmd := &cobra.Command{
		Use:   "digest-growth PATH...",
		Short: "Chain rotations and gate digest size, nesting and growth (for CI)",
		Long: `Replay each session through a rotation policy (clai-rotation) and measure the
chain of digests it writes: per rotation the window, the size of message 0
(the previous digest), the digest's size and growth, the copies of each
preamble (its nesting depth), omission markers, and how much of the part a
fresh CLI session is seeded with is stacked boilerplate; per session the
least-squares growth in bytes per rotation, the deepest nesting and the
largest digest. For clai databases it also re-derives every digest clai
stored from the database's own rows and says whether it matches byte for
byte.

--rotations N lengthens a short recording with synthetic turns of the
session's own profile until N rotations have happened, so that a small
fixture can test a long chain. --variants legacy,fixed runs both variants
side by side (one chart).

Gates (each off unless given) fail the run with exit status 1, naming the
gate, the session and the values:
  --max-digest-bytes B   the largest digest may not exceed B bytes
  --max-growth-bytes G   the least-squares slope may not exceed G bytes/rotation
  --max-nesting N        no digest may hold more than N copies of a preamble
  --baseline FILE        a JSON report of an earlier run (--format json): fail
                         when a chain is worse than its baseline by more than
                         --tolerance (a fraction; growth also gets 64 B/rotation)
  --fail-on-violations   fail a chain whose replay broke an invariant (clai's
                         fixed-count tail can split a tool pair; reported
                         either way)`,
		Example: `  calib digest-growth --demo --rotations 20 --set variant=legacy --max-nesting 1
  calib digest-growth .clai/data.sqlite --variants legacy,fixed --rotations 50 --plot plots/
  calib digest-growth fixture.sqlite --rotations 50 --set variant=fixed --baseline base.json --format github`,
		GroupID: groupAnalysis,
		Args:    pathArgs(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDigestGrowth(cmd.Context(), a, o, args)
		},
	}
	f := cmd.Flags()
	policyFlags(cmd, &o.policy, &o.set, policy.ClaiRotationName)
	f.StringSliceVar(&o.variants, "variants", nil, "run each `VARIANT` (e.g. legacy,fixed) side by side")
	f.IntVarP(&o.rotations, "rotations", "n", 0, "extend each session with synthetic turns until `N` rotations (0: as recorded)")
	f.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic turns added by --rotations")
	f.IntVar(&o.gates.MaxDigestBytes, "max-digest-bytes", 0, "gate: largest digest in `BYTES` (0: off)")
	f.Float64Var(&o.gates.MaxGrowthBytes, "max-growth-bytes", 0, "gate: least-squares growth in `BYTES` per rotation (0: off)")
	f.IntVar(&o.gates.MaxNesting, "max-nesting", 0, "gate: at most `N` copies of a preamble in one digest (0: off)")
	f.StringVar(&o.baseline, "baseline", "", "gate: a JSON report `FILE` of an earlier run to compare with")
	f.Float64Var(&o.gates.Tolerance, "tolerance", 0.05, "allowed worsening against --baseline, as a `FRACTION`")
	f.BoolVar(&o.gates.FailOnViolations, "fail-on-violations", false, "gate: fail a chain whose replay broke an invariant")
	f.IntVarP(&o.jobs, "jobs", "j", 0, "chains replayed at once (0: one per core)")
	return cmd
}

// growthRun is one policy configuration of a digest-growth run.
type growthRun struct {
	variant string
	p       policy.Policy
}

func growthRuns(o *growthOptions) ([]growthRun, error) {
	if err := needsRotation(o.policy, "digest-growth"); err != nil {
		return nil, err
	}
	set, err := policy.ParseSet(o.set)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--set %w", err)}
	}
	if len(o.variants) == 0 {
		p, err := policy.New(o.policy, set)
		if err != nil {
			return nil, &usageError{err}
		}
		// The variant column is filled however the variant was chosen
		// (--set variant=…, or the default), so that a baseline written
		// with --variants matches.
		variant := ""
		if v, ok := p.(policy.Varianted); ok {
			variant = v.Variant()
		}
		return []growthRun{{variant: variant, p: p}}, nil
	}
	if _, ok := set["variant"]; ok {
		return nil, usageErrorf("give the variant either with --set variant=… or with --variants, not both")
	}
	var runs []growthRun
	for i, v := range o.variants {
		if slices.Contains(o.variants[:i], v) {
			return nil, usageErrorf("--variants %s: given twice; each variant runs once", v)
		}
		s := map[string]string{"variant": v}
		for k, x := range set {
			s[k] = x
		}
		p, err := policy.New(o.policy, s)
		if err != nil {
			return nil, &usageError{fmt.Errorf("--variants %s: %w", v, err)}
		}
		runs = append(runs, growthRun{variant: v, p: p})
	}
	return runs, nil
}

// needsRotation refuses a policy that never rotates where a command
// measures rotation chains.
func needsRotation(name, what string) error {
	d, err := policy.Lookup(name)
	if err != nil {
		return &usageError{err}
	}
	if !d.Rotates {
		var rot []string
		for _, d := range policy.Defs() {
			if d.Rotates {
				rot = append(rot, d.Name)
			}
		}
		return usageErrorf("%s measures rotation chains, and policy %s does not rotate (rotation policies: %s); use calib replay or sweep for it", what, name, strings.Join(rot, ", "))
	}
	return nil
}

// baselineRows are the chains of a --baseline report, by key (session and
// variant) and by session alone (for a baseline of another variant).
type baselineRows struct {
	// byKey holds the chains by session and variant, byID by session
	// alone, each in the file's order: two inputs may share an id (a raw
	// and a recorded clai database), and each has its chain.
	byKey map[string][]growthSessionJSON
	byID  map[string][]growthSessionJSON
}

// maxBaselineBytes caps a --baseline file at 256 MiB: the report of about
// 900 sessions at the most rotations (500), a corpus whose own report this
// run holds as well. A bigger file, or a device or pipe that never ends,
// is refused rather than read until memory runs out.
const maxBaselineBytes = 256 << 20

// readBaseline reads a digest-growth JSON report. Any other JSON (a sweep
// or replay report, say) is named as such rather than failing on a field
// type deep inside the decoder.
func readBaseline(path string) (*baselineRows, error) {
	data, err := readFlagFile("baseline", path, maxBaselineBytes,
		"a baseline is the --format json report of an earlier digest-growth run (one of 5 sessions at 500 rotations is 1.5 MB)")
	if err != nil {
		return nil, err
	}
	expect := "expected a digest-growth JSON report of an earlier run (write one with calib digest-growth ... --format json > FILE)"
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, &usageError{fmt.Errorf("--baseline %s: not a JSON object (%v); %s", path, err, expect)}
	}
	var b growthJSON
	if _, ok := top["sessions"]; !ok || top["gates"] == nil || json.Unmarshal(data, &b) != nil {
		keys := make([]string, 0, len(top))
		for k := range top {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return nil, &usageError{fmt.Errorf("--baseline %s: not a digest-growth report (its top-level fields are %s); %s", path, strings.Join(keys, ", "), expect)}
	}
	r := &baselineRows{byKey: map[string][]growthSessionJSON{}, byID: map[string][]growthSessionJSON{}}
	for _, s := range b.Sessions {
		r.byKey[s.key()] = append(r.byKey[s.key()], s)
		r.byID[s.ID] = append(r.byID[s.ID], s)
	}
	return r, nil
}

// covers refuses a baseline that holds none of the sessions loaded: every
// chain would go uncompared and the gate pass on nothing (a baseline of
// another corpus, or of an empty run).
func (b *baselineRows) covers(path string, sessions []*corpus.Session) error {
	run := make([]string, 0, len(sessions))
	for _, s := range sessions {
		if _, ok := b.byID[s.ID]; ok {
			return nil
		}
		run = append(run, s.ID)
	}
	holds := "no chains"
	if len(b.byID) > 0 {
		holds = "the chains of sessions " + fewNames(slices.Sorted(maps.Keys(b.byID)))
	}
	return usageErrorf("--baseline %s holds %s; this run's sessions are %s: none of them is in the baseline, so nothing would be compared; give a baseline written from these sessions", path, holds, fewNames(run))
}

// fewNames lists up to three names and how many more there are.
func fewNames(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

// find returns the baseline chain for row: the same session and variant,
// else the same session under another variant (compared, with a warning,
// since a legacy baseline makes a fixed run look good and vice versa).
//
// A chain of another length or other parameters is compared too, with a
// warning naming what differs: a baseline of 20 rotations against a run
// of 21, or of another budget, was compared in silence, and a failed slope
// gate then had no visible cause.
//
// Among chains of one session id (two inputs), the one read from the same
// path is taken, else the nth (row is this run's nth chain of its key):
// each was compared with whichever the file held last, so a run failed
// against its own baseline.
func (b *baselineRows) find(row growthSessionJSON, nth int) (metrics.GrowthRow, string, bool) {
	cands, sameVariant := b.byKey[row.key()]
	if !sameVariant {
		if cands = b.byID[row.ID]; len(cands) == 0 {
			return metrics.GrowthRow{}, "", false
		}
	}
	r, ok := cands[0], len(cands) == 1
	for _, c := range cands {
		if !ok && c.Path == row.Path {
			r, ok = c, true
		}
	}
	var notes []string
	if !ok {
		r = cands[min(nth, len(cands)-1)]
		notes = append(notes, fmt.Sprintf("the baseline holds %d chains of it, none read from %s: this run's chain %d of the session is compared with the baseline's from %s", len(cands), row.Path, nth+1, r.Path))
	}
	var diffs []string
	if n, m := len(r.Rotations), len(row.Rotations); n != m {
		diffs = append(diffs, fmt.Sprintf("%d rotations and this run's %d", n, m))
	}
	// Another variant sets other parameters too: the variant says it.
	for _, p := range row.Params {
		if v := r.Params.Get(p.Name); sameVariant && v != p.Value && len(r.Params) > 0 {
			diffs = append(diffs, fmt.Sprintf("%s=%s and this run's %s", p.Name, v, p.Value))
		}
	}
	what := "has " + strings.Join(diffs, ", ")
	switch {
	case !sameVariant && len(diffs) > 0:
		what = fmt.Sprintf("is variant %q and this run's %q, and %s", r.Variant, row.Variant, what)
	case !sameVariant:
		what = fmt.Sprintf("is variant %q and this run's %q", r.Variant, row.Variant)
	case len(diffs) == 0:
		what = ""
	}
	if what != "" {
		notes = append(notes, "the baseline's chain "+what)
	}
	if len(notes) == 0 {
		return r.GrowthRow, "", true
	}
	return r.GrowthRow, fmt.Sprintf("session %s: %s; compared anyway", row.ID, strings.Join(notes, "; ")), true
}

// finite is false for NaN and ±Inf, which a float flag parses: NaN compares
// false with everything, so a NaN gate could never fail.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// checkGrowthRotations refuses, before any work, more rotations than the
// runs' chains can honour: a bounded digest (every run's policy says so,
// policy.Bounded) may run longer than one that grows.
func checkGrowthRotations(n int, runs []growthRun) error {
	bounded := len(runs) > 0
	for _, r := range runs {
		bounded = bounded && boundedDigest(r.p)
	}
	return checkChainRotations(n, bounded, "chains whose digest is bounded (the fixed variant alone, with a budget up to 200000)")
}

// boundedDigest reports whether p says its digest is bounded
// (policy.Bounded).
func boundedDigest(p policy.Policy) bool {
	b, ok := p.(policy.Bounded)
	return ok && b.BoundedDigest()
}

// checkChainRotations refuses more rotations than chains can honour;
// bounded says every chain's digest is bounded. A count only bounded
// chains may run names what makes them so (hint).
func checkChainRotations(n int, bounded bool, hint string) error {
	err := replay.CheckRotations(n, bounded)
	switch {
	case err == nil:
		return nil
	case !bounded && n > 0 && n <= replay.MaxBoundedRotations:
		return usageErrorf("--rotations %d: %v; %s may run %d", n, err, hint, replay.MaxBoundedRotations)
	}
	return usageErrorf("--rotations %d: %v", n, err)
}

// checkGrowthFlags refuses values no gate or chain can honour, before any
// work.
func checkGrowthFlags(o *growthOptions) error {
	switch {
	case o.gates.MaxDigestBytes < 0:
		return usageErrorf("--max-digest-bytes %d: expected a size in bytes (0: off)", o.gates.MaxDigestBytes)
	case !finite(o.gates.MaxGrowthBytes) || o.gates.MaxGrowthBytes < 0:
		return usageErrorf("--max-growth-bytes %g: expected a finite number of bytes per rotation, 0 or more (0: off)", o.gates.MaxGrowthBytes)
	case o.gates.MaxNesting < 0:
		return usageErrorf("--max-nesting %d: expected a number of copies (0: off)", o.gates.MaxNesting)
	case !finite(o.gates.Tolerance) || o.gates.Tolerance < 0:
		return usageErrorf("--tolerance %g: expected a finite fraction, 0 or more (0.05 allows 5%% worse than --baseline)", o.gates.Tolerance)
	}
	return nil
}

func runDigestGrowth(ctx context.Context, a *app, o *growthOptions, args []string) error {
	if err := checkGrowthFlags(o); err != nil {
		return err
	}
	if o.gates.Tolerance >= 1 && o.baseline != "" && !a.flags.quiet {
		// A percentage given where a fraction is meant (5 for 5%) allows
		// 500% worse, which no one asks for on purpose; said, not refused.
		a.sayf("warning: --tolerance %g allows %g%% worse than the baseline; the tolerance is a fraction (0.05 allows 5%%)", o.gates.Tolerance, o.gates.Tolerance*100)
	}
	runs, err := growthRuns(o)
	if err != nil {
		return err
	}
	if err := checkGrowthRotations(o.rotations, runs); err != nil {
		return err
	}
	var baseline *baselineRows
	if o.baseline != "" {
		if baseline, err = readBaseline(o.baseline); err != nil {
			return err
		}
	}
	rows, l, err := growthChains(ctx, a, o, runs, baseline, args)
	if err != nil {
		return err
	}

	out := growthJSON{Policy: policyRef{Name: runs[0].p.Name(), Params: runs[0].p.Params()},
		Gates: gatesJSON{MaxDigestBytes: o.gates.MaxDigestBytes, MaxGrowthBytes: o.gates.MaxGrowthBytes,
			MaxNesting: o.gates.MaxNesting, Baseline: o.baseline},
		Sessions: []growthSessionJSON{}, Verdict: metrics.VerdictNoGate}
	if o.baseline != "" {
		out.Gates.Tolerance = o.gates.Tolerance
	}
	var failures []metrics.Failure
	var anns []report.Annotation
	seen := map[string]int{} // chains of each key so far, for find
	for _, row := range rows {
		g := o.gates
		if baseline != nil {
			b, warn, ok := baseline.find(row, seen[row.key()])
			seen[row.key()]++
			if ok {
				g.Baseline = map[string]metrics.GrowthRow{row.ID: b}
			} else {
				// Said, not silent: the run passes the baseline gates on
				// a chain it never compared.
				warn = fmt.Sprintf("session %s has no chain in the baseline: only the absolute gates apply to it", row.ID)
			}
			if warn != "" && !a.flags.quiet {
				a.sayf("warning: --baseline %s: %s", o.baseline, warn)
			}
		}
		if n := len(row.Rotations); n < 2 && (o.gates.MaxGrowthBytes > 0 || baseline != nil) && !a.flags.quiet {
			// A slope needs two digests: the growth gates pass on it
			// whatever the digest does (a fixture that stopped rotating
			// after a parameter change passed in silence).
			name := row.ID
			if row.Variant != "" {
				name += " (" + row.Variant + ")"
			}
			a.sayf("warning: session %s: %d rotation(s), so no growth slope: the growth gates cannot fail on it; --rotations N chains it further", name, n)
		}
		g.Apply(&row.GrowthRow)
		for i := range row.Failures {
			f := &row.Failures[i]
			if row.Variant != "" {
				f.Message = strings.Replace(f.Message, "session "+row.ID, "session "+row.ID+" ("+row.Variant+")", 1)
			}
			failures = append(failures, *f)
			anns = append(anns, sessionError(row.Path, "digest-growth: "+f.Gate, f.Message))
		}
		out.Sessions = append(out.Sessions, row)
	}
	// The run's verdict is its worst chain's: "no gate" only when no gate
	// judged any chain.
	for _, s := range out.Sessions {
		if s.Verdict == metrics.VerdictOK {
			out.Verdict = metrics.VerdictOK
		}
	}
	if len(failures) > 0 {
		out.Verdict = metrics.VerdictFail
	}
	doc := report.Doc{JSON: out, Tables: growthTables(out), Annotations: anns}
	if err := a.writeWithPlots(doc, func() ([]report.Figure, error) { return growthFigures(out) }); err != nil {
		return err
	}
	var gate error
	if len(failures) > 0 {
		more := ""
		if len(failures) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(failures)-1)
		}
		gate = gateFailed("digest-growth: gate %s failed: %s%s", failures[0].Gate, failures[0].Message, more)
	}
	return l.verdict(gate)
}

// growthTables lays out the chains. When two inputs share a session id (a
// raw and a recorded clai database), every table gets a path column so
// their rows can be told apart, as replay's do.
func growthTables(out growthJSON) []*report.Table {
	keys := make([]string, len(out.Sessions))
	for i, s := range out.Sessions {
		keys[i] = s.key()
	}
	withPath := idsRepeat(keys)
	// lead is the columns that name a chain, and cells fills them.
	lead := func(extra ...report.Column) []report.Column {
		cols := []report.Column{report.TextCol("session")}
		if withPath {
			cols = append(cols, report.TextCol("path"))
		}
		return append(cols, extra...)
	}
	cells := func(id, path string, extra ...report.Cell) []report.Cell {
		c := []report.Cell{report.Str(id)}
		if withPath {
			c = append(c, report.Str(path))
		}
		return append(c, extra...)
	}
	rot := report.NewTable(fmt.Sprintf("Rotations (policy %s)", out.Policy.Name),
		lead(report.TextCol("variant"), report.NumCol("rotation"), report.NumCol("window"),
			report.NumCol("msg0 bytes"), report.NumCol("digest bytes"), report.NumCol("growth"), report.NumCol("p1"), report.NumCol("p2"),
			report.NumCol("omitted"), report.NumCol("cli head"), report.NumCol("head preamble"), report.TextCol("over budget"), report.TextCol("sha256"))...)
	// The chain columns are the registry's (metrics.ChainMetrics, in
	// registry order with its labels and precision).
	mcols := metrics.Columns(slices.Collect(maps.Keys(metrics.ChainMetrics(metrics.GrowthRow{}))), nil)
	chains := report.NewTable("Chains (slope: least-squares growth of the digest per rotation)",
		append(lead(report.TextCol("variant")), append(labelColumns(mcols), report.TextCol("verdict"))...)...)
	var rec, ft *report.Table
	for _, s := range out.Sessions {
		for _, r := range s.Rotations {
			rot.AddRow(cells(s.ID, s.Path, report.Str(s.Variant), report.Int(r.Rotation), report.Int(r.WindowMessages),
				report.Int(r.Msg0Bytes), report.Int(r.DigestBytes), report.Int(r.Growth), report.Int(r.P1), report.Int(r.P2),
				report.Int(r.OmissionMarkers), report.Int(r.CLIHeadBytes), report.Int(r.CLIHeadPreamble), report.Str(yesNo(r.OverBudget)), report.Str(r.SHA256[:12]))...)
		}
		row := append(cells(s.ID, s.Path, report.Str(s.Variant)), metricCells(mcols, metrics.ChainMetrics(s.GrowthRow))...)
		chains.AddRow(append(row, report.Str(s.Verdict))...)
		for _, d := range s.Recorded {
			if rec == nil {
				rec = report.NewTable("Recorded compactions re-derived from the database's own rows",
					lead(report.TextCol("variant"), report.NumCol("#"), report.NumCol("row"), report.TextCol("trigger"),
						report.TextCol("kind"), report.TextCol("derived with"), report.TextCol("verdict"), report.NumCol("stored bytes"), report.NumCol("derived bytes"),
						report.NumCol("first diff"), report.TextCol("notes"))...)
			}
			// Nothing derived (a model-written summary, a failed row): no
			// derived size, rather than 0 bytes.
			diff, derived := report.Empty(), report.Empty()
			if d.FirstDiff >= 0 {
				diff = report.Int(d.FirstDiff)
			}
			if d.Variant != "" {
				derived = report.Int(d.DerivedBytes)
			}
			rec.AddRow(cells(s.ID, s.Path, report.Str(s.Variant), report.Int(d.Index+1), report.Int(d.Line), report.Str(d.Trigger),
				report.Str(d.Kind), report.Str(d.Variant), report.Str(d.Verdict), report.Int(d.StoredBytes), derived, diff,
				report.Str(strings.Join(d.Notes, "; ")))...)
		}
		for _, f := range s.Failures {
			if ft == nil {
				ft = report.NewTable("Gate failures", append([]report.Column{report.TextCol("gate")},
					lead(report.NumCol("value"), report.NumCol("limit"), report.TextCol("message"))...)...)
			}
			ft.AddRow(append([]report.Cell{report.Str(f.Gate)}, cells(f.Session, s.Path, report.Float(f.Value, 1), report.Float(f.Limit, 1), report.Str(f.Message))...)...)
		}
	}
	tables := []*report.Table{rot, chains}
	if rec != nil {
		tables = append(tables, rec)
	}
	if ft != nil {
		tables = append(tables, ft)
	}
	return tables
}
