package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestClearStageShortcutAgrees walks each preset with a clear stage over
// mixed sessions twice: as built, where the stage skips a checkpoint whose
// count (Composed.Measure) shows nothing to clear, and with that count
// taken away (weigh nil: Measure counts messages and the stage always asks
// clear-tool-results). Every outcome but Count must be the same, and Count
// must be the sum a fresh Measure gives.
func TestClearStageShortcutAgrees(t *testing.T) {
	for _, tt := range []struct {
		preset string
		set    map[string]string
	}{
		{"gemini-cli", nil},
		{"gemini-cli", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "1000", "mask.protect_turns": "0"}},
		{"gemini-cli", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "0", "mask.protect_turns": "0", "mask.exempt_tools": ""}},
		{"gemini-cli", map[string]string{"mask.keep_value": "0", "mask.min_reclaim": "3000", "mask.protect_turns": "0", "mask.exempt_tools": ""}},
		{"gemini-cli", map[string]string{"mask.keep": KeepTurns, "mask.keep_value": "2", "mask.min_reclaim": "0"}},
		{"gemini-cli", map[string]string{"mask.keep": KeepSteps, "mask.keep_value": "3", "mask.min_reclaim": "500"}},
		{"opencode", nil},
		{"opencode", map[string]string{"prune.keep_value": "1500", "prune.min_reclaim": "500", "cap.max": "100000"}},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "2000"}},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "0", "clear-tool-uses.clear_inputs": "true"}},
		{"swe-agent", nil},
		{"swe-agent", map[string]string{"mask.keep_value": "0", "mask.clear_inputs": "true"}},
	} {
		for seed := range uint64(6) {
			t.Run(fmt.Sprintf("%s/%v/seed=%d", tt.preset, tt.set, seed), func(t *testing.T) {
				fast := presetPolicy(t, tt.preset, tt.set)
				slow := *fast.(*Composed)
				if slow.weigh == nil {
					t.Fatal("no clear stage weighs the count")
				}
				slow.weigh = nil
				msgs := mixedSession(seed, 400)
				var hf, hs []corpus.Message
				var atf, ats Checkpoint
				var prev *corpus.Message
				changed := 0
				for i := range msgs {
					m := &msgs[i]
					if fast.Checkpoint("", prev, m) {
						atf.Request, ats.Request = i, i
						of, os := fast.Compact(hf, atf), slow.Compact(hs, ats)
						if want := sums(fast, of.History).Count; of.Count != want {
							t.Fatalf("message %d: outcome count %d, a fresh measure gives %d", i, of.Count, want)
						}
						cf, cs := of.Count, os.Count
						of.Count, os.Count = 0, 0
						if !reflect.DeepEqual(of, os) {
							t.Fatalf("message %d: with the count's shortcut %+v\nwithout %+v", i, of, os)
						}
						if of.Strategy != None {
							changed++
							hf, atf.Units, atf.Count, atf.Thinking = of.History, of.Units, cf, of.Thinking
							hs, ats.Units, ats.Count, ats.Thinking = os.History, os.Units, cs, os.Thinking
						}
					}
					hf, hs = append(hf, *m), append(hs, *m)
					measureInto(&atf, fast, m)
					measureInto(&ats, &slow, m)
					prev = m
				}
				if changed == 0 {
					t.Errorf("no checkpoint compacted: the session does not exercise the stage")
				}
			})
		}
	}
}

// mixedSession is n messages of user turns, assistant text and thinking,
// and tool steps with one to three results of a few characters to 60,000,
// some of them exempt (skill) or already holding a stub, with quiet
// stretches of text turns between them.
func mixedSession(seed uint64, n int) []corpus.Message {
	r := rand.New(rand.NewPCG(seed, 7))
	sizes := []int{3, 40, 400, 800, 2000, 8000, 60000}
	tools := []string{"bash", "read", "skill"}
	stubs := []string{"[cleared]", "Old environment output: (3 lines omitted)", ClaudeCodeStub}
	var h []corpus.Message
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprint(i)
		switch k := r.IntN(10); {
		case k < 2:
			h = append(h, corpus.Message{ID: "u" + id, Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "go on " + id}}})
		case k < 3:
			h = append(h, corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
				{Kind: corpus.KindThinking, Text: "hmm", Signature: "s"}, {Kind: corpus.KindText, Text: "done " + id}}})
		default:
			calls := corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant}
			res := corpus.Message{ID: "t" + id, Role: corpus.RoleTool}
			for c := range 1 + r.IntN(3) {
				cid, tool := fmt.Sprintf("c%d-%d", i, c), tools[r.IntN(len(tools))]
				text := strings.Repeat("line of output\n", 1+sizes[r.IntN(len(sizes))]/15)
				if r.IntN(12) == 0 {
					text = stubs[r.IntN(len(stubs))]
				}
				calls.Blocks = append(calls.Blocks, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: cid, ToolName: tool, Args: []byte(`{"n":"` + cid + `"}`)})
				res.Blocks = append(res.Blocks, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: cid, ToolName: tool, Text: text})
			}
			h = append(h, calls, res)
			if r.IntN(3) == 0 {
				for q := range r.IntN(30) {
					h = append(h, corpus.Message{ID: fmt.Sprintf("q%d-%d", i, q), Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "ok"}}},
						corpus.Message{ID: fmt.Sprintf("p%d-%d", i, q), Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "fine"}}})
				}
			}
		}
	}
	return h[:n]
}

// TestClearStageShortcutBoundaries puts the history's count right at and
// around the budgets the shortcut reads (keep=tokens' keep_value and
// min_reclaim, in chars4 tokens): either side, the stage must decide as
// clear-tool-results does.
func TestClearStageShortcutBoundaries(t *testing.T) {
	for _, tt := range []struct {
		name string
		set  map[string]string
		old  int // tokens of the older result; the newer one holds 100
	}{
		{"keep_value", map[string]string{"mask.keep_value": "2000", "mask.min_reclaim": "0"}, 1900},
		{"min_reclaim", map[string]string{"mask.keep_value": "0", "mask.min_reclaim": "3000"}, 2900},
	} {
		set := map[string]string{"mask.protect_turns": "0", "mask.exempt_tools": ""}
		for k, v := range tt.set {
			set[k] = v
		}
		fast := presetPolicy(t, "gemini-cli", set)
		slow := *fast.(*Composed)
		slow.weigh = nil
		cleared := map[bool]int{}
		for d := range 25 { // the results and their tool names from 2 tokens short of the boundary to 4 over
			h := []corpus.Message{puser("u", "go")}
			// grep: a one-line shell output's preview is all of it, so
			// Gemini's mask would not write it.
			h = append(h, step("c1", "grep", chars4Text(tt.old-4)+strings.Repeat("x", d))...)
			h = append(h, step("c2", "grep", chars4Text(100))...)
			h = append(h, passt("a", "done"), puser("u2", "next"))
			of, os := fast.Compact(h, sums(fast, h)), slow.Compact(h, sums(&slow, h))
			of.Count, os.Count = 0, 0
			if !reflect.DeepEqual(of, os) {
				t.Fatalf("%s, %d chars over %d tokens: with the count's shortcut %+v\nwithout %+v", tt.name, d, tt.old-4, of, os)
			}
			cleared[of.Strategy != None]++
		}
		if cleared[true] == 0 || cleared[false] == 0 {
			t.Errorf("%s: cleared %d times of %d: the sizes do not straddle the boundary", tt.name, cleared[true], cleared[true]+cleared[false])
		}
	}
}
