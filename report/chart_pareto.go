package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ParetoPoint is one parameter set: its two metrics, its label (the set's
// values), whether it is on the Pareto front and whether it is the marked
// set (the policy's defaults, which a reader compares the front with).
type ParetoPoint struct {
	X, Y   float64
	Label  string
	Front  bool
	Marked bool
}

// Pareto is a scatter of every parameter set with the Pareto front drawn
// as a line through its points, each front point labeled with its set.
type Pareto struct {
	Title, XLabel, YLabel string
	Points                []ParetoPoint
	// FrontName is the legend entry of the front; say there what the
	// labels list ("Pareto front (compact_at, window_turns)").
	FrontName string
	// RestName is the legend entry of the other points ("other sets" when
	// empty); the count is appended.
	RestName string
	// MarkName is the legend entry of the ring drawn around the Marked
	// points ("policy defaults (40000, 148500)"); no ring when empty.
	MarkName string
	// IntegerX and IntegerY tick that axis at whole numbers only: set them
	// for a count (results_lost, cache_breaks).
	IntegerX, IntegerY bool
	// LabelRest labels the other points too, in grey, after the front's
	// labels have taken their places: for a few named points (compare's
	// policies), where an unlabeled ring tells the reader nothing. A
	// sweep's hundreds of sets leave it off.
	LabelRest bool
	// placed, when set, receives where the front labels were drawn (tests).
	placed func(rects []vg.Rectangle, obs labelObstacles, bounds vg.Rectangle)
}

// Glyph sizes: the other sets' rings, the front's discs, the defaults' ring.
const (
	restRadius  = vg.Length(3)
	frontRadius = vg.Length(4)
	markRadius  = vg.Length(7)
	markWidth   = vg.Length(1.5)
)

// maxFrontLabels is how many front points are labeled at most; on a longer
// front every k-th is, so labels do not pile up.
const maxFrontLabels = 16

// Plot builds the chart. The other sets are small grey rings drawn first;
// the front (line, filled markers, labels) is drawn over them, so it is
// never hidden. Both axes have a margin so the extremes are drawn whole.
func (c Pareto) Plot() (Chart, error) {
	if len(c.Points) == 0 {
		return Chart{}, errors.New("pareto: no points")
	}
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	lg := newLegend()
	var rest, front plotter.XYs
	var frontLabels []string
	at := map[plotter.XY]int{}
	b := newBounds()
	for _, pt := range c.Points {
		b.see(pt.X, pt.Y)
		if pt.Front {
			// Sets with the same two metrics share a point and one label.
			if k, ok := at[plotter.XY{X: pt.X, Y: pt.Y}]; ok {
				frontLabels[k] += " | " + pt.Label
				continue
			}
			at[plotter.XY{X: pt.X, Y: pt.Y}] = len(front)
			front = append(front, plotter.XY{X: pt.X, Y: pt.Y})
			frontLabels = append(frontLabels, pt.Label)
		} else {
			rest = append(rest, plotter.XY{X: pt.X, Y: pt.Y})
		}
	}
	if len(rest) > 0 {
		sc, err := plotter.NewScatter(rest)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle.Color = color.Gray{0x99}
		sc.GlyphStyle.Radius = restRadius
		p.Add(sc)
		rn := c.RestName
		if rn == "" {
			rn = "other sets"
		}
		lg.add(fmt.Sprintf("%s (%s)", rn, FormatInt(int64(len(rest)))), sc)
	}
	xmin, xmax, ymin, ymax := b.xmin, b.xmax, b.ymin, b.ymax
	xspan, yspan := xmax-xmin, ymax-ymin
	if xspan == 0 {
		xspan = flatSpan(xmax)
	}
	if yspan == 0 {
		yspan = flatSpan(ymax)
	}
	if len(front) > 0 {
		order := make([]int, len(front))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool {
			if front[order[a]].X != front[order[b]].X {
				return front[order[a]].X < front[order[b]].X
			}
			return front[order[a]].Y < front[order[b]].Y
		})
		sorted := make(plotter.XYs, len(front))
		texts := make([]string, len(front))
		for i, k := range order {
			sorted[i], texts[i] = front[k], frontLabels[k]
		}
		line, err := plotter.NewLine(sorted)
		if err != nil {
			return Chart{}, err
		}
		line.LineStyle.Color = seriesColor(0)
		line.LineStyle.Width = vg.Points(1.5)
		sc, err := plotter.NewScatter(sorted)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle.Color = seriesColor(0)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		sc.GlyphStyle.Radius = frontRadius
		p.Add(line, sc)
		lg.add(c.FrontName, line, sc)
		p.Add(c.frontLabels(sorted, texts))
	}
	if err := addMark(p, lg, c); err != nil {
		return Chart{}, err
	}
	// 6% of margin on each side, more on the right for the labels.
	p.X.Min, p.X.Max = xmin-0.06*xspan, xmax+0.12*xspan
	p.Y.Min, p.Y.Max = ymin-0.08*yspan, ymax+0.08*yspan
	p.X.Tick.Marker, p.Y.Tick.Marker = roundTicks{integer: c.IntegerX}, roundTicks{integer: c.IntegerY}
	ch := Chart{plot: p}
	lg.attach(&ch)
	return ch, nil
}

