package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// oracleThinking is the clear-thinking stage as it was before the
// history's thinking sum: it looks for droppable thinking from the start of
// the history at every run, and recounts the thinking sum of what it
// returns. The differential tests hold the stage to it.
type oracleThinking struct{ keep int }

func (t *oracleThinking) run(st *compState, _ Checkpoint) *StageReport {
	from := windowStart(st.h, t.keep)
	lo := firstDroppableThinking(st.h[:from])
	if lo < 0 {
		return nil
	}
	w := newWorking(st.h[lo:from], st.g.meter)
	touched, bytes := w.dropStaleThinking(from-lo, -1)
	if touched == 0 {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: touched, BytesRemoved: bytes}
	var before int64
	for i := lo; i < from; i++ {
		before += st.g.meter.Message(&st.h[i])
	}
	out := make([]corpus.Message, 0, len(st.h))
	out = append(append(append(out, st.h[:lo]...), w.msgs...), st.h[from:]...)
	count := st.count - weighAll(st.weigh, st.g.meter, st.h[lo:from]) + weighAll(st.weigh, st.g.meter, w.msgs)
	st.setCounted(out, st.units-before+w.total, count, thinkingAll(st.thinks, out))
	r.AfterTokens = st.tokens()
	return r
}

// firstDroppableThinking is the index of the first message holding
// thinking beside other content (what dropStaleThinking removes), -1 when
// none does: the old stage's scan.
func firstDroppableThinking(h []corpus.Message) int {
	for i := range h {
		bs := h[i].Blocks
		think := 0
		for k := range bs {
			if bs[k].Kind == corpus.KindThinking || bs[k].Kind == corpus.KindRedactedThinking {
				think++
			}
		}
		if think > 0 && think < len(bs) {
			return i
		}
	}
	return -1
}

// withOracle is p with its thinking stage replaced by the oracle.
func withOracle(t testing.TB, p Policy) *Composed {
	c := *p.(*Composed)
	c.stages = slices.Clone(c.stages)
	n := 0
	for i, s := range c.stages {
		if th, ok := s.run.(*thinkingStage); ok {
			c.stages[i].run = &oracleThinking{keep: th.keep}
			n++
		}
	}
	if n != 1 || !c.thinks {
		t.Fatalf("%s: %d thinking stages, thinks %v", p.Name(), n, c.thinks)
	}
	return &c
}

// thinkingShapes are the messages a thinking session is drawn from:
// thinking beside text or tool calls (droppable), thinking alone (never
// dropped), redacted thinking, several thinking blocks, user turns real and
// synthetic, tool results, empty messages and summaries.
var thinkingShapes = []func(id string) corpus.Message{
	func(id string) corpus.Message { return puser("u"+id, "go on "+id) },
	func(id string) corpus.Message {
		return corpus.Message{ID: "s" + id, Role: corpus.RoleUser, Synthetic: true, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "continue"}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindThinking, Text: "let me think " + id, Signature: "sig"}, {Kind: corpus.KindText, Text: "done " + id}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindThinking, Text: "alone " + id, Signature: "sig"}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindRedactedThinking, Text: "opaque"}, {Kind: corpus.KindThinking, Text: "more"},
			{Kind: corpus.KindToolUse, ToolCallID: "c" + id, ToolName: "bash", Args: []byte(`{"n":1}`)}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindRedactedThinking, Text: "opaque"}, {Kind: corpus.KindRedactedThinking, Text: "again"}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindToolUse, ToolCallID: "c" + id, ToolName: "read", Args: []byte(`{"f":"x"}`)}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "t" + id, Role: corpus.RoleTool, Blocks: []corpus.Block{
			{Kind: corpus.KindToolResult, ToolCallID: "c" + id, ToolName: "bash", Text: strings.Repeat("output line\n", 60)}}}
	},
	func(id string) corpus.Message { return corpus.Message{ID: "e" + id, Role: corpus.RoleAssistant} },
	func(id string) corpus.Message {
		return corpus.Message{ID: "y" + id, Role: corpus.RoleUser, Summary: true, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "summary " + id}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "plain " + id}}}
	},
	func(id string) corpus.Message {
		return corpus.Message{ID: "w" + id, Role: corpus.RoleUser, Blocks: []corpus.Block{
			{Kind: corpus.KindThinking, Text: "odd"}, {Kind: corpus.KindText, Text: "user thinking " + id}}}
	},
}

