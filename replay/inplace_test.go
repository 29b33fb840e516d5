package replay

import (
	"context"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/loss"
)

// lending is a policy that hands p the walker's history as the walker
// lends it (Checkpoint.Owned), or never (copy: p then copies what it
// rewrites), and counts the outcomes p rewrote in place.
type lending struct {
	policy.Policy
	copy    bool
	inPlace int
}

func (l *lending) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	if l.copy {
		at.Owned = false
	}
	o := l.Policy.Compact(h, at)
	if o.Overwrote != nil {
		l.inPlace++
	}
	return o
}

// TestInPlaceMatchesCopy replays anthropic-context-editing, loss tracked,
// with the walker's history lent to the policy (a drop of thinking then
// rewrites the dropped messages in place, Outcome.Overwrote) and without
// (every drop copies the history): the traces, the final histories and
// the loss must be the same, with no violation, some drops must have
// been in place, and the session must be as it was before the replays.
// Under the low triggers the preset also clears results and summarizes,
// so drops follow copies (the walker owns those too) and summaries.
func TestInPlaceMatchesCopy(t *testing.T) {
	for _, tt := range []struct {
		name               string
		set                map[string]string
		turns, steps, size int
		wantInPlace        int
	}{
		{"drops only", nil, 20, 4, 2000, 19},
		// The clear stage copies at every request: the drops after it
		// write in its copy.
		{"clears, drops and summaries", map[string]string{"clear-tool-uses.trigger_at": "2000",
			"compact.trigger_at": "1800", "compact.tail_value": "1"}, 12, 4, 2000, 0},
		{"keep 2 turns, clears now and then", map[string]string{"clear-thinking.keep_turns": "2",
			"clear-tool-uses.trigger_at": "3000"}, 15, 3, 700, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := thinkingTurns(tt.turns, tt.steps, tt.size)
			before := deepCopySession(s)
			var traces [2]*Trace
			var inPlace [2]int
			for k, copying := range []bool{false, true} {
				p, err := policy.New("anthropic-context-editing", tt.set)
				if err != nil {
					t.Fatal(err)
				}
				l := &lending{Policy: p, copy: copying}
				tr, err := Run(context.Background(), s, l, Options{KeepFinal: true, Loss: loss.Build(s, loss.Options{})})
				if err != nil {
					t.Fatal(err)
				}
				if len(tr.Violations) != 0 {
					t.Fatalf("copying %v: violations %+v", copying, tr.Violations)
				}
				traces[k], inPlace[k] = tr, l.inPlace
			}
			if inPlace[0] < tt.wantInPlace || inPlace[1] != 0 {
				t.Fatalf("%d compactions in place when lent, %d when not; want at least %d and 0", inPlace[0], inPlace[1], tt.wantInPlace)
			}
			t.Logf("%d of %d compactions in place", inPlace[0], len(traces[0].Events))
			a, b := traces[0], traces[1]
			if len(a.Events) == 0 || a.Loss == nil || len(a.Loss.Signals) == 0 && tt.set != nil {
				t.Fatalf("%d events, loss %v: the replay did too little to compare", len(a.Events), a.Loss)
			}
			if !reflect.DeepEqual(a, b) {
				for i := range min(len(a.Events), len(b.Events)) {
					if !reflect.DeepEqual(a.Events[i], b.Events[i]) {
						t.Fatalf("event %d: in place %+v, copying %+v", i, a.Events[i], b.Events[i])
					}
				}
				t.Fatal("the traces differ")
			}
			if !reflect.DeepEqual(s, before) {
				t.Fatal("the replay modified the session")
			}
		})
	}
}
