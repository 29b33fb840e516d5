package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// The Claude Code behaviours of clear-tool-results at its defaults, on
// small histories built to sit on each side of each constant. The real-log
// evidence for the constants is in replay/claudecode_evidence_test.go.

// ccStep is an assistant message of parallel calls to tool with the given
// result sizes in tokens (4 characters each), and their results; usage is
// what the log recorded for that request (nil: none).
type ccStepT struct {
	msgs  []corpus.Message
	usage *corpus.Usage
}

func ccStep(tool, prefix string, usage *corpus.Usage, tokens ...int) ccStepT {
	a := corpus.Message{ID: "a-" + prefix, Role: corpus.RoleAssistant}
	r := corpus.Message{ID: "t-" + prefix, Role: corpus.RoleTool}
	for i, n := range tokens {
		id := fmt.Sprintf("%s%d", prefix, i+1)
		a.Blocks = append(a.Blocks, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(`{}`)})
		r.Blocks = append(r.Blocks, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: strings.Repeat("x", 4*n)})
	}
	return ccStepT{msgs: []corpus.Message{a, r}, usage: usage}
}

// ccHistory is a user prompt and the steps, as a history and the session
// it replays: lines numbered from 1, the steps' usage recorded on their
// assistant messages.
func ccHistory(steps ...ccStepT) ([]corpus.Message, *corpus.Session) {
	h := []corpus.Message{ctrUser("abcd")}
	s := &corpus.Session{ID: "s"}
	for _, st := range steps {
		if st.usage != nil {
			u := *st.usage
			u.AtMessage = len(h)
			s.Recorded.Usage = append(s.Recorded.Usage, u)
		}
		h = append(h, st.msgs...)
	}
	for i := range h {
		h[i].Line = i + 1
	}
	s.Messages = h
	return h, s
}

func ccUsage(context int) *corpus.Usage { return &corpus.Usage{CacheReadTokens: context} }

func ccCompact(t *testing.T, set string, h []corpus.Message, s *corpus.Session, force bool) Outcome {
	t.Helper()
	return ctrCompactIn(t, newPolicy(t, "clear-tool-results", set), h, s, force)
}

// Issue 13's held-out case: five parallel Reads answer the last assistant
// message and together exceed the 40,000-token budget. Claude Code cleared
// the first of them (tool_use order) before the model ever saw it; with
// protect_pending the step stays whole.
func TestClaudeCodePendingStepNotProtected(t *testing.T) {
	h, s := ccHistory(
		ccStep("Read", "old", ccUsage(100000), 30000),
		ccStep("Read", "p", ccUsage(150000), 9000, 9000, 9000, 9000, 9000),
	)
	o := ccCompact(t, "", h, s, false)
	if got := Cleared(h, o.History); !slices.Equal(got, []string{"old1", "p1"}) {
		t.Errorf("defaults cleared %v, want [old1 p1]: p2-p5 (36,000) fit in 40,000, p1 does not", got)
	}
	o = ccCompact(t, "protect_pending=true", h, s, false)
	if got := Cleared(h, o.History); !slices.Equal(got, []string{"old1"}) {
		t.Errorf("protect_pending=true cleared %v, want [old1]", got)
	}
}

// The keep budget: the newest results whose sizes fit in 40,000 tokens
// stay. The walk stops at the first that overflows (every real event fits
// "stop"); keep_walk=skip goes on to older results that still fit.
func TestClaudeCodeKeepBudget(t *testing.T) {
	steps := func(sizes ...int) ([]corpus.Message, *corpus.Session) {
		var ss []ccStepT
		for i, n := range sizes {
			ss = append(ss, ccStep("Read", fmt.Sprintf("s%d_", i), ccUsage(150000), n))
		}
		return ccHistory(ss...)
	}
	tests := []struct {
		set   string
		sizes []int
		clear []string
	}{
		// 30,000 + 10,000 = 40,000 fits exactly; the next (5) does not.
		{"", []int{5, 25000, 10000, 30000}, []string{"s0_1", "s1_1"}},
		{"", []int{5, 25000, 10001, 30000}, []string{"s0_1", "s1_1", "s2_1"}},
		// stop: the 5-token result behind the overflowing 25,000 goes too;
		// skip keeps it.
		{"", []int{5, 25000, 9000, 30000}, []string{"s0_1", "s1_1"}},
		{"keep_walk=skip", []int{5, 25000, 9000, 30000}, []string{"s1_1"}},
	}
	for _, tt := range tests {
		h, s := steps(tt.sizes...)
		o := ccCompact(t, strings.TrimPrefix(tt.set+",min_reclaim=0", ","), h, s, true)
		if got := Cleared(h, o.History); !slices.Equal(got, tt.clear) {
			t.Errorf("%s %v: cleared %v, want %v", tt.set, tt.sizes, got, tt.clear)
		}
	}
}

