package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
	"github.com/calib-dev/calib/report"
)

// replayFigures draws, for one session: the context per request with each
// compaction marked and the trigger and target lines when they are in
// context tokens, and a stacked bar of what each stage reclaimed in each
// compaction. name is the session's name in file names (sessionNames).
func replayFigures(t *replay.Trace, name string) ([]report.Figure, error) {
	if len(t.Requests) == 0 {
		return nil, nil
	}
	short := report.ShortIDs([]string{t.Session.ID})[0]
	var figs []report.Figure
	// A curve needs two requests: one drew a lone point on an axis from
	// -1 to 1 (seven one-request subagents of the real logs).
	if len(t.Requests) >= 2 {
		p, err := contextChart(t, short).Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: sessionPlotName("replay", name, "context"), Chart: p})
	}

	if t.Loss != nil && t.Loss.Hidden > 0 {
		tl, err := lossTimeline(t, short).Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: sessionPlotName("replay", name, "loss"), Chart: tl})
	}
	bars, ok := reclaimBars(t, short)
	if !ok {
		return figs, nil
	}
	bp, err := bars.Plot()
	if err != nil {
		return nil, err
	}
	return append(figs, report.Figure{Name: sessionPlotName("replay", name, "reclaim"), Chart: bp}), nil
}

// maxLives is the most result rows a loss timeline draws: beyond it rows
// are thinner than a line.
const maxLives = 80

// lossTimeline is each hidden result's life (arrived, hidden, needed,
// fetched back) under the context sent per request.
func lossTimeline(t *replay.Trace, short string) report.Timeline {
	n := len(t.Requests)
	tl := report.Timeline{X: make([]float64, n), Context: make([]float64, n)}
	for i, r := range t.Requests {
		tl.X[i], tl.Context[i] = float64(r.Index), float64(r.Context)
	}
	sigs := t.Loss.Signals
	shown := ""
	if len(sigs) > maxLives {
		shown = fmt.Sprintf(", the first %d of %d", maxLives, len(sigs))
		sigs = sigs[:maxLives]
	}
	for _, s := range sigs {
		tl.Lives = append(tl.Lives, report.Life{Arrived: float64(s.ArrivedRequest), Hidden: float64(s.Hide.Request),
			Needed: float64(s.NeededRequest), Refetched: float64(s.FetchedRequest), Lost: s.Lost})
	}
	tl.Title = fmt.Sprintf("%s: hidden tool results (%s): %d hidden, %d lost, %d fetched back%s",
		short, t.Policy, t.Loss.Hidden, t.Loss.Lost, t.Loss.Refetched, shown)
	return tl
}

// maxRefLines is the most trigger and target lines a context chart draws.
const maxRefLines = 4

// contextChart is the context per request: before compaction and sent,
// each compaction marked with its strategy's letter, and the trigger and
// target when the policy counts them in context tokens.
func contextChart(t *replay.Trace, short string) report.LineChart {
	n := len(t.Requests)
	x, before, sent := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range t.Requests {
		// The trigger's figures, which its line is drawn against.
		x[i], before[i], sent[i] = float64(r.Index), float64(r.ContextBefore), float64(r.Context)
	}
	chart := report.LineChart{
		Title:  fmt.Sprintf("%s: context per request (%s)", short, t.Policy),
		XLabel: "request", YLabel: "context tokens", IntegerX: true, ZeroY: true,
		Series: []report.Series{{Name: "before compaction", X: x, Y: before}, {Name: "sent", X: x, Y: sent}},
	}
	// Each trigger and target the compactions report, once: claude-code's
	// clears cross microcompact's trigger and its summaries
	// auto-compaction's. A trigger counted in another unit (tool-result
	// tokens, results) has no place on an axis of context tokens.
	drawn := map[string]bool{}
	ref := func(kind string, y int) {
		label := kind + " " + report.FormatInt(int64(y))
		if y > 0 && !drawn[label] && len(chart.Refs) < maxRefLines {
			drawn[label] = true
			chart.Refs = append(chart.Refs, report.RefLine{Y: float64(y), Label: label})
		}
	}
	for _, e := range t.Events {
		if o := &e.Outcome; o.TriggerTokens > 0 && o.TriggerUnit == "" {
			ref("trigger", o.TriggerTokens)
			if o.TargetTokens != o.TriggerTokens {
				ref("target", o.TargetTokens)
			}
		}
	}
	marks := map[string]bool{}
	for _, e := range t.Events {
		s := string(e.Outcome.Strategy)
		if policy.IsArrivalOnly(e.Outcome) {
			s = outputCapMark
		}
		marks[s] = true
		chart.Events = append(chart.Events, report.Event{X: float64(e.Request), Label: strategyMark(s)})
	}
	chart.EventName = eventNoun(t) + " (" + markLegend(marks) + ")"
	return chart
}

