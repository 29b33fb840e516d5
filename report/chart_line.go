package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one named line: Y[i] at X[i]. Low and High, when set (as long
// as X), draw a shaded band behind the line, such as the range across the
// sessions a median line stands for.
type Series struct {
	Name      string
	X, Y      []float64
	Low, High []float64
}

func (s Series) check() error {
	if len(s.X) != len(s.Y) {
		return fmt.Errorf("series %q: %d x values for %d y values", s.Name, len(s.X), len(s.Y))
	}
	if (s.Low != nil || s.High != nil) && (len(s.Low) != len(s.X) || len(s.High) != len(s.X)) {
		return fmt.Errorf("series %q: band of %d/%d values for %d points", s.Name, len(s.Low), len(s.High), len(s.X))
	}
	return nil
}

func xys(x, y []float64) plotter.XYs {
	pts := make(plotter.XYs, len(x))
	for i := range x {
		pts[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return pts
}

// Event marks an x position on a line chart (a compaction, a rotation)
// with a thin vertical line and a short label at the top.
type Event struct {
	X     float64
	Label string
}

// RefLine is a horizontal reference line (a budget, a trigger), drawn in
// black, a colour no series uses, and labeled on the plot.
type RefLine struct {
	Y     float64
	Label string
}

// LineChart is a line chart of named series, with marked events and
// reference levels.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	Events                []Event
	// EventName is the legend entry of the event lines, explaining their
	// labels ("compaction (S summarized)").
	EventName string
	Refs      []RefLine
	// Categories, when set, makes the x axis categorical: each X value is
	// an index into it. Use it for parameters that are not numbers.
	Categories []string
	// IntegerX puts x ticks at whole numbers only (rotations, requests);
	// IntegerY does the same for y (a count of copies, of results).
	IntegerX, IntegerY bool
	// Markers draws a glyph at every point (a sweep's sets, a chain's
	// rotations) of a series of at most maxMarkers points; a longer one
	// is drawn as its line, which glyphs would hide.
	Markers bool
	// ZeroY starts the y axis at zero (sizes), instead of at the data.
	ZeroY bool
}

// Plot builds the chart. Series differ in colour, dash pattern and glyph,
// and earlier series are drawn wider, so series that coincide stay visible
// as a coloured outline around the later ones. The legend sits beside the
// plot.
func (c LineChart) Plot() (Chart, error) {
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	lg := newLegend()
	b := newBounds()
	for i, s := range c.Series {
		if err := s.check(); err != nil {
			return Chart{}, err
		}
		if len(s.X) == 0 {
			continue
		}
		thumbs, err := c.addSeries(p, i, s, &b)
		if err != nil {
			return Chart{}, err
		}
		if s.Name != "" {
			lg.add(s.Name, thumbs...)
		}
	}
	if math.IsInf(b.xmin, 0) {
		return Chart{}, errors.New("line chart: no points")
	}
	ymin, ymax := c.setAxes(p, b)
	if err := addRefs(p, lg, c.Refs, c.Series, p.X.Min, p.X.Max, ymax-ymin, len(c.Events) == 0); err != nil {
		return Chart{}, err
	}
	if err := addEvents(p, lg, c.EventName, c.Events, ymin, ymax, p.X.Max-p.X.Min); err != nil {
		return Chart{}, err
	}
	ch := Chart{plot: p}
	lg.attach(&ch)
	return ch, nil
}

// addSeries draws series i (its band, line and glyphs) and returns what
// its legend entry shows.
func (c LineChart) addSeries(p *plot.Plot, i int, s Series, b *bounds) ([]plot.Thumbnailer, error) {
	var thumbs []plot.Thumbnailer
	col := seriesColor(i)
	if s.Low != nil {
		band, err := bandPolygon(s)
		if err != nil {
			return nil, err
		}
		band.Color = color.NRGBA{col.R, col.G, col.B, 0x40}
		band.LineStyle.Width = 0
		p.Add(band)
		thumbs = append(thumbs, band)
		for j := range s.X {
			b.see(s.X[j], s.Low[j])
			b.see(s.X[j], s.High[j])
		}
	}
	// Points on a categorical axis are not joined: a line would suggest
	// values between the categories.
	if len(c.Categories) == 0 {
		l, err := plotter.NewLine(xys(s.X, s.Y))
		if err != nil {
			return nil, fmt.Errorf("series %q: %w", s.Name, err)
		}
		l.LineStyle.Color = col
		l.LineStyle.Dashes = seriesDashes(i)
		l.LineStyle.Width = vg.Points(1.5)
		if n := len(c.Series); n <= 4 {
			l.LineStyle.Width = vg.Points(1.5 + 0.75*float64(n-1-i))
		}
		p.Add(l)
		thumbs = append(thumbs, l)
	}
	// A lone point has no line to draw: it gets a glyph, or the chart
	// would be blank.
	if c.Markers && len(s.X) <= maxMarkers || len(c.Categories) > 0 || len(s.X) == 1 {
		sc, err := plotter.NewScatter(xys(s.X, s.Y))
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = col
		sc.GlyphStyle.Shape = plotutil.Shape(i)
		sc.GlyphStyle.Radius = vg.Points(math.Max(2, 3.5-0.5*float64(i)))
		if len(c.Categories) > 0 {
			// Few, unjoined points: large filled glyphs with their values
			// written beside them.
			sc.GlyphStyle.Shape = filledShapes[i%len(filledShapes)]
			sc.GlyphStyle.Radius = vg.Points(5)
			texts := make([]string, len(s.Y))
			for j, y := range s.Y {
				texts[j] = formatNumber(y, 3)
			}
			lb, err := labels(xys(s.X, s.Y), texts, vg.Points(9), draw.XLeft, draw.YCenter)
			if err != nil {
				return nil, err
			}
			lb.Offset = vg.Point{X: vg.Points(9)}
			p.Add(lb)
		}
		p.Add(sc)
		thumbs = append(thumbs, sc)
	}
	for j := range s.X {
		b.see(s.X[j], s.Y[j])
	}
	return thumbs, nil
}

// setAxes sets the axes' ranges and ticks from the points' bounds, the
// reference lines, and room for event labels and glyphs; it returns the
// vertical range the data and references span.
func (c LineChart) setAxes(p *plot.Plot, b bounds) (ymin, ymax float64) {
	xmin, xmax := b.xmin, b.xmax
	ymin, ymax = b.ymin, b.ymax
	for _, lv := range c.Refs {
		ymin, ymax = math.Min(ymin, lv.Y), math.Max(ymax, lv.Y)
	}
	if c.ZeroY && ymin >= 0 {
		ymin = 0
	}
	if ymax == ymin { // all equal: centre them, on a scale their size sets
		if c.ZeroY && ymin == 0 {
			ymax = 1
		} else {
			h := flatSpan(ymin)
			ymin, ymax = ymin-h, ymax+h
		}
	}
	top := ymax
	if len(c.Events) > 0 {
		top = eventLabelY(ymin, ymax)
	}
	bottom := ymin
	if !(c.ZeroY && ymin == 0) { // room below the lowest point's glyph
		bottom = ymin - 0.03*(ymax-ymin)
	}
	p.Y.Min, p.Y.Max = bottom, top+0.03*(ymax-ymin)
	p.Y.Tick.Marker = roundTicks{integer: c.IntegerY}
	if len(c.Categories) > 0 {
		p.X.Tick.Marker = categoryTicks(c.Categories)
		p.X.Min, p.X.Max = -0.5, float64(len(c.Categories))-0.5
		return ymin, ymax
	}
	p.X.Tick.Marker = roundTicks{integer: c.IntegerX}
	pad := 0.0
	if c.Markers || len(c.Events) > 0 {
		pad = 0.02 * math.Max(xmax-xmin, 1)
	}
	p.X.Min, p.X.Max = xmin-pad, xmax+pad
	if xmax == xmin {
		p.X.Min, p.X.Max = xmin-1, xmax+1
	}
	return ymin, ymax
}

// maxMarkers is the most points a series gets glyphs for.
const maxMarkers = 100

// filledShapes mark the series on a categorical axis.
var filledShapes = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}

// bandPolygon is the closed outline of a series' band: along High, back
// along Low.
func bandPolygon(s Series) (*plotter.Polygon, error) {
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.X[idx[a]] < s.X[idx[b]] })
	pts := make(plotter.XYs, 0, 2*len(idx))
	for _, i := range idx {
		pts = append(pts, plotter.XY{X: s.X[i], Y: s.High[i]})
	}
	for k := len(idx) - 1; k >= 0; k-- {
		pts = append(pts, plotter.XY{X: s.X[idx[k]], Y: s.Low[idx[k]]})
	}
	return plotter.NewPolygon(pts)
}

