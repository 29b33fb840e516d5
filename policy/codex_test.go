package policy

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/codex"
)

// A Codex history in the rollout reader's shapes: the initial context
// (developer message, AGENTS.md and environment context as injected user
// messages), then user turns of one request each whose usage is the
// token_count's total_tokens on a 272,000-token model.
func codexHistory(totals ...int) ([]corpus.Message, *corpus.Session) {
	text := func(s string) []corpus.Block { return []corpus.Block{{Kind: corpus.KindText, Text: s}} }
	h := []corpus.Message{
		{ID: "L3", Role: corpus.RoleSystem, Blocks: text("<permissions instructions>sandboxed</permissions instructions>")},
		{ID: "L4", Role: corpus.RoleUser, Synthetic: true, Blocks: text("# AGENTS.md instructions for /work/demo")},
		{ID: "L5", Role: corpus.RoleUser, Synthetic: true, Blocks: text("<environment_context>\n  <cwd>/work/demo</cwd>\n</environment_context>")},
	}
	s := &corpus.Session{ID: "rollout"}
	for i, total := range totals {
		h = append(h,
			corpus.Message{ID: "u" + string(rune('a'+i)), Role: corpus.RoleUser, Blocks: text(strings.Repeat(string(rune('a'+i)), 40000))},
			corpus.Message{ID: "a" + string(rune('a'+i)), Role: corpus.RoleAssistant, Blocks: text("done")})
		s.Recorded.Usage = append(s.Recorded.Usage, corpus.Usage{AtMessage: len(h) - 1, InputTokens: total, ContextWindow: 272000})
	}
	for i := range h {
		h[i].Line = i + 1
	}
	s.Messages = h
	return h, s
}

func codexCompact(t *testing.T, set string, h []corpus.Message, s *corpus.Session) Outcome {
	t.Helper()
	p := newPolicy(t, CodexName, set)
	return p.Compact(h, Checkpoint{Raw: len(h), Units: units(p, h), Session: s})
}

// The trigger: the last request's total_tokens against 90% of the
// model's context window behind the rollout's model_context_window
// (244,800 of 272,000), at or above. Codex builds with
// effective_context_window_percent record 95% of the window (258,400 for
// the gpt-5 family) but compact at 90% of the whole: 244,800, not 232,560.
// An explicit auto_compact_limit below that is used, one above it clamped.
func TestCodexTrigger(t *testing.T) {
	for _, tt := range []struct {
		set    string
		window int // the recorded model_context_window (272,000 if 0)
		total  int
		want   Strategy
	}{
		{"", 0, 244799, None},
		{"", 0, 244800, Rotated},
		{"", 258400, 244799, None},
		{"", 258400, 244800, Rotated},
		{"", 128000, 115199, None},
		{"", 128000, 115200, Rotated},
		{"", 121600, 115199, None},
		{"", 121600, 115200, Rotated},
		{"context_window=200000", 258400, 179999, None},
		{"context_window=200000", 258400, 180000, Rotated},
		{"auto_compact_limit=100000", 0, 99999, None},
		{"auto_compact_limit=100000", 0, 100000, Rotated},
		// A limit above 90% of the window is clamped to it (newer builds:
		// min(config, 90%)); it was used as given.
		{"auto_compact_limit=300000", 0, 244799, None},
		{"auto_compact_limit=300000", 0, 244800, Rotated},
		{"auto_compact_limit=200000", 128000, 115200, Rotated},
	} {
		h, s := codexHistory(1000, tt.total)
		for i := range s.Recorded.Usage {
			if tt.window > 0 {
				s.Recorded.Usage[i].ContextWindow = tt.window
			}
		}
		o := codexCompact(t, tt.set, h, s)
		if o.Strategy != tt.want || o.BeforeTokens != tt.total {
			t.Errorf("%s window %d total %d: %s at %d, want %s", tt.set, tt.window, tt.total, o.Strategy, o.BeforeTokens, tt.want)
		}
	}
}

