package metrics

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// The session JSON's "loss" object and the "losses" rows have the shapes
// issue 12 gives, with the scenario's known outcome under
// clear-tool-results (replay/loss's synthetic test has the signals).
func TestLossRows(t *testing.T) {
	sc := synth.Loss(synth.LossOptions{Filler: 24, FillerBytes: 16000, FileBytes: 24000, Seed: 7})
	s := &corpus.Session{ID: "loss", Format: corpus.FormatSmithTranscript, Messages: sc.Messages}
	// Clearing at 60,000 tokens of results, keeping the newest 4, any tool,
	// the step being sent protected: a rule the scenario sets off twice.
	p, err := policy.New("clear-tool-results", map[string]string{"trigger": "result_tokens", "trigger_at": "60000",
		"keep": "results", "keep_value": "4", "compactable_tools": "", "protect_pending": "true"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := replay.Run(context.Background(), s, p, replay.Options{Loss: loss.Build(s, loss.Options{})})
	if err != nil {
		t.Fatal(err)
	}
	row := Session(tr)
	b, err := json.Marshal(row.Loss)
	if err != nil {
		t.Fatal(err)
	}
	tokens := tr.Loss.RefetchTokens
	want := `{"results_hidden":22,"results_unseen":0,"results_needed":3,"results_refetched":1,"results_lost":2,"refetch_tokens":` +
		itoa(tokens) + `,"by_stage":{"clear":{"results_hidden":22,"results_unseen":0,"results_needed":3,"results_refetched":1,"results_lost":2,"refetch_tokens":` + itoa(tokens) + `}}}`
	if string(b) != want {
		t.Errorf("loss JSON =\n%s\nwant\n%s", b, want)
	}
	ds := LossDetails(tr)
	if len(ds) != 3 {
		t.Fatalf("%d details, want 3 (two lost, one refetched): %+v", len(ds), ds)
	}
	last := sc.Messages[len(sc.Messages)-1].Line
	lastReq := len(tr.Requests) - 1
	wantIDs := []string{sc.Used, sc.Refetched, sc.Quoted}
	for i, d := range ds {
		if d.ToolCallID != wantIDs[i] || d.Stage != "clear" || d.NeededAt == nil || *d.NeededAt != (LossAt{lastReq, last}) {
			t.Errorf("detail %d = %+v, want %s needed at request %d line %d", i, d, wantIDs[i], lastReq, last)
		}
		if (d.RefetchedAt != nil) != (d.ToolCallID == sc.Refetched) || d.Lost == (d.ToolCallID == sc.Refetched) {
			t.Errorf("detail %d = %+v: only the refetched file is refetched and not lost", i, d)
		}
	}
	b, _ = json.Marshal(ds[0])
	var keys map[string]any
	_ = json.Unmarshal(b, &keys)
	for _, k := range []string{"session", "tool_call_id", "tool", "subject", "stage", "hidden_at", "needed_at", "refetched_at"} {
		if _, ok := keys[k]; !ok {
			t.Errorf("losses row has no %q: %s", k, b)
		}
	}
	// Per event and stage: the two clears hid the 22 results between them;
	// the lost ones were both hidden by the first.
	evs := Events(tr)
	if len(evs) != 2 || evs[0].Stages[0].Loss == nil || evs[0].Stages[0].Loss.Lost != 2 || evs[1].Stages[0].Loss.Lost != 0 ||
		evs[0].Stages[0].Loss.Hidden+evs[1].Stages[0].Loss.Hidden != 22 {
		t.Errorf("event stage loss = %+v / %+v", evs[0].Stages, evs[1].Stages)
	}
	m := SessionMetrics(tr, nil, nil, nil)
	if m["results_lost"] != 2 || m["results_hidden"] != 22 || m["refetch_tokens"] != float64(tokens) {
		t.Errorf("metrics = %v", m)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
