package codex

import (
	"fmt"
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
		// No answer came since line 10's request: its message is not in
		// the log (-1), and line 10's request keeps its own figures.
		{AtMessage: -1, Model: "gpt-5.2-codex", Requests: 1, InputTokens: 100, OutputTokens: 5, ContextWindow: 272000, Line: 13},
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

// promptsLog is a rollout of n prompts, each followed by a token_count
// and, after every answerEvery-th (0: never), an answer before it.
func promptsLog(n, answerEvery int) string {
	var b strings.Builder
	b.WriteString(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.50.0","model_provider":"openai"}}` + "\n")
	for i := range n {
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"msg %d"}]}}`+"\n", i)
		if answerEvery > 0 && i%answerEvery == answerEvery-1 {
			fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"answer %d"}]}}`+"\n", i)
		}
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":%d,"reasoning_output_tokens":0,"total_tokens":%d},"last_token_usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":1,"reasoning_output_tokens":0,"total_tokens":101},"model_context_window":272000}}}`+"\n",
			100*(i+1), i+1, 101*(i+1))
	}
	return b.String()
}

// TestCodexUsageOfPrompts: a token_count belongs to the assistant message
// written since the previous one; with none (before any answer, or a
// request whose answer the log lacks) to no message (-1). It went to the
// last answer, however many requests came since, so the agreement read a
// later request's usage as that answer's.
func TestCodexUsageOfPrompts(t *testing.T) {
	ss, err := Read("prompts.jsonl", strings.NewReader(promptsLog(10, 4)), corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range ss[0].Recorded.Usage {
		got = append(got, fmt.Sprintf("%d@%d", u.Line, u.AtMessage))
	}
	// Prompts are messages 0-3, answer 4, prompts 5-8, answer 9, prompts 10-11.
	want := "3@-1 5@-1 7@-1 10@4 12@-1 14@-1 16@-1 19@9 21@-1 23@-1"
	if strings.Join(got, " ") != want {
		t.Errorf("usage line@message:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

// TestCodexModelSwitch: each request's usage names the model of its turn
// (the turn_context Codex writes at every user turn), not the session's
// first: /model between turns changes the prices and starts a new cache.
// Written from the documented turn_context shape (peers.md §4); the real
// sample switches no model.
func TestCodexModelSwitch(t *testing.T) {
	log := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"s","cwd":"/w","cli_version":"0.77.0","model_provider":"openai"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5-codex"}}
{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"one"}]}}
{"timestamp":"2026-01-01T00:00:02Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a"}]}}
{"timestamp":"2026-01-01T00:00:02Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":100,"cached_input_tokens":0,"output_tokens":1,"total_tokens":101}}}}
{"timestamp":"2026-01-01T00:00:03Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5.2"}}
{"timestamp":"2026-01-01T00:00:03Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"two"}]}}
{"timestamp":"2026-01-01T00:00:04Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"b"}]}}
{"timestamp":"2026-01-01T00:00:04Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":120,"cached_input_tokens":0,"output_tokens":1,"total_tokens":121}}}}
`
	ss, err := Read("switch.jsonl", strings.NewReader(log), corpus.Options{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	var got []string
	for _, u := range s.Recorded.Usage {
		got = append(got, fmt.Sprintf("%d@%d %s", u.Line, u.AtMessage, u.Model))
	}
	if want := "5@1 gpt-5-codex, 9@3 gpt-5.2"; strings.Join(got, ", ") != want || s.Meta.Model != "gpt-5-codex" {
		t.Errorf("usage %q, session model %q; want %q, gpt-5-codex (the first)", strings.Join(got, ", "), s.Meta.Model, want)
	}
}

// BenchmarkCodexUsageOfPrompts loads rollouts of prompts that are never
// answered, each with a token_count: the time per prompt stays flat.
func BenchmarkCodexUsageOfPrompts(b *testing.B) {
	for _, n := range []int{10000, 20000, 40000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			log := promptsLog(n, 0)
			for b.Loop() {
				ss, err := Read("prompts.jsonl", strings.NewReader(log), corpus.Options{})
				if err != nil || len(ss[0].Recorded.Usage) != n {
					b.Fatalf("load: %v", err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/prompt")
		})
	}
}
