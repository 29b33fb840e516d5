package main

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// sessionPolicy builds a policy of its own, with the session's count memo,
// for each session replayed with the o200k meter, whose own memo keeps
// every string it counted for as long as the policy lives; any other
// meter keeps nothing, and the run's one policy replays every session.
func TestSessionPolicy(t *testing.T) {
	s := &corpus.Session{ID: "s", Messages: []corpus.Message{{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "hi"}}}}}
	for _, tt := range []struct {
		policy string
		set    map[string]string
		own    bool // a policy of the session's own
	}{
		{"smith-staged", nil, false},
		{"smith-staged", map[string]string{"meter": "chars4"}, false},
		{"smith-staged", map[string]string{"meter": "o200k"}, true},
		{"claude-code", nil, false},
		{"clear-tool-results", map[string]string{"meter": "o200k"}, true},
		{"clai-rotation", nil, false},
	} {
		def, err := policy.Lookup(tt.policy)
		if err != nil {
			t.Fatal(err)
		}
		p, err := def.Build(tt.set, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sessionPolicy(def, tt.set, p, s)
		if err != nil {
			t.Fatal(err)
		}
		if own := got != p; own != tt.own {
			t.Errorf("%s %v: a policy of its own = %v, want %v", tt.policy, tt.set, own, tt.own)
		}
		if got.Name() != p.Name() || policy.MeterOf(got) != policy.MeterOf(p) {
			t.Errorf("%s %v: session policy %s (%s), want %s (%s)", tt.policy, tt.set, got.Name(), policy.MeterOf(got), p.Name(), policy.MeterOf(p))
		}
	}
}
