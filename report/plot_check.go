package report

import (
	"encoding/xml"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"
)

// CheckPlotFile checks that path is a plot as SavePlots writes it at the
// default size: a PNG that decodes to 1200 × 750 pixels (8 × 5 inches at
// PlotDPI), or an SVG document whose root is <svg> of 576 × 360 points.
// Tests of every command that writes plots use it, so "the plot was
// written" always means "the file is a readable image of the right size".
func CheckPlotFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	switch filepath.Ext(path) {
	case ".png":
		img, err := png.Decode(f)
		if err != nil {
			return fmt.Errorf("%s: not a PNG: %w", path, err)
		}
		w, h := int(DefaultPlotWidth/vg.Inch*PlotDPI), int(DefaultPlotHeight/vg.Inch*PlotDPI)
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			return fmt.Errorf("%s: %d×%d pixels, want %d×%d", path, b.Dx(), b.Dy(), w, h)
		}
		return nil
	case ".svg":
		var root struct {
			XMLName xml.Name
			Width   string `xml:"width,attr"`
			Height  string `xml:"height,attr"`
			Inner   []byte `xml:",innerxml"`
		}
		if err := xml.NewDecoder(f).Decode(&root); err != nil {
			return fmt.Errorf("%s: not XML: %w", path, err)
		}
		want := [2]string{fmt.Sprintf("%gpt", DefaultPlotWidth.Points()), fmt.Sprintf("%gpt", DefaultPlotHeight.Points())}
		if root.XMLName.Local != "svg" {
			return fmt.Errorf("%s: root element <%s>, want <svg>", path, root.XMLName.Local)
		}
		if root.Width != want[0] || root.Height != want[1] {
			return fmt.Errorf("%s: %s × %s, want %s × %s", path, root.Width, root.Height, want[0], want[1])
		}
		if len(root.Inner) == 0 {
			return fmt.Errorf("%s: empty <svg>", path)
		}
		return nil
	}
	return fmt.Errorf("%s: neither .png nor .svg", path)
}
