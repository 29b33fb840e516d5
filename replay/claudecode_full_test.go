package replay

import (
	"slices"
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
	}{
		{"0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl", []int{158}, []int{158}, []int{155510}},
		{"9034225e-c367-4ab6-b1eb-1f478a7ae27a.jsonl", []int{135}, []int{135}, []int{155862}},
		{"f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl", []int{140, 223}, []int{140, 222}, []int{155902, 155062}},
	}
	p, err := policy.New(policy.ClaudeCodeName, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		s := realCC(t, tt.file)
		tr, err := Run(t.Context(), s, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Violations) > 0 {
			t.Errorf("%s: %+v", tt.file, tr.Violations)
		}
		var got, tokens []int
		for _, e := range tr.Events {
			if e.Outcome.Strategy != policy.Summarized || e.Outcome.Summarizer != "recorded" {
				t.Errorf("%s request %d: %s with summarizer %q", tt.file, e.Request, e.Outcome.Strategy, e.Outcome.Summarizer)
			}
			got = append(got, e.Request)
			tokens = append(tokens, e.Outcome.BeforeTokens)
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
