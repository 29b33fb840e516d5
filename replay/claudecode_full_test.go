package replay

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// The claude-code policy's auto-compaction on the real 1.0.53 logs
// (cc-findings §3): 4 compactions, all in one project, all mid-turn. At
// the defaults (1.0.x: reserve 32,000, buffer 13,000, so 155,000; the
// context the agent measured = the previous request's recorded prompt +
// chars4 of its response + chars4 of what arrived since) the policy
// compacts at the recorded request 3 times and one request early once
// (f67ab274's second: 155,062 there, where the agent waited; the data
// allow any trigger in (155,061, 155,509], and 155,000 is the documented
// formula, so this miss is kept rather than fitted away).
func TestClaudeCodeFullCompactionOn1053(t *testing.T) {
	tests := []struct {
		file      string
		recorded  []int // requests before which Claude Code compacted
		predicted []int
		tokens    []int // what the policy measured there
		after     []int // the context it left (the event's after)
		next      []int // the recorded context of the first request after each recorded compaction
	}{
		{"0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl", []int{158}, []int{158}, []int{155510}, []int{32835}, []int{30905}},
		{"9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl", []int{135}, []int{135}, []int{155862}, []int{46692}, []int{35866}},
		{"f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl", []int{140, 223}, []int{140, 222}, []int{155902, 155062},
			[]int{38433, 31759}, []int{102368, 43421}},
	}
	p := mustPolicy(t, policy.ClaudeCodeName, nil)
	for _, tt := range tests {
		s := realCC(t, tt.file)
		tr := mustRun(t, s, p, Options{})
		if len(tr.Violations) > 0 {
			t.Errorf("%s: %+v", tt.file, tr.Violations)
		}
		var got, tokens, after []int
		for _, e := range tr.Events {
			if e.Outcome.Strategy != policy.Summarized || e.Outcome.Summarizer != "recorded" {
				t.Errorf("%s request %d: %s with summarizer %q", tt.file, e.Request, e.Outcome.Strategy, e.Outcome.Summarizer)
			}
			got = append(got, e.Request)
			tokens = append(tokens, e.Outcome.BeforeTokens)
			after = append(after, e.Outcome.AfterTokens)
		}
		if next := recordedContextAfter(s); !slices.Equal(after, tt.after) || !slices.Equal(next, tt.next) {
			t.Errorf("%s: left %v tokens; the recording's next requests sent %v; want %v and %v", tt.file, after, next, tt.after, tt.next)
		}
		if rec := recordedRequests(s); !slices.Equal(rec, tt.recorded) {
			t.Errorf("%s: recorded compactions before requests %v, want %v", tt.file, rec, tt.recorded)
		}
		if !slices.Equal(got, tt.predicted) || !slices.Equal(tokens, tt.tokens) {
			t.Errorf("%s: compacted before requests %v at %v tokens, want %v at %v", tt.file, got, tokens, tt.predicted, tt.tokens)
		}
		for i := range got {
			if d := got[i] - tt.recorded[i]; d < -1 || d > 1 {
				t.Errorf("%s: compaction %d at request %d, recorded %d: not within ±1", tt.file, i, got[i], tt.recorded[i])
			}
		}
	}
}

// recordedContextAfter is the recorded prompt (input, cache writes and
// reads) of the first main-thread request after each recorded full
// compaction.
func recordedContextAfter(s *corpus.Session) []int {
	var out []int
	for _, c := range s.Recorded.Compactions {
		if c.Strategy != "compact" {
			continue
		}
		for _, u := range s.Recorded.Usage {
			if u.AtMessage > c.AtMessage && !s.Messages[u.AtMessage].Sidechain {
				out = append(out, u.Prompt())
				break
			}
		}
	}
	return out
}

// recordedRequests are the main-thread request indexes before which the
// session recorded a full compaction.
func recordedRequests(s *corpus.Session) []int {
	at := map[int]bool{}
	for _, c := range s.Recorded.Compactions {
		if c.Strategy == "compact" {
			at[c.AtMessage] = true
		}
	}
	var out []int
	req := 0
	for i := range s.Messages {
		if at[i] {
			out = append(out, req)
		}
		if m := &s.Messages[i]; m.Role == corpus.RoleAssistant && !m.Sidechain {
			req++
		}
	}
	return out
}

// TestClaudeCodeKeepsNoSummaryThatGrows: the turn in progress survives a
// full compaction, and the newest Read results are re-attached after the
// summary. When the turn holds nearly all of the history, the summary,
// the re-attached files and the turn come to more than the history they
// replace, and such a summary is not kept (as the presets' summarize stage
// keeps none that does not shrink the context). Kept, it came back at every
// request of a long turn: a session written from the documented shapes,
// one prompt then 300 calls of an MCP tool (which microcompact never
// clears) with 4,000-byte results, summarized at 136 requests, each summary
// larger than the history, each priced as a summarizer call. On the real
// fc491683 with microcompact's trigger raised to 180,000, the summary the
// policy wrote at request 6 made the history 97,924 tokens from 73,180
// (chars4: 25,149 of re-attached files the turn already held); it is not
// kept, and microcompact clears at request 7 instead. The real agent did
// not compact there either (README: 169,291 without a compaction).
func TestClaudeCodeKeepsNoSummaryThatGrows(t *testing.T) {
	s := &corpus.Session{ID: "long-turn", Format: corpus.FormatClaudeCode, Meta: corpus.Meta{AgentVersion: "2.1.20", Cwd: "/home/u/p"}}
	add := func(role corpus.Role, b corpus.Block) {
		s.Messages = append(s.Messages, corpus.Message{Role: role, Line: len(s.Messages) + 1, Blocks: []corpus.Block{b}})
	}
	add(corpus.RoleUser, corpus.Block{Kind: corpus.KindText, Text: "refactor everything"})
	for i := range 300 {
		id := fmt.Sprintf("tu%d", i)
		add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: "mcp__db__query", Args: []byte(fmt.Sprintf(`{"sql":"select %d"}`, i))})
		add(corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: strings.Repeat(fmt.Sprintf("row %04d of query %03d, some columns\n", i, i), 4000/40)})
	}
	add(corpus.RoleAssistant, corpus.Block{Kind: corpus.KindText, Text: "done"})
	tr := mustRun(t, s, mustPolicy(t, policy.ClaudeCodeName, nil), Options{})
	if len(tr.Events) != 0 || len(tr.Violations) != 0 {
		t.Errorf("long turn: %d events (first %+v), violations %+v; want none", len(tr.Events), firstEvent(tr), tr.Violations)
	}

	fc := realCC(t, "fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl")
	tr = mustRun(t, fc, mustPolicy(t, policy.ClaudeCodeName, map[string]string{"mc_keep_tokens": "10000", "mc_trigger_at": "180000"}), Options{})
	var got []string
	for _, e := range tr.Events {
		got = append(got, fmt.Sprintf("%d %s", e.Request, e.Outcome.Strategy))
	}
	if want := []string{"7 truncated"}; !slices.Equal(got, want) {
		t.Errorf("fc491683, microcompact at 180,000: events %v, want %v", got, want)
	}
}

func firstEvent(tr *Trace) any {
	if len(tr.Events) == 0 {
		return nil
	}
	return tr.Events[0].Outcome.Stages
}
