package main

import (
	"fmt"

	"gonum.org/v1/plot/plotter"

	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/report"
)

// replayFigures draws, for one session: the context per request with the
// trigger and target lines and each compaction marked, and a stacked bar of
// what each stage reclaimed in each compaction.
func replayFigures(t *replay.Trace) ([]report.Figure, error) {
	if len(t.Requests) == 0 {
		return nil, nil
	}
	before := make(plotter.XYs, len(t.Requests))
	sent := make(plotter.XYs, len(t.Requests))
	for i, r := range t.Requests {
		before[i] = plotter.XY{X: float64(r.Index), Y: float64(r.Tokens)}
		sent[i] = plotter.XY{X: float64(r.Index), Y: float64(r.Sent)}
	}
	chart := report.LineChart{
		Title:  fmt.Sprintf("%s: context per request (%s)", t.Session.ID, t.Policy),
		XLabel: "request", YLabel: "tokens",
		Series: []report.Series{{Name: "context before compaction", Points: before}, {Name: "sent", Points: sent}},
	}
	last := float64(t.Requests[len(t.Requests)-1].Index)
	for _, e := range t.Events {
		o := e.Outcome
		if o.TriggerTokens > 0 && len(chart.Series) == 2 {
			chart.Series = append(chart.Series,
				report.Series{Name: fmt.Sprintf("trigger %d", o.TriggerTokens), Points: plotter.XYs{{X: 0, Y: float64(o.TriggerTokens)}, {X: last, Y: float64(o.TriggerTokens)}}},
				report.Series{Name: fmt.Sprintf("target %d", o.TargetTokens), Points: plotter.XYs{{X: 0, Y: float64(o.TargetTokens)}, {X: last, Y: float64(o.TargetTokens)}}})
		}
		chart.Events = append(chart.Events, report.Event{X: float64(e.Request), Label: strategyMark(string(o.Strategy))})
	}
	p, err := chart.Plot()
	if err != nil {
		return nil, err
	}
	figs := []report.Figure{{Name: "replay-" + t.Session.ID + "-context", Plot: p}}

	if len(t.Events) == 0 {
		return figs, nil
	}
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
		return figs, nil
	}
	bars := report.StackedBars{
		Title:  fmt.Sprintf("%s: tokens reclaimed per stage (%s)", t.Session.ID, t.Policy),
		XLabel: "compaction (request)", YLabel: "tokens reclaimed",
	}
	stacks := make([]report.Stack, len(names))
	for i, n := range names {
		stacks[i] = report.Stack{Name: n, Values: make([]float64, len(t.Events))}
	}
	for j, e := range t.Events {
		bars.Categories = append(bars.Categories, fmt.Sprintf("#%d r%d", j+1, e.Request))
		for _, s := range e.Outcome.Stages {
			stacks[idx[s.Name]].Values[j] += float64(s.BeforeTokens - s.AfterTokens)
		}
	}
	bars.Stacks = stacks
	bp, err := bars.Plot()
	if err != nil {
		return nil, err
	}
	return append(figs, report.Figure{Name: "replay-" + t.Session.ID + "-reclaim", Plot: bp}), nil
}

// strategyMark is the one-letter label of a compaction on charts.
func strategyMark(s string) string {
	if s == "" {
		return "?"
	}
	return string(s[0] - 'a' + 'A')
}
