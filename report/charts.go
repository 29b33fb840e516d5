package report

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named line or point set.
type Series struct {
	Name   string
	Points plotter.XYs
}

// Event marks an x position on a line chart (a compaction, a rotation)
// with a dashed vertical line and a label at the top.
type Event struct {
	X     float64
	Label string
}

// LineChart is a line chart of labeled series with marked events.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	Events                []Event
}

// Plot builds the chart. Series get distinct colors and dash patterns (so
// they stay apart in greyscale) and a legend entry each.
func (c LineChart) Plot() (*plot.Plot, error) {
	p := NewPlot(c.Title, c.XLabel, c.YLabel)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for i, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.Points)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		l.LineStyle.Width = vg.Points(1.5)
		l.LineStyle.Color = plotutil.Color(i)
		l.LineStyle.Dashes = plotutil.Dashes(i)
		p.Add(l)
		if s.Name != "" {
			p.Legend.Add(s.Name, l)
		}
		for _, pt := range s.Points {
			ymin, ymax = math.Min(ymin, pt.Y), math.Max(ymax, pt.Y)
		}
	}
	if len(c.Events) > 0 && ymin <= ymax {
		if err := addEvents(p, c.Events, ymin, ymax); err != nil {
			return nil, err
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// addEvents draws each event as a grey dashed vertical line from ymin to
// ymax with its label just above the top.
func addEvents(p *plot.Plot, events []Event, ymin, ymax float64) error {
	var labels plotter.XYLabels
	for _, e := range events {
		l, err := plotter.NewLine(plotter.XYs{{X: e.X, Y: ymin}, {X: e.X, Y: ymax}})
		if err != nil {
			return fmt.Errorf("event %q: %w", e.Label, err)
		}
		l.LineStyle.Color = plotutil.Color(6)
		l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		l.LineStyle.Width = vg.Points(0.75)
		p.Add(l)
		if e.Label != "" {
			labels.XYs = append(labels.XYs, plotter.XY{X: e.X, Y: ymax})
			labels.Labels = append(labels.Labels, e.Label)
		}
	}
	if len(labels.Labels) == 0 {
		return nil
	}
	lb, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		setSans(&lb.TextStyle[i].Font)
		lb.TextStyle[i].Font.Size = vg.Points(8)
		lb.TextStyle[i].XAlign = draw.XCenter
	}
	lb.Offset = vg.Point{Y: vg.Points(2)}
	p.Add(lb)
	return nil
}

// Stack is one layer of a stacked bar chart: one value per category.
type Stack struct {
	Name   string
	Values []float64
}

// StackedBars is a bar chart with one bar per category, each bar made of
// the stacks in order (the first at the bottom).
type StackedBars struct {
	Title, XLabel, YLabel string
	Categories            []string
	Stacks                []Stack
}

// Plot builds the chart. Category labels are slanted when there are many.
func (c StackedBars) Plot() (*plot.Plot, error) {
	if len(c.Categories) == 0 {
		return nil, errors.New("stacked bars: no categories")
	}
	p := NewPlot(c.Title, c.XLabel, c.YLabel)
	width := vg.Points(math.Max(4, math.Min(40, 400/float64(len(c.Categories)))))
	var below *plotter.BarChart
	for i, s := range c.Stacks {
		if len(s.Values) != len(c.Categories) {
			return nil, fmt.Errorf("stack %q has %d values for %d categories", s.Name, len(s.Values), len(c.Categories))
		}
		b, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return nil, fmt.Errorf("stack %q: %w", s.Name, err)
		}
		b.Color = plotutil.Color(i)
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		p.Legend.Add(s.Name, b)
	}
	// Headroom above the tallest bar keeps the legend off the bars.
	p.Y.Max *= 1.25
	labels := make([]string, len(c.Categories))
	for i, cat := range c.Categories {
		labels[i] = shortLabel(cat, 28)
	}
	p.NominalX(labels...)
	// Half a slot of margin on each side, so the first and last bars are
	// drawn whole (gonum's range ends at their centres).
	p.X.Min, p.X.Max = -0.5, float64(len(c.Categories))-0.5
	if len(c.Categories) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 5
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	p.Legend.Top = true
	return p, nil
}

