package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot sizes and resolution used by SavePlot when a Figure leaves them zero.
const (
	DefaultPlotWidth  = 8 * vg.Inch
	DefaultPlotHeight = 5 * vg.Inch
	// PlotDPI is the PNG resolution; 96 (gonum's default) looks blurry on
	// high-density screens, 150 keeps files small.
	PlotDPI = 150
)

// NewPlot returns a plot with a title, axis labels, a grid and Liberation
// Sans on every text element. gonum's default is Liberation Serif, set
// through the package-level plot.DefaultFont; calib sets the font on this
// plot's own elements instead, so nothing global is mutated and plots made
// concurrently cannot interfere.
func NewPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	setSans(&p.Title.TextStyle.Font)
	setSans(&p.X.Label.TextStyle.Font)
	setSans(&p.Y.Label.TextStyle.Font)
	setSans(&p.X.Tick.Label.Font)
	setSans(&p.Y.Tick.Label.Font)
	setSans(&p.Legend.TextStyle.Font)
	p.Title.Padding = vg.Points(6)
	p.X.Tick.Marker = cleanTicks{}
	p.Y.Tick.Marker = cleanTicks{}
	p.Add(plotter.NewGrid())
	return p
}

// cleanTicks is gonum's default tick placement with labels written without
// trailing zeros ("750" rather than "750.00") and with thousands separators.
type cleanTicks struct{}

func (cleanTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i, t := range ticks {
		if t.Label == "" {
			continue
		}
		s := strconv.FormatFloat(t.Value, 'f', -1, 64)
		if len(s) > 10 { // float noise such as 0.30000000000000004
			s = strconv.FormatFloat(t.Value, 'g', 6, 64)
		}
		ticks[i].Label = groupDigits(s)
	}
	return ticks
}

// setSans switches a font to Liberation Sans, keeping its size. gonum
// embeds the Liberation fonts, so no system font is needed and output is
// the same on every machine.
func setSans(f *font.Font) {
	f.Typeface, f.Variant = "Liberation", "Sans"
}

// Figure is a plot to be saved under a name (without extension).
type Figure struct {
	Name          string
	Plot          *plot.Plot
	Width, Height vg.Length // zero: DefaultPlotWidth × DefaultPlotHeight
}

// SavePlots writes every figure as NAME.png and NAME.svg into dir (created
// if missing) and returns the written paths in order. Names are sanitized
// (see SanitizeName) so that a session id or parameter set can be used
// directly. The files are byte-identical across runs for the same plot.
func SavePlots(dir string, figs ...Figure) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--plot %s: %w", dir, err)
	}
	var paths []string
	for _, f := range figs {
		w, h := f.Width, f.Height
		if w == 0 {
			w = DefaultPlotWidth
		}
		if h == 0 {
			h = DefaultPlotHeight
		}
		base := filepath.Join(dir, SanitizeName(f.Name))
		if err := writeFile(base+".png", func(out io.Writer) error { return WritePNG(out, f.Plot, w, h) }); err != nil {
			return paths, err
		}
		paths = append(paths, base+".png")
		if err := writeFile(base+".svg", func(out io.Writer) error { return WriteSVG(out, f.Plot, w, h) }); err != nil {
			return paths, err
		}
		paths = append(paths, base+".svg")
	}
	return paths, nil
}

// WritePNG draws p as a PNG of w × h at PlotDPI.
func WritePNG(out io.Writer, p *plot.Plot, w, h vg.Length) error {
	c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(PlotDPI))
	p.Draw(draw.New(c))
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(out)
	return err
}

// WriteSVG draws p as an SVG of w × h. Fonts are referenced by name
// ("Liberation Sans"), not embedded: embedding costs ~500 KB per file.
func WriteSVG(out io.Writer, p *plot.Plot, w, h vg.Length) error {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(c))
	_, err := c.WriteTo(out)
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
	return out
}
