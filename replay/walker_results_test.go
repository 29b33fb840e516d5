package replay

import (
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// TestWalkerResultMarks drives the walker as Run does with presets whose
// clear stage reads the result marks (gemini-cli with budgets low enough
// that it masks and compresses, swe-agent, which masks at every step) and
// as Agree does (the agent's recorded clears written in place with
// Claude Code's stub, a recorded full compaction restarting the history),
// and checks after every step that the walker's marks (Checkpoint.Results)
// are the ones a fresh read of its history gives; clear-tool-results alone
// (its tool names read from the calls) keeps them too. A policy without a
// clear stage gets none (nil).
func TestWalkerResultMarks(t *testing.T) {
	for _, tt := range []struct {
		preset string
		set    map[string]string
	}{
		{"gemini-cli", map[string]string{"mask.keep_value": "3000", "mask.min_reclaim": "1000", "compress.trigger_at": "0.01"}},
		{"swe-agent", nil},
		{"clear-tool-results", map[string]string{"trigger_at": "20000", "context_source": policy.SourceEstimate, "compactable_tools": "bash", "keep_value": "2000", "min_reclaim": "1000"}},
	} {
		t.Run(tt.preset, func(t *testing.T) {
			p, err := policy.New(tt.preset, tt.set)
			if err != nil {
				t.Fatal(err)
			}
			s := thinkingTurns(10, 6, 9000)
			for i := range s.Messages { // one result in three a line long: swe-agent writes no stub over it
				if m := &s.Messages[i]; m.Role == corpus.RoleTool && i%3 == 0 {
					m.Blocks = []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: m.Blocks[0].ToolCallID, ToolName: "bash", Text: "ok"}}
				}
			}
			check := func(w *walker, what string, i int) {
				t.Helper()
				want := policy.AdoptResults(p, policy.ResultMarks(p), w.h, 0)
				if w.results == nil || !reflect.DeepEqual(w.results, want) {
					t.Fatalf("message %d, after %s: marks %v, a fresh read gives %v", i, what, w.results, want)
				}
			}
			for _, mode := range []walkMode{followPolicy, followRecording} {
				w := newWalker(s, p, mode)
				compacted := 0
				for i := range s.Messages {
					m := &s.Messages[i]
					if w.checks(m) {
						if o := p.Compact(w.h, w.at(i)); o.Strategy != policy.None && mode == followPolicy {
							w.adopt(o, policy.ChangedFrom(w.h, o))
							compacted++
							check(w, "a compaction", i)
						}
						w.request()
					}
					if mode == followRecording && i%9 == 8 {
						var ids []string
						for j := range w.h {
							for _, b := range w.h[j].Blocks {
								if b.Kind == corpus.KindToolResult && j%4 == i%4 {
									ids = append(ids, b.ToolCallID)
								}
							}
						}
						w.clear(ids, policy.ClaudeCodeStub)
						check(w, "a recorded clear", i)
					}
					if mode == followRecording && i == len(s.Messages)/2 {
						w.reset()
						check(w, "a recorded full compaction", i)
					}
					w.add(m)
					check(w, "an append", i)
				}
				if mode == followPolicy && compacted == 0 {
					t.Error("no compaction: the walk does not exercise the marks' adoption")
				}
			}
		})
	}
	p, err := policy.New("openhands", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := newWalker(thinkingTurns(1, 2, 10), p, followPolicy); w.results != nil {
		t.Errorf("openhands, which has no clear stage: marks %v, want nil", w.results)
	}
}
