package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestClearStageMarksAgree walks the presets with a clear stage over
// sessions that hit each blind spot of the count's bound (blindSpotHistory,
// and swe-agent's tiny results among long ones) and over mixed sessions,
// and asks every checkpoint twice: with the turn starts and result marks
// kept as the replay keeps them, and with neither (nil: the stage reads
// the history back to its newest stub and hands that to
// clear-tool-results, the scan it did before the marks, kept as the
// oracle). The outcomes must be the same, and the marks the ones a fresh
// read of the history gives. Each session is walked as the replay follows
// the policy (its outcomes adopted) and as --compare-recorded follows a
// recording: outcomes not adopted, some results stubbed in place as a
// recorded clear writes them (walker.clear), a recorded full compaction
// emptying the history, and some checkpoints forced. Where a blind spot is
// the point, the marks must have settled some checkpoint the count could
// not (proved > 0).
func TestClearStageMarksAgree(t *testing.T) {
	type session = markSession
	blind := func(preset string) []session {
		return []session{{"blind-spot", blindSpotHistory(700, preset), true}}
	}
	mixed := func(n int) []session {
		var out []session
		for seed := range uint64(4) {
			out = append(out, session{fmt.Sprintf("mixed-%d", seed), mixedSession(seed, n), false})
		}
		return out
	}
	for _, tt := range []struct {
		preset   string
		set      map[string]string
		sessions []session
		noProof  bool // inputs are cleared with the results: the marks prove only "nothing cleared"
	}{
		{"gemini-cli", nil, append(blind("gemini-cli"), mixed(400)...), false},
		{"gemini-cli", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "1000", "mask.protect_turns": "0"}, mixed(400), false},
		{"gemini-cli", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "6000", "mask.exempt_tools": ""}, mixed(400), false},
		{"gemini-cli", map[string]string{"mask.keep_value": "1000", "mask.min_reclaim": "0", "mask.stub": PersistedOutputStub}, mixed(300), false},
		{"gemini-cli", map[string]string{"mask.keep_value": "1000", "mask.min_reclaim": "0", "mask.clear_inputs": "true"}, mixed(300), false},
		{"gemini-cli", map[string]string{"mask.keep": KeepTurns, "mask.keep_value": "2", "mask.min_reclaim": "0"}, mixed(300), false},
		{"opencode", nil, append(blind("opencode"), mixed(400)...), false},
		{"opencode", map[string]string{"prune.keep_value": "1500", "prune.min_reclaim": "5000", "cap.max": "100000"}, mixed(400), false},
		{"swe-agent", nil, append(append(blind("swe-agent"), tinyResults(1, 500), tinyResults(2, 500)), mixed(400)...), false},
		{"swe-agent", map[string]string{"mask.keep_first": "true"}, []session{tinyResults(3, 400)}, false},
		{"swe-agent", map[string]string{"mask.keep_value": "0", "mask.clear_inputs": "true"}, append([]session{tinyResults(4, 300)}, mixed(300)...), true},
		{"swe-agent", map[string]string{"mask.stub": "[{id} cleared]"}, []session{tinyResults(5, 400)}, false},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "2000"}, append([]session{tinyResults(6, 400)}, mixed(400)...), false},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "0", "clear-tool-uses.stub": "[x]"}, []session{tinyResults(7, 400)}, false},
	} {
		for _, s := range tt.sessions {
			for _, recorded := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%v/%s/recorded=%v", tt.preset, tt.set, s.name, recorded), func(t *testing.T) {
					p := presetPolicy(t, tt.preset, tt.set)
					c := p.(*Composed)
					proved, changed := walkMarked(t, c, s.msgs, recorded, func(h []corpus.Message, at Checkpoint) bool { return c.weigh.provable(c, h, at) })
					if s.blind && !tt.noProof && !recorded && proved == 0 {
						t.Error("no checkpoint was settled by the marks: the session misses the blind spot")
					}
					if !s.blind && !recorded && changed == 0 {
						t.Error("no checkpoint compacted: the session does not exercise the stage")
					}
				})
			}
		}
	}
}

// walkMarked walks msgs through p asking every checkpoint with and without
// the turn starts and result marks (see TestClearStageMarksAgree). It
// returns how many checkpoints the marks settled where nothing else could
// (proves, asked before Compact), and how many compacted.
func walkMarked(t *testing.T, p Policy, msgs []corpus.Message, recorded bool, proves func([]corpus.Message, Checkpoint) bool) (proved, changed int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(len(msgs)), 11))
	var h []corpus.Message
	at := Checkpoint{Turns: []TurnStart{}, Results: ResultMarks(p)}
	var prev *corpus.Message
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint("", prev, m) {
			at.Request, at.Force = i, recorded && r.IntN(7) == 0
			if want := AdoptResults(p, ResultMarks(p), h, 0); !reflect.DeepEqual(at.Results, want) {
				t.Fatalf("message %d: result marks %v, a fresh read gives %v", i, at.Results, want)
			}
			if proves(h, at) {
				proved++
			}
			slow := at
			slow.Turns, slow.Results = nil, nil
			of, os := p.Compact(h, at), p.Compact(h, slow)
			if !reflect.DeepEqual(of, os) {
				t.Fatalf("message %d: with the marks %+v\nwith the old scan %+v", i, of, os)
			}
			if of.Strategy != None {
				changed++
				if !recorded {
					adoptInto(&h, &at, p, of, FirstChanged(h, of.History))
				}
			}
		}
		if recorded {
			switch k := r.IntN(60); {
			case k == 0 && len(h) > 0: // a recorded full compaction restarts the history
				h, at = h[:0:0], Checkpoint{Turns: []TurnStart{}, Results: ResultMarks(p)}
			case k < 6:
				h = recordedClear(p, h, r, &at)
			}
		}
		appendInto(&h, &at, p, m)
		prev = m
	}
	return proved, changed
}

