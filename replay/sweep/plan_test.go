package sweep

import (
	"context"
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

func sent(t *replay.Trace) int64 {
	var n int64
	for _, q := range t.Requests {
		n += int64(q.Sent)
	}
	return n
}

// With meter=o200k the jobs share one memo of the corpus (usesO200k); every
// job still reports exactly what a replay with its own meter reports.
func TestRunSharedMemoMatchesReplay(t *testing.T) {
	p := synth.ToolHeavy
	p.Turns = 1
	var sessions []*corpus.Session
	for i := range 2 {
		var msgs []corpus.Message
		for seed := uint64(1 + 10*i); len(msgs) < 100; seed++ {
			msgs = append(msgs, synth.Smith(p, seed)...)
		}
		sessions = append(sessions, &corpus.Session{ID: fmt.Sprint(i), Format: corpus.FormatSmithTranscript, Messages: msgs})
	}
	def, _ := policy.Lookup("smith-staged")
	ax, _ := ParseAxis("compact_at=0.6,0.8")
	pl := Plan{Policy: def, Grid: Grid{ax}, Fixed: map[string]string{"meter": "o200k", "max_tokens": "8000"}, Workers: 2}
	if !pl.usesO200k() {
		t.Fatal("usesO200k = false with meter=o200k")
	}
	jobs := pl.Jobs(len(sessions))
	got, _, err := Run(context.Background(), pl, sessions,
		func(_ int64, _ *corpus.Session, _ policy.Policy, tr *replay.Trace) int64 { return sent(tr) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs {
		own, err := policy.New(def.Name, pl.Grid.Set(j.Set, pl.Fixed))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := replay.Run(context.Background(), sessions[j.Session], own, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := sent(tr); got[i] != want || len(tr.Events) == 0 && j.Set == 0 {
			t.Errorf("set %d session %d: tokens sent %d with the shared memo, %d alone (%d events)", j.Set, j.Session, got[i], want, len(tr.Events))
		}
	}
}
