package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/replay/loss"
	"github.com/calib-dev/calib/report"
)

// replayOptions are the flags of `calib replay`.
type replayOptions struct {
	policy          string
	set             []string
	compareRecorded bool
	lossDetail      bool
	jobs            int
	cost            costFlags
	columns         columnsFlag
}

// policyFlags adds --policy and --set, shared by replay, sweep and
// digest-growth. Only a command whose default is "auto" accepts auto, so
// only its completion offers it.
func policyFlags(cmd *cobra.Command, name *string, set *[]string, def string) {
	cmd.Flags().StringVarP(name, "policy", "p", def, "compaction `POLICY` (calib policies lists them)")
	cmd.Flags().StringArrayVar(set, "set", nil, "set policy parameters: `name=value[,name=value]` (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("policy", func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if def == "auto" {
			return append(policy.Names(), "auto"), cobra.ShellCompDirectiveNoFileComp
		}
		return policy.Names(), cobra.ShellCompDirectiveNoFileComp
	})
}

// policyResolver builds policies once per name, validating --set up front.
type policyResolver struct {
	name string
	set  map[string]string
	// cost are the cost layer's --set values (cache_*, model=), which
	// every policy accepts.
	cost map[string]string
	byID map[string]policy.Policy
}

func newPolicyResolver(name string, setFlags []string) (*policyResolver, error) {
	set, err := policy.ParseSet(setFlags)
	if err != nil {
		return nil, &usageError{fmt.Errorf("--set %w", err)}
	}
	cost, set := splitCostSet(set)
	r := &policyResolver{name: name, set: set, cost: cost, byID: map[string]policy.Policy{}}
	if name == "auto" {
		if len(set) > 0 {
			return nil, usageErrorf("--set needs an explicit --policy (with --policy auto each session gets its own agent's policy)")
		}
		return r, nil
	}
	if _, err := r.get(name); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *policyResolver) get(name string) (policy.Policy, error) {
	if p, ok := r.byID[name]; ok {
		return p, nil
	}
	p, err := policy.New(name, r.set)
	if err != nil {
		return nil, &usageError{err}
	}
	r.byID[name] = p
	return p, nil
}

// forSession is the policy that replays s.
func (r *policyResolver) forSession(s *corpus.Session) (policy.Policy, error) {
	if r.name == "auto" {
		return r.get(policy.ForFormat(s.Format))
	}
	return r.get(r.name)
}

type policyRef struct {
	Name   string        `json:"name"`
	Params policy.Params `json:"params"`
}

type replayJSON struct {
	Policy policyRef          `json:"policy"`
	Events []metrics.EventRow `json:"events"`
	// eventPaths is each event's session file, for the path column.
	eventPaths []string
	Sessions   []replaySessionJSON `json:"sessions"`
	// Agreement compares the policy with the clearing events the agent
	// recorded (Claude Code microcompact), with --compare-recorded.
	Agreement *agreementJSON `json:"agreement,omitempty"`
	// Cost is each session's bill through the prompt-cache model, and
	// CostAgreement (--compare-recorded) its agreement with the usage the
	// provider recorded.
	Cost          []costSessionJSON `json:"cost"`
	CostAgreement *cache.Agreement  `json:"cost_agreement,omitempty"`
	// Losses lists every hidden tool result the agent later lost or
	// fetched back (the --loss-detail table).
	Losses []metrics.LossDetail `json:"losses"`
}

type agreementJSON struct {
	Summary metrics.AgreementSummary `json:"summary"`
	Events  []metrics.AgreementRow   `json:"events"`
	// Compactions judges every recorded full compaction (Claude Code
	// boundary or summary, Codex compacted) against the replay's own.
	Compactions        []replay.CompactionAgreement `json:"compactions"`
	CompactionsSummary metrics.CompactionSummary    `json:"compactions_summary"`
}

