package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/policy"
)

// Header identifies a sweep: the same header means the same policy,
// fixed parameters, grid and corpus, which is what lets shards merge.
type Header struct {
	Policy   string        `json:"policy"`
	Fixed    policy.Params `json:"fixed"`
	Grid     Grid          `json:"grid"`
	Corpus   string        `json:"corpus"` // Fingerprint of the sessions
	Sessions []string      `json:"sessions"`
	Points   int64         `json:"points"`
	Shard    string        `json:"shard"`
	// Setup is what else the rows depend on (the cache model, the prices,
	// the model, rotations and their seed, --compare-recorded): shards
	// that differ in it are not one sweep.
	Setup policy.Params `json:"setup,omitempty"`
}

// View is how the rows are presented; it does not change the rows.
type View struct {
	Sort   string   `json:"sort,omitempty"`
	Top    int      `json:"top,omitempty"`
	Pareto []string `json:"pareto,omitempty"`
}

// Report is a sweep's result: one aggregate per parameter set and one
// row per (set, session).
type Report struct {
	Header
	View View `json:"view"`
	// Complete is false when the sweep was interrupted; the rows are those
	// finished.
	Complete bool  `json:"complete"`
	Sets     []Row `json:"sets"`
	Rows     []Row `json:"rows"`
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
				n += int64(b.Bytes() + len(b.Signature))
			}
		}
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\n", s.ID, s.Format, len(s.Messages), n)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Build assembles a report from session rows (in any order): rows are
// ordered by (set, session), aggregated per set, and the view applied to
// the set rows (Pareto marks, sort, top).
func Build(h Header, view View, complete bool, rows []Row) (*Report, error) {
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
	r := &Report{Header: h, View: view, Complete: complete, Rows: rows, Sets: []Row{}}
	if r.Rows == nil {
		r.Rows = []Row{}
	}
	var partial []Row
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].Set == rows[i].Set {
			j++
		}
		agg := aggregate(rows[i].Set, rows[i].Params, rows[i:j])
		if j-i < len(h.Sessions) {
			agg.Incomplete = true
			partial = append(partial, agg)
		} else {
			r.Sets = append(r.Sets, agg)
		}
		i = j
	}
	if err := view.check(); err != nil {
		return nil, err
	}
	if len(view.Pareto) == 2 {
		markPareto(r.Sets, view.Pareto[0], view.Pareto[1])
	}
	if view.Sort != "" {
		if err := sortRows(r.Sets, view.Sort); err != nil {
			return nil, err
		}
	}
	if view.Top > 0 && len(r.Sets) > view.Top {
		r.Sets = r.Sets[:view.Top]
	}
	r.Sets = append(r.Sets, partial...)
	return r, nil
}

// check is Build's own guard on the view, in its terms: the command
// validates its flags before any work (and names them), so a view that
// fails here is a caller's mistake.
func (v View) check() error {
	if v.Sort != "" {
		for _, k := range strings.Split(v.Sort, ",") {
			if _, ok := metrics.Lookup(k); !ok {
				return fmt.Errorf("sort by %q: not a metric", k)
			}
		}
	}
	if len(v.Pareto) != 0 && len(v.Pareto) != 2 {
		return fmt.Errorf("a Pareto front needs two metrics, not %d", len(v.Pareto))
	}
	for _, m := range v.Pareto {
		if _, ok := metrics.Lookup(m); !ok {
			return fmt.Errorf("pareto front on %q: not a metric", m)
		}
	}
	if v.Top < 0 {
		return fmt.Errorf("top %d: expected 0 (all) or more", v.Top)
	}
	return nil
}