// addRefs draws each reference line across the plot in black (long
// dashes for the first, dash-dot for the second, so a trigger and a target
// differ), named in the legend and, when inline is set, also just above
// the line's right end, unless a series passes there (labelClear): the
// legend names it anyway. A chart with events leaves that label to the
// legend: a line near the top of the data (a trigger the context never
// reaches) put it among the event labels, over them.
func addRefs(p *plot.Plot, lg *legend, refs []RefLine, series []Series, x0, x1, yspan float64, inline bool) error {
	dashes := [][]vg.Length{{10, 4}, {10, 3, 2, 3}, {2, 3}}
	for i, lv := range refs {
		l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: lv.Y}, {X: x1, Y: lv.Y}})
		if err != nil {
			return fmt.Errorf("level %q: %w", lv.Label, err)
		}
		l.LineStyle.Color = levelColor
		l.LineStyle.Width = vg.Points(1.25)
		l.LineStyle.Dashes = dashes[i%len(dashes)]
		p.Add(l)
		lg.add(lv.Label, l)
		if !inline || !labelClear(series, x1-0.2*(x1-x0), x1, lv.Y, lv.Y+0.08*yspan) {
			continue
		}
		lb, err := labels([]plotter.XY{{X: x1, Y: lv.Y}}, []string{lv.Label}, vg.Points(9), draw.XRight, draw.YBottom)
		if err != nil {
			return err
		}
		lb.Offset = vg.Point{X: vg.Points(-3), Y: vg.Points(2)}
		p.Add(lb)
	}
	return nil
}

