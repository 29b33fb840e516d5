package report

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot sizes and resolution used when a Chart leaves them zero.
const (
	DefaultPlotWidth  = 8 * vg.Inch
	DefaultPlotHeight = 5 * vg.Inch
	// PlotDPI is the PNG resolution; 96 (gonum's default) looks blurry on
	// high-density screens, 150 keeps files small. An 8 × 5 inch chart is
	// 1200 × 750 pixels.
	PlotDPI = 150
	// margin is the blank border around every chart, so that nothing
	// (an axis label, the last tick label) touches the image edge.
	margin = vg.Length(8)
)

// Chart is a finished chart: a plot and, in a column to its right, what
// explains it (a legend, a colour scale). Keeping the legend outside the
// plot area means it never covers data, however many entries it has.
type Chart struct {
	plot *plot.Plot
	// side draws the right-hand column; sideWidth is its width.
	side      func(draw.Canvas)
	sideWidth vg.Length
	// below draws a strip under the plot (a legend too wide for the side
	// column); belowHeight is its height.
	below       func(draw.Canvas)
	belowHeight vg.Length
	// upper, when set, is drawn above plot with the same height, their
	// data areas aligned, so that both share one x axis (a timeline).
	upper *plot.Plot
	// Width and Height default to DefaultPlotWidth × DefaultPlotHeight.
	Width, Height vg.Length
}

// size returns the chart's size with the defaults applied.
func (c Chart) size() (vg.Length, vg.Length) {
	w, h := c.Width, c.Height
	if w == 0 {
		w = DefaultPlotWidth
	}
	if h == 0 {
		h = DefaultPlotHeight
	}
	return w, h
}

// draw lays the chart out on dc: a margin all round, the title centred
// over the whole width, the side column on the right, the plot in the
// rest. The title is drawn here rather than by gonum, which would centre
// it over the plot alone and clip a long one at the left edge.
func (c Chart) draw(dc draw.Canvas) {
	dc = inset(dc, margin)
	top := c.plot // the plot whose title heads the chart: the upper one of a pair
	if c.upper != nil {
		top = c.upper
	}
	if t := top.Title.Text; t != "" {
		sty, lines := fitTitle(top.Title.TextStyle, t, dc.Max.X-dc.Min.X)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		dc.FillText(sty, vg.Point{X: (dc.Min.X + dc.Max.X) / 2, Y: dc.Max.Y}, lines)
		dc.Max.Y -= sty.Height(lines) + top.Title.Padding
		top.Title.Text = ""
		defer func() { top.Title.Text = t }()
	}
	if c.below != nil {
		strip := dc
		strip.Max.Y = dc.Min.Y + c.belowHeight
		dc.Min.Y = strip.Max.Y + margin
		c.below(strip)
	}
	main := dc
	if c.side != nil {
		side := dc
		// The column gets its whole width; the margin between it and the
		// plot comes out of the plot's share.
		side.Min.X = dc.Max.X - c.sideWidth
		main.Max.X = side.Min.X - margin
		c.side(side)
	}
	if c.upper == nil {
		c.plot.Draw(main)
		return
	}
	cs := plot.Align([][]*plot.Plot{{c.upper}, {c.plot}}, draw.Tiles{Rows: 2, Cols: 1, PadY: margin}, main)
	c.upper.Draw(cs[0][0])
	c.plot.Draw(cs[1][0])
}

// fitTitle fits a title into width w: whole on one line when it fits,
// else broken at the space that best balances two lines, and if a line is
// still too wide (a long session name) in a font made just small enough.
// The title is never cut: it says what the chart shows.
func fitTitle(sty text.Style, t string, w vg.Length) (text.Style, string) {
	if sty.Width(t) <= w {
		return sty, t
	}
	best := t
	for i, r := range t {
		if r != ' ' {
			continue
		}
		two := t[:i] + "\n" + t[i+1:]
		if sty.Width(two) < sty.Width(best) {
			best = two
		}
	}
	if wide := sty.Width(best); wide > w {
		sty.Font.Size *= w / wide
	}
	return sty, best
}

func inset(c draw.Canvas, d vg.Length) draw.Canvas {
	c.Min.X += d
	c.Min.Y += d
	c.Max.X -= d
	c.Max.Y -= d
	return c
}

