package report

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// seriesColors is the Okabe-Ito palette (without its yellow, which is
// unreadable on white): distinct for the common forms of colour blindness.
// Reference lines (a budget, a trigger) are drawn in black, which no series
// uses, so a budget never shares a colour with a series.
var seriesColors = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x88, 0x88, 0x88, 0xff}, // grey
	{0x33, 0x22, 0x88, 0xff}, // indigo (Paul Tol)
}

var (
	gridColor  = color.Gray{0xe0}
	levelColor = color.Gray{0x20}
	eventColor = color.Gray{0x90}
)

func seriesColor(i int) color.RGBA { return seriesColors[i%len(seriesColors)] }

// seriesDashes gives the i-th series its dash pattern, so that series stay
// apart in greyscale and when colours repeat past the palette.
func seriesDashes(i int) []vg.Length {
	pats := [][]vg.Length{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}, {4, 4}, {1, 3}}
	return pats[(i/len(seriesColors)+i)%len(pats)]
}

// roundTicks places major ticks at 1, 2 or 5 times a power of ten (about
// five of them), minor ticks halfway, and writes labels with thousands
// separators and only the decimals the step needs: "250,000", "0.05".
// An integer axis (a count: results lost, rotations, requests) gets a step
// of at least 1 and no tick, minor or major, at a fractional value: a
// minor tick at 2.5 on it would read as half a result.
type roundTicks struct{ integer bool }

func (t roundTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return []plot.Tick{{Value: min, Label: tickLabel(min, 0)}}
	}
	step := roundStep((max - min) / 5)
	if t.integer && step < 1 {
		step = 1
	}
	dec := max0(-int(math.Floor(math.Log10(step) + 1e-9)))
	var ticks []plot.Tick
	first := math.Ceil(min/step - 1e-9)
	for k := first; k*step <= max+step*1e-9; k++ {
		v := k * step
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, dec)})
		if half := v + step/2; half <= max && t.minorAt(half) {
			ticks = append(ticks, plot.Tick{Value: half})
		}
	}
	if half := first*step - step/2; half >= min && t.minorAt(half) {
		ticks = append(ticks, plot.Tick{Value: half})
	}
	return ticks
}

// minorAt reports whether a minor tick may go at v: anywhere on a
// continuous axis, only at whole numbers on an integer one.
func (t roundTicks) minorAt(v float64) bool { return !t.integer || v == math.Trunc(v) }

// flatSpan is the axis span given to values that are all v (one set, one
// point): a tenth of v, or 1 around 0, so the ticks read as round numbers
// near v (990, 1,000, 1,010) rather than as v to ten decimals.
func flatSpan(v float64) float64 {
	if v == 0 {
		return 1
	}
	return math.Abs(v) * 0.1
}

func max0(n int) int { return max(0, n) }

// roundStep is the 1, 2 or 5 × 10^k nearest to raw (on a log scale).
func roundStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	best := p
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(math.Log(m*p/raw)) < math.Abs(math.Log(best/raw)) {
			best = m * p
		}
	}
	return best
}

func tickLabel(v float64, dec int) string {
	if math.Abs(v) < 1e-12 {
		v = 0
	}
	return GroupDigits(FormatFloat(v, dec))
}

// categoryTicks labels positions 0, 1, 2, … with the given labels, for
// categorical axes (a variant, a set of values that are not numbers).
func categoryTicks(labels []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(labels))
	for i, l := range labels {
		t[i] = plot.Tick{Value: float64(i), Label: l}
	}
	return t
}

