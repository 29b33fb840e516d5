package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/cache"
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
	// mu guards byID: replay resolves each session's policy in its job.
	mu   sync.Mutex
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
	r.mu.Lock()
	defer r.mu.Unlock()
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

// forSession is the policy that replays s (sessionPolicy).
func (r *policyResolver) forSession(s *corpus.Session) (policy.Policy, error) {
	name := r.name
	if name == "auto" {
		name = policy.ForFormat(s.Format)
	}
	p, err := r.get(name)
	if err != nil {
		return nil, err
	}
	def, err := policy.Lookup(name)
	if err != nil {
		return nil, err
	}
	return sessionPolicy(def, r.set, p, s)
}

// sessionPolicy is p, built from def and set, for replaying s: p itself,
// or, when p meters with o200k, the same policy built for s alone with s's
// count memo. An o200k meter's own memo lives as long as its policy and
// keeps every string it counted: one policy for a whole replay kept the
// corpus's long strings, and a replay of 201 MB peaked at 515 MB (230 MB
// now; 174 MB with bytes4). chars4 keeps nothing, and a policy per session
// costs each its own scratch (a chars4 replay of the same corpus went from
// 175 to 273 MB), so those share one policy.
func sessionPolicy(def policy.Def, set map[string]string, p policy.Policy, s *corpus.Session) (policy.Policy, error) {
	if policy.MeterOf(p) != policy.MeterO200k {
		return p, nil
	}
	return def.Build(set, policy.NewTokenMemo([]*corpus.Session{s}))
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
	job, err := newReplayJob(o, a.plotsWanted())
	if err != nil {
		return err
	}
	replays := newSessionJobs(ctx, job.jobs, job.run)
	defer replays.close()
	l, err := a.loadSessionsEach(ctx, args, replays.add)
	if err != nil {
		return err
	}
	results, err := replays.results(l.Sessions)
	if err != nil {
		return err
	}
	rep := assembleReplay(results, l.Sessions, o, job.res)

	doc := report.Doc{JSON: rep.out}
	// JSON carries everything the tables show: they are built only for
	// the other formats (a replay of 201 MB of sessions spent 20 ms and
	// 5 MB on tables nobody read).
	if a.Format != report.JSON {
		doc.Tables = append(replayTables(rep.out, o.compareRecorded, csvUSDColumns(cols, a.Format)), costTables(rep.costs)...)
		if o.compareRecorded && len(rep.out.CostAgreement.Sessions) > 0 {
			doc.Tables = append(doc.Tables, costAgreementTables(*rep.out.CostAgreement)...)
		}
		if o.lossDetail {
			doc.Tables = append(doc.Tables, lossDetailTable(rep.out.Losses))
		}
	}
	for i, v := range rep.violations {
		doc.Annotations = append(doc.Annotations, sessionError(rep.violationFiles[i], "invariant violated", v))
	}
	err = a.writeWithPlots(doc, func() ([]report.Figure, error) {
		var figs []report.Figure
		names := sessionNames(l.Sessions)
		for i, r := range results {
			f, err := replayFigures(r.trace, names[i])
			if err != nil {
				return nil, err
			}
			figs = append(figs, f...)
			if f, err = costFigures(r.cost, names[i], o.compareRecorded); err != nil {
				return nil, err
			}
			figs = append(figs, f...)
		}
		return figs, nil
	})
	if err != nil {
		return err
	}
	var gate error
	if len(rep.violations) > 0 {
		gate = gateFailed("%d invariant violation(s); first: %s", len(rep.violations), rep.violations[0])
	}
	return l.verdict(gate)
}

// replayReport is a replay's results put together for the report.
type replayReport struct {
	out   replayJSON
	costs []*cache.SessionCost
	// violations are the invariant violations, each with its session's
	// file in violationFiles.
	violations, violationFiles []string
}

// assembleReplay puts the sessions' results, in the order of sessions,
// into one report.
func assembleReplay(results []replayResult, sessions []*corpus.Session, o *replayOptions, res *policyResolver) replayReport {
	// The lists are sized once: a large replay's report holds tens of
	// thousands of losses, and growing out.Losses by appending cost four
	// times its size in memory.
	nEvents, nLosses := 0, 0
	for _, r := range results {
		nEvents += len(r.events)
		nLosses += len(r.losses)
	}
	rep := replayReport{costs: make([]*cache.SessionCost, 0, len(results))}
	out := &rep.out
	*out = replayJSON{Events: make([]metrics.EventRow, 0, nEvents), eventPaths: make([]string, 0, nEvents),
		Sessions: make([]replaySessionJSON, 0, len(results)), Losses: make([]metrics.LossDetail, 0, nLosses),
		Cost: make([]costSessionJSON, 0, len(results))}
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
	var agreements []replay.Agreement
	var compactions []replay.CompactionAgreement
	var costAgree []cache.SessionAgreement
	for i, r := range results {
		rep.costs = append(rep.costs, r.cost)
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
			rep.violations = append(rep.violations, fmt.Sprintf("session %s, request %d: %s: %s", r.session.ID, v.Request, v.Rule, v.Detail))
			rep.violationFiles = append(rep.violationFiles, sessions[i].Path)
		}
	}
	if len(agreements) > 0 || len(compactions) > 0 {
		out.Agreement = &agreementJSON{Summary: metrics.SummarizeAgreement(agreements), Events: metrics.AgreementRows(agreements),
			Compactions: compactions, CompactionsSummary: metrics.SummarizeCompactions(compactions)}
	}
	if o.compareRecorded {
		ca := cache.Summarize(costAgree)
		out.CostAgreement = &ca
	}
	return rep
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