// newPlot returns a plot with a title, axis labels, a light grid, round
// ticks and Liberation Sans on every text element. gonum's default is
// Liberation Serif, set through the package-level plot.DefaultFont; calib
// sets the font on this plot's own elements instead, so nothing global is
// mutated and plots made concurrently cannot interfere.
func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	for _, f := range []*font.Font{&p.Title.TextStyle.Font, &p.X.Label.TextStyle.Font, &p.Y.Label.TextStyle.Font,
		&p.X.Tick.Label.Font, &p.Y.Tick.Label.Font, &p.Legend.TextStyle.Font} {
		setSans(f)
	}
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(8)
	p.X.Tick.Marker = roundTicks{}
	p.Y.Tick.Marker = roundTicks{}
	g := plotter.NewGrid()
	g.Vertical.Color = gridColor
	g.Horizontal.Color = gridColor
	p.Add(g)
	return p
}

// setSans switches a font to Liberation Sans, keeping its size. gonum
// embeds the Liberation fonts, so no system font is needed and output is
// the same on every machine.
func setSans(f *font.Font) {
	f.Typeface, f.Variant = "Liberation", "Sans"
}

// Figure is a chart to be saved under a name (without extension).
type Figure struct {
	Name  string
	Chart Chart
}

// SavePlots writes every figure as NAME.png and NAME.svg into dir (created
// if missing) and returns the written paths in order. Names are sanitized
// (see SanitizeName) so that a session id or parameter set can be used
// directly. The files are byte-identical across runs for the same chart.
func SavePlots(dir string, figs ...Figure) ([]string, error) {
	// Two figures must not share a file, also where file names ignore case
	// (macOS, Windows): the second would overwrite the first unnoticed.
	// Callers make names unique (cmd's sessionNames); this says so before
	// anything is written if one does not.
	files := map[string]string{}
	for _, f := range figs {
		k := strings.ToLower(SanitizeName(f.Name))
		if other, ok := files[k]; ok {
			return nil, fmt.Errorf("plots %q and %q would both be saved as %s.png and .svg in %s", other, f.Name, SanitizeName(f.Name), dir)
		}
		files[k] = f.Name
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		// mkdir's own "not a directory" names neither the file in the way
		// nor what to do about it.
		var pe *fs.PathError
		if errors.Is(err, syscall.ENOTDIR) && errors.As(err, &pe) {
			return nil, fmt.Errorf("plot folder %s: %s is a file, not a folder; give a folder path (it is created if missing)", dir, pe.Path)
		}
		return nil, fmt.Errorf("plot folder %s: %w", dir, err)
	}
	var paths []string
	for i, p := range PlotPaths(dir, figs...) {
		c := figs[i/2].Chart
		write := func(out io.Writer) error { return WritePNG(out, c) }
		if i%2 == 1 {
			write = func(out io.Writer) error { return WriteSVG(out, c) }
		}
		if err := writeFile(p, write); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// PlotPaths are the files SavePlots writes for figs in dir, in order: each
// figure's NAME.png, then its NAME.svg.
func PlotPaths(dir string, figs ...Figure) []string {
	paths := make([]string, 0, 2*len(figs))
	for _, f := range figs {
		base := filepath.Join(dir, SanitizeName(f.Name))
		paths = append(paths, base+".png", base+".svg")
	}
	return paths
}

// WritePNG draws c as a PNG at PlotDPI.
func WritePNG(out io.Writer, c Chart) error {
	w, h := c.size()
	cv := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PlotDPI))
	c.draw(draw.New(cv))
	_, err := vgimg.PngCanvas{Canvas: cv}.WriteTo(out)
	return err
}

// WriteSVG draws c as an SVG. Fonts are referenced by name ("Liberation
// Sans"), not embedded: embedding costs ~500 KB per file.
func WriteSVG(out io.Writer, c Chart) error {
	w, h := c.size()
	cv := vgsvg.NewWith(vgsvg.UseWH(w, h))
	c.draw(draw.New(cv))
	_, err := cv.WriteTo(out)
	return err
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// SanitizeName turns any label into a portable file name: letters, digits,
// '.', '_' and '-' are kept, every other run of characters becomes one '-',
// and leading or trailing '-' and '.' are dropped. An empty result is "plot".
// A name longer than maxNameBytes keeps its start and its end (what the
// plot shows, "-context") around a hash of the whole: file systems refuse
// a name of more than 255 bytes, and a session id can be a file's name.
func SanitizeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r == '.' || r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if ok {
			b.WriteRune(r)
			dash = false
			continue
		}
		if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "plot"
	}
	if len(out) > maxNameBytes {
		h := fnv.New32a()
		h.Write([]byte(out))
		out = fmt.Sprintf("%s-%08x-%s", out[:nameHead], h.Sum32(), out[len(out)-nameTail:])
	}
	return out
}

// maxNameBytes is the longest name SanitizeName returns, with room for
// ".png" and ".svg" under the 255-byte limit of common file systems; a
// longer one keeps nameHead bytes of its start and nameTail of its end.
const (
	maxNameBytes = 200
	nameHead     = 120
	nameTail     = 70
)
