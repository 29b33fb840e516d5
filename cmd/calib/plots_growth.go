package main

import (
	"fmt"

	"gonum.org/v1/plot/plotter"

	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/report"
)

// growthFigures draws the digest chain: digest bytes per rotation (every
// session and variant on one chart, with the budget), preamble nesting per
// rotation, and for each chain the composition of the head a fresh CLI
// session is seeded with (stacked preamble copies vs content).
func growthFigures(out growthJSON, traces []*replay.Trace) ([]report.Figure, error) {
	bytes := report.LineChart{Title: "Digest size per rotation", XLabel: "rotation", YLabel: "digest bytes"}
	nest := report.LineChart{Title: "Preamble nesting per rotation", XLabel: "rotation", YLabel: "copies of the summary preamble (p1)"}
	var figs []report.Figure
	maxRot := 0
	for _, s := range out.Sessions {
		maxRot = max(maxRot, len(s.Rotations))
	}
	budget := 0
	for _, p := range out.Policy.Params {
		if p.Name == "budget" {
			fmt.Sscan(p.Value, &budget)
		}
	}
	if budget > 0 && maxRot > 0 {
		bytes.Series = append(bytes.Series, report.Series{Name: fmt.Sprintf("budget %d", budget),
			Points: plotter.XYs{{X: 1, Y: float64(budget)}, {X: float64(maxRot), Y: float64(budget)}}})
	}
	for _, s := range out.Sessions {
		if len(s.Rotations) == 0 {
			continue
		}
		name := s.ID
		if s.Variant != "" {
			name += " " + s.Variant
		}
		b := make(plotter.XYs, len(s.Rotations))
		n := make(plotter.XYs, len(s.Rotations))
		head := report.StackedBars{Title: name + ": what the CLI head is made of", XLabel: "rotation", YLabel: "bytes of the seeded head"}
		pre := report.Stack{Name: "stacked preamble copies"}
		content := report.Stack{Name: "content"}
		for i, r := range s.Rotations {
			b[i] = plotter.XY{X: float64(r.Rotation), Y: float64(r.DigestBytes)}
			n[i] = plotter.XY{X: float64(r.Rotation), Y: float64(r.P1)}
			head.Categories = append(head.Categories, fmt.Sprint(r.Rotation))
			pre.Values = append(pre.Values, float64(r.CLIHeadPreamble))
			content.Values = append(content.Values, float64(max(0, r.CLIHeadBytes-r.CLIHeadPreamble)))
		}
		bytes.Series = append(bytes.Series, report.Series{Name: name, Points: b})
		nest.Series = append(nest.Series, report.Series{Name: name, Points: n})
		head.Stacks = []report.Stack{pre, content}
		hp, err := head.Plot()
		if err != nil {
			return nil, err
		}
		figs = append(figs, report.Figure{Name: "digest-growth-" + name + "-cli-head", Plot: hp})
	}
	if len(nest.Series) == 0 {
		return nil, nil
	}
	bp, err := bytes.Plot()
	if err != nil {
		return nil, err
	}
	np, err := nest.Plot()
	if err != nil {
		return nil, err
	}
	return append([]report.Figure{{Name: "digest-growth-bytes", Plot: bp}, {Name: "digest-growth-nesting", Plot: np}}, figs...), nil
}