type replaySessionJSON struct {
	metrics.SessionRow
	Policy string        `json:"policy"`
	Params policy.Params `json:"params"`
	Path   string        `json:"path"`
	// Metrics are the session's values of the metric registry
	// (metrics.SessionMetrics), by name as sweep rows carry them; the
	// session table's metric columns come from here.
	Metrics map[string]float64 `json:"metrics"`
	Compare *replay.Divergence `json:"compare_recorded,omitempty"`
	// Rederived re-derives each digest clai recorded (clai-rotation only).
	Rederived []replay.Rederived `json:"rederived,omitempty"`
	// recorded says what else the agent recorded (recordedNote).
	recorded string
}

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

// autoPolicies lists which policy --policy auto gives each format, from
// the policies' own Def.Formats, so help follows the registry.
func autoPolicies() string {
	var b strings.Builder
	line := func(formats, name string) { fmt.Fprintf(&b, "  %-34s %s\n", formats, name) }
	for _, d := range policy.Defs() {
		if len(d.Formats) > 0 {
			fs := make([]string, len(d.Formats))
			for i, f := range d.Formats {
				fs[i] = string(f)
			}
			line(strings.Join(fs, ", "), d.Name)
		}
	}
	line("any other format", policy.ForFormat(""))
	return b.String()
}

func newReplayCmd(a *app) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay PATH...",
		Short: "Replay recorded sessions through a compaction policy",
		Long: `Replay each session through a compaction policy, checkpoint by checkpoint,
as the agent would have run it, and report one row per compaction (tokens
before and after, target, what each stage reclaimed) and one per session
(compactions, peak context, tokens sent across all requests, results
mangled or dropped, invariant violations).

--policy auto (the default) replays each session with its own agent's
policy at that agent's defaults, by the format of its recording:
` + autoPolicies() + `
--compare-recorded also compares the replay with what the agent recorded:
smith's compacted session.json, clai's stored digests (re-derived from the
database's rows), Claude Code's cleared ids, and the request of every
recorded full compaction.

--columns NAMES keeps only the named metric columns of the sessions table,
in that order (JSON always carries every metric).

Exit status is 1 when a policy broke an invariant (a tool_use lost its
result, a message was emptied, the current turn was rewritten, or a
compaction was claimed that did not happen).`,
		Example: `  calib replay --demo
  calib replay ~/.smith/sessions --policy smith-staged --set compact_at=0.7,window_turns=2
  calib replay session/ --compare-recorded --format json
  calib replay --demo --columns tokens_sent,compactions,results_lost`,
		GroupID: groupAnalysis,
		Args:    pathArgs(a),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(cmd.Context(), a, o, args)
		},
	}
	policyFlags(cmd, &o.policy, &o.set, "auto")
	cmd.Flags().BoolVar(&o.compareRecorded, "compare-recorded", false, "compare the replay with what the agent recorded")
	cmd.Flags().BoolVar(&o.lossDetail, "loss-detail", false, "list every hidden tool result the agent later lost or fetched back")
	cmd.Flags().IntVarP(&o.jobs, "jobs", "j", 0, "sessions replayed at once (0: one per core)")
	addCostFlags(cmd, &o.cost)
	addColumnsFlag(cmd, &o.columns, "all")
	return cmd
}

