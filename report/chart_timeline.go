package report

import (
	"errors"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Life is one tool result's life in a replay, in requests: when it
// arrived, when a compaction hid it, when the agent needed it again and
// when it fetched it back (-1: never).
type Life struct {
	Arrived, Hidden, Needed, Refetched float64
	Lost                               bool
}

// Timeline draws each hidden result's life as a row under the context
// curve, on one request axis: grey while the model had it whole, then
// coloured by its fate (lost, fetched back, or never needed) from the
// request that hid it, with a mark where the agent needed it and one where
// it fetched it back.
type Timeline struct {
	Title string
	// X and Context are the context sent per request.
	X, Context []float64
	Lives      []Life
}

// Colours of the fates (Okabe-Ito): lost vermillion, refetched bluish
// green, never needed grey.
var (
	lostColor      = seriesColors[3]
	refetchedColor = seriesColors[2]
	quietColor     = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}
)

// Plot builds the chart.
func (c Timeline) Plot() (Chart, error) {
	if len(c.X) == 0 || len(c.X) != len(c.Context) {
		return Chart{}, errors.New("timeline: no context curve (or X and Context differ in length)")
	}
	up := newPlot(c.Title, "", "context tokens")
	l, err := plotter.NewLine(xys(c.X, c.Context))
	if err != nil {
		return Chart{}, err
	}
	l.LineStyle.Color, l.LineStyle.Width = seriesColor(0), vg.Points(1.5)
	up.Add(l)
	lg := newLegend()
	lg.add("context sent", l)
	ymax := 0.0
	for _, y := range c.Context {
		ymax = math.Max(ymax, y)
	}
	up.Y.Min, up.Y.Max = 0, math.Max(1, ymax*1.05)

	low := newPlot("", "request", "hidden results")
	low.Y.Tick.Marker = plot.ConstantTicks(nil)
	xmin, xmax := c.X[0], c.X[len(c.X)-1]
	seg := func(x0, x1, y float64, col color.Color, w vg.Length) (*plotter.Line, error) {
		s, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
		if err != nil {
			return nil, err
		}
		s.LineStyle.Color, s.LineStyle.Width = col, w
		return s, nil
	}
	// Rows share the lower plot's height: their lines thin out as they
	// multiply, so neighbours stay apart.
	thick := vg.Points(math.Max(0.8, math.Min(3, 150/float64(max(1, len(c.Lives))))))
	var needs, fetches plotter.XYs
	var thumbs = map[string]plot.Thumbnailer{}
	for i, lf := range c.Lives {
		y := float64(len(c.Lives) - i) // the first hidden on top
		seen, err := seg(lf.Arrived, lf.Hidden, y, quietColor, vg.Points(1))
		if err != nil {
			return Chart{}, err
		}
		col, name := quietColor, "never needed"
		switch {
		case lf.Lost:
			col, name = lostColor, "lost"
		case lf.Refetched >= 0:
			col, name = refetchedColor, "fetched back"
		}
		hid, err := seg(lf.Hidden, xmax, y, col, thick)
		if err != nil {
			return Chart{}, err
		}
		low.Add(seen, hid)
		if thumbs["seen whole"] == nil && lf.Hidden > lf.Arrived {
			thumbs["seen whole"] = seen
		}
		if thumbs[name] == nil {
			thumbs[name] = hid
		}
		if lf.Needed >= 0 {
			needs = append(needs, plotter.XY{X: lf.Needed, Y: y})
		}
		if lf.Refetched >= 0 {
			fetches = append(fetches, plotter.XY{X: lf.Refetched, Y: y})
		}
	}
	for _, name := range []string{"seen whole", "lost", "fetched back", "never needed"} {
		if t := thumbs[name]; t != nil {
			lg.add(name, t)
		}
	}
	for _, m := range []struct {
		pts   plotter.XYs
		name  string
		shape draw.GlyphDrawer
	}{{needs, "needed here", draw.CrossGlyph{}}, {fetches, "fetched here", draw.RingGlyph{}}} {
		if len(m.pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(m.pts)
		if err != nil {
			return Chart{}, err
		}
		sc.GlyphStyle.Shape, sc.GlyphStyle.Color, sc.GlyphStyle.Radius = m.shape, levelColor, vg.Points(3.5)
		low.Add(sc)
		lg.add(m.name, sc)
	}
	low.Y.Min, low.Y.Max = 0, float64(len(c.Lives))+1
	pad := 0.01 * math.Max(xmax-xmin, 1)
	for _, p := range []*plot.Plot{up, low} {
		p.X.Min, p.X.Max = xmin-pad, xmax+pad
		p.X.Tick.Marker = roundTicks{integer: true}
	}
	ch := Chart{plot: low, upper: up}
	lg.attach(&ch)
	return ch, nil
}