// recordedClear stubs a few of h's results in place as walker.clear writes
// a recorded clear (new block slices, the stub of an agent: Claude Code's,
// SWE-agent's or the API's), and updates at's sums and marks.
func recordedClear(p Policy, h []corpus.Message, r *rand.Rand, at *Checkpoint) []corpus.Message {
	stubs := []string{ClaudeCodeStub, "Old environment output: (7 lines omitted)", "[cleared]"}
	first := len(h)
	for range 1 + r.IntN(3) {
		if len(h) == 0 {
			break
		}
		i := r.IntN(len(h))
		for j := range h[i].Blocks {
			if h[i].Blocks[j].Kind != corpus.KindToolResult {
				continue
			}
			u, c, k := p.Measure(&h[i])
			h[i].Blocks = append([]corpus.Block(nil), h[i].Blocks...)
			h[i].Blocks[j].Text, h[i].Blocks[j].Payload = stubs[r.IntN(len(stubs))], nil
			u2, c2, k2 := p.Measure(&h[i])
			at.Units, at.Count, at.Thinking = at.Units-u+u2, at.Count-c+c2, at.Thinking-k+k2
			first = min(first, i)
			break
		}
	}
	at.Results = AdoptResults(p, at.Results, h, first)
	return h
}

// provable reports whether the checkpoint at over h is one the count's
// bound does not settle and the marks do (writesNothing on Compact's
// input, before any stage ran), for the test's count of such checkpoints.
func (c *clearStage) provable(p *Composed, h []corpus.Message, at Checkpoint) bool {
	st := &compState{h: h, in: h, units: at.Units, count: at.Count, turns: at.Turns, weigh: p.weigh, g: p.g}
	end := len(h)
	if c.protectTurns > 0 {
		end = st.nthLastTurn(c.protectTurns)
	}
	return !c.nothingToClear(at.Count) && c.writesNothing(st, at.Results, end)
}

// markSession is a session of TestClearStageMarksAgree. blind: it is
// built to hit a blind spot of the count's bound, so the marks must settle
// some checkpoint.
type markSession struct {
	name  string
	msgs  []corpus.Message
	blind bool
}

// tinyResults is a session of tool steps whose results are mostly of one
// line (shorter than SWE-agent's stub, and than the API's "[cleared]", so
// neither is written over them), one in eight of 40 lines, with text turns
// between, some results already holding SWE-agent's stub.
func tinyResults(seed uint64, n int) markSession {
	r := rand.New(rand.NewPCG(seed, 3))
	h := []corpus.Message{puser("u0", "start")}
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprint(i)
		switch k := r.IntN(8); {
		case k == 0:
			h = append(h, puser("u"+id, "next"), passt("p"+id, "sure"))
		case k == 1:
			h = append(h, step(id, "bash", strings.Repeat("a longer line of output\n", 40))...)
		case k == 2 && r.IntN(4) == 0:
			h = append(h, step(id, "bash", "Old environment output: (40 lines omitted)")...)
		default:
			h = append(h, step(id, "bash", "ok")...)
		}
	}
	return markSession{fmt.Sprintf("tiny-%d", seed), h[:n], true}
}

// TestClearStageMarksProtectedTurns is opencode's blind spot at one turn
// start: 50,000 tokens of results, over its keep budget by the count, but
// all inside the two protected turns, so the rule sees none. The marks
// settle it, and the outcome is the old scan's.
func TestClearStageMarksProtectedTurns(t *testing.T) {
	p := presetPolicy(t, "opencode", nil).(*Composed)
	h := []corpus.Message{puser("u0", "go")}
	for k := range 100 {
		h = append(h, step(fmt.Sprint(k), "bash", chars4Text(500))...)
	}
	h = append(h, passt("a", "done"), puser("u1", "next"))
	at := sums(p, h)
	at.Results = AdoptResults(p, ResultMarks(p), h, 0)
	if !p.weigh.provable(p, h, at) {
		t.Fatalf("count %d: the marks do not settle the checkpoint", at.Count)
	}
	slow := at
	slow.Turns, slow.Results = nil, nil
	of, os := p.Compact(h, at), p.Compact(h, slow)
	if !reflect.DeepEqual(of, os) || of.Strategy != None {
		t.Fatalf("with the marks %+v\nwith the old scan %+v", of, os)
	}
}