// thinkingSession is n messages drawn from the shapes, by the bytes of
// shape (cycled), so a fuzz input and a seeded one build sessions alike.
func thinkingSession(shape []byte, n int) []corpus.Message {
	h := make([]corpus.Message, 0, n)
	for i := range n {
		h = append(h, thinkingShapes[int(shape[i%len(shape)])%len(thinkingShapes)](fmt.Sprint(i)))
	}
	return h
}

// thinkingSettings are the preset's parameters the differential tests run
// under: the default, every window size, and the other stages firing often
// (clear and compact rewrite the history the thinking sum covers).
var thinkingSettings = []map[string]string{
	nil,
	{"clear-thinking.keep_turns": "2"},
	{"clear-thinking.keep_turns": "5"},
	{"clear-tool-uses.trigger_at": "0", "clear-tool-uses.keep_value": "1"},
	{"clear-tool-uses.trigger_at": "300", "compact.trigger_at": "1500", "compact.tail_value": "2"},
	{"compact.trigger_at": "800", "clear-thinking.keep_turns": "3"},
	{"compact.trigger_at": "800"},
}

// diffThinking walks msgs through fast and slow and fails at the first
// checkpoint where they decide differently. recorded hands both the
// recorded history (msgs up to the checkpoint, as --compare-recorded does)
// instead of their own output; force sets Checkpoint.Force; turns keeps
// fast's turn starts as the replay does (AddTurn, AdoptTurns), checked at
// every checkpoint against a fresh count, instead of leaving them nil (the
// stage then reads its window back). lend hands fast its own history as
// the replay does (Checkpoint.Owned while the outcomes say they own it,
// never the recorded one): every in-place outcome must then have changed
// only what it reports it overwrote, from the first message it changed,
// and every other outcome must have left the history as handed. It
// returns how many checkpoints dropped thinking, and how many outcomes
// were made in place (a drop after a stage that copied writes in its
// copy, so lent does not mean in place).
func diffThinking(t testing.TB, fast Policy, slow *Composed, msgs []corpus.Message, recorded, force, turns, lend bool) (dropped, inPlace int) {
	t.Helper()
	var hf, hs []corpus.Message
	var atf, ats Checkpoint
	owned := lend && !recorded
	if turns {
		atf.Turns = []TurnStart{}
	}
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if fast.Checkpoint("", prev, m) {
			atf.Request, ats.Request, atf.Force, ats.Force = i, i, force, force
			if want := sums(fast, hf).Turns; turns && !slices.Equal(atf.Turns, want) {
				t.Fatalf("message %d: turn starts %v, a fresh count gives %v", i, atf.Turns, want)
			}
			atf.Owned = owned
			handed := deepCopy(hf)
			of, os := fast.Compact(hf, atf), slow.Compact(hs, ats)
			if of.Overwrote != nil {
				inPlace++
				was := slices.Clone(hf)
				copy(was[of.OverwroteAt:], of.Overwrote)
				if !owned || !sameSlice(of.History, hf) || !reflect.DeepEqual(was, handed) ||
					FirstChanged(was, of.History) != of.OverwroteAt {
					t.Fatalf("message %d: an outcome overwrote %d messages from %d, handed owned %v: not what it changed",
						i, len(of.Overwrote), of.OverwroteAt, owned)
				}
			} else if !reflect.DeepEqual(hf, handed) {
				t.Fatalf("message %d: the history handed (owned %v) was modified without Overwrote", i, owned)
			}
			if want := sums(fast, of.History); of.Strategy != None && of.Units != want.Units || of.Count != want.Count || of.Thinking != want.Thinking {
				t.Fatalf("message %d: outcome sums %d, %d, %d; a fresh measure gives %d, %d, %d",
					i, of.Units, of.Count, of.Thinking, want.Units, want.Count, want.Thinking)
			}
			if d := outcomeDiff(of, os); d != "" {
				t.Fatalf("message %d: with the thinking sum and with the full scan, %s", i, d)
			}
			for _, s := range of.Stages {
				if s.Name == "clear-thinking" {
					dropped++
				}
			}
			if of.Strategy != None && !recorded {
				if turns {
					atf.Turns = AdoptTurns(fast, atf.Turns, of, ChangedFrom(hf, of))
				}
				hf, atf.Units, atf.Count, atf.Thinking = of.History, of.Units, of.Count, of.Thinking
				owned = lend && of.Owned
				hs, ats.Units, ats.Count, ats.Thinking = os.History, os.Units, os.Count, os.Thinking
			}
		}
		if turns {
			atf.Turns = AddTurn(atf.Turns, m, len(hf), atf.Thinking)
		}
		hf, hs = append(hf, *m), append(hs, *m)
		measureInto(&atf, fast, m)
		measureInto(&ats, slow, m)
		prev = m
	}
	return dropped, inPlace
}