// The rebuilt history: initial context, the newest user messages within
// 20,000 tokens (bytes/4; the oldest kept is cut to what is left), one
// summary message with SUMMARY_PREFIX. An earlier summary is not kept,
// so summaries never nest; the count of compactions rides on the first id.
func TestCodexRebuild(t *testing.T) {
	h, s := codexHistory(1000, 2000, 244800) // three 10,000-token prompts
	s.Recorded.Compactions = []corpus.Compaction{{Strategy: "compacted", AtMessage: 9, Summary: codex.SummaryPrefix + "\nThe tests pass."}}
	o := codexCompact(t, "", h, s)
	var got []string
	for _, m := range o.History {
		got = append(got, m.ID+":"+string(m.Role))
	}
	want := []string{"calib-summary-1:L3:system", "L4:user", "L5:user", "ub:user", "uc:user", "calib-summary-:user"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("history %v, want %v", got, want)
	}
	if n := len(o.History[3].Blocks[0].Text); n != 40000 {
		t.Errorf("second newest prompt cut to %d bytes, want whole (40,000)", n)
	}
	last := o.History[len(o.History)-1]
	if !last.Summary || last.Blocks[0].Text != codex.SummaryPrefix+"\nThe tests pass." || o.Summarizer != "recorded" {
		t.Errorf("summary %q (%s)", last.Blocks[0].Text, o.Summarizer)
	}
	if compactions(o.History) != 1 {
		t.Errorf("compactions %d", compactions(o.History))
	}
	// The stage removed ua (40,000 bytes) and the three answers ("done"),
	// and added the summary: it reported 0 blocks and 0 bytes, and its
	// hidden results went under "rotated", no stage of codex's.
	if st := o.Stages; len(st) != 1 || st[0].Name != "compact" || st[0].BlocksTouched != 4 || st[0].BytesRemoved != int64(40012-len(last.Blocks[0].Text)) {
		t.Errorf("stages %+v; want compact, 4 blocks, %d bytes", st, 40012-len(last.Blocks[0].Text))
	}
	// After its own compaction, where the recording did not compact, the
	// policy no longer trusts the recorded total_tokens (they measure the
	// agent's uncompacted history): it estimates, bytes/4 of its history.
	more, s2 := codexHistory(1000, 250000)
	h2 := append(append([]corpus.Message(nil), o.History...), more[3:]...)
	p := newPolicy(t, CodexName, "summarizer=fixed:100")
	at := Checkpoint{Raw: len(h2), Units: units(p, h2), Session: s2}
	if o2 := p.Compact(h2, at); o2.Strategy != None || o2.BeforeTokens != p.(*Codex).meter.Tokens(at.Units) {
		t.Errorf("after its own compaction: %s at %d, want the estimate %d", o2.Strategy, o2.BeforeTokens, at.Units/4)
	}
	// Forced, a second compaction filters the earlier summary out and
	// keeps the newest prompts within 20,000 tokens, the oldest cut.
	at.Force = true
	o2 := p.Compact(h2, at)
	var sums int
	var prompts []int
	for _, m := range o2.History {
		if m.Summary {
			sums++
		}
		if m.Role == corpus.RoleUser && !m.Synthetic && !m.Summary {
			prompts = append(prompts, len(m.Blocks[0].Text))
		}
	}
	if sums != 1 || o2.History[0].ID != "calib-summary-2:L3" {
		t.Errorf("second compaction: %d summaries, first id %q", sums, o2.History[0].ID)
	}
	if len(prompts) != 2 || prompts[0] != 40000 || prompts[1] != 40000 {
		t.Errorf("kept prompts of %v bytes, want the two newest whole", prompts)
	}
	if got := o2.History[len(o2.History)-1].Blocks[0].Text; !strings.HasPrefix(got, codex.SummaryPrefix+"\n") {
		t.Errorf("fixed summary without the prefix: %.40q", got)
	}
	// A prompt too long for what is left is cut to it.
	long, _ := codexHistory(1000)
	long[3].Blocks[0].Text = strings.Repeat("z", 100000)
	o3 := p.Compact(long, Checkpoint{Raw: len(long), Units: units(p, long), Force: true})
	if n := len(o3.History[3].Blocks[0].Text); n != 80000 {
		t.Errorf("a 25,000-token prompt kept as %d bytes, want 80,000 (20,000 tokens)", n)
	}
}

// TestCodexWindow: a recorded model_context_window that is 95% of a whole
// number of thousands is the usable share Codex reports; any other is the
// window itself.
func TestCodexWindow(t *testing.T) {
	for _, c := range [][2]int{
		{258400, 272000}, {272000, 272000}, {121600, 128000}, {128000, 128000},
		{190000, 200000}, {200000, 200000}, {380000, 400000}, {950000, 1000000}, {1000000, 1000000},
		{258401, 258401}, {950, 1000},
	} {
		if got := codexWindow(c[0]); got != c[1] {
			t.Errorf("codexWindow(%d) = %d, want %d", c[0], got, c[1])
		}
	}
}
