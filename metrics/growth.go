package metrics

import (
	"encoding/hex"

	"github.com/calib-dev/calib/replay"
)

// RotationRow is one rotation of a chain: the digest it produced and how
// much of it is nested boilerplate.
type RotationRow struct {
	Rotation       int `json:"rotation"` // 1-based
	Checkpoint     int `json:"checkpoint"`
	WindowMessages int `json:"window_messages"`
	Msg0Bytes      int `json:"msg0_bytes"`
	DigestBytes    int `json:"digest_bytes"`
	// Growth is DigestBytes minus the previous rotation's (the first
	// rotation's growth is its own size).
	Growth          int  `json:"growth_bytes"`
	P1              int  `json:"p1"`
	P2              int  `json:"p2"`
	OmissionMarkers int  `json:"omission_markers"`
	CLIHeadBytes    int  `json:"cli_head_bytes"`
	CLIHeadPreamble int  `json:"cli_head_preamble_bytes"`
	OverBudget      bool `json:"over_budget"`
	// Budget is the size the digest was held to (0: none).
	Budget int    `json:"budget_bytes,omitempty"`
	SHA256 string `json:"sha256"`
}

// GrowthRow sums up a session's rotation chain.
type GrowthRow struct {
	ID        string        `json:"id"`
	Path      string        `json:"path"`
	Rotations []RotationRow `json:"rotations"`
	// Slope is the least-squares growth of the digest in bytes per
	// rotation: about zero for a bounded digest, about the size of a
	// window's worth of new text for one that copies its predecessor.
	Slope float64 `json:"slope_bytes_per_rotation"`
	// TailSlope is the same fit over the second half of the chain: a
	// bounded digest ramps up to its budget and then stays flat, so its
	// tail slope is about zero even when the whole-chain slope is not.
	TailSlope      float64            `json:"tail_slope_bytes_per_rotation"`
	MaxNesting     int                `json:"max_nesting"`
	MaxDigestBytes int                `json:"max_digest_bytes"`
	OverBudget     int                `json:"over_budget"`
	Violations     int                `json:"violations"`
	ViolationList  []replay.Violation `json:"violation_list,omitempty"`
	// Verdict is "ok", "fail", or "no gate" when no gate applied to the
	// chain (Gates.Apply); Failures names each failed gate.
	Verdict  string    `json:"verdict"`
	Failures []Failure `json:"failures"`
}

// Growth turns a rotation policy's trace into a chain row. Events without a
// digest (a non-rotation policy) are skipped.
func Growth(t *replay.Trace) GrowthRow {
	g := GrowthRow{ID: t.Session.ID, Path: t.Session.Path, Rotations: []RotationRow{},
		Violations: len(t.Violations), ViolationList: t.Violations, Verdict: "ok", Failures: []Failure{}}
	prev := 0
	for _, e := range t.Events {
		d := e.Outcome.Digest
		if d == nil {
			continue
		}
		r := RotationRow{Rotation: len(g.Rotations) + 1, Checkpoint: e.Request, WindowMessages: d.WindowMessages,
			Msg0Bytes: d.Msg0Bytes, DigestBytes: d.Bytes, Growth: d.Bytes - prev, P1: d.P1, P2: d.P2,
			OmissionMarkers: d.Omissions, CLIHeadBytes: d.CLIHeadBytes, CLIHeadPreamble: d.CLIHeadPreambleBytes,
			OverBudget: d.OverBudget, Budget: d.Budget, SHA256: hex.EncodeToString(d.SHA256[:])}
		prev = r.DigestBytes
		g.MaxNesting = max(g.MaxNesting, r.P1, r.P2)
		g.MaxDigestBytes = max(g.MaxDigestBytes, r.DigestBytes)
		if r.OverBudget {
			g.OverBudget++
		}
		g.Rotations = append(g.Rotations, r)
	}
	ys := make([]float64, len(g.Rotations))
	for i, r := range g.Rotations {
		ys[i] = float64(r.DigestBytes)
	}
	g.Slope = slope(ys)
	g.TailSlope = slope(ys[len(ys)/2:])
	return g
}

// ChainMetrics is a chain's figures by Registry name, as digest-growth's
// chain table shows them (SessionMetrics adds them to a rotation policy's
// session values).
func ChainMetrics(g GrowthRow) map[string]float64 {
	return map[string]float64{
		"rotations":                     float64(len(g.Rotations)),
		"slope_bytes_per_rotation":      g.Slope,
		"tail_slope_bytes_per_rotation": g.TailSlope,
		"max_nesting":                   float64(g.MaxNesting),
		"max_digest_bytes":              float64(g.MaxDigestBytes),
		"over_budget":                   float64(g.OverBudget),
		"violations":                    float64(g.Violations),
	}
}

// slope is the least-squares slope of ys against 1, 2, …, n; 0 for fewer
// than two points.
func slope(ys []float64) float64 {
	n := float64(len(ys))
	if len(ys) < 2 {
		return 0
	}
	mx := (n + 1) / 2
	var my float64
	for _, y := range ys {
		my += y
	}
	my /= n
	var sxy, sxx float64
	for i, y := range ys {
		dx := float64(i+1) - mx
		sxy += dx * (y - my)
		sxx += dx * dx
	}
	return sxy / sxx
}