// TestThinkingStageAgrees walks anthropic-context-editing over sessions
// with thinking in assorted places, its own compactions followed and
// handed the recorded history (with and without Force, as agreement
// does), with the turn starts kept and without them: the stage reading
// the sums must decide at every checkpoint as the full scan from the start
// of the history does, and every outcome's sums must be a fresh measure's.
// The sessions include one real turn of 200 messages (also after steps
// that start no turn), a short turn followed by a long one (the window is
// then the turn in progress, which the turn starts spare reading back, as
// they spare the compact stage's look for it), and turns that leave
// thinking to drop at every real turn.
func TestThinkingStageAgrees(t *testing.T) {
	shapes := map[string][]byte{
		"alternating": {0, 2, 7, 2, 0, 4, 7, 2, 10},
		"long turns": {0, 2, 4, 7, 2, 6, 7, 3, 5, 2, 8, 2, 7, 4, 7, 2, 11, 2, 6, 7,
			2, 4, 7, 2, 10, 2, 3, 2, 6, 7, 4, 7, 2, 2, 2, 5, 2, 6, 7, 2},
		"synthetic turns": {0, 2, 1, 2, 4, 7, 1, 11, 2, 0, 3, 9, 2},
	}
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 11))
		shape := make([]byte, 97)
		for i := range shape {
			shape[i] = byte(r.IntN(len(thinkingShapes)))
		}
		shapes[fmt.Sprintf("random seed=%d", seed)] = shape
	}
	sessions := map[string][]corpus.Message{}
	for name, shape := range shapes {
		sessions[name] = thinkingSession(shape, 200)
	}
	// long draws no real turn: not shape 0, nor 9 and 11 (a summary and a
	// user message with thinking, which windowStart counts as turns).
	long := func(n int) []byte {
		steps := []byte{2, 4, 7, 2, 6, 7, 3, 5, 2, 8, 2, 7, 4, 7, 2, 1, 2, 6, 7, 10}
		out := make([]byte, n)
		for i := range out {
			out[i] = steps[i%len(steps)]
		}
		return out
	}
	for name, shape := range map[string][]byte{
		"one real turn":                         slices.Concat([]byte{0}, long(199)),
		"one real turn after steps without one": slices.Concat(long(30), []byte{0}, long(169)),
		"a short turn, then a long one":         slices.Concat([]byte{0, 2, 7, 4, 0, 2, 7, 4}, []byte{0}, long(191)),
	} {
		sessions[name] = thinkingSession(shape, len(shape))
	}
	for name, msgs := range sessions {
		for _, set := range thinkingSettings {
			for _, mode := range []struct {
				name                         string
				recorded, force, turns, lend bool
			}{{"own", false, false, true, true}, {"own, copying", false, false, true, false},
				{"own, no turn starts", false, false, false, true},
				{"recorded", true, false, true, false}, {"recorded forced", true, true, true, false},
				{"recorded, no turn starts", true, false, false, false}} {
				t.Run(fmt.Sprintf("%s/%v/%s", name, set, mode.name), func(t *testing.T) {
					fast := presetPolicy(t, "anthropic-context-editing", set)
					diffThinking(t, fast, withOracle(t, fast), msgs, mode.recorded, mode.force, mode.turns, mode.lend)
				})
			}
		}
	}
}

