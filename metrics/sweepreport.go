package metrics

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// SweepHeader identifies a sweep: the same header means the same policy,
// fixed parameters, grid and corpus, which is what lets shards merge.
type SweepHeader struct {
	Policy   string        `json:"policy"`
	Fixed    policy.Params `json:"fixed"`
	Grid     []GridAxis    `json:"grid"`
	Corpus   string        `json:"corpus"` // Fingerprint of the sessions
	Sessions []string      `json:"sessions"`
	Points   int64         `json:"points"`
	Shard    string        `json:"shard"`
}

// GridAxis is one swept parameter.
type GridAxis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// SweepView is how the rows are presented; it does not change the rows.
type SweepView struct {
	Sort   string   `json:"sort,omitempty"`
	Top    int      `json:"top,omitempty"`
	Pareto []string `json:"pareto,omitempty"`
}

// SweepReport is a sweep's result: one aggregate per parameter set and one
// row per (set, session).
type SweepReport struct {
	SweepHeader
	View SweepView `json:"view"`
	// Complete is false when the sweep was interrupted; the rows are those
	// finished.
	Complete bool       `json:"complete"`
	Sets     []SweepRow `json:"sets"`
	Rows     []SweepRow `json:"rows"`
}

// Fingerprint identifies a corpus by what the replay depends on (ids,
// formats, message counts and content sizes), not by where it was read, so
// shards run on different machines can merge.
func Fingerprint(sessions []*corpus.Session) string {
	h := sha256.New()
	for _, s := range sessions {
		var n int64
		for i := range s.Messages {
			for _, b := range s.Messages[i].Blocks {
				n += int64(len(b.Text) + len(b.Args) + len(b.Payload) + len(b.Signature))
			}
		}
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\n", s.ID, s.Format, len(s.Messages), n)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// BuildSweep assembles a report from session rows (in any order): rows are
// ordered by (set, session), aggregated per set, and the view applied to
// the set rows (Pareto marks, sort, top).
func BuildSweep(h SweepHeader, view SweepView, complete bool, rows []SweepRow) (*SweepReport, error) {
	order := map[string]int{}
	for i, id := range h.Sessions {
		order[id] = i
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].Set != rows[j].Set {
			return rows[i].Set < rows[j].Set
		}
		return order[rows[i].Session] < order[rows[j].Session]
	})
	r := &SweepReport{SweepHeader: h, View: view, Complete: complete, Rows: rows, Sets: []SweepRow{}}
	if r.Rows == nil {
		r.Rows = []SweepRow{}
	}
	var partial []SweepRow
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Set == rows[i].Set {
			j++
		}
		agg := Aggregate(rows[i].Set, rows[i].Params, rows[i:j])
		if j-i < len(h.Sessions) {
			agg.Incomplete = true
			partial = append(partial, agg)
		} else {
			r.Sets = append(r.Sets, agg)
		}
		i = j
	}
	if err := view.Check(nil); err != nil {
		return nil, err
	}
	if len(view.Pareto) == 2 {
		MarkPareto(r.Sets, view.Pareto[0], view.Pareto[1])
	}
	if view.Sort != "" {
		if err := SortRows(r.Sets, view.Sort); err != nil {
			return nil, err
		}
	}
	if view.Top > 0 && len(r.Sets) > view.Top {
		r.Sets = r.Sets[:view.Top]
	}
	r.Sets = append(r.Sets, partial...)
	return r, nil
}

// Check validates the view's metrics before any work (have: what the run
// can produce, nil to check names only).
func (v SweepView) Check(have func(Needs) bool) error {
	if v.Sort != "" {
		for _, k := range strings.Split(v.Sort, ",") {
			if err := Check("--sort", k, have); err != nil {
				return err
			}
		}
	}
	if len(v.Pareto) != 0 && len(v.Pareto) != 2 {
		return fmt.Errorf("--pareto takes two metrics, e.g. --pareto tokens_sent,results_mangled")
	}
	for _, m := range v.Pareto {
		if err := Check("--pareto", m, have); err != nil {
			return err
		}
	}
	if v.Top < 0 {
		return fmt.Errorf("--top %d: expected a positive count", v.Top)
	}
	return nil
}

// MergeSweeps combines shard reports into the report one run would have
// given. Every shard of one sweep must be present exactly once, with the
// same header apart from the shard, and complete. view, when not nil, is
// applied to the merged sets instead of the view the shards were run with.
func MergeSweeps(parts []*SweepReport, names []string, view *SweepView) (*SweepReport, error) {
	if len(parts) == 0 {
		return nil, errors.New("merge: no shard files given")
	}
	first := parts[0]
	n := 0
	if _, err := fmt.Sscanf(first.Shard, "%d/%d", new(int), &n); err != nil || n < 1 {
		return nil, fmt.Errorf("%s: shard %q is not k/n", names[0], first.Shard)
	}
	seen := map[int]string{}
	var rows []SweepRow
	for i, p := range parts {
		var k, pn int
		if _, err := fmt.Sscanf(p.Shard, "%d/%d", &k, &pn); err != nil {
			return nil, fmt.Errorf("%s: shard %q is not k/n", names[i], p.Shard)
		}
		if pn != n {
			return nil, fmt.Errorf("%s is shard %s but %s is shard %s: they split the sweep differently", names[i], p.Shard, names[0], first.Shard)
		}
		if prev, dup := seen[k]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d", prev, names[i], k, n)
		}
		seen[k] = names[i]
		if d := headerDiff(first.SweepHeader, p.SweepHeader); d != "" {
			return nil, fmt.Errorf("%s and %s come from different sweeps: %s", names[0], names[i], d)
		}
		if !p.Complete {
			return nil, fmt.Errorf("%s is an interrupted shard; run it again to completion", names[i])
		}
		if p.View.Top > 0 {
			return nil, fmt.Errorf("%s was written with --top %d and lacks rows; write shards without --top", names[i], p.View.Top)
		}
		rows = append(rows, p.Rows...)
	}
	var missing []string
	for k := 1; k <= n; k++ {
		if _, ok := seen[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, n))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("merge: missing shard(s) %s", strings.Join(missing, ", "))
	}
	h := first.SweepHeader
	h.Shard = "1/1"
	v := first.View
	if view != nil {
		v = *view
	}
	return BuildSweep(h, v, true, rows)
}

func headerDiff(a, b SweepHeader) string {
	switch {
	case a.Policy != b.Policy:
		return fmt.Sprintf("policy %s vs %s", a.Policy, b.Policy)
	case a.Fixed.String() != b.Fixed.String():
		return fmt.Sprintf("fixed parameters %s vs %s", a.Fixed, b.Fixed)
	case fmt.Sprint(a.Grid) != fmt.Sprint(b.Grid):
		return "the grids differ"
	case a.Corpus != b.Corpus || strings.Join(a.Sessions, ",") != strings.Join(b.Sessions, ","):
		return fmt.Sprintf("corpus %s vs %s", a.Corpus, b.Corpus)
	}
	return ""
}