func runReplay(ctx context.Context, a *app, o *replayOptions, args []string) error {
	res, err := newPolicyResolver(o.policy, o.set)
	if err != nil {
		return err
	}
	cs, err := newCostSetup(o.cost, res.cost)
	if err != nil {
		return err
	}
	cols, err := o.columns.resolve(nil, nil)
	if err != nil {
		return err
	}
	// auto may give a clai database clai-rotation, whose sessions have
	// digest figures; agreement needs --compare-recorded.
	rotates := o.policy == "auto"
	if d, err := policy.Lookup(o.policy); err == nil {
		rotates = d.Rotates
	}
	have := func(n metrics.Needs) bool {
		return n == metrics.NeedsRotation && rotates || n == metrics.NeedsCompare && o.compareRecorded
	}
	if err := producedColumns(cols, have); err != nil {
		return err
	}
	l, err := a.loadSessions(ctx, args)
	if err != nil {
		return err
	}
	pols := make([]policy.Policy, len(l.Sessions))
	for i, s := range l.Sessions {
		if pols[i], err = res.forSession(s); err != nil {
			return err
		}
	}
	results, _, err := replay.Map(ctx, len(l.Sessions), o.jobs, func(ctx context.Context, i int) (replayResult, error) {
		s, p := l.Sessions[i], pols[i]
		t, err := replay.Run(ctx, s, p, replay.Options{KeepFinal: true, Loss: loss.Build(s, loss.Options{})})
		if err != nil {
			return replayResult{}, err
		}
		sc, err := cs.cost(t)
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
		r.session.Metrics = metrics.SessionMetrics(t, r.agreement, r.compactions)
		if o.compareRecorded {
			r.session.recorded = recordedNote(s, r.session.Compactions, r.agreement, p.Name())
		}
		t.Final = nil // keep only what the plots need
		return r, nil
	}, nil)
	if err != nil {
		return err
	}

	out := replayJSON{Events: []metrics.EventRow{}, Sessions: []replaySessionJSON{}, Losses: []metrics.LossDetail{}}
	if o.policy == "auto" {
		out.Policy = policyRef{Name: "auto", Params: policy.Params{}}
		if names := distinctPolicies(results); len(names) == 1 {
			p, _ := res.get(names[0])
			out.Policy = policyRef{Name: p.Name(), Params: p.Params()}
		}
	} else {
		p, _ := res.get(o.policy)
		out.Policy = policyRef{Name: p.Name(), Params: p.Params()}
	}
	var violations []string
	var violationFiles []string
	var agreements []replay.Agreement
	var compactions []replay.CompactionAgreement
	var costs []*cache.SessionCost
	var costAgree []cache.SessionAgreement
	out.Cost = []costSessionJSON{}
	for i, r := range results {
		costs = append(costs, r.cost)
		out.Cost = append(out.Cost, costSession(r.cost))
		if r.cost.Agreement != nil {
			costAgree = append(costAgree, *r.cost.Agreement)
		}
		if r.agreement != nil {
			agreements = append(agreements, *r.agreement)
		}
		compactions = append(compactions, r.compactions...)
		out.Events = append(out.Events, r.events...)
		for range r.events {
			out.eventPaths = append(out.eventPaths, r.session.Path)
		}
		out.Sessions = append(out.Sessions, r.session)
		out.Losses = append(out.Losses, r.losses...)
		for _, v := range r.session.ViolationList {
			violations = append(violations, fmt.Sprintf("session %s, request %d: %s: %s", r.session.ID, v.Request, v.Rule, v.Detail))
			violationFiles = append(violationFiles, l.Sessions[i].Path)
		}
	}
	if len(agreements) > 0 || len(compactions) > 0 {
		out.Agreement = &agreementJSON{Summary: metrics.SummarizeAgreement(agreements), Events: metrics.AgreementRows(agreements),
			Compactions: compactions, CompactionsSummary: metrics.SummarizeCompactions(compactions)}
	}
	tables := append(replayTables(out, o.compareRecorded, csvUSDColumns(cols, a.Format)), costTables(costs)...)
	if o.compareRecorded {
		ca := cache.Summarize(costAgree)
		out.CostAgreement = &ca
		if len(costAgree) > 0 {
			tables = append(tables, costAgreementTables(ca)...)
		}
	}
	if o.lossDetail {
		tables = append(tables, lossDetailTable(out.Losses))
	}
	doc := report.Doc{JSON: out, Tables: tables}
	for i, v := range violations {
		doc.Annotations = append(doc.Annotations, sessionError(violationFiles[i], "invariant violated", v))
	}
	if err := a.write(doc); err != nil {
		return err
	}
	if a.plotsWanted() {
		var figs []report.Figure
		names := sessionNames(l.Sessions)
		for i, r := range results {
			f, err := replayFigures(r.trace, names[i])
			if err != nil {
				return err
			}
			figs = append(figs, f...)
			if f, err = costFigures(r.cost, names[i], o.compareRecorded); err != nil {
				return err
			}
			figs = append(figs, f...)
		}
		if err := a.savePlots(figs...); err != nil {
			return err
		}
	}
	if len(violations) > 0 {
		return gateFailed("%d invariant violation(s); first: %s", len(violations), violations[0])
	}
	return l.Err()
}

