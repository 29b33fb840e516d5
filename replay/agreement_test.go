package replay

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/policy"
)

func agreeCall(ids ...string) corpus.Message {
	m := corpus.Message{ID: "a-" + ids[0], Role: corpus.RoleAssistant}
	for _, id := range ids {
		m.Blocks = append(m.Blocks, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: "Read", Args: []byte(`{}`)})
	}
	return m
}

// agreeResults answers ids with 4,000 characters each: 1,000 chars4 tokens.
func agreeResults(ids ...string) corpus.Message {
	m := corpus.Message{ID: "t-" + ids[0], Role: corpus.RoleTool}
	for _, id := range ids {
		m.Blocks = append(m.Blocks, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: strings.Repeat("y", 4000)})
	}
	return m
}

// agreeSession is a Claude Code shaped session whose agent cleared a1, a2
// before message 7 and a3, a4 (and an id that never occurred) before
// message 11.
func agreeSession() *corpus.Session {
	return &corpus.Session{ID: "hand", Format: corpus.FormatClaudeCode,
		Messages: []corpus.Message{
			{ID: "u", Role: corpus.RoleUser, Blocks: text("task")},
			agreeCall("a1"), agreeResults("a1"),
			agreeCall("a2"), agreeResults("a2"),
			agreeCall("a3", "a4"), agreeResults("a3", "a4"),
			agreeCall("a5"), agreeResults("a5"), // 7
			agreeCall("a6"), agreeResults("a6"),
			{ID: "done", Role: corpus.RoleAssistant, Blocks: text("done")}, // 11
		},
		Recorded: corpus.Recorded{Compactions: []corpus.Compaction{
			{Index: 0, Strategy: "microcompact", Trigger: "auto", AtMessage: 7, Line: 20,
				TokensBefore: 4000, TokensSaved: 2000, ClearedIDs: []string{"a1", "a2"}},
			{Index: 1, Strategy: "microcompact", Trigger: "auto", AtMessage: 11, Line: 30,
				TokensBefore: 4000, TokensSaved: 2000, ClearedIDs: []string{"a3", "a4", "toolu_ghost"}},
		}},
	}
}

