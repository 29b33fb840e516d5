package report

import "testing"

// TestLabelClear: a reference line's inline label is drawn only where no
// series passes (digest-growth's legacy chain crossed "budget 96,000
// bytes" through its text); a series below the box, or left of it, leaves
// it clear.
func TestLabelClear(t *testing.T) {
	rising := Series{X: []float64{0, 5, 10}, Y: []float64{0, 50, 100}}
	flat := Series{X: []float64{0, 10}, Y: []float64{10, 10}}
	for _, c := range []struct {
		name   string
		s      []Series
		ya, yb float64
		want   bool
	}{
		{"crossing", []Series{rising}, 90, 98, false},
		{"below", []Series{flat}, 90, 98, true},
		{"crossing, another series too", []Series{flat, rising}, 90, 98, false},
		{"the rise ends left of the box", []Series{{X: []float64{0, 7}, Y: []float64{0, 95}}}, 90, 98, true},
	} {
		if got := labelClear(c.s, 8, 10, c.ya, c.yb); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
