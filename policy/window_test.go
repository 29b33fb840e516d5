package policy

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestWindows: the window each policy assumes (Windowed), which over_window
// counts requests against: its window_tokens, Codex's context_window
// (explicit, else the window behind the session's newest recorded
// model_context_window, else 272,000), and none for the policies that
// assume no model window.
func TestWindows(t *testing.T) {
	rollout := &corpus.Session{Recorded: corpus.Recorded{Usage: []corpus.Usage{{ContextWindow: 128000}, {ContextWindow: 258400}, {}}}}
	plain := &corpus.Session{}
	tests := []struct {
		policy string
		set    map[string]string
		s      *corpus.Session
		want   int // -1: not Windowed
	}{
		{ClaudeCodeName, nil, plain, 200000},
		{ClaudeCodeName, map[string]string{"window_tokens": "1000000"}, plain, 1000000},
		{"clear-tool-results", nil, plain, 200000},
		{CodexName, nil, plain, 272000},
		{CodexName, nil, rollout, 272000}, // 258,400 recorded: 95% of 272,000
		{CodexName, map[string]string{"context_window": "400000"}, rollout, 400000},
		{"opencode", nil, plain, 200000},
		{"gemini-cli", nil, plain, 1048576},
		{"gemini-cli", map[string]string{"window_tokens": "32000"}, plain, 32000},
		{"smith-staged", nil, plain, -1},
		{"clai-rotation", nil, plain, -1},
		{"recorded", nil, plain, -1},
	}
	for _, tt := range tests {
		p, err := New(tt.policy, tt.set)
		if err != nil {
			t.Fatal(err)
		}
		got := -1
		if w, ok := p.(Windowed); ok {
			got = w.Window(tt.s)
		}
		if got != tt.want {
			t.Errorf("%s %v: window %d, want %d", tt.policy, tt.set, got, tt.want)
		}
	}
}