func distinctPolicies(rs []replayResult) []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range rs {
		if !seen[r.session.Policy] {
			seen[r.session.Policy] = true
			names = append(names, r.session.Policy)
		}
	}
	sort.Strings(names)
	return names
}

// replayTables are replay's tables; chosen are the session table's metric
// columns (nil: every column the sessions have).
func replayTables(out replayJSON, compare bool, chosen []string) []*report.Table {
	rows := make([]metrics.SessionRow, len(out.Sessions))
	pols := make([]string, len(out.Sessions))
	ids := make([]string, len(out.Sessions))
	for i, s := range out.Sessions {
		rows[i], pols[i], ids[i] = s.SessionRow, s.Policy, s.ID
	}
	withPath := idsRepeat(ids)
	stages := stageColumns(pols, rows, out.Events)

	cols := []report.Column{report.TextCol("session")}
	if withPath {
		cols = append(cols, report.TextCol("path"))
	}
	cols = append(cols, report.NumCol("#"), report.NumCol("request"), report.NumCol("turn"),
		report.TextCol("strategy"), report.NumCol("before"), report.NumCol("after"), report.NumCol("target"),
		report.TextCol("reached"), report.TextCol("exhausted"))
	for _, s := range stages {
		cols = append(cols, report.NumCol(s))
	}
	cols = append(cols, report.TextCol("blocks touched"), report.TextCol("hidden (lost)"))
	ev := report.NewTable(fmt.Sprintf("Compactions (policy %s; stage columns are tokens reclaimed; hidden (lost) are tool results per stage)", out.Policy.Name), cols...)
	for i, e := range out.Events {
		// A rotation has no token target (clai rotates on its own
		// trigger and keeps a fixed tail): show none rather than a miss.
		target, reached := report.Int(e.TargetTokens), report.Str(yesNo(e.ReachedTarget))
		if e.TargetTokens == 0 && e.Strategy == string(policy.Rotated) {
			target, reached = report.Str("-"), report.Str("-")
		}
		cells := []report.Cell{report.Str(e.Session)}
		if withPath {
			cells = append(cells, report.Str(out.eventPaths[i]))
		}
		cells = append(cells, report.Int(e.Index+1), report.Int(e.Checkpoint), report.Int(e.Turn),
			report.Str(e.Strategy), report.Int(e.BeforeTokens), report.Int(e.AfterTokens), target, reached, report.Str(yesNo(e.Exhausted)))
		var touched, hid []string
		for _, name := range stages {
			c := report.Empty()
			for _, st := range e.Stages {
				if st.Name == name {
					c = report.Int(st.Reclaimed)
					touched = append(touched, fmt.Sprintf("%s:%d", st.Name, st.BlocksTouched))
					if st.Loss != nil && st.Loss.Hidden > 0 {
						hid = append(hid, fmt.Sprintf("%s:%d (%d)", st.Name, st.Loss.Hidden, st.Loss.Lost))
					}
				}
			}
			cells = append(cells, c)
		}
		cells = append(cells, report.Str(strings.Join(touched, " ")), report.Str(strings.Join(hid, " ")))
		ev.AddRow(cells...)
	}

	// The metric columns are the registry's (metrics.Columns): a metric
	// with a per-session value gets its column here without more code.
	// Stage columns come in the policy's stage order (stageColumns), as
	// in the compactions table.
	var present []string
	for _, name := range stages {
		present = append(present, "reclaimed_"+name)
	}
	for _, s := range out.Sessions {
		for _, k := range slices.Sorted(maps.Keys(s.Metrics)) {
			present = append(present, k)
		}
	}
	mcols := pickColumns(metrics.Columns(present, stages), chosen)
	cols = []report.Column{report.TextCol("session")}
	if withPath {
		cols = append(cols, report.TextCol("path"))
	}
	cols = append(cols, report.TextCol("policy"), report.NumCol("messages"), report.NumCol("requests"))
	cols = append(cols, labelColumns(mcols)...)
	if compare {
		cols = append(cols, report.TextCol("recorded"))
	}
	st := report.NewTable("Sessions (stage columns are tokens reclaimed; mangled/dropped are tool results; calib metrics explains each column)", cols...)
	// The bill's metrics are the cost table's (out.Cost, one per session
	// in the same order); a --columns naming one shows it here too, its
	// usd marked as every usd cell is.
	usd := make([]usdRow, len(out.Sessions))
	for i, s := range out.Sessions {
		usd[i].values = s.Metrics
		if i < len(out.Cost) {
			c := out.Cost[i]
			usd[i].values = maps.Clone(s.Metrics)
			maps.Copy(usd[i].values, c.Metrics)
			if !c.Priced {
				usd[i].models = []string{c.Model}
			}
		}
	}
	notes := newUSDNotes(usd)
	for i, s := range out.Sessions {
		cells := []report.Cell{report.Str(s.ID)}
		if withPath {
			cells = append(cells, report.Str(s.Path))
		}
		cells = append(cells, report.Str(s.Policy), report.Int(s.Messages), report.Int(s.Requests))
		mcells := metricCells(mcols, usd[i].values)
		notes.mark(mcols, mcells, usd[i])
		cells = append(cells, mcells...)
		if compare {
			cells = append(cells, report.Str(compareCell(s)))
		}
		st.AddRow(cells...)
	}
	st.Notes = notes.notes(mcols)
	tables := []*report.Table{ev, st}
	if out.Agreement != nil {
		tables = append(tables, agreementTables(out.Agreement)...)
	}
	return tables
}

