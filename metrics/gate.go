package metrics

import (
	"fmt"
	"math"
)

// Gates are the thresholds of `calib digest-growth`. A zero or negative
// limit is off.
type Gates struct {
	// FailOnViolations fails a chain whose replay broke an invariant. It is
	// off by default because clai's own window can split a tool pair
	// (it keeps a fixed count of messages), which the replay reports but
	// which is the reference agent's behaviour, not a digest regression.
	FailOnViolations bool
	MaxDigestBytes   int
	MaxGrowthBytes   float64 // on the least-squares slope, bytes per rotation
	MaxNesting       int
	// Baseline, when set, fails a session whose metric is worse than the
	// baseline's by more than Tolerance (a fraction: 0.05 = 5%).
	Baseline  map[string]GrowthRow
	Tolerance float64
}

// slopeNoise is the absolute allowance added to a baseline slope: a digest
// that is bounded still moves by a few bytes per rotation as its content
// changes, and a relative tolerance of a slope near zero would be no
// allowance at all.
const slopeNoise = 64.0

// Failure is one failed gate for one session.
type Failure struct {
	Gate    string  `json:"gate"`
	Session string  `json:"session"`
	Value   float64 `json:"value"`
	Limit   float64 `json:"limit"`
	Message string  `json:"message"`
}

// Apply evaluates the gates on a chain row, filling in Verdict and
// Failures, and returns the failures.
func (g Gates) Apply(r *GrowthRow) []Failure {
	var fs []Failure
	fail := func(gate string, v, limit float64, format string, a ...any) {
		fs = append(fs, Failure{Gate: gate, Session: r.ID, Value: v, Limit: limit,
			Message: fmt.Sprintf("session %s: %s", r.ID, fmt.Sprintf(format, a...))})
	}
	if g.FailOnViolations && r.Violations > 0 {
		fail("invariants", float64(r.Violations), 0, "%d invariant violation(s) during the replay", r.Violations)
	}
	if g.MaxDigestBytes > 0 && r.MaxDigestBytes > g.MaxDigestBytes {
		fail("max-digest-bytes", float64(r.MaxDigestBytes), float64(g.MaxDigestBytes),
			"largest digest is %d bytes, over the limit of %d", r.MaxDigestBytes, g.MaxDigestBytes)
	}
	if g.MaxGrowthBytes > 0 && r.Slope > g.MaxGrowthBytes {
		fail("max-growth-bytes", round1(r.Slope), g.MaxGrowthBytes,
			"digest grows %.1f bytes per rotation (least squares), over the limit of %g", r.Slope, g.MaxGrowthBytes)
	}
	if g.MaxNesting > 0 && r.MaxNesting > g.MaxNesting {
		fail("max-nesting", float64(r.MaxNesting), float64(g.MaxNesting),
			"preambles nest %d deep, over the limit of %d", r.MaxNesting, g.MaxNesting)
	}
	if base, ok := g.Baseline[r.ID]; ok {
		tol := g.Tolerance
		if lim := float64(base.MaxDigestBytes) * (1 + tol); float64(r.MaxDigestBytes) > lim {
			fail("baseline-max-digest-bytes", float64(r.MaxDigestBytes), math.Floor(lim),
				"largest digest is %d bytes, baseline %d (+%g%% tolerance)", r.MaxDigestBytes, base.MaxDigestBytes, tol*100)
		}
		if lim := base.Slope + math.Abs(base.Slope)*tol + slopeNoise; r.Slope > lim {
			fail("baseline-growth", round1(r.Slope), round1(lim),
				"digest grows %.1f bytes per rotation, baseline %.1f (+%g%% and %g B/rotation tolerance)", r.Slope, base.Slope, tol*100, slopeNoise)
		}
		// A nesting depth is a count of preamble copies, and one copy more
		// is the regression itself (clai's digest bug): no tolerance. A 5%
		// one let a chain of 20 copies pass at 21 and reported the limit
		// as 20 where 21 applied.
		if r.MaxNesting > base.MaxNesting {
			fail("baseline-nesting", float64(r.MaxNesting), float64(base.MaxNesting),
				"preambles nest %d deep, baseline %d (no tolerance: one more copy is a regression)", r.MaxNesting, base.MaxNesting)
		}
	}
	r.Failures = append(r.Failures[:0], fs...)
	if r.Failures == nil {
		r.Failures = []Failure{}
	}
	r.Verdict = VerdictOK
	switch {
	case len(fs) > 0:
		r.Verdict = VerdictFail
	case !g.judges(r.ID):
		// "ok" with no gate read as a judgment: a legacy chain nested 20
		// deep and 1.3 MB was "ok".
		r.Verdict = VerdictNoGate
	}
	return fs
}

// The verdicts of a chain, and of a run (the worst of its chains).
const (
	VerdictOK     = "ok"
	VerdictFail   = "fail"
	VerdictNoGate = "no gate"
)

// judges reports whether any gate applies to the chain of session id.
func (g Gates) judges(id string) bool {
	_, base := g.Baseline[id]
	return g.FailOnViolations || g.MaxDigestBytes > 0 || g.MaxGrowthBytes > 0 || g.MaxNesting > 0 || base
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
