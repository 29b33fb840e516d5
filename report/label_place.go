package report

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelGap is the least blank space between a point label and anything
// else: a point's glyph, the line through the points, another label.
const labelGap = vg.Length(2)

// disc is a drawn point: its centre and its glyph's radius, on the canvas.
type disc struct {
	C vg.Point
	R vg.Length
}

// segment is a drawn line piece, on the canvas.
type segment struct{ A, B vg.Point }

// labelObstacles is what a label must keep labelGap away from.
type labelObstacles struct {
	discs []disc
	segs  []segment
}

// placeLabels puts each label (size[i] wide and high) beside its point
// at[i], and returns where, in canvas coordinates. It tries the eight
// places around the point (right-above first, as a reader expects, then
// right-below, right, the same on the left, then above and below), then
// the same places one, two and three label heights further out, and takes
// the first that lies inside bounds and keeps labelGap from every disc
// (the labeled points among them), every segment and every label already
// placed. A label with no free place takes the one inside bounds that
// crosses the fewest things. The result depends only on its arguments, so
// plots stay byte-identical.
func placeLabels(at []disc, size []vg.Point, obs labelObstacles, bounds vg.Rectangle) []vg.Rectangle {
	placed := make([]vg.Rectangle, 0, len(at))
	for i, a := range at {
		best, bestHits := vg.Rectangle{}, math.MaxInt
		for _, r := range labelCandidates(a, size[i]) {
			if !inside(r, bounds) {
				continue
			}
			hits := labelHits(r, obs, placed)
			if hits < bestHits {
				best, bestHits = r, hits
			}
			if hits == 0 {
				break
			}
		}
		if bestHits == math.MaxInt { // nowhere inside: right-above, as before
			best = labelCandidates(a, size[i])[0]
		}
		placed = append(placed, best)
	}
	return placed
}

// labelCandidates lists the places tried for a label of size sz at point
// a, in order of preference.
func labelCandidates(a disc, sz vg.Point) []vg.Rectangle {
	d := a.R + labelGap
	dd := d * 0.75 // diagonal: the corner nearest the point at distance ≈ 1.06 d
	w, h := sz.X, sz.Y
	var out []vg.Rectangle
	for k := 0; k < 4; k++ {
		up := vg.Length(k) * (h + labelGap)
		at := func(x, y vg.Length) vg.Rectangle {
			return vg.Rectangle{Min: vg.Point{X: x, Y: y}, Max: vg.Point{X: x + w, Y: y + h}}
		}
		x, y := a.C.X, a.C.Y
		out = append(out,
			at(x+dd, y+dd+up),     // right, above
			at(x+dd, y-dd-h-up),   // right, below
			at(x+d, y-h/2+up),     // right
			at(x-dd-w, y+dd+up),   // left, above
			at(x-dd-w, y-dd-h-up), // left, below
			at(x-d-w, y-h/2+up),   // left
			at(x-w/2, y+d+up),     // above
			at(x-w/2, y-d-h-up))   // below
	}
	return out
}

func inside(r, b vg.Rectangle) bool {
	return r.Min.X >= b.Min.X && r.Min.Y >= b.Min.Y && r.Max.X <= b.Max.X && r.Max.Y <= b.Max.Y
}

// labelHits counts what r comes within labelGap of.
func labelHits(r vg.Rectangle, obs labelObstacles, placed []vg.Rectangle) int {
	n := 0
	for _, d := range obs.discs {
		if discMeetsRect(d, r, labelGap) {
			n++
		}
	}
	for _, s := range obs.segs {
		if segmentMeetsRect(s, grow(r, labelGap)) {
			n++
		}
	}
	for _, p := range placed {
		if rectsMeet(p, grow(r, labelGap)) {
			n++
		}
	}
	return n
}

func grow(r vg.Rectangle, d vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: r.Min.X - d, Y: r.Min.Y - d}, Max: vg.Point{X: r.Max.X + d, Y: r.Max.Y + d}}
}

// discMeetsRect reports whether disc d comes within gap of rectangle r.
func discMeetsRect(d disc, r vg.Rectangle, gap vg.Length) bool {
	nx := min(max(d.C.X, r.Min.X), r.Max.X)
	ny := min(max(d.C.Y, r.Min.Y), r.Max.Y)
	dx, dy := float64(d.C.X-nx), float64(d.C.Y-ny)
	return math.Hypot(dx, dy) < float64(d.R+gap)
}

func rectsMeet(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// segmentMeetsRect reports whether segment s crosses rectangle r
// (Liang–Barsky clipping: some part of s lies inside r).
func segmentMeetsRect(s segment, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(s.B.X-s.A.X), float64(s.B.Y-s.A.Y)
	clip := func(p, q float64) bool {
		if p == 0 {
			return q >= 0
		}
		t := q / p
		if p < 0 {
			t0 = math.Max(t0, t)
		} else {
			t1 = math.Min(t1, t)
		}
		return t0 <= t1
	}
	return clip(-dx, float64(s.A.X-r.Min.X)) && clip(dx, float64(r.Max.X-s.A.X)) &&
		clip(-dy, float64(s.A.Y-r.Min.Y)) && clip(dy, float64(r.Max.Y-s.A.Y))
}

// pointLabels is a plotter that writes each label beside its point where
// placeLabels finds room, once the plot's scale is known (at draw time).
type pointLabels struct {
	xys   plotter.XYs
	texts []string
	radii []vg.Length // the labeled points' glyph radii
	style text.Style
	// others are the unlabeled points (their glyph radius each); lines the
	// polylines drawn through points. Labels keep clear of both.
	others []plotter.XY
	oradii []vg.Length
	lines  []plotter.XYs
	// placed, when set, receives the labels' rectangles and the obstacles
	// they were placed among, so a test can check them geometrically.
	placed func(rects []vg.Rectangle, obs labelObstacles, bounds vg.Rectangle)
	// greyFrom is where the labels of lesser points start (Pareto's
	// LabelRest): those, placed after the others, are written in grey.
	greyFrom int
}

// Plot implements plot.Plotter.
func (l *pointLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	pt := func(xy plotter.XY) vg.Point { return vg.Point{X: trX(xy.X), Y: trY(xy.Y)} }
	var obs labelObstacles
	at := make([]disc, len(l.xys))
	size := make([]vg.Point, len(l.xys))
	for i, xy := range l.xys {
		at[i] = disc{pt(xy), l.radii[i]}
		obs.discs = append(obs.discs, at[i])
		r := l.style.Rectangle(l.texts[i])
		size[i] = vg.Point{X: r.Max.X - r.Min.X, Y: r.Max.Y - r.Min.Y}
	}
	for i, xy := range l.others {
		obs.discs = append(obs.discs, disc{pt(xy), l.oradii[i]})
	}
	for _, line := range l.lines {
		for i := 1; i < len(line); i++ {
			obs.segs = append(obs.segs, segment{pt(line[i-1]), pt(line[i])})
		}
	}
	bounds := c.Rectangle
	rects := placeLabels(at, size, obs, bounds)
	for i, r := range rects {
		style := l.style
		if i >= l.greyFrom {
			style.Color = color.Gray{0x66}
		}
		off := style.Rectangle(l.texts[i]).Min // where the text's box starts, from its anchor
		c.FillText(style, vg.Point{X: r.Min.X - off.X, Y: r.Min.Y - off.Y}, l.texts[i])
	}
	if l.placed != nil {
		l.placed(rects, obs, bounds)
	}
}
