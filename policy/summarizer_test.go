package policy

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

func TestSummarizers(t *testing.T) {
	prefix := ids([]corpus.Message{userMsg("fix it"), callMsg("c", "bash", `{}`), resultMsg("c", strings.Repeat("r", 994), false)})
	// transcript: "user: fix it" (12) + "\n\n" + "assistant: " (11) + "\n\n" + "tool: " + 994 (1000) = 1027
	if got := transcriptBytes(prefix); got != 1027 {
		t.Fatalf("transcript bytes %d, want 1027", got)
	}
	cases := []struct {
		spec, used string
		bytes      int
		fails      bool
	}{
		{"fixed:2000", "fixed:2000", 2000, false},
		{"fixed:1_000", "fixed:1000", 1000, false},
		{"fixed:16777216", "fixed:16777216", 16777216, false}, // the most it takes
		{"ratio:0.1", "ratio:0.1", 102, false},
		{"fixed:0", "fixed:0", 0, true},
		{"fail", "fail", 0, true},
		{"recorded", "recorded (none at this cut; used fixed:2000)", 2000, false},
	}
	for _, c := range cases {
		s, err := ParseSummarizer(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		text, used, err := s.Summarize(SummaryRequest{Prefix: prefix, Next: &prefix[0]})
		if used != c.used || len(text) != c.bytes || (err != nil) != c.fails {
			t.Errorf("%s: %d bytes by %q, err %v", c.spec, len(text), used, err)
		}
	}
	again, _, _ := mustSummarizer(t, "fixed:2000").Summarize(SummaryRequest{Prefix: prefix})
	first, _, _ := mustSummarizer(t, "fixed:2000").Summarize(SummaryRequest{Prefix: prefix})
	if again != first {
		t.Fatal("fixed summary is not deterministic")
	}
}

func mustSummarizer(t *testing.T, s string) Summarizer {
	sum, err := ParseSummarizer(s)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestRecordedSummarizer(t *testing.T) {
	// smith's session.json after its last compaction: the summary, then the
	// tail starting at the message the cut kept (the same id).
	h := conversation(10, 60000)
	var rec []corpus.Message
	sum := userMsg(smithSummaryPrefix + "Ran ls ten times; nothing changed.")
	rec = append(rec, sum)
	rec = append(rec, h[27:]...)
	s := &corpus.Session{Messages: h, Recorded: corpus.Recorded{History: rec}}
	p := staged(t, "max_tokens=1000,summarizer=recorded")
	o := p.Compact(h, Checkpoint{Units: units(p, h), Count: int64(len(h)), Session: s})
	if o.Strategy != Summarized || o.Summarizer != "recorded" || o.History[0].Blocks[0].Text != sum.Blocks[0].Text {
		t.Fatalf("%s by %q: %q", o.Strategy, o.Summarizer, o.History[0].Blocks[0].Text[:60])
	}
	// a cut the recording does not have falls back, and says so
	o = p.Compact(h[:24], Checkpoint{Units: units(p, h[:24]), Count: 24, Session: s})
	if o.Summarizer != "recorded (none at this cut; used fixed:2000)" {
		t.Fatalf("fallback %q", o.Summarizer)
	}
}

// TestSmithCheckpoints: smith asks before every assistant message and,
// in its own formats, where a request left no record; in another agent's
// log the same shapes are no request (a Claude Code local command, a
// Codex rollout's instructions before the prompt), so there only the
// assistant messages are checkpoints. other is the answer in those
// formats.
func TestSmithCheckpoints(t *testing.T) {
	u, a, tool := userMsg("q"), corpus.Message{Role: corpus.RoleAssistant}, corpus.Message{Role: corpus.RoleTool}
	syn, sum := syntheticMsg("Continue"), userMsg(smithSummaryPrefix+"x")
	sum.Summary = true
	cases := []struct {
		name        string
		prev, next  *corpus.Message
		want, other bool
	}{
		{"first user", nil, &u, false, false},
		{"before assistant", &u, &a, true, true},
		{"before assistant after tool", &tool, &a, true, true},
		{"before tool", &a, &tool, false, false},
		{"user after assistant", &a, &u, false, false},
		{"user after tool", &tool, &u, false, false},
		{"user after user: a request left no record", &u, &u, true, false},
		{"synthetic after assistant", &a, &syn, false, false},
		{"synthetic after tool", &tool, &syn, true, false},
		{"synthetic after user", &u, &syn, true, false},
		{"user after a summary", &sum, &u, false, false},
	}
	for _, name := range []string{"smith-staged", "smith-legacy"} {
		p := newPolicy(t, name, "")
		for _, c := range cases {
			for _, f := range []corpus.Format{corpus.FormatSmithTranscript, corpus.FormatSmithSession} {
				if got := p.Checkpoint(f, c.prev, c.next); got != c.want {
					t.Errorf("%s, %s, %s: %v", name, f, c.name, got)
				}
			}
			for _, f := range []corpus.Format{corpus.FormatClaudeCode, corpus.FormatCodex, corpus.FormatGemini, corpus.FormatOpencode, corpus.FormatClai} {
				if got := p.Checkpoint(f, c.prev, c.next); got != c.other {
					t.Errorf("%s, %s, %s: %v", name, f, c.name, got)
				}
			}
		}
	}
}

func TestWindowStart(t *testing.T) {
	h := ids([]corpus.Message{userMsg("a"), syntheticMsg("s"), userMsg("b"), syntheticMsg("s"), userMsg("c"), userMsg("d")})
	cases := []struct{ n, want int }{{0, 6}, {1, 5}, {2, 4}, {3, 2}, {4, 0}, {5, 0}}
	for _, c := range cases {
		if got := windowStart(h, c.n); got != c.want {
			t.Errorf("windowStart(n=%d) = %d, want %d", c.n, got, c.want)
		}
	}
}
