package policy

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestClearToolResultsMarksAgree walks clear-tool-results alone over mixed
// sessions (tools bash, read and skill; results of 3 to 60,000
// characters, some already stubbed) and asks every checkpoint twice: with
// the result marks kept as the replay keeps them, and without (nil: plan
// reads the whole history, the path before the marks, kept as the
// oracle). The outcomes must be the same and the marks those a fresh read
// gives, as the replay follows the policy and as --compare-recorded
// follows a recording (walkMarked: recorded stubs written in place,
// histories restarted, checkpoints forced). The parameter sets hit each
// way plan can clear nothing: no compactable tool, exempt tools, a clear
// under min_reclaim, a keep rule that keeps everything; keep_walk stop and
// skip, protect_pending, keep=results, the bytes4 meter, cleared inputs.
// The sessions are walked with the tool names on the results and, as the
// corpus readers leave them, only on the calls (the marks then read the
// call's name as plan does), and with calls answered more than
// resultLookBack messages later (the marks count those results: a weaker
// proof, never a wrong one). Where the set is built for it, the marks
// must settle some checkpoint that fires (proved > 0), and where it
// clears, some checkpoint must compact.
func TestClearToolResultsMarksAgree(t *testing.T) {
	base := map[string]string{"trigger_at": "20000", "context_source": SourceEstimate, "compactable_tools": ""}
	for _, tt := range []struct {
		name          string
		set           map[string]string
		proves, clear bool
	}{
		{"no compactable tool", map[string]string{"compactable_tools": "Read,Bash"}, true, false},
		{"all exempt", map[string]string{"exempt_tools": "bash,read,skill"}, true, false},
		{"under min_reclaim", map[string]string{"keep_value": "4000", "min_reclaim": "30000"}, true, true},
		{"keep everything", map[string]string{"keep_value": "1000000"}, true, false},
		{"stop", map[string]string{"keep_value": "2000", "min_reclaim": "20000"}, true, true},
		{"skip", map[string]string{"keep_value": "2000", "min_reclaim": "20000", "keep_walk": WalkSkip}, true, true},
		{"protect_pending", map[string]string{"keep_value": "2000", "min_reclaim": "20000", "protect_pending": "true"}, true, true},
		{"exempt skill, read only", map[string]string{"compactable_tools": "read,skill", "exempt_tools": "skill", "keep_value": "3000", "min_reclaim": "4000"}, true, true},
		{"keep=results", map[string]string{"keep": KeepResults, "keep_value": "40", "min_reclaim": "0"}, true, true},
		{"keep=results, under min_reclaim", map[string]string{"keep": KeepResults, "keep_value": "5", "min_reclaim": "60000"}, true, true},
		{"bytes4", map[string]string{"meter": MeterBytes4, "keep_value": "2000", "min_reclaim": "20000", "stub": ClaudeCodeStub}, true, true},
		{"clear_inputs", map[string]string{"keep_value": "2000", "min_reclaim": "20000", "clear_inputs": "true"}, true, true},
		{"recorded usage, Claude Code's defaults", map[string]string{"trigger_at": "148500", "context_source": SourceRecorded, "compactable_tools": ClaudeCodeCompactable}, true, false},
		{"keep=turns (no marks)", map[string]string{"keep": KeepTurns, "keep_value": "2"}, false, true},
	} {
		set := map[string]string{}
		for k, v := range base {
			set[k] = v
		}
		for k, v := range tt.set {
			set[k] = v
		}
		provedAll, changedAll := 0, 0
		for seed := range uint64(3) {
			for _, names := range []string{"on results", "on calls", "far calls"} {
				msgs := mixedSession(seed, 500)
				switch names {
				case "on calls":
					msgs = callNamesOnly(msgs)
				case "far calls":
					msgs = farCalls(callNamesOnly(msgs))
				}
				for _, recorded := range []bool{false, true} {
					t.Run(fmt.Sprintf("%s/%d/%s/recorded=%v", tt.name, seed, names, recorded), func(t *testing.T) {
						p := presetPolicy(t, "clear-tool-results", set).(*ClearToolResults)
						if (ResultMarks(p) != nil) != p.usesMarks() {
							t.Fatalf("keep=%s: marks %v", p.keep, ResultMarks(p))
						}
						proved, changed := walkMarked(t, p, msgs, recorded, func(h []corpus.Message, at Checkpoint) bool {
							before, _ := p.contextTokens(h, at)
							return !at.Force && p.fires(at.Count, before) && p.clearsNothing(at.Results)
						})
						if !recorded {
							provedAll, changedAll = provedAll+proved, changedAll+changed
						}
					})
				}
			}
		}
		switch {
		case tt.proves != (provedAll > 0):
			t.Errorf("%s: %d checkpoints that fire settled by the marks, want some: %v", tt.name, provedAll, tt.proves)
		case tt.clear != (changedAll > 0):
			t.Errorf("%s: %d checkpoints compacted, want some: %v", tt.name, changedAll, tt.clear)
		}
	}
}