// frontLabels labels the front's points (every k-th on a long front, and
// the last) where pointLabels finds room: clear of every point, of the
// front line and of each other, inside the plot.
func (c Pareto) frontLabels(front plotter.XYs, texts []string) *pointLabels {
	l := &pointLabels{style: labelStyle(vg.Points(8), draw.XLeft, draw.YBottom), lines: []plotter.XYs{front}, placed: c.placed}
	k := (len(front) + maxFrontLabels - 1) / maxFrontLabels
	for i, pt := range front {
		if i%k != 0 && i != len(front)-1 {
			l.others, l.oradii = append(l.others, pt), append(l.oradii, frontRadius)
			continue
		}
		l.xys, l.texts, l.radii = append(l.xys, pt), append(l.texts, texts[i]), append(l.radii, frontRadius)
	}
	// Other points sharing a place share a label, as the front's do.
	var restAt []plotter.XY
	var restTexts []string
	restText := map[plotter.XY]int{}
	for _, pt := range c.Points {
		xy := plotter.XY{X: pt.X, Y: pt.Y}
		switch {
		case pt.Marked && c.MarkName != "":
			l.others, l.oradii = append(l.others, xy), append(l.oradii, markRadius+markWidth/2)
		case !pt.Front && c.LabelRest:
			if k, ok := restText[xy]; ok {
				restTexts[k] += " | " + pt.Label
				continue
			}
			restText[xy] = len(restAt)
			restAt = append(restAt, xy)
			restTexts = append(restTexts, pt.Label)
		case !pt.Front:
			l.others, l.oradii = append(l.others, xy), append(l.oradii, restRadius)
		}
	}
	l.greyFrom = len(l.xys)
	for i, xy := range restAt {
		l.xys, l.texts, l.radii = append(l.xys, xy), append(l.texts, restTexts[i]), append(l.radii, restRadius)
	}
	return l
}

// addMark rings the Marked points in black, drawn last so that the ring
// shows whether the set is on the front or not.
func addMark(p *plot.Plot, lg *legend, c Pareto) error {
	var pts plotter.XYs
	for _, pt := range c.Points {
		if pt.Marked {
			pts = append(pts, plotter.XY{X: pt.X, Y: pt.Y})
		}
	}
	if c.MarkName == "" || len(pts) == 0 {
		return nil
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle.Shape, sc.GlyphStyle.Color, sc.GlyphStyle.Radius = markRing{}, levelColor, markRadius
	p.Add(sc)
	lg.add(c.MarkName, sc)
	return nil
}

// markRing is draw.RingGlyph with a line thick enough to see around a
// filled front marker (RingGlyph's is 0.5 pt).
type markRing struct{}

func (markRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: markWidth})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}
