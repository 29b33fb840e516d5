package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// testdata/usage-rollout.jsonl is written from the documented token_count
// shape (issue 11 and third-party parsers), not copied from a real rollout:
// the real Codex sample in shared/corpus-real has no token_count line.
func TestCodexUsage(t *testing.T) {
	p := filepath.Join("testdata", "usage-rollout.jsonl")
	ss, err := Load(p, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	want := []corpus.Usage{
		// line 6: the first request (a function call); line 7 repeats it.
		{AtMessage: 1, Model: "gpt-5.2-codex", Requests: 1, InputTokens: 5000, OutputTokens: 120, ReasoningTokens: 64, ContextWindow: 272000, Line: 6},
		// line 10: totals only, the difference from line 6's totals.
		{AtMessage: 3, Model: "gpt-5.2-codex", Requests: 1, InputTokens: 5300 - 4864, CacheReadTokens: 4864, OutputTokens: 40, ContextWindow: 272000, Line: 10},
		// line 13 has no cached_input_tokens: the reader counts it as 0.
		{AtMessage: 3, Model: "gpt-5.2-codex", Requests: 1, InputTokens: 100, OutputTokens: 5, ContextWindow: 272000, Line: 13},
	}
	if len(s.Recorded.Usage) != len(want) {
		t.Fatalf("usage %+v", s.Recorded.Usage)
	}
	for i, w := range want {
		g := s.Recorded.Usage[i]
		g.Done = w.Done
		if g != w {
			t.Errorf("usage %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	wantWarn := map[int]string{
		11: "token_count counts input 100, cached 200",
		12: "token_count counts input -1, cached 0",
	}
	for _, w := range s.Warnings {
		if m, ok := wantWarn[w.Line]; ok && strings.Contains(w.Message, m) {
			delete(wantWarn, w.Line)
		}
	}
	for line, m := range wantWarn {
		t.Errorf("no warning at line %d containing %q; got %+v", line, m, s.Warnings)
	}
	if len(s.Messages) != 4 {
		t.Errorf("usage lines must not change the history: %d messages", len(s.Messages))
	}
}
