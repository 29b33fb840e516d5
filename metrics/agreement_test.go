package metrics

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

// agreementFixture: session s1 has an exact event, one with a missing id
// and a policy that did not fire, and one off the policy's checkpoints; s2
// has no recorded event but a checkpoint where the policy acted.
func agreementFixture() []replay.Agreement {
	return []replay.Agreement{
		{Session: "s1", Checkpoints: 10, AgentActed: 3, PolicyActed: 2, BothActed: 1, Events: []replay.EventAgreement{
			{Event: 0, Line: 5, Checkpoint: true, Fired: true, Recorded: []string{"a", "b"}, Predicted: []string{"a", "b"},
				Exact: true, Jaccard: 1, RecordedBefore: 1000, PredictedBefore: 1000, RecordedSaved: 400, PredictedSaved: 400},
			{Event: 1, Line: 9, Checkpoint: true, Fired: false, Recorded: []string{"c", "d", "e"}, Predicted: []string{"c", "d"},
				Missing: []string{"e"}, Unknown: []string{"zz"}, Jaccard: 2.0 / 3,
				RecordedBefore: 1200, PredictedBefore: 1100, RecordedSaved: 600, PredictedSaved: 300},
			{Event: 2, Line: 12, Checkpoint: false, Recorded: []string{"f"}, Predicted: []string{"f", "g"},
				Extra: []string{"g"}, Jaccard: 0.5, RecordedBefore: 500, PredictedBefore: 500, RecordedSaved: 0, PredictedSaved: 50},
		}},
		{Session: "s2", Checkpoints: 4, PolicyActed: 1},
	}
}

func TestAgreementRowsAndSummary(t *testing.T) {
	as := agreementFixture()
	rows := AgreementRows(as)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	want1 := AgreementRow{Session: "s1", Event: 1, Line: 9, Checkpoint: true, Recorded: 3, Predicted: 2,
		Missing: []string{"e"}, Extra: []string{}, Unknown: []string{"zz"}, Jaccard: 0.6667,
		RecordedBefore: 1200, PredictedBefore: 1100, BeforeError: -100, RecordedSaved: 600, PredictedSaved: 300, SavedError: -300}
	if !reflect.DeepEqual(rows[1], want1) {
		t.Fatalf("row 1\n got %+v\nwant %+v", rows[1], want1)
	}
	js, _ := json.Marshal(rows[0])
	if want := `{"session":"s1","event":0,"line":5,"checkpoint":true,"fired":true,"recorded_ids":2,"predicted_ids":2,"missing":[],"extra":[],"unknown":[],"exact":true,"jaccard":1,"recorded_before_tokens":1000,"predicted_before_tokens":1000,"before_error":0,"recorded_saved_tokens":400,"predicted_saved_tokens":400,"saved_error":0}`; string(js) != want {
		t.Fatalf("json\n got %s\nwant %s", js, want)
	}

	// Trigger: 14 checkpoints + 1 event off them = 15 points; the policy
	// acted once where the agent did not (s1) and once in s2, the agent
	// twice where the policy did not: 11 of 15 agree.
	want := AgreementSummary{Sessions: 2, Events: 3, Exact: 1, ExactIDs: 1, Fired: 1, Unknown: 1,
		MeanJaccard: 0.7222, MeanAbsSavedError: 116.7, MeanAbsBeforeError: 33.3,
		Checkpoints: 14, AgentActed: 3, PolicyActed: 3, BothActed: 1, TriggerAgreement: 0.7333}
	if got := SummarizeAgreement(as); got != want {
		t.Fatalf("summary\n got %+v\nwant %+v", got, want)
	}
}

