package main

import (
	"fmt"
	"strconv"

	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/report"
)

// costFigures draws, for one session: every request's prompt stacked by
// how it was billed (cache read, cache write, uncached input, and the
// summarizer's calls), compactions marked in the labels; and with
// --compare-recorded, recorded against predicted per request. name is the
// session's unique plot name (sessionNames).
func costFigures(sc *cache.SessionCost, name string, compare bool) ([]report.Figure, error) {
	if len(sc.Requests) == 0 {
		return nil, nil
	}
	short := report.ShortIDs([]string{sc.Session})[0]
	compacted := map[int]bool{}
	for _, c := range sc.Compactions {
		compacted[c.Request] = true
	}
	n := len(sc.Requests)
	cats := make([]string, n)
	// A compaction's label stays when labels are thinned. A summarizer
	// call, right before its compaction, has its colour and no label: kept
	// labels stand k or more apart, and its "S", placed first, took the
	// place of the C after it (the demo's 22C, 35C and 49C went
	// unlabelled).
	keep := make([]bool, n)
	summarized := false
	read, write, unc, summ := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, r := range sc.Requests {
		switch {
		case r.Reason == cache.ReasonSummarizer:
			summ[i], summarized = float64(r.Tokens.Prompt()), true
			continue
		case compacted[r.Request]:
			cats[i], keep[i] = strconv.Itoa(r.Request)+"C", true
		default:
			cats[i] = strconv.Itoa(r.Request)
		}
		read[i], write[i], unc[i] = float64(r.Read), float64(r.Write()), float64(r.Uncached)
	}
	// The title and legend name only what the chart shows.
	title := fmt.Sprintf("%s: prompt per request by billing", short)
	if len(sc.Compactions) > 0 {
		title += " (C: a compaction's request)"
	}
	stacks := []report.Stack{{Name: "cache read", Values: read}, {Name: "cache write", Values: write}, {Name: "uncached", Values: unc}}
	if summarized {
		stacks = append(stacks, report.Stack{Name: "summarizer call", Values: summ})
	}
	bars := report.StackedBars{Title: title, CategoryLabel: "request", ValueLabel: "input tokens", Categories: cats, Keep: keep,
		IntegerValues: true, Stacks: stacks}
	p, err := bars.Plot()
	if err != nil {
		return nil, err
	}
	figs := []report.Figure{{Name: sessionPlotName("replay", name, "cost"), Chart: p}}
	if !compare || sc.Agreement == nil || len(sc.Agreement.PerRequest) == 0 {
		return figs, nil
	}
	a := sc.Agreement
	m := len(a.PerRequest)
	x := make([]float64, m)
	series := func(name string, f func(cache.RequestAgreement) int) report.Series {
		y := make([]float64, m)
		for i, r := range a.PerRequest {
			y[i] = float64(f(r))
		}
		return report.Series{Name: name, X: x, Y: y}
	}
	for i, r := range a.PerRequest {
		x[i] = float64(r.Request)
	}
	chart := report.LineChart{
		Title:  fmt.Sprintf("%s: recorded vs predicted per request (billed error %s)", short, signedPct(a.BilledError)),
		XLabel: "request", YLabel: "tokens", IntegerX: true, ZeroY: true, Markers: true,
		Series: []report.Series{
			series("recorded read", func(r cache.RequestAgreement) int { return r.Recorded.CacheReadTokens }),
			series("predicted read", func(r cache.RequestAgreement) int { return r.Predicted.CacheReadTokens }),
			series("recorded write", func(r cache.RequestAgreement) int { return r.Recorded.CacheWriteTokens }),
			series("predicted write", func(r cache.RequestAgreement) int { return r.Predicted.CacheWriteTokens }),
			series("recorded uncached", func(r cache.RequestAgreement) int { return r.Recorded.InputTokens }),
			series("predicted uncached", func(r cache.RequestAgreement) int { return r.Predicted.InputTokens }),
		},
	}
	for _, c := range sc.Compactions {
		chart.Events = append(chart.Events, report.Event{X: float64(c.Request), Label: "C"})
	}
	if len(chart.Events) > 0 {
		chart.EventName = "compaction"
	}
	lp, err := chart.Plot()
	if err != nil {
		return nil, err
	}
	return append(figs, report.Figure{Name: sessionPlotName("replay", name, "cost-agreement"), Chart: lp}), nil
}
