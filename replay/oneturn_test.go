package replay

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// One turn far over every trigger leaves cline, gemini-cli and aider
// nothing to cut: each sends the whole history at every request. Given a
// finished turn before it, each does cut (the check that skips the work,
// compState.onlyTurnInProgress, must not skip a cut that could be made).
func TestOneLongTurnLeavesNothingToCut(t *testing.T) {
	s := oneTurn(300) // 300 Reads of 2 KB: about 155,000 chars4 tokens
	// An earlier, finished turn of the same size.
	two := &corpus.Session{ID: "two-turns", Format: corpus.FormatClaudeCode}
	two.Messages = append(append(append([]corpus.Message(nil), s.Messages...),
		corpus.Message{ID: "done", Role: corpus.RoleAssistant, Blocks: text("done")}), s.Messages...)
	for i := range two.Messages {
		two.Messages[i].Line = i + 1
		two.Messages[i].ID += "-" + string(rune('a'+i%26))
	}
	for _, tt := range []struct {
		preset string
		set    map[string]string
	}{
		{"cline", map[string]string{"window_tokens": "100000"}},
		// Its mask, on, would mask inside the turn as Gemini CLI does:
		// off, the compression alone is tested.
		{"gemini-cli", map[string]string{"window_tokens": "100000", "mask.keep_value": "1000000000"}},
		{"aider", nil}, // summarizes over 8,192 tokens
	} {
		p := mustPolicy(t, tt.preset, tt.set)
		tr := mustRun(t, s, p, Options{})
		if len(tr.Events) != 0 || len(tr.Requests) != 300 {
			t.Fatalf("%s, one turn: %d compactions over %d requests, want none over 300", tt.preset, len(tr.Events), len(tr.Requests))
		}
		if last := tr.Requests[299]; last.Sent != last.Tokens || last.Sent < 100_000 {
			t.Fatalf("%s, one turn: last request sends %d of %d tokens, want all, over the trigger", tt.preset, last.Sent, last.Tokens)
		}
		tr = mustRun(t, two, p, Options{})
		if len(tr.Events) == 0 {
			t.Fatalf("%s, a finished turn first: no compaction", tt.preset)
		}
	}
}
