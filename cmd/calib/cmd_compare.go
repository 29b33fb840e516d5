package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/report"
)

// compareOptions are the flags of `calib compare`.
type compareOptions struct {
	policies   []string
	set        []string
	perSession bool
	jobs       int
	cost       costFlags
	columns    columnsFlag
}

type compareJSON struct {
	Policies []comparePolicyJSON  `json:"policies"`
	Sessions []compareSessionJSON `json:"sessions,omitempty"`
	Skipped  []compareSkipJSON    `json:"skipped"`
}

type comparePolicyJSON struct {
	Name    string             `json:"name"`
	Agent   string             `json:"agent,omitempty"`
	Params  policy.Params      `json:"params"`
	Metrics map[string]float64 `json:"metrics"`
	// UnpricedModels are the models (sorted; "": none named) of the
	// sessions its usd could not price (unpriced_sessions).
	UnpricedModels []string `json:"unpriced_models,omitempty"`
}

type compareSessionJSON struct {
	Session        string             `json:"session"`
	Format         string             `json:"format"`
	Policy         string             `json:"policy"`
	Metrics        map[string]float64 `json:"metrics"`
	UnpricedModels []string           `json:"unpriced_models,omitempty"`
}

// compareSkipJSON is a policy that cannot replay the sessions of a format.
type compareSkipJSON struct {
	Policy   string `json:"policy"`
	Format   string `json:"format"`
	Sessions int    `json:"sessions"`
}

