package sweep

import (
	"math"
	"strings"
	"testing"
)

// TestCheckRows: a sweep is refused when its (set, session) rows pass
// MaxRows, with the count, the memory estimate, the limit and what to do;
// the count saturates instead of overflowing.
func TestCheckRows(t *testing.T) {
	for _, c := range []struct {
		points   int64
		sessions int
		want     string // "" accepts
	}{
		{MaxRows, 1, ""},
		{MaxRows / 5, 5, ""},
		{MaxRows + 1, 1, "the grid has 1,000,001 parameter sets (a row each, even over one session), about 4.1 GB in memory (4 KB a row); a sweep holds at most 1,000,000 rows (about 4.1 GB): use coarser steps or fewer values"},
		{300_000, 5, "the grid has 300,000 parameter sets × 5 sessions = 1,500,000 rows, about 6.1 GB in memory (4 KB a row); a sweep holds at most 1,000,000 rows (about 4.1 GB): use coarser steps or fewer values, or sweep fewer sessions"},
		{math.MaxInt64, 3, "× 3 sessions = 9,223,372,036,854,775,807 rows, about 37778.9 EB"},
	} {
		err := CheckRows(c.points, c.sessions)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%d sets × %d sessions: refused: %v", c.points, c.sessions, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%d sets × %d sessions: %v, want %q", c.points, c.sessions, err, c.want)
		}
	}
}

// TestGridSizeRefusedEarly: a range or a grid file whose grid alone
// passes MaxRows is refused while parsing, before its values are all
// materialized and validated (a 9,000,000-value range took 57 s and
// 847 MB to be refused).
func TestGridSizeRefusedEarly(t *testing.T) {
	if _, err := ParseAxis("max_tokens=1..9000000"); err == nil || !strings.Contains(err.Error(), "9,000,000 values") || !strings.Contains(err.Error(), "at most 1,000,000 rows") {
		t.Errorf("a 9,000,000-value range: %v", err)
	}
	if a, err := ParseAxis("max_tokens=1..1000000"); err != nil || len(a.Values) != MaxRows {
		t.Errorf("a range of MaxRows values: %v", err)
	}
	_, err := ParseGridFile([]byte(`{"max_tokens": "1..2000", "window_turns": "0..999"}`))
	if err == nil || !strings.Contains(err.Error(), "the grid has 2,000,000 parameter sets") {
		t.Errorf("a grid file of 2,000 × 1,000 sets: %v", err)
	}
}
