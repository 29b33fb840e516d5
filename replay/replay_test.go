package replay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
)

// stubPolicy is a test policy: it checks before every assistant message,
// counts text bytes, and when over limit applies its compact function.
type stubPolicy struct {
	limit   int64
	compact func(h []corpus.Message) []corpus.Message
	calls   int
}

func (p *stubPolicy) Name() string { return "stub" }
func (p *stubPolicy) Params() policy.Params {
	return policy.Params{{Name: "limit", Value: fmt.Sprint(p.limit)}}
}
func (p *stubPolicy) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleAssistant
}
func (p *stubPolicy) Measure(m *corpus.Message) (int64, int64, int64) {
	var n int64
	for _, b := range m.Blocks {
		n += int64(len(b.Text))
	}
	return n, 1, 0
}
func (p *stubPolicy) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	p.calls++
	out := policy.Outcome{History: h, Strategy: policy.None, BeforeTokens: int(at.Units), AfterTokens: int(at.Units),
		Units: at.Units, Count: at.Count}
	if at.Units <= p.limit {
		return out
	}
	out.History = p.compact(h)
	out.Strategy = policy.Truncated
	out.Units, out.Count = 0, 0
	for i := range out.History {
		u, _, _ := p.Measure(&out.History[i])
		out.Units += u
		out.Count++
	}
	out.AfterTokens = int(out.Units)
	return out
}

func text(s string) []corpus.Block { return []corpus.Block{{Kind: corpus.KindText, Text: s}} }

// session builds n turns of user → assistant(tool_use) → tool(result of size) → assistant.
func session(n, size int) *corpus.Session {
	s := &corpus.Session{ID: "s"}
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		s.Messages = append(s.Messages,
			corpus.Message{ID: fmt.Sprintf("u%d", i), Role: corpus.RoleUser, Blocks: text("go")},
			corpus.Message{ID: fmt.Sprintf("a%d", i), Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: "bash", Args: []byte(`{}`)}}},
			corpus.Message{ID: fmt.Sprintf("t%d", i), Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id, Text: strings.Repeat("x", size)}}},
			corpus.Message{ID: fmt.Sprintf("b%d", i), Role: corpus.RoleAssistant, Blocks: text("done")},
		)
	}
	return s
}

// shrinkOldResults cuts every tool result but the last to 1 byte: a
// well-behaved compaction.
func shrinkOldResults(h []corpus.Message) []corpus.Message {
	out := append([]corpus.Message(nil), h...)
	last := -1
	for i := range out {
		if out[i].Role == corpus.RoleTool {
			last = i
		}
	}
	for i := range out {
		if out[i].Role == corpus.RoleTool && i != last && len(out[i].Blocks[0].Text) > 1 {
			b := append([]corpus.Block(nil), out[i].Blocks...)
			b[0].Text = "x"
			out[i].Blocks = b
		}
	}
	return out
}

