package sweep

import (
	"fmt"
	"math"

	"github.com/calib-dev/calib/report"
)

// MaxRows caps the (parameter set, session) rows of one sweep. Every row
// stays in memory until the report is built (the report carries them all:
// JSON's rows, --per-session), and merge holds every shard's rows, so the
// cap is on the whole grid times the corpus, not on a shard: --shard
// splits the time, not the report. The cap is a constant, not a flag:
// past it the report itself does not fit a laptop.
const MaxRows = 1_000_000

// rowBytes is what one row holds, measured: a sweep of the demo corpus
// (5 sessions, smith-staged) at 2,500 and 10,000 rows peaked at 79 and
// 108 MB, 3.9 KB a row.
const rowBytes = 4 << 10

// CheckRows refuses, before any replay, a sweep of points parameter sets
// over sessions sessions (1 before the corpus is loaded: the grid alone)
// whose rows would pass MaxRows, with the estimate and what to do.
func CheckRows(points int64, sessions int) error {
	rows := points
	if sessions > 1 {
		if points > math.MaxInt64/int64(sessions) {
			rows = math.MaxInt64
		} else {
			rows = points * int64(sessions)
		}
	}
	if rows <= MaxRows {
		return nil
	}
	what := fmt.Sprintf("the grid has %s parameter sets", report.FormatInt(points))
	fix := "use coarser steps or fewer values"
	if sessions > 1 {
		what += fmt.Sprintf(" × %s sessions = %s rows", report.FormatInt(int64(sessions)), report.FormatInt(rows))
		fix += ", or sweep fewer sessions"
	} else {
		what += " (a row each, even over one session)"
	}
	return fmt.Errorf("%s, about %s in memory (%d KB a row); a sweep holds at most %s rows (about %s): %s",
		what, sizeOf(rows), rowBytes>>10, report.FormatInt(MaxRows), sizeOf(MaxRows), fix)
}

// sizeOf is the memory of n rows, in the largest unit that keeps a
// number of at least 1 (MB to EB).
func sizeOf(n int64) string {
	b := float64(n) * rowBytes / 1e6
	unit := 0
	units := []string{"MB", "GB", "TB", "PB", "EB"}
	for b >= 1000 && unit < len(units)-1 {
		b /= 1000
		unit++
	}
	if unit == 0 {
		return fmt.Sprintf("%.0f MB", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[unit])
}
