package policy

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestContextTokensDrift: a trigger that reads recorded usage corrects
// the figure for what the replay's own clears (Checkpoint.Cleared) and
// the agent's (a microcompact boundary's tokens saved, a persisted
// output's text less its marker) took out by the anchored request, when
// they differ by driftMin or more. Without it a replay that cleared what
// the agent did not read the agent's larger context at the next request,
// and one that did not clear what the agent did read a context its
// history no longer had.
func TestContextTokensDrift(t *testing.T) {
	h, s := ccHistory(ccStep("Read", "a", ccUsage(150000), 1000))
	anchor := len(h) - 2 // the assistant message whose usage is recorded
	p := newPolicy(t, "clear-tool-results", "").(*ClearToolResults)
	boundary := func(saved, at int) {
		s.Recorded.Compactions = []corpus.Compaction{{Strategy: "microcompact", AtMessage: at, TokensSaved: saved}}
	}
	persisted := func(chars, at, bound int) {
		s.Recorded.Persisted = []corpus.Persisted{{ToolCallID: "a1", Marker: "<persisted-output>m</persisted-output>", Chars: chars, AtMessage: at, Boundary: bound}}
	}
	tests := []struct {
		name    string
		cleared int64 // the replay's clears, chars4 tokens
		setup   func()
		want    int
	}{
		{"walk follows the recording", -1, func() { boundary(30000, anchor) }, 150000},
		{"neither cleared", 0, func() {}, 150000},
		{"both cleared alike", 30000, func() { boundary(30000, anchor) }, 150000},
		{"alike up to their stubs", 31999, func() { boundary(30000, anchor) }, 150000},
		{"the replay cleared, the agent did not", 30000, func() {}, 120000},
		{"the agent cleared, the replay did not", 0, func() { boundary(30000, anchor) }, 180000},
		{"the agent's clear took effect after the anchor", 0, func() { boundary(30000, anchor+1) }, 150000},
		// 40,000 characters less the 38-character marker: 10,000 - 10.
		{"a persisted output, no boundary", 0, func() { persisted(40000, anchor, -1) }, 159990},
		{"a persisted output its boundary counts", 0, func() { boundary(30000, anchor); persisted(40000, anchor, 0) }, 180000},
	}
	for _, tt := range tests {
		s.Recorded.Compactions, s.Recorded.Persisted = nil, nil
		tt.setup()
		got, recorded := p.contextTokens(h, Checkpoint{Session: s, Units: 1001, Cleared: tt.cleared})
		if !recorded || got != tt.want {
			t.Errorf("%s: context %d (recorded %v), want %d", tt.name, got, recorded, tt.want)
		}
	}
}

// TestAnchoredContextDrift: claude-code's auto-compaction measure and
// Codex's read the recorded figure through anchoredContext, with the same
// correction as clear-tool-results' trigger.
func TestAnchoredContextDrift(t *testing.T) {
	h, s := ccHistory(ccStep("Read", "a", ccUsage(150000), 1000))
	m, err := NewMeter(MeterChars4, MeterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cleared int64
		want    int
	}{{-1, 150000}, {0, 150000}, {1999, 150000}, {30000, 120000}} {
		got, recorded := anchoredContext(h, Checkpoint{Session: s, Units: 1001, Cleared: tt.cleared}, m, 0, nil, usageContext, false)
		if !recorded || got != tt.want {
			t.Errorf("cleared %d: context %d (recorded %v), want %d", tt.cleared, got, recorded, tt.want)
		}
	}
}