// callNamesOnly is msgs with the tool names left on the calls only, as
// the corpus readers leave them (block slices copied).
func callNamesOnly(msgs []corpus.Message) []corpus.Message {
	out := make([]corpus.Message, len(msgs))
	for i, m := range msgs {
		m.Blocks = append([]corpus.Block(nil), m.Blocks...)
		for j := range m.Blocks {
			if m.Blocks[j].Kind == corpus.KindToolResult {
				m.Blocks[j].ToolName = ""
			}
		}
		out[i] = m
	}
	return out
}

// farCalls moves every fourth tool message of msgs resultLookBack+6
// messages of text after its call.
func farCalls(msgs []corpus.Message) []corpus.Message {
	var out []corpus.Message
	for i, m := range msgs {
		if m.Role == corpus.RoleTool && i%4 == 1 {
			for k := range resultLookBack/2 + 3 {
				out = append(out, puser(fmt.Sprintf("far-u%d-%d", i, k), "wait"), passt(fmt.Sprintf("far-a%d-%d", i, k), strings.Repeat("w", 40)))
			}
		}
		out = append(out, m)
	}
	return out
}

// TestClearToolResultsNamesTheAnsweredCall: with the tool names on the
// calls only, plan clears a result by the tool of the call it answers:
// the nearest call with its id before it (a later call reusing the id
// does not rename it), or, past resultLookBack messages, the last call
// with its id anywhere; a result with no call has no tool, which
// compactable_tools does not list.
func TestClearToolResultsNamesTheAnsweredCall(t *testing.T) {
	big := chars4Text(3000)
	call := func(id, tool string) corpus.Message {
		return corpus.Message{ID: "a-" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(`{}`)}}}
	}
	result := func(id string) corpus.Message {
		return corpus.Message{ID: "r-" + id, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id, Text: big}}}
	}
	padding := func(n int) []corpus.Message {
		var out []corpus.Message
		for k := range n {
			out = append(out, puser(fmt.Sprint("pu", k), "go on"), passt(fmt.Sprint("pa", k), "ok"))
		}
		return out
	}
	join := func(parts ...[]corpus.Message) []corpus.Message {
		h := []corpus.Message{puser("u", "start")}
		for _, p := range parts {
			h = append(h, p...)
		}
		return append(h, result("new"), passt("end", "done"))
	}
	for _, tt := range []struct {
		name string
		h    []corpus.Message
		want []string
	}{
		{"answered call", join([]corpus.Message{call("x", "Read"), result("x"), call("y", "bash"), result("y"), call("new", "Read")}), []string{"x"}},
		{"id reused later", join([]corpus.Message{call("x", "bash"), result("x"), call("x", "Read"), call("new", "Read")}), nil},
		{"call far back", join([]corpus.Message{call("x", "Read")}, padding(resultLookBack), []corpus.Message{result("x"), call("new", "Read")}), []string{"x"}},
		{"no call", join([]corpus.Message{result("x"), call("new", "Read")}), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := presetPolicy(t, "clear-tool-results", map[string]string{"keep_value": "3000", "min_reclaim": "1000"}).(*ClearToolResults)
			at := sums(p, tt.h[:len(tt.h)-1])
			at.Force = true
			o := p.Compact(tt.h[:len(tt.h)-1], at)
			if got := Cleared(tt.h[:len(tt.h)-1], o.History); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cleared %v, want %v", got, tt.want)
			}
		})
	}
}