func TestRunCheckpointsAndEvents(t *testing.T) {
	s := session(10, 1000)
	p := &stubPolicy{limit: 3000, compact: shrinkOldResults}
	tr, err := Run(context.Background(), s, p, Options{KeepFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(tr.Requests), 20; got != want {
		t.Fatalf("requests = %d, want %d (one before each assistant message)", got, want)
	}
	if len(tr.Violations) != 0 {
		t.Fatalf("violations: %+v", tr.Violations)
	}
	if len(tr.Events) == 0 {
		t.Fatal("no compaction events")
	}
	for _, r := range tr.Requests {
		if r.Sent > r.Tokens {
			t.Errorf("request %d sent %d > before %d", r.Index, r.Sent, r.Tokens)
		}
	}
	if tr.Messages != 40 || len(tr.Final) != 40 {
		t.Fatalf("messages=%d final=%d, want 40", tr.Messages, len(tr.Final))
	}
	// The input session is never modified.
	for _, m := range s.Messages {
		if m.Role == corpus.RoleTool && len(m.Blocks[0].Text) != 1000 {
			t.Fatal("replay modified the loaded session")
		}
	}
	// Turn numbers count real user messages.
	if tr.Requests[0].Turn != 1 || tr.Requests[19].Turn != 10 {
		t.Fatalf("turns: first %d last %d", tr.Requests[0].Turn, tr.Requests[19].Turn)
	}
}

func TestRunReportsBrokenInvariants(t *testing.T) {
	tests := []struct {
		name    string
		compact func(h []corpus.Message) []corpus.Message
		rule    string
	}{
		{"drops a tool result", func(h []corpus.Message) []corpus.Message {
			var out []corpus.Message
			for i, m := range h {
				if m.Role == corpus.RoleTool && i < 4 {
					continue
				}
				out = append(out, m)
			}
			return out
		}, RulePairing},
		{"empties a message", func(h []corpus.Message) []corpus.Message {
			out := shrinkOldResults(h)
			out[0].Blocks = nil
			return out
		}, RuleEmpty},
		{"claims a change it did not make", func(h []corpus.Message) []corpus.Message {
			return append([]corpus.Message(nil), h...)
		}, RuleClaimed},
		{"rewrites the current turn", func(h []corpus.Message) []corpus.Message {
			out := shrinkOldResults(h)
			out[len(out)-1].Blocks = text("changed")
			return out
		}, RuleCurrent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &stubPolicy{limit: 3000, compact: tt.compact}
			tr, err := Run(context.Background(), session(6, 1000), p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, v := range tr.Violations {
				if v.Rule == tt.rule {
					found = true
				}
			}
			if !found {
				t.Fatalf("want a %s violation, got %+v", tt.rule, tr.Violations)
			}
		})
	}
}

func TestRunAlreadyBrokenPairsAreNotThePolicysFault(t *testing.T) {
	s := session(6, 1000)
	// Remove the tool_use of call c0: its result is an orphan from the start.
	s.Messages[1].Blocks = text("lost call")
	p := &stubPolicy{limit: 3000, compact: shrinkOldResults}
	tr, _ := Run(context.Background(), s, p, Options{})
	for _, v := range tr.Violations {
		t.Errorf("unexpected violation %+v", v)
	}
}

func TestRunSkipsSidechains(t *testing.T) {
	s := session(3, 10)
	s.Messages[1].Sidechain = true
	s.Messages[2].Sidechain = true
	p := &stubPolicy{limit: 1 << 30, compact: shrinkOldResults}
	tr, _ := Run(context.Background(), s, p, Options{KeepFinal: true})
	if len(tr.Final) != 10 || len(tr.Requests) != 5 {
		t.Fatalf("final %d requests %d, want 10 and 5", len(tr.Final), len(tr.Requests))
	}
}

func TestRunReplaysASubagentSession(t *testing.T) {
	// A subagent's run loaded as its own session is all sidechain: it is
	// that session's thread and is replayed.
	s := session(3, 10)
	for i := range s.Messages {
		s.Messages[i].Sidechain = true
	}
	tr, _ := Run(context.Background(), s, &stubPolicy{limit: 1 << 30}, Options{KeepFinal: true})
	if len(tr.Final) != 12 || len(tr.Requests) != 6 {
		t.Fatalf("final %d requests %d, want 12 and 6", len(tr.Final), len(tr.Requests))
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, session(2000, 10), &stubPolicy{limit: 1 << 30}, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestMapOrderIndependentOfWorkers(t *testing.T) {
	fn := func(_ context.Context, i int) (string, error) { return fmt.Sprint(i * i), nil }
	one, _, err := Map(context.Background(), 100, 1, fn, nil)
	if err != nil {
		t.Fatal(err)
	}
	four, _, _ := Map(context.Background(), 100, 4, fn, nil)
	if strings.Join(one, ",") != strings.Join(four, ",") {
		t.Fatal("results depend on the number of workers")
	}
}

func TestMapStopsOnError(t *testing.T) {
	boom := errors.New("boom")
	_, ok, err := Map(context.Background(), 1000, 2, func(_ context.Context, i int) (int, error) {
		if i == 3 {
			return 0, boom
		}
		return i, nil
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	n := 0
	for _, o := range ok {
		if o {
			n++
		}
	}
	if n == 1000 || ok[3] {
		t.Fatalf("done %d jobs; the error should stop the run and job 3 must not be ok", n)
	}
}

func BenchmarkRunNoTrigger(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		s := session(n/4, 100)
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			p := &stubPolicy{limit: 1 << 62}
			for b.Loop() {
				Run(context.Background(), s, p, Options{})
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/msg")
		})
	}
}

func TestRunSkipsRecordedSummariesButNotASeed(t *testing.T) {
	s := session(2, 10)
	seed := corpus.Message{ID: "seed", Role: corpus.RoleUser, Summary: true, Blocks: text("Summary of the earlier conversation: x")}
	mid := corpus.Message{ID: "mid", Role: corpus.RoleSystem, Summary: true, Blocks: text("digest")}
	s.Messages = append([]corpus.Message{seed}, append(s.Messages[:4:4], append([]corpus.Message{mid}, s.Messages[4:]...)...)...)
	tr, _ := Run(context.Background(), s, &stubPolicy{limit: 1 << 30}, Options{KeepFinal: true})
	if len(tr.Final) != 9 || tr.Final[0].ID != "seed" {
		t.Fatalf("final has %d messages (first %q); want 9 with the seed kept and the recorded digest skipped", len(tr.Final), tr.Final[0].ID)
	}
	for _, m := range tr.Final {
		if m.ID == "mid" {
			t.Fatal("a recorded summary was replayed")
		}
	}
}

// TestRunCountsRequestsFirst checks that the requests are counted before
// the walk, exactly (the list's capacity is its length): sidechains in a
// main thread, a subagent's own session, a seed summary and a recorded
// digest, a session smith-staged compacts.
func TestRunCountsRequestsFirst(t *testing.T) {
	side := session(3, 10)
	side.Messages[1].Sidechain, side.Messages[2].Sidechain = true, true
	sub := session(3, 10)
	for i := range sub.Messages {
		sub.Messages[i].Sidechain = true
	}
	sums := session(2, 10)
	seed := corpus.Message{ID: "seed", Role: corpus.RoleUser, Summary: true, Blocks: text("Summary of the earlier conversation: x")}
	// An assistant summary asks for a response, unless it is skipped.
	mid := corpus.Message{ID: "mid", Role: corpus.RoleAssistant, Summary: true, Blocks: text("digest")}
	sums.Messages = append([]corpus.Message{seed}, append(sums.Messages[:4:4], append([]corpus.Message{mid}, sums.Messages[4:]...)...)...)
	staged, err := policy.New("smith-staged", map[string]string{"max_tokens": "20000"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		s    *corpus.Session
		p    policy.Policy
	}{
		{"sidechains", side, &stubPolicy{limit: 1 << 30}},
		{"subagent", sub, &stubPolicy{limit: 1 << 30}},
		{"summaries", sums, &stubPolicy{limit: 1 << 30}},
		{"smith-staged", synth.ToolHeavySession(400), staged},
	} {
		tr, err := Run(context.Background(), tt.s, tt.p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Requests) == 0 || cap(tr.Requests) != len(tr.Requests) {
			t.Errorf("%s: %d requests in a list of capacity %d", tt.name, len(tr.Requests), cap(tr.Requests))
		}
	}
}