func newCompareCmd(a *app) *cobra.Command {
	o := &compareOptions{}
	cmd := &cobra.Command{
		Use:   "compare PATH...",
		Short: "Replay the same sessions through several agents' policies, side by side",
		Long: `Replay every session through each policy at its agent's defaults (by
default every preset and agent policy: calib policies lists them with
their sources) and print one row per policy with its cost and loss: tokens
sent, the bill through the prompt-cache model (billed tokens, cache hit
rate, dollars; --cache and --prices as in replay), compactions, output
caps, peak, tool results hidden, needed, fetched back or lost, and every
other figure the metrics registry defines for a plain replay (calib
metrics explains each). The corpus is loaded once and shared, and so is
each session's loss index; policy × session replays run in parallel and
the report is the same for any --jobs.

A policy that cannot replay a session's format is skipped for it, and the
report says so. --plot DIR draws cost against loss, one point per policy.

The text, markdown and github tables show the main cost and loss columns
(` + compareDefaultColumns + `);
--columns all shows every one, --columns NAMES the ones named, in that
order. csv shows every column unless --columns is given; json always
carries every metric. A usd that covers only some of a row's sessions (a
model without a price; --prices adds one) is marked, 1.9731*, with a
footnote naming the models, and one that covers none is -; csv shows
unpriced_sessions next to usd instead.`,
		Example: `  calib compare --demo
  calib compare ~/.claude/projects --policies opencode,gemini-cli,swe-agent
  calib compare sessions/ --per-session --format markdown --plot plots/
  calib compare sessions/ --policies opencode,swe-agent --set opencode:prune.keep_value=30000
  calib compare --demo --columns billed_tokens,results_lost,peak_tokens
  calib compare --demo --columns all --format csv`,
		GroupID: groupAnalysis,
		Args:    pathArgs(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCompare(cmd.Context(), a, o, args)
		},
	}
	cmd.Flags().StringSliceVar(&o.policies, "policies", nil, "comma-separated `NAMES` of the policies to compare (default: every preset and agent policy)")
	cmd.Flags().StringArrayVar(&o.set, "set", nil, "set one policy's parameters: `POLICY:name=value[,name=value]` (repeatable); the cost settings (model=, cache_*=) without POLICY: apply to every policy")
	cmd.Flags().BoolVar(&o.perSession, "per-session", false, "also print one row per session and policy")
	cmd.Flags().IntVarP(&o.jobs, "jobs", "j", 0, "replays run at once (0: one per core)")
	addCostFlags(cmd, &o.cost)
	addColumnsFlag(cmd, &o.columns, compareDefaultColumns+"; csv: all")
	_ = cmd.RegisterFlagCompletionFunc("policies", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return policy.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// compareSets parses --set POLICY:name=value,... into settings per policy,
// and --set name=value without a POLICY into the cost settings (model,
// cache_*), which apply to every policy: a session that names no model had
// no way to be priced in compare.
func compareSets(flags []string) (map[string]map[string]string, map[string]string, error) {
	out := map[string]map[string]string{}
	cost := map[string]string{}
	for _, f := range flags {
		if eq, colon := strings.IndexByte(f, '='), strings.IndexByte(f, ':'); colon < 0 || eq >= 0 && eq < colon {
			set, err := policy.ParseSet([]string{f})
			if err != nil {
				return nil, nil, usageErrorf("--set %w", err)
			}
			c, rest := splitCostSet(set)
			if len(rest) > 0 {
				return nil, nil, usageErrorf("--set %q: expected POLICY:name=value[,name=value] (compare runs several policies; only the cost settings, model and cache_*, apply to all without a POLICY)", f)
			}
			maps.Copy(cost, c)
			continue
		}
		name, rest, _ := strings.Cut(f, ":")
		if name == "" {
			return nil, nil, usageErrorf("--set %q: expected POLICY:name=value[,name=value] (compare runs several policies)", f)
		}
		set, err := policy.ParseSet([]string{rest})
		if err != nil {
			return nil, nil, usageErrorf("--set %w", err)
		}
		if out[name] == nil {
			out[name] = map[string]string{}
		}
		for k, v := range set {
			out[name][k] = v
		}
	}
	return out, cost, nil
}

// comparedPolicy is one compared policy, built with its --set values;
// def and set build it again for a session (sessionPolicy).
type comparedPolicy struct {
	def policy.Def
	set map[string]string
	p   policy.Policy
}

// comparePolicies resolves --policies (default: every policy that models
// an agent) and builds each at its defaults, or with its --set values,
// validated against its own parameters.
func comparePolicies(names []string, sets map[string]map[string]string) ([]policy.Def, []comparedPolicy, error) {
	var defs []policy.Def
	if len(names) == 0 {
		for _, d := range policy.Defs() {
			if d.Agent != "" {
				defs = append(defs, d)
			}
		}
	}
	seen := map[string]bool{}
	for _, n := range names {
		d, err := policy.Lookup(strings.TrimSpace(n))
		if err != nil {
			return nil, nil, &usageError{fmt.Errorf("--policies: %w", err)}
		}
		// Refused rather than dropped, as --columns and --grid do: a
		// name given twice is a typo for another.
		if seen[d.Name] {
			return nil, nil, usageErrorf("--policies %s: %s is given twice; each policy is compared once (did you mean another?)", strings.Join(names, ","), d.Name)
		}
		seen[d.Name] = true
		defs = append(defs, d)
	}
	pols := make([]comparedPolicy, len(defs))
	for i, d := range defs {
		p, err := d.Build(sets[d.Name], nil)
		if err != nil {
			return nil, nil, usageErrorf("--set %s: %w", d.Name, err)
		}
		pols[i] = comparedPolicy{def: d, set: sets[d.Name], p: p}
		delete(sets, d.Name)
	}
	for _, name := range slices.Sorted(maps.Keys(sets)) {
		if _, err := policy.Lookup(name); err != nil {
			return nil, nil, usageErrorf("--set: %w", err)
		}
		return nil, nil, usageErrorf("--set %s: that policy is not among those compared (add it to --policies)", name)
	}
	return defs, pols, nil
}

func runCompare(ctx context.Context, a *app, o *compareOptions, args []string) error {
	sets, costSet, err := compareSets(o.set)
	if err != nil {
		return err
	}
	defs, pols, err := comparePolicies(o.policies, sets)
	if err != nil {
		return err
	}
	cs, err := newCostSetup(o.cost, costSet)
	if err != nil {
		return err
	}
	cols, err := compareColumnChoice(o.columns, a.Format, defs)
	if err != nil {
		return err
	}
	stages := make([][]string, len(defs))
	for i, d := range defs {
		stages[i] = metrics.StageOrder(d.Name)
	}
	sessions, l, err := compareSessions(ctx, a, o.jobs, defs, pols, stages, cs, args)
	if err != nil {
		return err
	}

	out := compareJSON{Policies: []comparePolicyJSON{}, Skipped: []compareSkipJSON{}}
	byPolicy := make([][]map[string]float64, len(defs))
	unpriced := make([][]string, len(defs))
	skipped := map[[2]string]int{}
	var skipOrder [][2]string
	for si, s := range l.Sessions {
		runs := sessions[si]
		for pi, d := range defs {
			if !d.Applies(s.Format) {
				k := [2]string{d.Name, string(s.Format)}
				if skipped[k] == 0 {
					skipOrder = append(skipOrder, k)
				}
				skipped[k]++
				continue
			}
			r := runs[0]
			runs = runs[1:]
			byPolicy[pi] = append(byPolicy[pi], r.metrics)
			for _, m := range r.unpriced {
				if !slices.Contains(unpriced[pi], m) {
					unpriced[pi] = append(unpriced[pi], m)
				}
			}
			if o.perSession {
				out.Sessions = append(out.Sessions, compareSessionJSON{Session: s.ID, Format: string(s.Format), Policy: d.Name,
					Metrics: r.metrics, UnpricedModels: r.unpriced})
			}
		}
	}
	violations := 0
	var broke []report.Annotation
	for pi, d := range defs {
		if len(byPolicy[pi]) == 0 {
			continue // applies to no session: the skipped table says so
		}
		m := metrics.CombineSessions(byPolicy[pi])
		m["sessions"] = float64(len(byPolicy[pi]))
		violations += int(m["violations"])
		if v := int(m["violations"]); v > 0 {
			// The ::error a failed run owes --format github, as replay's.
			broke = append(broke, report.Annotation{Level: report.LevelError, Title: "invariant violations",
				Message: fmt.Sprintf("%s broke %d invariant(s); calib replay --policy %s on the sessions shows them", d.Name, v, d.Name)})
		}
		slices.Sort(unpriced[pi])
		out.Policies = append(out.Policies, comparePolicyJSON{Name: d.Name, Agent: d.Agent, Params: pols[pi].p.Params(), Metrics: m, UnpricedModels: unpriced[pi]})
	}
	for _, k := range skipOrder {
		out.Skipped = append(out.Skipped, compareSkipJSON{Policy: k[0], Format: k[1], Sessions: skipped[k]})
	}
	doc := report.Doc{JSON: out, Tables: compareTables(out, len(l.Sessions), csvUSDColumns(cols, a.Format)), Annotations: broke}
	for _, s := range out.Skipped {
		doc.Annotations = append(doc.Annotations, report.Annotation{Level: report.LevelWarning, Title: "policy skipped",
			Message: fmt.Sprintf("%s cannot replay %s sessions: skipped for %d", s.Policy, s.Format, s.Sessions)})
	}
	if err := a.writeWithPlots(doc, func() ([]report.Figure, error) { return compareFigures(out, len(l.Sessions)) }); err != nil {
		return err
	}
	var gate error
	if violations > 0 {
		gate = gateFailed("%d invariant violation(s); calib replay --policy NAME on the session shows them", violations)
	}
	return l.verdict(gate)
}

// compareColumns are the registry's plain-replay figures present in any
// row, in registry order: a metric added to the registry shows up here.
func compareColumns(ps []comparePolicyJSON) []string {
	var cols []string
	for _, m := range metrics.Registry() {
		if m.Family || m.Part || m.Needs != metrics.NeedsNothing {
			continue
		}
		for _, p := range ps {
			if _, ok := p.Metrics[m.Name]; ok {
				cols = append(cols, m.Name)
				break
			}
		}
	}
	return cols
}

// compareDefaultColumns are the columns of compare's text, markdown and
// github tables without --columns: the bill and the loss, in registry
// order. All 29 are some 330 characters wide on the demo, more than a terminal.
const compareDefaultColumns = "tokens_sent,compactions,billed_tokens,usd,cache_hit_rate,results_hidden,results_lost,refetch_tokens"

// compareColumnChoice resolves --columns for compare before any work: the
// default set for the tables people read, every column for csv (a
// machine's input keeps its full, stable header), and only metrics a
// replay of the compared policies produces (digest figures when one of
// them rotates; no agreement: compare takes no --compare-recorded).
func compareColumnChoice(c columnsFlag, f report.Format, defs []policy.Def) ([]string, error) {
	var def []string
	if f != report.CSV {
		def = strings.Split(compareDefaultColumns, ",")
	}
	cols, err := c.resolve(def, nil)
	if err != nil {
		return nil, err
	}
	rotates := slices.ContainsFunc(defs, func(d policy.Def) bool { return d.Rotates })
	return cols, producedColumns(cols, func(n metrics.Needs) bool { return n == metrics.NeedsRotation && rotates })
}

// compareTables are compare's tables with the metric columns chosen (nil:
// every column the rows have, compareColumns).
func compareTables(out compareJSON, sessions int, chosen []string) []*report.Table {
	cols := pickColumns(compareColumns(out.Policies), chosen)
	ids := make([][]report.Cell, len(out.Policies))
	rows := make([]usdRow, len(out.Policies))
	for i, p := range out.Policies {
		ids[i] = []report.Cell{report.Str(p.Name), report.Int(int(p.Metrics["sessions"]))}
		rows[i] = usdRow{p.Metrics, p.UnpricedModels}
	}
	tables := []*report.Table{metricTable(fmt.Sprintf("Compare: %s over %s at each agent's defaults (calib metrics explains each column; sessions: those the policy can replay)", nouns(len(out.Policies), "policy", "policies"), nouns(sessions, "session", "sessions")),
		[]report.Column{report.TextCol("policy"), report.NumCol("sessions")}, cols, ids, rows)}
	if len(out.Sessions) > 0 {
		ids := make([][]report.Cell, len(out.Sessions))
		rows := make([]usdRow, len(out.Sessions))
		for i, s := range out.Sessions {
			ids[i] = []report.Cell{report.Str(s.Session), report.Str(s.Policy)}
			rows[i] = usdRow{s.Metrics, s.UnpricedModels}
		}
		tables = append(tables, metricTable("Per session", []report.Column{report.TextCol("session"), report.TextCol("policy")}, cols, ids, rows))
	}
	if len(out.Skipped) > 0 {
		sk := report.NewTable("Skipped (the policy cannot replay sessions of that format)", report.TextCol("policy"), report.TextCol("format"), report.NumCol("sessions"))
		for _, s := range out.Skipped {
			sk.AddRow(report.Str(s.Policy), report.Str(s.Format), report.Int(s.Sessions))
		}
		tables = append(tables, sk)
	}
	return tables
}

// compareCost is the cost axis: the bill through the prompt-cache model.
const compareCost = "billed_tokens"

// compareLoss is the loss axis: the hidden tool results the agent used
// later without fetching them back.
const compareLoss = "results_lost"

// compareFigures are cost against loss (one point per policy; the
// policies no other beats on both are joined and labeled), and bars of
// cost and of loss per policy, every policy labeled.
//
// Sums over different sessions do not compare: a policy that skipped some
// sessions is left out of the charts (the table has its row).
func compareFigures(out compareJSON, sessions int) ([]report.Figure, error) {
	all := out.Policies[:0:0]
	var left []string
	for _, p := range out.Policies {
		if n := int(p.Metrics["sessions"]); n == sessions {
			all = append(all, p)
		} else {
			left = append(left, fmt.Sprintf("%s (replays %d of the %d sessions)", p.Name, n, sessions))
		}
	}
	if len(all) == 0 {
		return nil, nil
	}
	out.Policies = all
	// A policy that replays only some sessions has no comparable sum: the
	// plots leave it out, and say so (the table has it).
	note := ""
	if len(left) > 0 {
		note = "\nleft out: " + strings.Join(left, ", ")
	}
	x := compareCost
	// Token sums run to tens of millions: in millions the axis labels do
	// not run into each other.
	scale, unit := 1.0, x
	for _, p := range all {
		if p.Metrics[x] >= 1e6 {
			scale, unit = 1e6, x+" (millions)"
		}
	}
	cost := report.StackedBars{Title: "Cost per policy: " + x + note, CategoryLabel: "policy", ValueLabel: unit, Stacks: []report.Stack{{Name: x}}}
	// The loss bars split each policy's hidden tool results by what the
	// agent did about them later: lost and refetched are disjoint (lost is
	// used without fetching back first), the rest were never needed.
	loss := report.StackedBars{Title: "Loss per policy: tool results hidden, by what the agent did later" + note, CategoryLabel: "policy", ValueLabel: "tool results", IntegerValues: true,
		Stacks: []report.Stack{{Name: "results_lost"}, {Name: "results_refetched"}, {Name: "hidden, not needed"}}}
	for _, p := range out.Policies {
		m := p.Metrics
		cost.Categories = append(cost.Categories, p.Name)
		loss.Categories = append(loss.Categories, p.Name)
		cost.Stacks[0].Values = append(cost.Stacks[0].Values, m[x]/scale)
		loss.Stacks[0].Values = append(loss.Stacks[0].Values, m["results_lost"])
		loss.Stacks[1].Values = append(loss.Stacks[1].Values, m["results_refetched"])
		loss.Stacks[2].Values = append(loss.Stacks[2].Values, max(0, m["results_hidden"]-m["results_lost"]-m["results_refetched"]))
	}
	scatter := compareScatter(out, x)
	scatter.Title += note
	return appendFigures(nil, namedChart{"compare-cost-loss", scatter},
		namedChart{"compare-cost", cost}, namedChart{"compare-loss", loss})
}

// compareScatter is cost x against loss, one point per policy, each
// labeled; the policies no other beats on both (lower is better on both)
// are joined.
func compareScatter(out compareJSON, x string) report.Pareto {
	y := compareLoss
	ys := make([]float64, len(out.Policies))
	for i, p := range out.Policies {
		ys[i] = p.Metrics[y]
	}
	c := report.Pareto{Title: fmt.Sprintf("Cost against loss, one point per policy (%s vs %s)", x, y), XLabel: x, YLabel: y,
		FrontName: "policies not beaten on both", RestName: "policies another beats on both", LabelRest: true,
		IntegerX: countMetric(x), IntegerY: countMetric(y)}
	for i, p := range out.Policies {
		front := true
		for j, q := range out.Policies {
			if i != j && q.Metrics[x] <= p.Metrics[x] && ys[j] <= ys[i] && (q.Metrics[x] < p.Metrics[x] || ys[j] < ys[i]) {
				front = false
				break
			}
		}
		c.Points = append(c.Points, report.ParetoPoint{X: p.Metrics[x], Y: ys[i], Label: p.Name, Front: front})
	}
	return c
}

// metricTable is a table of identifying cells (ids[i] for row i) followed
// by the chosen metric columns, usd marked where it covers only some of
// the row's sessions (usd.go).
func metricTable(title string, idCols []report.Column, cols []string, ids [][]report.Cell, rows []usdRow) *report.Table {
	t := report.NewTable(title, append(idCols, labelColumns(cols)...)...)
	notes := newUSDNotes(rows)
	for i, r := range rows {
		cells := metricCells(cols, r.values)
		notes.mark(cols, cells, r)
		t.AddRow(append(ids[i], cells...)...)
	}
	t.Notes = notes.notes(cols)
	return t
}

// nouns writes n and its noun, the singular for one ("1 policy").
func nouns(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
