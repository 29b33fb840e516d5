package policy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// outcomesRecorded replays s through the recorded policy as walkRecorded
// does and returns the outcome of every request that changed the history,
// by request.
func outcomesRecorded(t *testing.T, s *corpus.Session, set map[string]string) map[int]Outcome {
	_, out := replayRecorded(t, s, set)
	return out
}

// The recorded policy reports one stage per kind of recorded event it
// applied at a request, with the ids each one hid. The session has, at
// request 1, a microcompact boundary (t2, t3: t3 also has a persisted
// file, which the boundary recorded) and a persisted output no boundary
// recorded (t1), and at request 3 a microcompact (t4) and a compact
// summary, which drops t1–t3 (already hidden) and t4 (hidden by the
// microcompact that ran first: listed there only).
//
// Tokens (chars4: characters/4 rounded per block; stub=cleared so every
// cleared result is the 33-character "[Old tool result content
// cleared]", 8 tokens): "go" 1, a tool use Read+{} 2, results of 400,
// 800, 1200 and 400 characters 100, 200, 300 and 100, the summary of 40
// characters 10, each short text 1.
func TestRecordedStageReports(t *testing.T) {
	res := func(id string, n int) corpus.Block { return recResult(id, strings.Repeat("x", n)) }
	sum := recMsg("sum", corpus.RoleUser, recText(strings.Repeat("s", 40)))
	sum.Summary = true
	s := &corpus.Session{ID: "s", Format: corpus.FormatClaudeCode, Meta: corpus.Meta{AgentVersion: "2.1.6", Cwd: "/p"},
		Messages: []corpus.Message{
			recMsg("u1", corpus.RoleUser, recText("go")),
			recMsg("a1", corpus.RoleAssistant, recUse("t1"), recUse("t2"), recUse("t3")),
			recMsg("r1", corpus.RoleTool, res("t1", 400), res("t2", 800), res("t3", 1200)),
			recMsg("a2", corpus.RoleAssistant, recUse("t4")), // request 1
			recMsg("r2", corpus.RoleTool, res("t4", 400)),
			recMsg("a3", corpus.RoleAssistant, recText("...")), // request 2
			sum,
			recMsg("u3", corpus.RoleUser, recText("three")),
			recMsg("a4", corpus.RoleAssistant, recText("done")), // request 3
		},
		Recorded: corpus.Recorded{
			Compactions: []corpus.Compaction{
				{Index: 0, Strategy: "microcompact", AtMessage: 3, ClearedIDs: []string{"t2", "t3"}},
				{Index: 1, Strategy: "microcompact", AtMessage: 6, ClearedIDs: []string{"t4"}},
				{Index: 2, Strategy: "compact", AtMessage: 6, SummaryID: "sum"},
			},
			Persisted: []corpus.Persisted{
				{ToolCallID: "t1", Boundary: -1, AtMessage: 3, Placed: corpus.PlacedCacheBreak},
				{ToolCallID: "t3", Boundary: 0, AtMessage: 3, Placed: corpus.PlacedBoundary},
			},
		},
	}
	got := outcomesRecorded(t, s, map[string]string{"stub": "cleared"})
	if len(got) != 2 {
		t.Fatalf("%d requests changed the history, want 2 (requests 1 and 3)", len(got))
	}
	stub := int64(len(ClaudeCodeStub))
	want := map[int]struct {
		strategy      Strategy
		before, after int
		stages        []StageReport
	}{
		// 1 + 2*3 + 600 = 607; the boundary's two clears leave 607 - 500
		// + 16 = 123; t1's 100 become 8: 31.
		1: {Truncated, 607, 31, []StageReport{
			{Name: "microcompact", BeforeTokens: 607, AfterTokens: 123, BlocksTouched: 2, BytesRemoved: 2000 - 2*stub, Hid: []string{"t2", "t3"}},
			{Name: "persisted", BeforeTokens: 123, AfterTokens: 31, BlocksTouched: 1, BytesRemoved: 400 - stub, Hid: []string{"t1"}},
		}},
		// 1 + 6 + 3*8 + 2 + 100 + 1 + 1 = 135; t4 cleared: 43; the summary
		// replaces the 6 messages (10 blocks) before u3: 10 + 1 = 11. Bytes
		// of what left: "go" 2, 3 uses of 6, 3 stubs, 1 use, t4's stub,
		// "..." 3, less the summary's 40.
		3: {Summarized, 135, 11, []StageReport{
			{Name: "microcompact", BeforeTokens: 135, AfterTokens: 43, BlocksTouched: 1, BytesRemoved: 400 - stub, Hid: []string{"t4"}},
			{Name: "compact", BeforeTokens: 43, AfterTokens: 11, BlocksTouched: 10, BytesRemoved: 2 + 18 + 3*stub + 6 + stub + 3 - 40, Hid: []string{"t1", "t2", "t3"}},
		}},
	}
	for req, w := range want {
		o, ok := got[req]
		if !ok {
			t.Errorf("request %d changed nothing", req)
			continue
		}
		if o.Strategy != w.strategy || o.BeforeTokens != w.before || o.AfterTokens != w.after {
			t.Errorf("request %d: %s %d -> %d, want %s %d -> %d", req, o.Strategy, o.BeforeTokens, o.AfterTokens, w.strategy, w.before, w.after)
		}
		if !reflect.DeepEqual(o.Stages, w.stages) {
			t.Errorf("request %d: stages\n%+v\nwant\n%+v", req, o.Stages, w.stages)
		}
	}
	def, err := Lookup("recorded")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"persisted", "microcompact", "compact", "history"}; !reflect.DeepEqual(def.Stages, want) {
		t.Errorf("declared stages %v, want %v", def.Stages, want)
	}
}

// smith's session.json history is the "history" stage: the messages it
// does not carry over unchanged are touched, the results it drops hidden.
func TestRecordedStageHistory(t *testing.T) {
	sum := recMsg("sum", corpus.RoleUser, recText(strings.Repeat("s", 40)))
	sum.Summary = true
	base := []corpus.Message{
		recMsg("u1", corpus.RoleUser, recText("one")),
		recMsg("a1", corpus.RoleAssistant, recUse("t1")),
		recMsg("r1", corpus.RoleTool, recResult("t1", strings.Repeat("x", 400))),
		recMsg("a2", corpus.RoleAssistant, recText("2")),
		recMsg("u2", corpus.RoleUser, recText("two")),
		recMsg("a3", corpus.RoleAssistant, recText("3")),
	}
	s := &corpus.Session{Format: corpus.FormatSmithTranscript, Messages: base}
	// session.json holds the history up to a2: it was written after a2
	// and applies at the request before a3, with u2 after it.
	s.Recorded.History = []corpus.Message{sum, base[3]}
	got := outcomesRecorded(t, s, nil)
	o, ok := got[2]
	if len(got) != 1 || !ok {
		t.Fatalf("changed at requests %v, want request 2 only", got)
	}
	// u1 "one" 1, a1 2, r1 100, a2 "2" 0 (1/4 rounds down), u2 1 = 104 ->
	// sum 10 + a2 0 + u2 1 = 11; a2 is carried over, so 3 blocks touched.
	want := []StageReport{{Name: "history", BeforeTokens: 104, AfterTokens: 11, BlocksTouched: 3,
		BytesRemoved: 3 + 6 + 400 + 1 - 40 - 1, Hid: []string{"t1"}}}
	if !reflect.DeepEqual(o.Stages, want) {
		t.Errorf("stages\n%+v\nwant\n%+v", o.Stages, want)
	}
}
