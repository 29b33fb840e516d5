package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestClearStagePlanUnitsAgree holds the clear stage, whose inner plan
// measures results only where their units decide something (planUnits),
// to the same preset whose inner plan measures every result it walks (the
// plan before, kept as the oracle: staged off). Every checkpoint of mixed
// and tiny-result sessions, followed as the replay follows the policy,
// some of them forced, must give the same outcome, sums and stage figures
// included. The cases cover keep=results with no min_reclaim (the
// anthropic-context-editing and swe-agent defaults, where plan measures
// nothing), and the rules that still measure: min_reclaim above 0,
// keep=tokens with and without one, keep=steps with one.
func TestClearStagePlanUnitsAgree(t *testing.T) {
	for _, tt := range []struct {
		preset   string
		set      map[string]string
		measures bool // planUnits holds: the inner plan still measures
	}{
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "2000"}, false},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "2000", "clear-tool-uses.keep_value": "0"}, false},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "2000", "clear-tool-uses.min_reclaim": "3000"}, true},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "0", "clear-tool-uses.clear_inputs": "true"}, false},
		{"swe-agent", nil, false},
		{"swe-agent", map[string]string{"mask.stub": "[{id} cleared]", "mask.keep_first": "true"}, false},
		{"gemini-cli", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "1000"}, true},
		{"gemini-cli", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "0"}, true},
		{"gemini-cli", map[string]string{"mask.keep": KeepTurns, "mask.keep_value": "2", "mask.min_reclaim": "0"}, false},
		{"opencode", map[string]string{"prune.keep": KeepSteps, "prune.keep_value": "3", "prune.min_reclaim": "100"}, true},
	} {
		sessions := []markSession{tinyResults(11, 400)}
		for seed := range uint64(3) {
			sessions = append(sessions, markSession{fmt.Sprintf("mixed-%d", seed), mixedSession(seed, 400), false})
		}
		for _, s := range sessions {
			t.Run(fmt.Sprintf("%s/%v/%s", tt.preset, tt.set, s.name), func(t *testing.T) {
				p := presetPolicy(t, tt.preset, tt.set).(*Composed)
				oracle := presetPolicy(t, tt.preset, tt.set).(*Composed)
				for _, st := range oracle.stages {
					if c, ok := st.run.(*clearStage); ok {
						c.inner.staged = false
					}
				}
				if got := p.weigh.inner.planUnits(); got != tt.measures {
					t.Fatalf("planUnits = %v, want %v", got, tt.measures)
				}
				if changed := walkPlanUnits(t, p, oracle, s.msgs); changed == 0 {
					t.Error("no checkpoint compacted: the session does not exercise the stage")
				}
			})
		}
	}
}

// walkPlanUnits walks msgs through p, following its outcomes, and asks
// oracle every checkpoint p is asked (one in five forced); it returns how
// many checkpoints compacted.
func walkPlanUnits(t *testing.T, p, oracle Policy, msgs []corpus.Message) (changed int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(len(msgs)), 5))
	var h []corpus.Message
	at := Checkpoint{Turns: []TurnStart{}, Results: ResultMarks(p)}
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint("", prev, m) {
			at.Request, at.Force = i, r.IntN(5) == 0
			got, want := p.Compact(h, at), oracle.Compact(h, at)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("message %d: %+v\nthe plan measuring every result: %+v", i, got, want)
			}
			if got.Strategy != None {
				changed++
				adoptInto(&h, &at, p, got, FirstChanged(h, got.History))
			}
		}
		appendInto(&h, &at, p, m)
		prev = m
	}
	return changed
}
