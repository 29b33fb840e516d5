package report

import (
	"errors"
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Stack is one layer of a stacked bar chart: one value per category.
type Stack struct {
	Name   string
	Values []float64
}

// StackedBars is a bar chart with one bar per category, each bar made of
// the stacks in order (the first at the bottom, or at the left).
type StackedBars struct {
	Title, CategoryLabel, ValueLabel string
	Categories                       []string
	Stacks                           []Stack
	// IntegerValues ticks the value axis at whole numbers only: set it for
	// counts (tool calls, results, tokens, bytes).
	IntegerValues bool
	// Keep marks the categories whose label stays when a vertical chart
	// labels only every k-th bar (a compaction's "12C"); nil: none.
	Keep []bool
}

// horizontalLabel is the longest category label that still reads well
// under a vertical bar; longer labels (paths, sidechain ids) turn the chart
// horizontal, where labels sit on the left in full width.
const horizontalLabel = 10

// Plot builds the chart. Labels longer than horizontalLabel runes turn it
// horizontal (first category at the top); vertical charts label every
// k-th bar when there are too many to label them all (54 compactions).
// The legend sits beside the plot.
func (c StackedBars) Plot() (Chart, error) {
	n := len(c.Categories)
	if n == 0 {
		return Chart{}, errors.New("stacked bars: no categories")
	}
	labels := make([]string, n)
	horizontal := false
	for i, cat := range c.Categories {
		labels[i] = shortLabel(cat, 28)
		horizontal = horizontal || len([]rune(labels[i])) > horizontalLabel
	}
	horizontal = horizontal && n <= 40
	xl, yl := c.CategoryLabel, c.ValueLabel
	if horizontal {
		xl, yl = yl, xl
	}
	p := newPlot(c.Title, xl, yl)
	lg := newLegend()
	for _, s := range c.Stacks {
		lg.texts = append(lg.texts, s.Name)
	}
	ch := Chart{plot: p}
	lg.attach(&ch)
	lg.texts = nil
	w, h := ch.size()
	// The data area is about the chart less the axes (~1 inch) and the
	// legend column; bars take 70% of their slot.
	axis := w - vg.Inch - ch.sideWidth
	if horizontal {
		axis = h - 1.5*vg.Inch
	}
	width := min(vg.Points(60), max(vg.Points(1), axis*0.7/vg.Length(n)))

	// A horizontal chart lists the first category at the top: positions
	// count from the bottom, so values and labels are reversed.
	at := func(i int) int { return i }
	if horizontal {
		at = func(i int) int { return n - 1 - i }
	}
	var below *plotter.BarChart
	var drawn []*plotter.BarChart
	for i, s := range c.Stacks {
		if len(s.Values) != n {
			return Chart{}, fmt.Errorf("stack %q has %d values for %d categories", s.Name, len(s.Values), n)
		}
		vals := make(plotter.Values, n)
		for j, v := range s.Values {
			vals[at(j)] = v
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return Chart{}, fmt.Errorf("stack %q: %w", s.Name, err)
		}
		b.Color = seriesColor(i)
		b.LineStyle.Width = 0
		b.Horizontal = horizontal
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		drawn = append(drawn, b)
	}
	// The legend lists the layers in the order the eye meets them: top
	// layer first on vertical bars, left layer first on horizontal ones.
	for i := range drawn {
		k := i
		if !horizontal {
			k = len(drawn) - 1 - i
		}
		lg.add(c.Stacks[k].Name, drawn[k])
	}
	placed := make([]string, n)
	keep := make([]bool, n)
	for i, l := range labels {
		placed[at(i)] = l
		keep[at(i)] = i < len(c.Keep) && c.Keep[i]
	}
	// Half a slot of margin on each side, so the first and last bars are
	// drawn whole (gonum's range ends at their centres).
	if horizontal {
		p.Y.Tick.Marker = categoryTicks(placed)
		p.Y.Min, p.Y.Max = -0.5, float64(n)-0.5
		p.X.Min = 0
		p.X.Max *= 1.03
		p.X.Tick.Marker = roundTicks{integer: c.IntegerValues}
	} else {
		p.X.Tick.Marker = thinnedTicks(placed, keep, axis, p.X.Tick.Label)
		p.X.Min, p.X.Max = -0.5, float64(n)-0.5
		p.Y.Min = 0
		p.Y.Max *= 1.03
		p.Y.Tick.Marker = roundTicks{integer: c.IntegerValues}
	}
	return ch, nil
}