// reclaimBars is one bar per compaction, stacked by the tokens each stage
// reclaimed, stages in the order the policy ran them.
func reclaimBars(t *replay.Trace, short string) (report.StackedBars, bool) {
	var names []string
	idx := map[string]int{}
	for _, e := range t.Events {
		for _, s := range e.Outcome.Stages {
			if _, ok := idx[s.Name]; !ok {
				idx[s.Name] = len(names)
				names = append(names, s.Name)
			}
		}
	}
	if len(names) == 0 {
		return report.StackedBars{}, false
	}
	bars := report.StackedBars{
		Title:         fmt.Sprintf("%s: tokens reclaimed per %s (%s)", short, eventNoun(t), t.Policy),
		CategoryLabel: eventNoun(t) + " at request", ValueLabel: "tokens reclaimed", IntegerValues: true,
	}
	stacks := make([]report.Stack, len(names))
	for i, n := range names {
		stacks[i] = report.Stack{Name: n, Values: make([]float64, len(t.Events))}
	}
	for j, e := range t.Events {
		bars.Categories = append(bars.Categories, report.FormatInt(int64(e.Request)))
		for _, s := range e.Outcome.Stages {
			stacks[idx[s.Name]].Values[j] += float64(s.BeforeTokens - s.AfterTokens)
		}
	}
	bars.Stacks = stacks
	return bars, true
}

// outputCapMark stands for a preset's cap of arriving output among the
// strategies on charts: such an event is not a compaction
// (policy.IsArrivalOnly), and its mark says so ("O output cap").
const outputCapMark = "output cap"

// eventNoun names a trace's events on charts: compactions, or
// compactions and output caps when it has caps.
func eventNoun(t *replay.Trace) string {
	for _, e := range t.Events {
		if policy.IsArrivalOnly(e.Outcome) {
			return "compaction or output cap"
		}
	}
	return "compaction"
}

// strategyMark is the one-letter label of a compaction on charts.
func strategyMark(s string) string {
	if s == "" {
		return "?"
	}
	return strings.ToUpper(s[:1])
}

// markLegend explains the marks used: "S summarized, T truncated".
func markLegend(used map[string]bool) string {
	var parts []string
	for s := range used {
		parts = append(parts, strategyMark(s)+" "+s)
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// plotTrace is what replayFigures reads of t, nil when no plot is
// wanted. It outlives its job, so it must not pin the session's file:
// the loss report's signals point at the session's loss index (subjects,
// call ids) and a digest at its text, which point into the file's buffer.
func plotTrace(t *replay.Trace, plots bool) *replay.Trace {
	if !plots {
		return nil
	}
	k := &replay.Trace{Session: t.Session, Policy: t.Policy, Requests: t.Requests, Events: slices.Clone(t.Events)}
	for i := range k.Events {
		k.Events[i].Outcome.Digest = nil
	}
	if t.Loss != nil {
		k.Loss = &loss.Report{Counts: t.Loss.Counts, Signals: make([]*loss.Signal, len(t.Loss.Signals))}
		lives := make([]loss.Signal, len(t.Loss.Signals))
		for i, s := range t.Loss.Signals {
			lives[i] = loss.Signal{ArrivedRequest: s.ArrivedRequest, Hide: loss.Hide{Request: s.Hide.Request},
				NeededRequest: s.NeededRequest, FetchedRequest: s.FetchedRequest, Lost: s.Lost}
			k.Loss.Signals[i] = &lives[i]
		}
	}
	return k
}