// thinnedTicks labels every k-th category, counting back from the last, so that labels never overlap
// however many categories there are (54 compactions): k is the smallest
// step at which the widest label fits in its share of the axis. keep
// (nil: none) marks labels that carry news (a compaction's "C"): they are
// placed first, each k or more from the one before, and the k-th labels
// only where no kept one is nearer than k.
func thinnedTicks(labels []string, keep []bool, axis vg.Length, sty text.Style) plot.ConstantTicks {
	widest := vg.Length(0)
	for _, l := range labels {
		widest = max(widest, sty.Width(l))
	}
	k := 1
	if n := len(labels); n > 0 && axis > 0 {
		k = max(1, int(math.Ceil(float64(n)*float64(widest+sty.Font.Size)/float64(axis))))
	}
	shown := thinLabels(len(labels), k, keep)
	// An unlabelled category keeps a minor tick while the ticks stand
	// apart; closer than minTickGap they draw a solid bar under the axis,
	// and only the labelled ones are drawn.
	minor := len(labels) == 0 || axis/vg.Length(len(labels)) >= minTickGap
	t := make(plot.ConstantTicks, 0, len(labels))
	for i, l := range labels {
		if !shown[i] {
			if !minor {
				continue
			}
			l = ""
		}
		t = append(t, plot.Tick{Value: float64(i), Label: l})
	}
	return t
}

// minTickGap is the least room per category for its own tick mark: at
// 1.5 points apart the marks still read as a comb (202 requests, 81
// heatmap columns); at a quarter of a point (2,000 rotations) they merged
// into a bar.
const minTickGap = 1.5 // points

// thinLabels says which of n labels to show, k or more apart: first the
// kept ones, in order, each k or more after the last shown; then every
// k-th counting back from the last, where no shown one is nearer than k.
func thinLabels(n, k int, keep []bool) []bool {
	shown := make([]bool, n)
	last := -k // the last label shown
	for i := range n {
		if i < len(keep) && keep[i] && i-last >= k {
			shown[i], last = true, i
		}
	}
	// near[i]: a kept label shown at i or less than k after it.
	near := make([]bool, n)
	next := n + k
	for i := n - 1; i >= 0; i-- {
		if shown[i] {
			next = i
		}
		near[i] = next-i < k
	}
	last = -k
	for i := range n {
		if shown[i] {
			last = i
		} else if (n-1-i)%k == 0 && !near[i] && i-last >= k {
			shown[i] = true
		}
	}
	return shown
}

// legend is a legend drawn in the chart's side column, outside the data.
// gonum keeps a legend's entries private, so legend keeps them (texts and
// thumbnails) itself, to size the column and, when it draws, to cut a name
// too long for the room it has (a long session id in a strip under the
// plot) rather than run it off the image.
type legend struct {
	plot.Legend
	texts  []string
	thumbs [][]plot.Thumbnailer
}

func newLegend() *legend {
	l := &legend{Legend: plot.NewLegend()}
	setSans(&l.TextStyle.Font)
	l.TextStyle.Font.Size = vg.Points(10)
	l.Top, l.Left = true, true
	l.Padding = vg.Points(3)
	return l
}

func (l *legend) add(name string, thumbs ...plot.Thumbnailer) {
	l.texts = append(l.texts, name)
	l.thumbs = append(l.thumbs, thumbs)
}

// draw draws the entries on dc, each name cut in the middle (shortLabel)
// where it would not fit in dc beside its thumbnail.
func (l *legend) draw(dc draw.Canvas) {
	g := l.Legend // gonum's legend holds no entry until here
	room := dc.Max.X - dc.Min.X - l.ThumbnailWidth - l.TextStyle.Width(" ")
	for i, t := range l.texts {
		g.Add(fitText(l.TextStyle, t, room), l.thumbs[i]...)
	}
	g.Draw(dc)
}

// fitText returns s, or s cut in the middle to the most runes that fit in
// width w when written in sty.
func fitText(sty text.Style, s string, w vg.Length) string {
	if sty.Width(s) <= w {
		return s
	}
	n := len([]rune(s)) - 1
	for n > 1 && sty.Width(shortLabel(s, n)) > w {
		n--
	}
	return shortLabel(s, n)
}