// lossDetailTable is --loss-detail: every hidden result the agent later
// lost or fetched back, with the request (and log line) of each moment.
func lossDetailTable(ds []metrics.LossDetail) *report.Table {
	t := report.NewTable("Lost or refetched tool results (request/line; needed by: name or quote)",
		report.TextCol("session"), report.TextCol("tool call id"), report.TextCol("tool"), report.TextCol("subject"),
		report.TextCol("stage"), report.TextCol("hidden at"), report.TextCol("needed at"), report.TextCol("by"),
		report.TextCol("refetched at"), report.TextCol("lost"))
	at := func(a *metrics.LossAt) string {
		if a == nil {
			return "-"
		}
		return fmt.Sprintf("%d/L%d", a.Request, a.Line)
	}
	for _, d := range ds {
		t.AddRow(report.Str(d.Session), report.Str(d.ToolCallID), report.Str(d.Tool), report.Str(d.Subject), report.Str(d.Stage),
			report.Str(at(&d.HiddenAt)), report.Str(at(d.NeededAt)), report.Str(d.NeededBy), report.Str(at(d.RefetchedAt)), report.Str(yesNo(d.Lost)))
	}
	return t
}

func agreementTables(a *agreementJSON) []*report.Table {
	t := report.NewTable("Agreement with the recorded clearing events (ids: cleared by the agent / by the policy; tokens: recorded / predicted)",
		report.TextCol("session"), report.NumCol("line"), report.TextCol("fired"), report.NumCol("agent ids"), report.NumCol("policy ids"),
		report.NumCol("missing"), report.NumCol("extra"), report.TextCol("exact"), report.NumCol("jaccard"),
		report.NumCol("before rec"), report.NumCol("before pred"), report.NumCol("saved rec"), report.NumCol("saved pred"))
	for _, e := range a.Events {
		t.AddRow(report.Str(e.Session), report.Int(e.Line), report.Str(yesNo(e.Fired)), report.Int(e.Recorded), report.Int(e.Predicted),
			report.Int(len(e.Missing)), report.Int(len(e.Extra)), report.Str(yesNo(e.Exact)), report.Float(e.Jaccard, 3),
			report.Int(e.RecordedBefore), report.Int(e.PredictedBefore), report.Int(e.RecordedSaved), report.Int(e.PredictedSaved))
	}
	s := a.Summary
	sum := report.NewTable("Agreement summary",
		report.NumCol("events"), report.NumCol("exact"), report.NumCol("mean jaccard"), report.NumCol("mean |saved error|"),
		report.NumCol("mean |before error|"), report.NumCol("checkpoints"), report.NumCol("trigger agreement"))
	sum.AddRow(report.Int(s.Events), report.Int(s.Exact), report.Float(s.MeanJaccard, 3), report.Float(s.MeanAbsSavedError, 1),
		report.Float(s.MeanAbsBeforeError, 1), report.Int(s.Checkpoints), report.Float(s.TriggerAgreement, 3))
	var out []*report.Table
	if len(a.Events) > 0 {
		out = append(out, t, sum)
	}
	if len(a.Compactions) == 0 {
		return out
	}
	c := report.NewTable("Agreement with the recorded full compactions (request before which each compacted; tokens each measured)",
		report.TextCol("session"), report.NumCol("line"), report.Col("kind"), report.NumCol("recorded request"),
		report.NumCol("predicted request"), report.NumCol("recorded tokens"), report.NumCol("predicted tokens"))
	for _, e := range a.Compactions {
		c.AddRow(report.Str(e.Session), report.Int(e.Line), report.Str(e.Kind), report.Int(e.RecordedRequest),
			optInt(e.PredictedRequest), optInt(e.RecordedTokens), optInt(e.PredictedTokens))
	}
	cs := a.CompactionsSummary
	csum := report.NewTable("Full-compaction agreement summary",
		report.NumCol("events"), report.NumCol("predicted"), report.NumCol("within ±1 request"), report.NumCol("timing"),
		report.NumCol("events with tokens"), report.NumCol("mean |token error|"))
	csum.AddRow(report.Int(cs.Events), report.Int(cs.Predicted), report.Int(cs.WithinOne), report.Float(cs.Timing, 3),
		report.Int(cs.TokenEvents), report.Float(cs.MeanTokenError, 1))
	return append(out, c, csum)
}

