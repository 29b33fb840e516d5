package replay

import (
	"context"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
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

// lendingRecording is lending for the recorded policy, which the replay
// must still know as replaying the recording (policy.Recording).
type lendingRecording struct{ *lending }

func (lendingRecording) ReplaysRecording() {}

// TestInPlaceRecordedMatchesCopy is TestInPlaceMatchesCopy for the
// recorded policy's clears: lent, it writes the results each recorded
// clear names in place, found by their lines (RecordedIndex.holders); not
// lent, it copies the history. On a synthetic log with a clear after every
// third message, every clear must be in place; on the real Claude Code
// sessions that cleared (microcompact boundaries, persisted outputs), so
// must some (9 sessions).
func TestInPlaceRecordedMatchesCopy(t *testing.T) {
	s := manyClears(1500)
	inPlace, tr := lentMatchesCopy(t, s, "recorded", nil)
	if len(tr.Events) < 400 || inPlace != len(tr.Events) {
		t.Fatalf("%d of %d clears in place, want all of at least 400", inPlace, len(tr.Events))
	}
	cleared := 0
	for _, s := range realClaudeCodeSessions(t) {
		if !s.HasClearing() && len(s.Recorded.Persisted) == 0 {
			continue
		}
		t.Run(s.ID, func(t *testing.T) {
			inPlace, tr := lentMatchesCopy(t, s, "recorded", nil)
			if inPlace == 0 {
				t.Fatalf("none of %d compactions in place", len(tr.Events))
			}
			cleared++
		})
	}
	if cleared != 9 {
		t.Fatalf("%d real sessions cleared, want 9 (the 2.1.x logs with boundaries or persisted outputs)", cleared)
	}
}

// TestInPlaceMatchesCopy replays anthropic-context-editing, loss tracked,
// with the walker's history lent to the policy (a drop of thinking, or a
// clear, then rewrites the messages it changes in place,
// Outcome.Overwrote) and without (every one copies the history): the
// traces, the final histories and the loss must be the same, with no
// violation, some compactions must have been in place, and the session
// must be as it was before the replays. Under the low triggers the preset
// also clears results and summarizes, so drops follow clears in one
// compaction, and summaries (copies the walker owns too) precede drops.
func TestInPlaceMatchesCopy(t *testing.T) {
	for _, tt := range []struct {
		name               string
		set                map[string]string
		turns, steps, size int
		wantInPlace        int
	}{
		{"drops only", nil, 20, 4, 2000, 19},
		// The clear stage writes in place at nearly every request, and
		// the drops after it extend what it overwrote; a summary copies.
		{"clears, drops and summaries", map[string]string{"clear-tool-uses.trigger_at": "2000",
			"compact.trigger_at": "1800", "compact.tail_value": "1"}, 12, 4, 2000, 30},
		{"keep 2 turns, clears now and then", map[string]string{"clear-thinking.keep_turns": "2",
			"clear-tool-uses.trigger_at": "3000"}, 15, 3, 700, 10},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := thinkingTurns(tt.turns, tt.steps, tt.size)
			inPlace, tr := lentMatchesCopy(t, s, "anthropic-context-editing", tt.set)
			if len(tr.Loss.Signals) == 0 && tt.set != nil {
				t.Fatal("no loss: the replay did too little to compare")
			}
			if inPlace < tt.wantInPlace {
				t.Fatalf("%d compactions in place when lent, want at least %d", inPlace, tt.wantInPlace)
			}
			t.Logf("%d of %d compactions in place", inPlace, len(tr.Events))
		})
	}
}

// TestInPlaceClearsMatchCopy is TestInPlaceMatchesCopy for the stages
// that rewrite blocks (cow: the cap stage and the clear stage), on a
// tool-heavy session: lent, the preset writes the results it caps or
// clears in place (Outcome.Overwrote); not lent, it copies the history.
// anthropic-context-editing's clear stage is given a trigger low enough
// to clear in this session, and gemini-cli budgets low enough to mask
// (and, once, a cap low enough to cut most outputs).
func TestInPlaceClearsMatchCopy(t *testing.T) {
	s := synth.ToolHeavySession(1500)
	for _, tt := range []struct {
		name, preset string
		set          map[string]string
	}{
		{"swe-agent", "swe-agent", nil},
		{"opencode", "opencode", nil},
		{"gemini-cli", "gemini-cli", map[string]string{"mask.keep_value": "3000", "mask.min_reclaim": "1000"}},
		// Caps in place, then masks after them in the same compaction.
		{"gemini-cli capping", "gemini-cli", map[string]string{"cap.max": "2000", "mask.keep_value": "3000", "mask.min_reclaim": "1000"}},
		{"anthropic-context-editing", "anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "20000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			inPlace, tr := lentMatchesCopy(t, s, tt.preset, tt.set)
			t.Logf("%d of %d compactions in place", inPlace, len(tr.Events))
			if len(tr.Loss.Signals) == 0 {
				t.Fatal("no loss: the replay did too little to compare")
			}
			if inPlace < len(tr.Events)/2 {
				t.Fatalf("%d of %d compactions in place when lent, want at least half", inPlace, len(tr.Events))
			}
		})
	}
}

// lentMatchesCopy replays s under preset (set applied), loss tracked, with
// the walker's history lent to the policy and without: the traces (events,
// final histories, loss) must be the same, with no violation, and the
// session as it was before. It returns how many compactions were made in
// place when lent (none may be when not), and the trace.
func lentMatchesCopy(t *testing.T, s *corpus.Session, preset string, set map[string]string) (inPlace int, tr *Trace) {
	t.Helper()
	before := deepCopySession(s)
	var traces [2]*Trace
	var counts [2]int
	for k, copying := range []bool{false, true} {
		p, err := policy.New(preset, set)
		if err != nil {
			t.Fatal(err)
		}
		l := &lending{Policy: p, copy: copying}
		var lent policy.Policy = l
		if _, ok := p.(policy.Recording); ok {
			lent = lendingRecording{l}
		}
		r, err := Run(context.Background(), s, lent, Options{KeepFinal: true, Loss: loss.Build(s, loss.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Violations) != 0 {
			t.Fatalf("copying %v: violations %+v", copying, r.Violations)
		}
		traces[k], counts[k] = r, l.inPlace
	}
	if counts[1] != 0 {
		t.Fatalf("%d compactions in place when not lent", counts[1])
	}
	a, b := traces[0], traces[1]
	if len(a.Events) == 0 || a.Loss == nil || len(a.Final) == 0 {
		t.Fatalf("%d events, loss %v, %d final messages: the replay did too little to compare", len(a.Events), a.Loss, len(a.Final))
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
	return counts[0], a
}
