package metrics

import (
	"testing"

	"github.com/calib-dev/calib/replay"
)

func TestSummarizeCompactions(t *testing.T) {
	i := func(v int) *int { return &v }
	rows := []replay.CompactionAgreement{
		{RecordedRequest: 10, PredictedRequest: i(10), RecordedTokens: i(1000), PredictedTokens: i(1100)},
		{RecordedRequest: 20, PredictedRequest: i(19), PredictedTokens: i(5)}, // no recorded tokens
		{RecordedRequest: 30, PredictedRequest: i(32), RecordedTokens: i(1000), PredictedTokens: i(900)},
		{RecordedRequest: 40}, // the policy never compacted there
	}
	want := CompactionSummary{Events: 4, Predicted: 3, WithinOne: 2, Timing: 0.5, TokenEvents: 2, MeanTokenError: 100}
	if got := SummarizeCompactions(rows); got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	m := TimingMetrics(rows)
	if m["agreement_timing"] != 0.5 || m["compaction_events"] != 4 || m["compactions_within_one"] != 2 {
		t.Errorf("sweep metrics %v", m)
	}
	if TimingMetrics(nil) != nil {
		t.Error("a session without recorded compactions has no timing metrics")
	}
}
