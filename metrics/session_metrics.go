package metrics

import (
	"github.com/calib-dev/calib/replay"
)

// SessionMetrics is every per-session value of the Registry for one
// replay, keyed by metric name: replay's session table, its JSON "metrics"
// and sweep's rows all come from here, so a metric declared in the Registry
// and computed here appears in each of them. Rotation policies add their
// chain's figures (ChainMetrics); a, when not nil, adds the agreement with
// the recorded clearing events (agreementMetrics), and c the agreement with
// the recorded full compactions (TimingMetrics). stages are the policy's
// (StageOrder(t.Policy)): each gets a reclaimed_<stage> value. The caller
// computes them once for all its replays: StageOrder builds every policy's
// declaration, which per replay made a third of a sweep's allocations
// outside the replays themselves.
func SessionMetrics(t *replay.Trace, stages []string, a *replay.Agreement, c []replay.CompactionAgreement) map[string]float64 {
	return RowMetrics(Session(t), t, stages, a, c)
}

// RowMetrics is SessionMetrics from s, the trace's row (Session(t)), for a
// caller that has it already: replay reports both, and the row reads the
// whole final history (resultLoss) and copies the loss counts.
func RowMetrics(s SessionRow, t *replay.Trace, stages []string, a *replay.Agreement, c []replay.CompactionAgreement) map[string]float64 {
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
	if s.OutputCaps > 0 {
		m["output_caps"] = float64(s.OutputCaps)
	}
	if t.Window > 0 {
		// Only a policy that assumes a window has a count (0 or
		// more); for the others the column stays blank.
		m["over_window"] = float64(s.OverWindow)
	}
	var removed int64
	for _, e := range t.Events {
		for _, st := range e.Outcome.Stages {
			removed += st.BytesRemoved
		}
	}
	m["bytes_removed"] = float64(removed)
	// Every stage of the policy has a value, 0 when it reclaimed nothing,
	// so that sweep's and merge's cells are never blank for a stage the
	// policy has (blank is for a stage it does not have).
	for _, name := range stages {
		m["reclaimed_"+name] = 0
	}
	for name, v := range s.Reclaimed {
		m["reclaimed_"+name] = float64(v)
	}
	if g := Growth(t); len(g.Rotations) > 0 {
		for k, v := range ChainMetrics(g) {
			m[k] = v
		}
		// Rounded as the tables show them, so that JSON rows and
		// merges do not carry float noise.
		m["slope_bytes_per_rotation"] = round1(g.Slope)
		m["tail_slope_bytes_per_rotation"] = round1(g.TailSlope)
	}
	if t.Loss != nil {
		for k, v := range lossMetrics(t.Loss) {
			m[k] = v
		}
	}
	if a != nil {
		for k, v := range agreementMetrics(*a) {
			m[k] = v
		}
	}
	for k, v := range TimingMetrics(c) {
		m[k] = v
	}
	return m
}

// CombineSessions combines one parameter set's per-session metrics, each as the
// Registry says (unknown names sum). The parts of a ratio are summed first
// and the ratio computed from the sums, so a rate stays a rate over events.
func CombineSessions(sessions []map[string]float64) map[string]float64 {
	// Each name is looked up once, in one Registry: a lookup per value
	// built the Registry for every metric of every row.
	reg := Registry()
	combine := map[string]Combine{}
	out := map[string]float64{}
	n := map[string]int{}
	for _, ms := range sessions {
		for k, v := range ms {
			c, ok := combine[k]
			if !ok {
				m, _ := find(reg, k)
				c = m.Combine
				combine[k] = c
			}
			switch c {
			case Max:
				if n[k] == 0 || v > out[k] {
					out[k] = v
				}
			case Ratio: // from the summed parts, below
				out[k] = 0
			default:
				out[k] += v
			}
			n[k]++
		}
	}
	// Per-session values carry at most 4 decimals (usd); summing them in
	// float leaves noise (1729052.4000000001) that rounding removes.
	for k, v := range out {
		if combine[k] == Sum {
			out[k] = round4(v)
		}
	}
	fillRatios(reg, out)
	return out
}

// fillRatios sets every Ratio metric of reg whose parts are in m (a zero
// denominator gives no value: there is nothing to rate).
func fillRatios(reg []Metric, m map[string]float64) {
	for _, d := range reg {
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