func TestAgreementMetrics(t *testing.T) {
	as := agreementFixture()
	if m := agreementMetrics(as[1]); m != nil {
		t.Fatalf("a session without events has no agreement metrics: %v", m)
	}
	got := agreementMetrics(as[0])
	// saved: 0, 300/600, and 50 predicted where 0 was recorded (1);
	// before: 0, 100/1200, 0. Trigger: 10 checkpoints + 1 off, 1 + 2 disagree.
	want := map[string]float64{
		"agreement_exact":   0.3333,
		"agreement_jaccard": 0.7222,
		"agreement_trigger": 0.7273,
		"saved_error_rate":  0.5,
		"before_error_rate": 0.0278,
		"recorded_events":   3,
		"exact_events":      1,
		"jaccard_sum":       got["jaccard_sum"], // 2.1666…: checked through agreement_jaccard
		"trigger_points":    11,
		"trigger_agreed":    8,
		"saved_error_sum":   1.5,
		"before_error_sum":  got["before_error_sum"], // 1/12: checked through before_error_rate
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("metrics\n got %v\nwant %v", got, want)
	}
	for name := range got {
		higher := name == "agreement_exact" || name == "agreement_jaccard" || name == "agreement_trigger"
		if HigherIsBetter(name) != higher {
			t.Errorf("%s: HigherIsBetter %v", name, !higher)
		}
	}
	// A session without events adds nothing to a set's agreement.
	agg := CombineSessions([]map[string]float64{got, agreementMetrics(as[1])})
	if agg["agreement_exact"] != 0.3333 || agg["recorded_events"] != 3 {
		t.Fatalf("combined %v", agg)
	}
}

// TestAgreementRealClaudeCode sums agreement over the real Claude Code
// 2.1.x logs: for the defaults and for the best parameter set found.
func TestAgreementRealClaudeCode(t *testing.T) {
	var ss []*corpus.Session
	for _, f := range []string{"b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", "fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl"} {
		path := realcorpus.Dir(t, "claude-code", f)
		loaded, err := load.Load([]string{path}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, loaded[0])
	}
	tests := []struct {
		set  map[string]string
		want AgreementSummary
	}{
		{map[string]string{"trigger": "result_tokens", "trigger_at": "40000", "keep": "results", "keep_value": "5"}, AgreementSummary{Sessions: 2, Events: 3, Fired: 3, MeanJaccard: 0.8222, MeanAbsSavedError: 8250.3,
			Checkpoints: 17, AgentActed: 3, PolicyActed: 3, BothActed: 3, TriggerAgreement: 1}},
		{nil, AgreementSummary{Sessions: 2, Events: 3,
			Exact: 3, ExactIDs: 3, Fired: 3, MeanJaccard: 1,
			Checkpoints: 17, AgentActed: 3, PolicyActed: 3, BothActed: 3, TriggerAgreement: 1}},
	}
	for _, tt := range tests {
		p, err := policy.New("clear-tool-results", tt.set)
		if err != nil {
			t.Fatal(err)
		}
		var as []replay.Agreement
		for _, s := range ss {
			as = append(as, replay.Agree(s, p))
		}
		if got := SummarizeAgreement(as); got != tt.want {
			t.Errorf("%v:\n got %+v\nwant %+v", tt.set, got, tt.want)
		}
		// A sweep's set reports the same rates as replay's summary: over
		// all events and checkpoints, not a mean of session rates.
		var per []map[string]float64
		for _, a := range as {
			per = append(per, agreementMetrics(a))
		}
		m := CombineSessions(per)
		if want := round4(float64(tt.want.Exact) / float64(tt.want.Events)); m["agreement_exact"] != want {
			t.Errorf("%v: sweep agreement_exact %v, replay's exact/events %v", tt.set, m["agreement_exact"], want)
		}
		if m["agreement_jaccard"] != tt.want.MeanJaccard || m["agreement_trigger"] != tt.want.TriggerAgreement {
			t.Errorf("%v: sweep jaccard %v trigger %v, replay's %v %v", tt.set, m["agreement_jaccard"], m["agreement_trigger"], tt.want.MeanJaccard, tt.want.TriggerAgreement)
		}
	}
}