// attach puts the legend in c's side column, or under the plot when the
// column would take more than 30% of the chart's width (nothing when the
// legend is empty).
func (l *legend) attach(c *Chart) {
	w := vg.Length(0)
	for _, t := range l.texts {
		w = max(w, l.TextStyle.Width(" "+t))
	}
	if w == 0 {
		return
	}
	w += l.ThumbnailWidth + 2
	if cw, _ := c.size(); w > cw*0.3 {
		h := vg.Length(len(l.texts)) * (l.TextStyle.Height("Ag") + l.Padding)
		c.below = func(dc draw.Canvas) {
			dc.Min.X += vg.Inch // under the data, not under the y axis label
			l.draw(dc)
		}
		c.belowHeight = h
		return
	}
	c.side = l.draw
	c.sideWidth = w
}

// shortLabel cuts a long label in the middle ("0a725fb5-6378…sidechain-1"),
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

// labelStyle is the style of small Liberation Sans labels at data points.
func labelStyle(size vg.Length, xalign draw.XAlignment, yalign draw.YAlignment) text.Style {
	sty := text.Style{Color: color.Black, Font: plotter.DefaultFont, Handler: plot.DefaultTextHandler}
	setSans(&sty.Font)
	sty.Font.Size = size
	sty.XAlign, sty.YAlign = xalign, yalign
	return sty
}

// labels is a text layer: small Liberation Sans labels at data points.
func labels(pts []plotter.XY, texts []string, size vg.Length, xalign draw.XAlignment, yalign draw.YAlignment) (*plotter.Labels, error) {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: texts})
	if err != nil {
		return nil, err
	}
	for i := range lb.TextStyle {
		setSans(&lb.TextStyle[i].Font)
		lb.TextStyle[i].Font.Size = size
		lb.TextStyle[i].XAlign = xalign
		lb.TextStyle[i].YAlign = yalign
	}
	return lb, nil
}

// formatNumber writes v with separators and at most prec decimals
// (trailing zeros dropped): 1234567 → "1,234,567", 0.25 → "0.25". A whole
// number rounds half away from zero, as the tables round a count
// (math.Round): FormatFloat rounds it to even, and a heat-map cell read
// 586,298 where the table read 586,299. Decimals round as the tables'
// FormatFloat does.
func formatNumber(v float64, prec int) string {
	if prec == 0 {
		v = math.Round(v)
	}
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if prec > 0 {
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		if s[len(s)-1] == '.' {
			s = s[:len(s)-1]
		}
	}
	if s == "-0" {
		s = "0"
	}
	return GroupDigits(s)
}

// ShortIDs shortens session ids for chart labels, git-style: the first 8
// characters of each id, after a word prefix all of them share ("session-")
// or that would leave them alike; a sidechain suffix ("/sidechain-1") is
// kept. Ids that would still collide stay whole.
func ShortIDs(ids []string) []string {
	out := make([]string, len(ids))
	seen := map[string]map[string]bool{} // short form → the ids it stands for
	for i, id := range ids {
		head, tail, _ := strings.Cut(id, "/")
		if w, rest, ok := strings.Cut(head, "-"); ok && len(rest) >= 8 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" && len(w) > 0 && !isHex(w) {
			head = rest
		}
		if r := []rune(head); len(r) > 8 {
			head = string(r[:8])
		}
		if tail != "" {
			head += "/" + tail
		}
		out[i] = head
		if seen[head] == nil {
			seen[head] = map[string]bool{}
		}
		seen[head][id] = true
	}
	for i, s := range out {
		if len(seen[s]) > 1 {
			out[i] = ids[i]
		}
	}
	return out
}

func isHex(s string) bool { return strings.Trim(s, "0123456789abcdefABCDEF") == "" }

// bounds are the extremes of the points a chart draws; newBounds holds
// none (its minima +Inf), so the first point seen sets all four.
type bounds struct{ xmin, xmax, ymin, ymax float64 }

func newBounds() bounds {
	return bounds{xmin: math.Inf(1), xmax: math.Inf(-1), ymin: math.Inf(1), ymax: math.Inf(-1)}
}

func (b *bounds) see(x, y float64) {
	b.xmin, b.xmax = math.Min(b.xmin, x), math.Max(b.xmax, x)
	b.ymin, b.ymax = math.Min(b.ymin, y), math.Max(b.ymax, y)
}
