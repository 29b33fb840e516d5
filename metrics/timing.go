package metrics

import (
	"math"

	"github.com/calib-dev/calib/replay"
)

// CompactionSummary sums the full-compaction agreement (replay
// CompactionAgreement rows) over sessions: how many recorded compactions
// the policy reproduced within one request, and how far its measured
// context was from the agent's where both are known.
type CompactionSummary struct {
	Events int `json:"events"`
	// Predicted counts events the policy compacted near; WithinOne those
	// where it compacted at the recorded request or one request off.
	Predicted int `json:"predicted"`
	WithinOne int `json:"within_one_request"`
	// Timing is WithinOne / Events (the sweep metric agreement_timing).
	Timing float64 `json:"timing"`
	// TokenEvents counts events with both token figures, and
	// MeanTokenError their mean |predicted - recorded| tokens.
	TokenEvents    int     `json:"token_events"`
	MeanTokenError float64 `json:"mean_token_error"`
}

// withinOne reports whether the policy compacted within one request of
// the recorded compaction.
func withinOne(c replay.CompactionAgreement) bool {
	return c.PredictedRequest != nil && math.Abs(float64(*c.PredictedRequest-c.RecordedRequest)) <= 1
}

// SummarizeCompactions sums every row, each event weighing the same.
func SummarizeCompactions(rows []replay.CompactionAgreement) CompactionSummary {
	var s CompactionSummary
	var tokErr float64
	for _, c := range rows {
		s.Events++
		if c.PredictedRequest != nil {
			s.Predicted++
		}
		if withinOne(c) {
			s.WithinOne++
		}
		if c.RecordedTokens != nil && c.PredictedTokens != nil {
			s.TokenEvents++
			tokErr += math.Abs(float64(*c.PredictedTokens - *c.RecordedTokens))
		}
	}
	if s.Events > 0 {
		s.Timing = round4(float64(s.WithinOne) / float64(s.Events))
	}
	if s.TokenEvents > 0 {
		s.MeanTokenError = math.Round(tokErr/float64(s.TokenEvents)*10) / 10
	}
	return s
}

// TimingMetrics names one session's full-compaction agreement for sweeps:
// agreement_timing is a ratio over all recorded compactions of a set.
func TimingMetrics(rows []replay.CompactionAgreement) map[string]float64 {
	if len(rows) == 0 {
		return nil
	}
	s := SummarizeCompactions(rows)
	m := map[string]float64{
		"compaction_events":      float64(s.Events),
		"compactions_within_one": float64(s.WithinOne),
	}
	fillRatios(Registry(), m)
	return m
}
