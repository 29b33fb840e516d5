package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// sweepFigures draws the sweep: a heat map of one metric over the first two
// swept parameters (index coordinates, so uneven grids keep equal cells), a
// line chart of the metric against the first parameter (one line per value
// of the second, if any), and with --pareto every set on the two metrics
// with the Pareto front drawn as a line, its points labeled with their set.
func sweepFigures(rep *sweep.Report, metric string) ([]report.Figure, error) {
	if len(rep.Sets) == 0 || len(rep.Grid) == 0 {
		return nil, nil
	}
	if _, ok := rep.Sets[0].Metrics[metric]; !ok {
		return nil, fmt.Errorf("--plot-metric %s: no parameter set has it (have: %s)", metric, strings.Join(sweep.MetricNames(rep.Sets), ", "))
	}
	x := rep.Grid[0]
	bySet := setValues(rep, metric)
	held := heldParams(rep)
	var figs []report.Figure

	line := sweepLine(rep, metric, bySet)
	line.Title += held
	lp, err := line.Plot()
	if err != nil {
		return nil, err
	}
	figs = append(figs, report.Figure{Name: "sweep-" + metric + "-by-" + x.Name, Chart: lp})

	if len(rep.Grid) >= 2 {
		y := rep.Grid[1]
		hm := report.HeatMap{Title: fmt.Sprintf("%s over %s × %s (%s)", metric, x.Name, y.Name, rep.Policy) + held,
			XLabel: x.Name, YLabel: y.Name, ValueLabel: metric, XTicks: x.Values, YTicks: y.Values, CellPrec: -1}
		if len(x.Values)*len(y.Values) <= 64 {
			hm.CellPrec = cellPrec(rep, metric)
		}
		for _, yv := range y.Values {
			row := make([]float64, len(x.Values))
			for i, xv := range x.Values {
				v, ok := bySet[setKey([]string{xv, yv})]
				if !ok {
					v = math.NaN()
				}
				row[i] = v
			}
			hm.Z = append(hm.Z, row)
		}
		hp, err := hm.Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: "sweep-" + metric + "-heatmap", Chart: hp})
	}

	if len(rep.View.Pareto) == 2 {
		sp, err := paretoChart(rep).Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: "sweep-pareto", Chart: sp})
	}
	return figs, nil
}

// paretoChart is every set on the two --pareto metrics, the front labeled
// with each set's values.
func paretoChart(rep *sweep.Report) report.Pareto {
	a, b := rep.View.Pareto[0], rep.View.Pareto[1]
	names := make([]string, len(rep.Grid))
	for i, g := range rep.Grid {
		names[i] = g.Name
	}
	c := report.Pareto{Title: fmt.Sprintf("Pareto front: %s vs %s (%s)", a, b, rep.Policy), XLabel: a, YLabel: b,
		FrontName: "Pareto front, labeled " + strings.Join(names, ", "), IntegerX: countMetric(a), IntegerY: countMetric(b)}
	for _, r := range rep.Sets {
		vals := make([]string, len(r.Params))
		for i, p := range r.Params {
			vals[i] = p.Value
		}
		pt := report.ParetoPoint{X: r.Metrics[a], Y: r.Metrics[b], Label: strings.Join(vals, ", "), Front: r.Pareto}
		if atDefaults(rep, r.Params) {
			pt.Marked, c.MarkName = true, fmt.Sprintf("%s defaults (%s)", rep.Policy, pt.Label)
		}
		c.Points = append(c.Points, pt)
	}
	return c
}

// countMetric reports whether a metric is a whole number (tokens, results,
// cache breaks: the registry prints it without decimals), so that a chart
// ticks its axis at whole numbers only.
func countMetric(name string) bool {
	m, ok := metrics.Lookup(name)
	return ok && m.Decimals == 0
}