// The trigger reads the previous request's recorded context (the usage of
// the last assistant message), not the history with the newest results:
// 148,500 fires, 148,499 does not, whatever the pending results add. And
// it acts only when the clear reclaims at least 20,000 tokens.
func TestClaudeCodeTrigger(t *testing.T) {
	for _, tt := range []struct {
		context, reclaim int
		want             Strategy
	}{
		{148500, 20000, Truncated},
		{148499, 20000, None},
		{148500, 19999, None},
		{300000, 19999, None},
	} {
		h, s := ccHistory(
			ccStep("Bash", "old", ccUsage(50000), tt.reclaim),
			ccStep("Read", "new", ccUsage(tt.context), 40000),
		)
		o := ccCompact(t, "", h, s, false)
		if o.Strategy != tt.want {
			t.Errorf("context %d, reclaim %d: %s, want %s", tt.context, tt.reclaim, o.Strategy, tt.want)
		}
		if o.BeforeTokens != tt.context {
			t.Errorf("context %d: measured %d", tt.context, o.BeforeTokens)
		}
	}
	// Without recorded usage, the estimate: the meter over the history plus
	// overhead_tokens: 60,000 of results, 1 for the user text, 2 for each
	// call (chars4 of "Bash{}" and "Read{}").
	h, s := ccHistory(ccStep("Bash", "old", nil, 20000), ccStep("Read", "new", nil, 40000))
	if o := ccCompact(t, "trigger_at=60000", h, s, false); o.Strategy != Truncated || o.BeforeTokens != 60005 {
		t.Errorf("estimate: %s at %d, want truncated at 60,005", o.Strategy, o.BeforeTokens)
	}
	if o := ccCompact(t, "trigger_at=60006", h, s, false); o.Strategy != None {
		t.Errorf("estimate below the threshold: %s", o.Strategy)
	}
}

// Results of tools Claude Code does not compact (Skill, Task, TodoWrite,
// SlashCommand: 0 of 23 cleared in the real logs) stay, and are not counted
// against the keep budget.
func TestClaudeCodeCompactableTools(t *testing.T) {
	h, s := ccHistory(
		ccStep("Task", "task", ccUsage(1000), 30000),
		ccStep("Read", "read", ccUsage(1000), 30000),
		ccStep("TodoWrite", "todo", ccUsage(1000), 30000),
		ccStep("Grep", "grep", ccUsage(150000), 30000),
	)
	o := ccCompact(t, "", h, s, false)
	if got := Cleared(h, o.History); !slices.Equal(got, []string{"read1"}) {
		t.Errorf("cleared %v, want [read1]", got)
	}
	o = ccCompact(t, "compactable_tools=", h, s, false)
	if got := Cleared(h, o.History); !slices.Equal(got, []string{"task1", "read1", "todo1"}) {
		t.Errorf("every tool compactable: cleared %v", got)
	}
}

// The stub is the persisted-output marker naming the file Claude Code saved
// the result to; a result already replaced by it (by the policy or by the
// recording) is neither counted nor cleared again. The cwd names the home,
// so the path is the absolute one the real marker quoted.
func TestClaudeCodeStubTemplate(t *testing.T) {
	h, s := ccHistory(ccStep("Read", "a", ccUsage(1000), 30000), ccStep("Read", "b", ccUsage(150000), 40000))
	s.ID, s.Meta.Cwd = "b3533c53-3dba-422e-8f02-d0d42214ade0", "/Users/gray/Projects/barebones-phantom.reads"
	p := newPolicy(t, "clear-tool-results", "")
	o := p.Compact(h, Checkpoint{Units: units(p, h), Session: s})
	want := "<persisted-output>Tool result saved to: /Users/gray/.claude/projects/-Users-gray-Projects-barebones-phantom-reads/" +
		"b3533c53-3dba-422e-8f02-d0d42214ade0/tool-results/a1.txt\n\nUse Read to view</persisted-output>"
	if got := o.History[2].Blocks[0].Text; got != want {
		t.Fatalf("stub\n got %q\nwant %q", got, want)
	}
	ctc := p.(*ClearToolResults)
	if !ctc.IsStub(want) || !ctc.IsStub(ctc.Stub()) || ctc.IsStub("<persisted-output>partial") || ctc.Stub() != strings.ReplaceAll(PersistedOutputStub, `\n`, "\n") {
		t.Error("IsStub does not recognise the rendered and literal templates only")
	}
	if got := units(p, o.History); got != o.Units {
		t.Errorf("units %d after the clear, a fresh measure %d", o.Units, got)
	}
	forced := p.Compact(o.History, Checkpoint{Units: o.Units, Session: s, Force: true})
	if forced.Strategy != None || forced.Stages[0].Agent.Before != 40000 {
		t.Errorf("second pass: %s, result tokens %d (the stub counted as a result?)", forced.Strategy, forced.Stages[0].Agent.Before)
	}
}
