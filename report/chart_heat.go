package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatMap is a grid of values on index coordinates: cell (col, row) is
// Z[row][col], labeled by XTicks[col] and YTicks[row]. Index coordinates
// keep every cell the same size on an uneven grid (10, 20, 50, 100), which
// gonum would otherwise draw with uneven widths.
type HeatMap struct {
	Title, XLabel, YLabel string
	// ValueLabel names the values, on the colour scale.
	ValueLabel     string
	XTicks, YTicks []string
	Z              [][]float64
	// CellPrec, when ≥ 0, writes each cell's value on it with at most that
	// many decimals and thousands separators; -1 leaves cells unlabeled.
	CellPrec int
}

// Plot builds the heat map with a blue (low) to red (high) scale drawn
// beside it. Cell text is white on dark cells and black on light ones. NaN
// cells (a set with no result) are left empty. An all-NaN grid is an error
// (gonum would panic).
func (c HeatMap) Plot() (Chart, error) {
	g := heatGrid{c}
	if err := g.check(); err != nil {
		return Chart{}, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range c.Z {
		for _, z := range row {
			if !math.IsNaN(z) {
				lo, hi = math.Min(lo, z), math.Max(hi, z)
			}
		}
	}
	if hi == lo { // one value: a scale around it, every cell mid-colour
		lo, hi = lo-1, hi+1
	}
	cm := heatColours(lo, hi)
	p := newPlot(c.Title, c.XLabel, c.YLabel)
	hm := plotter.NewHeatMap(g, cm.Palette(255))
	hm.Min, hm.Max = lo, hi
	p.Add(hm)
	// Long grids (41 values of compact_at) label every k-th column and row.
	w, h := DefaultPlotWidth, DefaultPlotHeight
	p.X.Tick.Marker = thinnedTicks(c.XTicks, nil, w-vg.Inch-scaleWidth, p.X.Tick.Label)
	p.Y.Tick.Marker = thinnedTicks(c.YTicks, nil, (h-1.5*vg.Inch)*2, p.Y.Tick.Label) // labels are wider than tall
	p.X.Padding, p.Y.Padding = vg.Points(6), vg.Points(6)
	if c.CellPrec >= 0 {
		if err := addCellText(p, c, cm); err != nil {
			return Chart{}, err
		}
	}
	ch := Chart{plot: p}
	ch.side, ch.sideWidth = colourScale(cm, c.ValueLabel)
	return ch, nil
}

// heatColours is the heat map's scale from lo (blue) to hi (red).
func heatColours(lo, hi float64) palette.ColorMap {
	cm := moreland.SmoothBlueRed()
	cm.SetMin(lo)
	cm.SetMax(hi)
	return cm
}

// addCellText writes each cell's value on it, in the colour that contrasts
// with the cell.
func addCellText(p *plot.Plot, c HeatMap, cm palette.ColorMap) error {
	var dark, light []plotter.XY
	var darkT, lightT []string
	for r, row := range c.Z {
		for col, z := range row {
			if math.IsNaN(z) {
				continue
			}
			pt, s := plotter.XY{X: float64(col), Y: float64(r)}, formatNumber(z, c.CellPrec)
			if cl, err := cm.At(z); err == nil && luminance(cl) < 0.5 {
				dark, darkT = append(dark, pt), append(darkT, s)
			} else {
				light, lightT = append(light, pt), append(lightT, s)
			}
		}
	}
	for _, set := range []struct {
		pts   []plotter.XY
		texts []string
		col   color.Color
	}{{dark, darkT, color.White}, {light, lightT, color.Black}} {
		if len(set.pts) == 0 {
			continue
		}
		lb, err := labels(set.pts, set.texts, vg.Points(9), draw.XCenter, draw.YCenter)
		if err != nil {
			return err
		}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Color = set.col
		}
		p.Add(lb)
	}
	return nil
}

// luminance is the perceived brightness of c, 0 (black) to 1 (white).
func luminance(c color.Color) float64 {
	r, g, b, _ := c.RGBA()
	return (0.299*float64(r) + 0.587*float64(g) + 0.114*float64(b)) / 0xffff
}

// scaleWidth is the width of the colour scale column, tick labels included.
const scaleWidth = vg.Length(130)

// colourScale draws the heat map's colour bar with round ticks and the
// value label, for the chart's side column.
func colourScale(cm palette.ColorMap, label string) (func(draw.Canvas), vg.Length) {
	bar := newPlot("", "", label)
	bar.HideX()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.Y.Padding = 0
	return func(c draw.Canvas) {
		c.Min.Y += vg.Points(40) // level with the heat map's cells, above its x axis
		c.Max.X = c.Min.X + scaleWidth
		bar.Draw(c)
	}, scaleWidth
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
