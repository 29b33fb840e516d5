package replay

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// turnsChecked is a policy that checks, at every Compact, that the
// walker's turn starts (Checkpoint.Turns) are a fresh count of the history
// it is handed, then decides as p does.
type turnsChecked struct {
	policy.Policy
	t       *testing.T
	checked int
}

func (c *turnsChecked) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	c.t.Helper()
	want := []policy.TurnStart{}
	var thinking int64
	for i := range h {
		want = policy.AddTurn(want, &h[i], i, thinking)
		_, _, k := c.Measure(&h[i])
		thinking += k
	}
	if at.Turns == nil || !slices.Equal(at.Turns, want) {
		c.t.Fatalf("request %d: turn starts %v, a fresh count of the history gives %v", at.Request, at.Turns, want)
	}
	c.checked++
	return c.Policy.Compact(h, at)
}

// thinkingTurns is a session of n real turns of steps assistant steps
// each: thinking beside a tool call, its result of size bytes, the agent's
// own "continue" between steps.
func thinkingTurns(n, steps, size int) *corpus.Session {
	s := &corpus.Session{ID: "s"}
	for i := range n {
		s.Messages = append(s.Messages, corpus.Message{ID: fmt.Sprintf("u%d", i), Role: corpus.RoleUser, Blocks: text(fmt.Sprintf("turn %d", i))})
		for j := range steps {
			id := fmt.Sprintf("%d.%d", i, j)
			if j > 0 {
				s.Messages = append(s.Messages, corpus.Message{ID: "s" + id, Role: corpus.RoleUser, Synthetic: true, Blocks: text("continue")})
			}
			s.Messages = append(s.Messages,
				corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
					{Kind: corpus.KindThinking, Text: "think " + id, Signature: "sig"},
					{Kind: corpus.KindToolUse, ToolCallID: "c" + id, ToolName: "bash", Args: []byte(`{}`)}}},
				corpus.Message{ID: "t" + id, Role: corpus.RoleTool, Blocks: []corpus.Block{
					{Kind: corpus.KindToolResult, ToolCallID: "c" + id, ToolName: "bash", Text: strings.Repeat("x", size)}}})
		}
	}
	return s
}

// TestWalkerTurnStarts replays anthropic-context-editing with triggers low
// enough that it clears results, drops thinking and summarizes, and checks
// the turn starts the walker hands it at every request, then Agree walks
// the recorded history with them (and restarts it at a recorded full
// compaction); a session of one long turn has a single start.
func TestWalkerTurnStarts(t *testing.T) {
	for _, tt := range []struct {
		name              string
		turns, steps      int
		wantStages        []string
		wantLastTurnStart int // -1: not checked
	}{
		{"short turns", 12, 4, []string{"clear-tool-uses", "clear-thinking", "compact"}, -1},
		{"one long turn", 1, 60, []string{"clear-tool-uses"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.New("anthropic-context-editing", map[string]string{
				"clear-tool-uses.trigger_at": "2000", "compact.trigger_at": "1800", "compact.tail_value": "1"})
			if err != nil {
				t.Fatal(err)
			}
			s := thinkingTurns(tt.turns, tt.steps, 2000)
			before := deepCopySession(s)
			c := &turnsChecked{Policy: p, t: t}
			tr, err := Run(context.Background(), s, c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Violations) != 0 {
				t.Fatalf("violations: %+v", tr.Violations)
			}
			seen := map[string]bool{}
			for _, e := range tr.Events {
				for _, st := range e.Outcome.Stages {
					seen[st.Name] = true
				}
			}
			for _, name := range tt.wantStages {
				if !seen[name] {
					t.Errorf("no compaction ran stage %s (ran %v)", name, seen)
				}
			}
			if c.checked != len(tr.Requests) {
				t.Errorf("%d requests checked, want %d", c.checked, len(tr.Requests))
			}
			Agree(s, c)
			// A recorded full compaction restarts the recorded history
			// (walker.reset), the turn starts with it.
			reset := deepCopySession(s)
			reset.Recorded.Compactions = []corpus.Compaction{{Strategy: "compact", AtMessage: len(s.Messages) / 2}}
			n := c.checked
			Agree(reset, c)
			if c.checked == n {
				t.Error("Agree asked the policy nothing")
			}
			if !reflect.DeepEqual(s, before) {
				t.Fatal("the replay modified the session")
			}
			if tt.wantLastTurnStart >= 0 {
				w := newWalker(s, p, followPolicy)
				for i := range s.Messages {
					w.add(&s.Messages[i])
				}
				if len(w.turns) != 1 || w.turns[0].At != tt.wantLastTurnStart {
					t.Errorf("turn starts %v, want one at %d", w.turns, tt.wantLastTurnStart)
				}
			}
		})
	}
}