// atDefaults reports whether a set's swept values and the sweep's fixed
// ones are all the policy's defaults (compared normalized: 0.80 is 0.8),
// so the chart can show where the policy as shipped sits against the front.
func atDefaults(rep *sweep.Report, set policy.Params) bool {
	def, err := policy.Lookup(rep.Policy)
	if err != nil {
		return false
	}
	for _, p := range append(slices.Clone(rep.Fixed), set...) {
		i := slices.IndexFunc(def.Specs, func(s policy.ParamSpec) bool { return s.Name == p.Name })
		if i < 0 {
			return false
		}
		v, err1 := def.Specs[i].Parse(p.Value)
		d, err2 := def.Specs[i].Parse(def.Specs[i].Default)
		if err1 != nil || err2 != nil || v != d {
			return false
		}
	}
	return true
}

// setKey identifies a set by the values of its first two swept parameters.
func setKey(vals []string) string { return fmt.Sprint(vals) }

// setValues maps each set's first two swept values (setKey) to its metric.
// The charts have room for two parameters; any further ones are held at
// their first value (heldParams says so in the titles), so each point is
// one set.
func setValues(rep *sweep.Report, metric string) map[string]float64 {
	bySet := map[string]float64{}
	for _, r := range rep.Sets {
		vals := make([]string, len(r.Params))
		first := true
		for i, p := range r.Params {
			vals[i] = p.Value
			first = first && (i < 2 || i >= len(rep.Grid) || p.Value == rep.Grid[i].Values[0])
		}
		if first {
			bySet[setKey(vals[:min(2, len(vals))])] = r.Metrics[metric]
		}
	}
	return bySet
}

// heldParams says, for a title, at which value the swept parameters past
// the second are held: " at old_result_bytes=256"; "" for up to two.
func heldParams(rep *sweep.Report) string {
	if len(rep.Grid) <= 2 {
		return ""
	}
	var parts []string
	for _, g := range rep.Grid[2:] {
		parts = append(parts, g.Name+"="+g.Values[0])
	}
	return " at " + strings.Join(parts, ", ")
}

// cellPrec is how many decimals the heat map writes: none for a metric
// whose values are all whole numbers (tokens, counts), 3 otherwise.
func cellPrec(rep *sweep.Report, metric string) int {
	if m, ok := metrics.Lookup(metric); ok {
		return m.Decimals
	}
	for _, r := range rep.Sets {
		if v := r.Metrics[metric]; v != math.Trunc(v) {
			return 3
		}
	}
	return 0
}

// sweepLine is the metric against the first swept parameter, one line per
// value of the second. A parameter whose values are not all numbers
// (variant=legacy,fixed) gets a categorical axis.
func sweepLine(rep *sweep.Report, metric string, bySet map[string]float64) report.LineChart {
	x := rep.Grid[0]
	line := report.LineChart{Title: fmt.Sprintf("%s by %s (%s)", metric, x.Name, rep.Policy), XLabel: x.Name, YLabel: metric, Markers: true,
		IntegerY: countMetric(metric)}
	numeric := true
	for _, v := range x.Values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	if !numeric { // a categorical parameter (variant=legacy,fixed): one slot per value
		line.Categories = x.Values
	}
	xval := func(i int) float64 {
		if numeric {
			f, _ := strconv.ParseFloat(x.Values[i], 64)
			return f
		}
		return float64(i)
	}
	series := func(name string, second string) {
		var xs, ys []float64
		for i, v := range x.Values {
			k := []string{v}
			if second != "" {
				k = append(k, second)
			}
			if y, ok := bySet[setKey(k)]; ok {
				xs, ys = append(xs, xval(i)), append(ys, y)
			}
		}
		if len(xs) > 0 {
			line.Series = append(line.Series, report.Series{Name: name, X: xs, Y: ys})
		}
	}
	if len(rep.Grid) == 1 {
		series("", "") // the y axis names the metric; no legend needed
	} else {
		for _, v := range rep.Grid[1].Values {
			series(rep.Grid[1].Name+"="+v, v)
		}
	}
	return line
}