// optInt is a figure that may be absent ("none").
func optInt(v *int) report.Cell {
	if v == nil {
		return report.Str("none")
	}
	return report.Int(*v)
}

func compareCell(s replaySessionJSON) string {
	d := s.Compare
	switch {
	case len(s.Rederived) > 0:
		count := map[string]int{}
		var variants []string // the variants that rendered them (replay.Rederive)
		for _, r := range s.Rederived {
			count[r.Verdict]++
			if r.Variant != "" && !slices.Contains(variants, r.Variant) {
				variants = append(variants, r.Variant)
			}
		}
		out := fmt.Sprintf("%d of %d recorded digests re-derived byte for byte", count[replay.RederiveMatch], len(s.Rederived))
		if len(variants) > 0 {
			slices.Sort(variants)
			out += " (rendered as " + strings.Join(variants, " and ") + ")"
		}
		for _, v := range []string{replay.RederiveMismatch, replay.RederiveWindow, replay.RederiveSkipped} {
			if count[v] > 0 {
				out += fmt.Sprintf(", %d %s", count[v], v)
			}
		}
		return out
	case d == nil:
		return s.recorded
	case d.Match:
		return fmt.Sprintf("identical (%d messages)", d.Recorded)
	}
	return fmt.Sprintf("differs at message %d: %s", d.Index, d.What)
}
