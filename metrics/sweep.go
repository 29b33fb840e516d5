package metrics

import (
	"sort"
	"strings"

	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

// SweepRow is one (parameter set, session) result of a sweep, or the
// aggregate of a parameter set over every session (Session == "").
// Metrics are named so that --sort, --pareto and plots can pick any of
// them; JSON writes them with sorted keys.
type SweepRow struct {
	Set     int                `json:"set"`
	Params  policy.Params      `json:"params"`
	Session string             `json:"session,omitempty"`
	Metrics map[string]float64 `json:"metrics"`
	Pareto  bool               `json:"pareto,omitempty"`
	// Incomplete marks a set's aggregate over fewer sessions than the
	// corpus has (an interrupted sweep): it is listed after the ranked
	// sets and never sorted, marked Pareto or counted by --top.
	Incomplete bool `json:"incomplete,omitempty"`
}

// SweepMetrics names the cost and loss figures of one replay. Rotation
// policies add their chain's figures.
func SweepMetrics(t *replay.Trace) map[string]float64 {
	s := Session(t)
	m := map[string]float64{
		"tokens_sent":   float64(s.TokensSent),
		"compactions":   float64(s.Compactions),
		"requests":      float64(s.Requests),
		"peak_tokens":   float64(s.PeakTokens),
		"target_misses": float64(s.TargetMisses),
		"exhausted":     float64(s.Exhausted),
		"violations":    float64(s.Violations),
	}
	if t.Final != nil {
		// Loss needs the final history; a chain cut at its N-th
		// rotation has none.
		m["results_mangled"] = float64(s.ResultsMangled)
		m["results_dropped"] = float64(s.ResultsDropped)
	}
	var removed int64
	for _, e := range t.Events {
		for _, st := range e.Outcome.Stages {
			removed += st.BytesRemoved
		}
	}
	m["bytes_removed"] = float64(removed)
	for name, v := range s.Reclaimed {
		m["reclaimed_"+name] = float64(v)
	}
	if g := Growth(t); len(g.Rotations) > 0 {
		m["rotations"] = float64(len(g.Rotations))
		m["max_digest_bytes"] = float64(g.MaxDigestBytes)
		m["max_nesting"] = float64(g.MaxNesting)
		m["slope_bytes_per_rotation"] = round1(g.Slope)
		m["over_budget"] = float64(g.OverBudget)
	}
	return m
}

// Aggregate combines one parameter set's session rows, each metric as the
// Registry says (unknown names sum). The parts of a ratio are summed first
// and the ratio computed from the sums.
func Aggregate(set int, params policy.Params, rows []SweepRow) SweepRow {
	agg := SweepRow{Set: set, Params: params, Metrics: map[string]float64{}}
	n := map[string]int{}
	for _, r := range rows {
		for k, v := range r.Metrics {
			m, _ := Lookup(k)
			switch m.Combine {
			case Max:
				if n[k] == 0 || v > agg.Metrics[k] {
					agg.Metrics[k] = v
				}
			case Ratio: // from the summed parts, below
				agg.Metrics[k] = 0
			default:
				agg.Metrics[k] += v
			}
			n[k]++
		}
	}
	fillRatios(agg.Metrics)
	agg.Metrics["sessions"] = float64(len(rows))
	return agg
}

// fillRatios sets every Ratio metric whose parts are in m (a zero
// denominator gives no value: there is nothing to rate).
func fillRatios(m map[string]float64) {
	for _, d := range Registry() {
		if d.Combine != Ratio {
			continue
		}
		num, ok1 := m[d.Num]
		den, ok2 := m[d.Den]
		if !ok1 || !ok2 || den == 0 {
			delete(m, d.Name)
			continue
		}
		m[d.Name] = round4(num / den)
	}
}

// MarkPareto flags the rows that no other row beats on both metrics (at
// least as good on both and better on one), in each metric's direction.
func MarkPareto(rows []SweepRow, a, b string) {
	better := func(x, y float64, name string) (geq, gt bool) {
		if HigherIsBetter(name) {
			return x >= y, x > y
		}
		return x <= y, x < y
	}
	for i := range rows {
		rows[i].Pareto = true
		for j := range rows {
			if i == j {
				continue
			}
			ge1, gt1 := better(rows[j].Metrics[a], rows[i].Metrics[a], a)
			ge2, gt2 := better(rows[j].Metrics[b], rows[i].Metrics[b], b)
			if ge1 && ge2 && (gt1 || gt2) {
				rows[i].Pareto = false
				break
			}
		}
	}
}

// SortRows orders rows best first by one or more comma-separated metrics
// (each in its own direction, from HigherIsBetter; later metrics break
// ties), then by parameter-set index so the order is deterministic.
func SortRows(rows []SweepRow, by string) error {
	keys := strings.Split(by, ",")
	for _, k := range keys {
		if err := Check("--sort", k, nil); err != nil {
			return err
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for _, k := range keys {
			x, okx := rows[i].Metrics[k]
			y, oky := rows[j].Metrics[k]
			if okx != oky {
				return okx // a row without the metric ranks last
			}
			if x != y {
				if HigherIsBetter(k) {
					return x > y
				}
				return x < y
			}
		}
		return rows[i].Set < rows[j].Set
	})
	return nil
}

// MetricNames lists the metric names present in rows, sorted.
func MetricNames(rows []SweepRow) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		for k := range r.Metrics {
			seen[k] = true
		}
	}
	names := make([]string, 0, len(seen))
	for k := range seen {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