// shortLabel cuts a long label in the middle ("0a725fb5-6378…/sidechain-1"),
// keeping both ends, which is where ids and paths differ.
func shortLabel(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// HeatMap is a grid of values on index coordinates: cell (col, row) is
// Z[row][col], labeled by XTicks[col] and YTicks[row]. Index coordinates
// keep every cell the same size on an uneven grid (10, 20, 50, 100), which
// gonum would otherwise draw with uneven widths.
type HeatMap struct {
	Title, XLabel, YLabel string
	XTicks, YTicks        []string
	Z                     [][]float64
	// CellPrec, when ≥ 0, writes each cell's value on it with that many
	// decimals; -1 leaves cells unlabeled.
	CellPrec int
}

// Plot builds the heat map with a blue-to-red palette. NaN cells are left
// empty. An all-NaN grid is an error (gonum would panic).
func (c HeatMap) Plot() (*plot.Plot, error) {
	g := heatGrid{c}
	if err := g.check(); err != nil {
		return nil, err
	}
	p := NewPlot(c.Title, c.XLabel, c.YLabel)
	p.Add(plotter.NewHeatMap(g, moreland.SmoothBlueRed().Palette(255)))
	p.X.Tick.Marker = indexTicks(c.XTicks)
	p.Y.Tick.Marker = indexTicks(c.YTicks)
	if c.CellPrec >= 0 {
		var labels plotter.XYLabels
		for r, row := range c.Z {
			for col, z := range row {
				if math.IsNaN(z) {
					continue
				}
				labels.XYs = append(labels.XYs, plotter.XY{X: float64(col), Y: float64(r)})
				labels.Labels = append(labels.Labels, FormatFloat(z, c.CellPrec))
			}
		}
		if len(labels.Labels) > 0 {
			lb, err := plotter.NewLabels(labels)
			if err != nil {
				return nil, err
			}
			for i := range lb.TextStyle {
				setSans(&lb.TextStyle[i].Font)
				lb.TextStyle[i].Font.Size = vg.Points(8)
				lb.TextStyle[i].XAlign = draw.XCenter
				lb.TextStyle[i].YAlign = draw.YCenter
			}
			p.Add(lb)
		}
	}
	return p, nil
}

// heatGrid adapts a HeatMap to plotter.GridXYZ on index coordinates.
type heatGrid struct{ HeatMap }

func (g heatGrid) check() error {
	z := g.HeatMap.Z
	if len(z) == 0 || len(z[0]) == 0 {
		return errors.New("heat map: empty grid")
	}
	if len(g.YTicks) != len(z) || len(g.XTicks) != len(z[0]) {
		return fmt.Errorf("heat map: %d×%d grid with %d x ticks and %d y ticks", len(z[0]), len(z), len(g.XTicks), len(g.YTicks))
	}
	finite := false
	for _, row := range z {
		if len(row) != len(z[0]) {
			return errors.New("heat map: rows of different lengths")
		}
		for _, z := range row {
			finite = finite || !math.IsNaN(z)
		}
	}
	if !finite {
		return errors.New("heat map: every cell is NaN")
	}
	return nil
}

func (g heatGrid) Dims() (c, r int)   { return len(g.HeatMap.Z[0]), len(g.HeatMap.Z) }
func (g heatGrid) Z(c, r int) float64 { return g.HeatMap.Z[r][c] }
func (g heatGrid) X(c int) float64    { return float64(c) }
func (g heatGrid) Y(r int) float64    { return float64(r) }

// indexTicks labels positions 0, 1, 2, … with the given labels.
func indexTicks(labels []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(labels))
	for i, l := range labels {
		t[i] = plot.Tick{Value: float64(i), Label: l}
	}
	return t
}

// Scatter is a scatter plot of labeled point sets.
type Scatter struct {
	Title, XLabel, YLabel string
	Series                []Series
}

// Plot builds the chart; each series gets its own color and glyph shape.
func (c Scatter) Plot() (*plot.Plot, error) {
	p := NewPlot(c.Title, c.XLabel, c.YLabel)
	for i, s := range c.Series {
		if len(s.Points) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(s.Points)
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		sc.GlyphStyle.Color = plotutil.Color(i)
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(3)
		p.Add(sc)
		if s.Name != "" {
			p.Legend.Add(s.Name, sc)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}