func agreePolicy(t *testing.T, set string) policy.Policy {
	t.Helper()
	kv := map[string]string{}
	if set != "" {
		var err error
		if kv, err = policy.ParseSet([]string{set}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := policy.New("clear-tool-results", kv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// agreeMechanics are the settings the hand-built tests were written for
// (keep the newest K, the pending step protected, every tool compactable,
// a result-token trigger); the Claude Code defaults are tested on the real
// logs below.
const agreeMechanics = "trigger=result_tokens,keep=results,protect_pending=true,compactable_tools=,stub=" + policy.ClaudeCodeStub + ","

// agreeBrief is what a test pins of one event.
type agreeBrief struct {
	Fired                           bool
	Predicted, Missing, Extra       []string
	Unknown                         []string
	Exact                           bool
	Jaccard                         float64
	PredictedBefore, PredictedSaved int
}

func brief(e EventAgreement) agreeBrief {
	return agreeBrief{e.Fired, e.Predicted, e.Missing, e.Extra, e.Unknown, e.Exact, e.Jaccard, e.PredictedBefore, e.PredictedSaved}
}

func TestAgreeHandBuilt(t *testing.T) {
	base := "trigger=result_tokens,trigger_at=4000,min_reclaim=0,"
	tests := []struct {
		name   string
		set    string
		events []agreeBrief
		counts [4]int // checkpoints, agent, policy, both
	}{
		{"exact", base + "keep_value=2", []agreeBrief{
			{true, []string{"a1", "a2"}, nil, nil, nil, true, 1, 4000, 2000},
			// toolu_ghost never occurred: reported, left out of the match.
			{true, []string{"a3", "a4"}, nil, nil, []string{"toolu_ghost"}, true, 1, 4000, 2000},
		}, [4]int{6, 2, 2, 2}},
		{"missing", base + "keep_value=3", []agreeBrief{
			{true, []string{"a1"}, []string{"a2"}, nil, nil, false, 0.5, 4000, 1000},
			{true, []string{"a3"}, []string{"a4"}, nil, []string{"toolu_ghost"}, false, 0.5, 4000, 1000},
		}, [4]int{6, 2, 2, 2}},
		{"extra", "trigger=result_tokens,trigger_at=1000,min_reclaim=0,keep_value=1", []agreeBrief{
			{true, []string{"a1", "a2"}, nil, nil, nil, true, 1, 4000, 2000},
			{true, []string{"a3", "a4", "a5"}, nil, []string{"a5"}, []string{"toolu_ghost"}, false, 2.0 / 3, 4000, 3000},
		}, [4]int{6, 2, 4, 2}}, // it would also have acted before messages 5 and 9
		{"trigger too high", "trigger=result_tokens,trigger_at=5000,min_reclaim=0,keep_value=2", []agreeBrief{
			{false, []string{"a1", "a2"}, nil, nil, nil, true, 1, 4000, 2000},
			{false, []string{"a3", "a4"}, nil, nil, []string{"toolu_ghost"}, true, 1, 4000, 2000},
		}, [4]int{6, 2, 0, 0}},
		{"min_reclaim blocks", base + "keep_value=2,min_reclaim=2001", []agreeBrief{
			{false, nil, []string{"a1", "a2"}, nil, nil, false, 0, 4000, 0},
			{false, nil, []string{"a3", "a4"}, nil, []string{"toolu_ghost"}, false, 0, 4000, 0},
		}, [4]int{6, 2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := agreeSession()
			before := deepCopySession(s)
			a := Agree(s, agreePolicy(t, agreeMechanics+tt.set))
			if !reflect.DeepEqual(s, before) {
				t.Fatal("Agree modified the session")
			}
			if got := [4]int{a.Checkpoints, a.AgentActed, a.PolicyActed, a.BothActed}; got != tt.counts {
				t.Errorf("checkpoints/agent/policy/both %v, want %v", got, tt.counts)
			}
			if len(a.Events) != len(tt.events) {
				t.Fatalf("%d events, want %d", len(a.Events), len(tt.events))
			}
			for i, e := range a.Events {
				if got := brief(e); !reflect.DeepEqual(got, tt.events[i]) {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, got, tt.events[i])
				}
				if e.Event != i || e.Line != s.Recorded.Compactions[i].Line || !e.Checkpoint ||
					e.RecordedBefore != 4000 || e.RecordedSaved != 2000 {
					t.Errorf("event %d: %+v", i, e)
				}
			}
		})
	}
}

// A recorded full compaction restarts the working history: ids cleared
// later that lie before it are unknown to the event.
func TestAgreeRestartsAtFullCompaction(t *testing.T) {
	s := agreeSession()
	s.Recorded.Compactions = append([]corpus.Compaction{{Strategy: "compact", AtMessage: 3}}, s.Recorded.Compactions...)
	a := Agree(s, agreePolicy(t, agreeMechanics+"trigger_at=4000,min_reclaim=0,keep_value=2"))
	e := a.Events[0]
	// From message 3 on, a2..a4 hold 3,000 tokens: below the trigger.
	want := agreeBrief{false, []string{"a2"}, nil, nil, []string{"a1"}, true, 1, 3000, 1000}
	if got := brief(e); e.Event != 1 || !reflect.DeepEqual(got, want) {
		t.Fatalf("event %d\n got %+v\nwant %+v", e.Event, got, want)
	}
}

// An event whose boundary names only ids that never occurred, and one past
// the last message: reported, no panic.
func TestAgreeBoundaryNamingUnknownIDs(t *testing.T) {
	s := agreeSession()
	s.Recorded.Compactions = []corpus.Compaction{
		{Strategy: "microcompact", AtMessage: 7, ClearedIDs: []string{"x1", "x2"}},
		{Strategy: "microcompact", AtMessage: len(s.Messages), ClearedIDs: []string{"a5"}},
	}
	a := Agree(s, agreePolicy(t, agreeMechanics+"trigger_at=4000,min_reclaim=0,keep_value=2"))
	if len(a.Events) != 2 {
		t.Fatalf("%d events", len(a.Events))
	}
	if e := a.Events[0]; !slices.Equal(e.Unknown, []string{"x1", "x2"}) || e.Recorded != nil ||
		!slices.Equal(e.Extra, []string{"a1", "a2"}) || e.Exact || e.Jaccard != 0 {
		t.Fatalf("unknown ids: %+v", e)
	}
	if e := a.Events[1]; e.Checkpoint || !slices.Equal(e.Recorded, []string{"a5"}) {
		t.Fatalf("event at the end: %+v", e)
	}
}

func deepCopySession(s *corpus.Session) *corpus.Session {
	c := *s
	c.Messages = make([]corpus.Message, len(s.Messages))
	for i, m := range s.Messages {
		m.Blocks = slices.Clone(m.Blocks)
		c.Messages[i] = m
	}
	return &c
}

// realCC loads a Claude Code file from shared/corpus-real, or skips.
func realCC(t *testing.T, name string) *corpus.Session {
	t.Helper()
	path := realcorpus.Dir(t, "claude-code", name)
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ss[0]
}

// TestAgreeRealClaudeCode pins the agreement of clear-tool-results with
// the three microcompact boundaries of the real Claude Code 2.1.14 and
// 2.1.20 logs, for the defaults and for the best parameter set. chars4
// reproduces Claude Code's own preTokens and tokensSaved exactly: they are
// the JavaScript length/4 of the uncleared and cleared results, rounded
// per block.
func TestAgreeRealClaudeCode(t *testing.T) {
	type ev struct {
		Exact                   bool
		Cleared, Missing, Extra int
		RecBefore, PredBefore   int
		RecSaved, PredSaved     int
		Fired                   bool
	}
	files := []string{"b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", "fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl"}
	tests := []struct {
		name string
		set  string
		want [][]ev
	}{
		// peers.md's published figures (keep 5): the oldest of the 5
		// newest is the one the agent cleared and the policy kept.
		{"published", "trigger=result_tokens,trigger_at=40000,keep=results,keep_value=5", [][]ev{
			{{false, 6, 1, 0, 71221, 71221, 40455, 31019, true}, {false, 5, 1, 0, 77232, 77232, 38744, 30766, true}},
			{{false, 6, 1, 0, 71221, 71221, 35442, 28105, true}},
		}},
		// The defaults are what all the real 2.x logs show (keep the
		// newest 40,000 tokens, fire on the previous request's recorded
		// context and a 20,000 reclaim); here the 4 newest Reads fill the
		// budget, which "keep 4" also fits.
		{"defaults", "", [][]ev{
			{{true, 6, 0, 0, 71221, 71221, 40455, 40455, true}, {true, 5, 0, 0, 77232, 77232, 38744, 38744, true}},
			{{true, 6, 0, 0, 71221, 71221, 35442, 35442, true}},
		}},
		{"result-token trigger", "trigger=result_tokens,trigger_at=60000", [][]ev{
			{{true, 6, 0, 0, 71221, 71221, 40455, 40455, true}, {true, 5, 0, 0, 77232, 77232, 38744, 38744, true}},
			{{true, 6, 0, 0, 71221, 71221, 35442, 35442, true}},
		}},
		// bytes4 clears the same results but overestimates the figures by
		// 7%: Read output separates line numbers with "→", 3 bytes and 1
		// UTF-16 unit.
		{"bytes4", "trigger=result_tokens,trigger_at=60000,keep=results,keep_value=4,meter=bytes4", [][]ev{
			{{true, 6, 0, 0, 71221, 76151, 40455, 43680, true}, {true, 5, 0, 0, 77232, 83757, 38744, 40904, true}},
			{{true, 6, 0, 0, 71221, 76151, 35442, 38163, true}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := agreePolicy(t, tt.set)
			for i, f := range files {
				s := realCC(t, f)
				a := Agree(s, p)
				var got []ev
				for _, e := range a.Events {
					got = append(got, ev{e.Exact, len(e.Recorded), len(e.Missing), len(e.Extra),
						e.RecordedBefore, e.PredictedBefore, e.RecordedSaved, e.PredictedSaved, e.Fired})
					if len(e.Unknown) != 0 {
						t.Errorf("%s: unknown ids %v", f, e.Unknown)
					}
				}
				if !reflect.DeepEqual(got, tt.want[i]) {
					t.Errorf("%s:\n got %+v\nwant %+v", f, got, tt.want[i])
				}
				// On its own trigger the policy acts exactly where the agent did.
				if a.PolicyActed != a.AgentActed || a.BothActed != a.AgentActed {
					t.Errorf("%s: agent acted %d times, policy %d, both %d", f, a.AgentActed, a.PolicyActed, a.BothActed)
				}
			}
		})
	}
}

// Replayed on its own at its defaults, the policy clears, on the real
// 2.1.x logs, exactly the results Claude Code cleared, at the same
// requests, with no broken invariant.
func TestRunRealClaudeCodeDefaults(t *testing.T) {
	p := agreePolicy(t, "")
	for _, f := range []string{"b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", "fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl"} {
		s := realCC(t, f)
		tr, err := Run(t.Context(), s, p, Options{KeepFinal: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Violations) > 0 {
			t.Fatalf("%s: %+v", f, tr.Violations)
		}
		var want, got []string
		var at []int
		for _, c := range s.Recorded.Compactions {
			want = append(want, c.ClearedIDs...)
			at = append(at, c.AtMessage)
		}
		var raw []int
		for _, e := range tr.Events {
			raw = append(raw, e.Raw)
		}
		for _, m := range tr.Final {
			for _, b := range m.Blocks {
				if b.Kind == corpus.KindToolResult && strings.HasPrefix(b.Text, "<persisted-output>") {
					got = append(got, b.ToolCallID)
				}
			}
		}
		if !slices.Equal(got, want) || !slices.Equal(raw, at) {
			t.Errorf("%s: cleared %v at %v, the agent %v at %v", f, got, raw, want, at)
		}
	}
}