// TestThinkingStageDrops guards the differential test against passing
// vacuously: on an alternating session the stage must drop thinking, in
// both modes, in place in the history lent (nothing else fires under the
// defaults), and leave none droppable before its window.
func TestThinkingStageDrops(t *testing.T) {
	msgs := thinkingSession([]byte{0, 2, 7, 2, 0, 4, 7, 2, 10}, 200)
	fast := presetPolicy(t, "anthropic-context-editing", nil)
	for _, recorded := range []bool{false, true} {
		n, in := diffThinking(t, fast, withOracle(t, fast), msgs, recorded, false, true, true)
		if n < 10 {
			t.Errorf("recorded %v: the stage dropped thinking at %d checkpoints, want at least 10", recorded, n)
		}
		if want := map[bool]int{false: n, true: 0}[recorded]; in != want {
			t.Errorf("recorded %v: %d of %d drops in place, want %d", recorded, in, n, want)
		}
	}
	h, _ := walk(fast, msgs)
	if i := firstDroppableThinking(h[:windowStart(h, 1)]); i >= 0 {
		t.Errorf("message %d before the window still holds droppable thinking", i)
	}
}

// FuzzThinkingStage draws sessions from the shapes by the fuzzer's bytes
// and holds the stage to the full scan in both modes, under a window of
// keep_turns from the first byte.
func FuzzThinkingStage(f *testing.F) {
	f.Add([]byte{1, 0, 2, 7, 2, 0, 4, 7, 2, 10})
	f.Add([]byte{0, 0, 2, 4, 7, 2, 6, 7, 3, 5, 2, 8, 11})
	f.Add([]byte{2, 9, 2, 1, 2, 0, 2, 5, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		set := map[string]string{"clear-thinking.keep_turns": fmt.Sprint(1 + data[0]%4),
			"clear-tool-uses.trigger_at": "800", "compact.trigger_at": "6000"}
		shape := data[1:]
		msgs := thinkingSession(shape, min(4*len(shape), 400))
		fast := presetPolicy(t, "anthropic-context-editing", set)
		for _, recorded := range []bool{false, true} {
			for _, turns := range []bool{false, true} {
				for _, lend := range []bool{false, true} {
					diffThinking(t, fast, withOracle(t, fast), msgs, recorded, recorded, turns, lend)
				}
			}
		}
	})
}

// outcomeDiff names the first field in which a and b differ (the first
// differing message, for History), "" when they are equal. How the history
// is handed back (Overwrote, OverwroteAt, Owned) is not compared:
// diffThinking checks it against the history as handed.
func outcomeDiff(a, b Outcome) string {
	a.Overwrote, a.OverwroteAt, a.Owned = nil, 0, false
	b.Overwrote, b.OverwroteAt, b.Owned = nil, 0, false
	if len(a.History) != len(b.History) {
		return fmt.Sprintf("histories of %d and %d messages", len(a.History), len(b.History))
	}
	for i := range a.History {
		if !reflect.DeepEqual(a.History[i], b.History[i]) {
			return fmt.Sprintf("history message %d: %+v and %+v", i, a.History[i], b.History[i])
		}
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	for f := range va.NumField() {
		if !reflect.DeepEqual(va.Field(f).Interface(), vb.Field(f).Interface()) {
			return fmt.Sprintf("%s: %+v and %+v", va.Type().Field(f).Name, va.Field(f).Interface(), vb.Field(f).Interface())
		}
	}
	return ""
}
