package sweep

import (
	"context"
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// With TrackLoss every job's replay carries loss signals, computed on one
// index per session shared by the parameter sets and the workers: each
// equals a lone replay's with its own index (run with -race, this is also
// the test that sharing is safe).
func TestRunTrackLossMatchesReplay(t *testing.T) {
	var sessions []*corpus.Session
	for i := range 3 {
		sc := synth.Loss(synth.LossOptions{Filler: 12 + 4*i, FillerBytes: 16000, FileBytes: 24000, Seed: uint64(i + 1)})
		sessions = append(sessions, &corpus.Session{ID: fmt.Sprint(i), Format: corpus.FormatSmithTranscript, Messages: sc.Messages})
	}
	def, _ := policy.Lookup("clear-tool-results")
	ax, _ := ParseAxis("keep_value=0,2,4")
	pl := Plan{Policy: def, Grid: Grid{ax}, Workers: 4, TrackLoss: true, Fixed: map[string]string{
		"trigger": "result_tokens", "trigger_at": "60000", "keep": "results", "compactable_tools": ""}}
	jobs := pl.Jobs(len(sessions))
	got, _, err := Run(context.Background(), pl, sessions,
		func(_ int64, _ *corpus.Session, _ policy.Policy, tr *replay.Trace) loss.Counts {
			if tr.Loss == nil {
				return loss.Counts{Hidden: -1}
			}
			return tr.Loss.Counts
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for i, j := range jobs {
		own, err := policy.New(def.Name, pl.Grid.Set(j.Set, pl.Fixed))
		if err != nil {
			t.Fatal(err)
		}
		s := sessions[j.Session]
		tr, err := replay.Run(context.Background(), s, own, replay.Options{Loss: loss.Build(s, loss.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		if got[i] != tr.Loss.Counts {
			t.Errorf("set %d session %d: loss %+v in the sweep, %+v alone", j.Set, j.Session, got[i], tr.Loss.Counts)
		}
		lost += got[i].Lost
	}
	if lost == 0 {
		t.Error("no job lost a result: the scenario should make every set lose some")
	}
}