// labelClear reports whether no segment of any series enters the box
// [xa, xb] × [ya, yb], where a reference line's inline label goes (about a
// fifth of the width at the right end, a twelfth of the height above the
// line): digest-growth's legacy chain crossed its budget right through
// "budget 96,000 bytes".
func labelClear(series []Series, xa, xb, ya, yb float64) bool {
	for _, s := range series {
		for i := range s.X {
			j := max(i-1, 0)
			lo, hi := min(s.X[i], s.X[j]), max(s.X[i], s.X[j])
			if hi < xa || lo > xb {
				continue
			}
			if min(s.Y[i], s.Y[j]) <= yb && max(s.Y[i], s.Y[j]) >= ya {
				return false
			}
		}
	}
	return true
}

// eventLabelY is where event labels hang from: the top of a band above
// the data's range, left for them. They hang from its top, not sit on
// ymax, because a reference line at ymax (a trigger the context never
// crosses) has its label just above it at the right end, where the two
// collided.
func eventLabelY(ymin, ymax float64) float64 { return ymax + 0.07*(ymax-ymin) }

// addEvents draws each event as a thin grey vertical line over the data's
// y range, labeled above it. Labels closer than 1/40 of the x range to the
// previous label are left out, so many events never smear into each other.
func addEvents(p *plot.Plot, lg *legend, name string, events []Event, ymin, ymax, xspan float64) error {
	var pts []plotter.XY
	var texts []string
	last := math.Inf(-1)
	var first *plotter.Line
	for _, e := range events {
		l, err := plotter.NewLine(plotter.XYs{{X: e.X, Y: ymin}, {X: e.X, Y: ymax}})
		if err != nil {
			return fmt.Errorf("event %q: %w", e.Label, err)
		}
		l.LineStyle.Color = eventColor
		l.LineStyle.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		l.LineStyle.Width = vg.Points(0.75)
		p.Add(l)
		if first == nil {
			first = l
		}
		if e.Label != "" && e.X-last >= xspan/40 {
			pts = append(pts, plotter.XY{X: e.X, Y: eventLabelY(ymin, ymax)})
			texts = append(texts, e.Label)
			last = e.X
		}
	}
	if first != nil && name != "" {
		lg.add(name, first)
	}
	if len(texts) == 0 {
		return nil
	}
	lb, err := labels(pts, texts, vg.Points(8), draw.XCenter, draw.YTop)
	if err != nil {
		return err
	}
	p.Add(lb)
	return nil
}
