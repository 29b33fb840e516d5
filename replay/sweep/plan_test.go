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

// With a meter whose counts are shared (o200k, chars4) each session's jobs
// share one memo (sharesMemo); every job still reports exactly what a
// replay with its own meter reports, and compactions happen in them.
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
	for _, tt := range []struct {
		policy, axis string
		fixed        map[string]string
	}{
		{"smith-staged", "compact_at=0.6,0.8", map[string]string{"meter": "o200k", "max_tokens": "8000"}},
		{"smith-staged", "compact_at=0.6,0.8", map[string]string{"meter": "chars4", "max_tokens": "8000"}},
		{"clear-tool-results", "keep_value=1000,3000", map[string]string{"trigger_at": "4000", "min_reclaim": "0", "context_source": "estimate", "compactable_tools": ""}},
		// No meter parameter: the policy's own meter (chars4) decides.
		{"claude-code", "mc_keep_tokens=1000,3000", map[string]string{"mc_trigger_at": "4000", "mc_min_reclaim": "0",
			"window_tokens": "30000", "output_reserve": "10000", "buffer_tokens": "5000"}},
	} {
		for _, track := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%s/loss=%v", tt.policy, tt.axis, track), func(t *testing.T) {
				def, _ := policy.Lookup(tt.policy)
				ax, err := ParseAxis(tt.axis)
				if err != nil {
					t.Fatal(err)
				}
				pl := Plan{Policy: def, Grid: Grid{ax}, Fixed: tt.fixed, Workers: 2, TrackLoss: track}
				if _, err := policy.New(def.Name, pl.Grid.Set(0, pl.Fixed)); err != nil {
					t.Fatal(err) // sharesMemo would say only false
				}
				if !pl.sharesMemo() {
					t.Fatal("sharesMemo = false")
				}
				jobs := pl.Jobs(len(sessions))
				r := Start(context.Background(), pl, func(_ int64, _ *corpus.Session, _ policy.Policy, tr *replay.Trace) [2]int64 {
					return [2]int64{sent(tr), int64(len(tr.Events))}
				})
				r.Seal(sessions, nil)
				got, _, err := r.Wait()
				if err != nil {
					t.Fatal(err)
				}
				// Each session had its memo, and its jobs filled it in.
				for _, s := range sessions {
					e := r.added[s]
					if e.memo == nil || !e.memo.Filled() {
						t.Fatalf("session %s: memo %v, filled in by no job", s.ID, e.memo)
					}
				}
				events := int64(0)
				for i, j := range jobs {
					own, err := policy.New(def.Name, pl.Grid.Set(j.Set, pl.Fixed))
					if err != nil {
						t.Fatal(err)
					}
					tr, err := replay.Run(context.Background(), sessions[j.Session], own, replay.Options{})
					if err != nil {
						t.Fatal(err)
					}
					if want := [2]int64{sent(tr), int64(len(tr.Events))}; got[i] != want {
						t.Errorf("set %d session %d: tokens sent and compactions %v with the shared memo, %v alone", j.Set, j.Session, got[i], want)
					}
					events += got[i][1]
				}
				if events == 0 {
					t.Error("no job compacted: the memo's counts decided nothing")
				}
			})
		}
	}
}

// sharesMemo asks the grid's meters, else the fixed meter, else the
// policy's own: smith's bytes4 and clai's rotation share nothing.
func TestSharesMemo(t *testing.T) {
	for _, tt := range []struct {
		policy, axis string
		fixed        map[string]string
		want         bool
	}{
		{"smith-staged", "compact_at=0.6,0.8", nil, false},
		{"smith-staged", "meter=bytes4,chars4", nil, true},
		{"smith-staged", "meter=bytes4", map[string]string{"meter": "o200k"}, false},
		{"smith-staged", "compact_at=0.6", map[string]string{"meter": "o200k"}, true},
		{"clear-tool-results", "keep_value=1000", nil, true},
		{"clear-tool-results", "keep_value=1000", map[string]string{"meter": "bytes4"}, false},
		{"claude-code", "mc_keep_tokens=1000", nil, true},
		{"codex", "trigger_at=0.8", nil, false},
		{"clai-rotation", "budget=50000", nil, false},
	} {
		def, err := policy.Lookup(tt.policy)
		if err != nil {
			t.Fatal(err)
		}
		ax, err := ParseAxis(tt.axis)
		if err != nil {
			t.Fatal(err)
		}
		if got := (Plan{Policy: def, Grid: Grid{ax}, Fixed: tt.fixed}).sharesMemo(); got != tt.want {
			t.Errorf("%s %s %v: sharesMemo = %v, want %v", tt.policy, tt.axis, tt.fixed, got, tt.want)
		}
	}
}
