package main

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot/plotter"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// sweepFigures draws the sweep: a heat map of one metric over the first two
// swept parameters (index coordinates, so uneven grids keep equal cells), a
// line chart of the metric against the first parameter (one line per value
// of the second, if any), and with --pareto a scatter of every set with the
// Pareto front highlighted.
func sweepFigures(rep *metrics.SweepReport, metric string) ([]report.Figure, error) {
	if len(rep.Sets) == 0 || len(rep.Grid) == 0 {
		return nil, nil
	}
	if _, ok := rep.Sets[0].Metrics[metric]; !ok {
		return nil, fmt.Errorf("--plot-metric %s: no such metric (have: %v)", metric, metrics.MetricNames(rep.Sets))
	}
	x := rep.Grid[0]
	bySet := map[string]float64{}
	key := func(ps []string) string { return fmt.Sprint(ps) }
	for _, r := range rep.Sets {
		vals := make([]string, len(r.Params))
		for i, p := range r.Params {
			vals[i] = p.Value
		}
		bySet[key(vals[:min(2, len(vals))])] = r.Metrics[metric]
	}
	var figs []report.Figure

	line := report.LineChart{Title: fmt.Sprintf("%s by %s (%s)", metric, x.Name, rep.Policy), XLabel: x.Name, YLabel: metric}
	numeric := true
	for _, v := range x.Values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	xval := func(i int) float64 {
		if numeric {
			f, _ := strconv.ParseFloat(x.Values[i], 64)
			return f
		}
		return float64(i)
	}
	series := func(name string, second string) {
		var pts plotter.XYs
		for i, v := range x.Values {
			k := []string{v}
			if second != "" {
				k = append(k, second)
			}
			if y, ok := bySet[key(k)]; ok {
				pts = append(pts, plotter.XY{X: xval(i), Y: y})
			}
		}
		if len(pts) > 0 {
			line.Series = append(line.Series, report.Series{Name: name, Points: pts})
		}
	}
	if len(rep.Grid) == 1 {
		series(metric, "")
	} else {
		for _, v := range rep.Grid[1].Values {
			series(rep.Grid[1].Name+"="+v, v)
		}
	}
	lp, err := line.Plot()
	if err != nil {
		return nil, err
	}
	figs = append(figs, report.Figure{Name: "sweep-" + metric + "-by-" + x.Name, Plot: lp})

	if len(rep.Grid) >= 2 {
		y := rep.Grid[1]
		hm := report.HeatMap{Title: fmt.Sprintf("%s over %s × %s (%s)", metric, x.Name, y.Name, rep.Policy),
			XLabel: x.Name, YLabel: y.Name, XTicks: x.Values, YTicks: y.Values, CellPrec: -1}
		if len(x.Values)*len(y.Values) <= 64 {
			hm.CellPrec = 0
		}
		for _, yv := range y.Values {
			row := make([]float64, len(x.Values))
			for i, xv := range x.Values {
				v, ok := bySet[key([]string{xv, yv})]
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
		figs = append(figs, report.Figure{Name: "sweep-" + metric + "-heatmap", Plot: hp})
	}

	if len(rep.View.Pareto) == 2 {
		a, b := rep.View.Pareto[0], rep.View.Pareto[1]
		var all, front plotter.XYs
		for _, r := range rep.Sets {
			pt := plotter.XY{X: r.Metrics[a], Y: r.Metrics[b]}
			all = append(all, pt)
			if r.Pareto {
				front = append(front, pt)
			}
		}
		sc := report.Scatter{Title: fmt.Sprintf("Pareto front: %s vs %s (%s)", a, b, rep.Policy), XLabel: a, YLabel: b,
			Series: []report.Series{{Name: "parameter sets", Points: all}, {Name: "Pareto front", Points: front}}}
		sp, err := sc.Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: "sweep-pareto", Plot: sp})
	}
	return figs, nil
}
