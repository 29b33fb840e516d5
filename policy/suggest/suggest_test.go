package suggest

import "testing"

func TestClosest(t *testing.T) {
	policies := []string{"smith-staged", "smith-legacy", "clai-rotation", "claude-code", "codex", "opencode", "gemini-cli"}
	params := []string{"window_tokens", "prune.keep", "prune.keep_value", "compact.tail_value", "compact_at", "compact_to"}
	metrics := []string{"tokens_sent", "billed_tokens", "usd", "peak_tokens", "results_lost"}
	for _, c := range []struct {
		name  string
		known []string
		want  string
	}{
		{"smith-stagd", policies, "smith-staged"},  // a letter dropped
		{"Smith-Staged", policies, "smith-staged"}, // case
		{"opencod", policies, "opencode"},          // short name, one typo
		{"claude", policies, "claude-code"},        // the start of a name
		{"smith", policies, ""},                    // the start of two: no guess
		{"nope", policies, ""},                     // nothing near
		{"codex", policies, ""},                    // known: nothing to suggest
		{"keep_value", params, "prune.keep_value"}, // the last part of a dotted name
		{"compact_att", params, "compact_at"},      // one typo, though compact_to is near too
		{"tokens_snt", metrics, "tokens_sent"},     // metric
		{"usb", metrics, "usd"},                    // three letters, one typo
		{"lost", metrics, ""},                      // a part of a name is not a typo of it
	} {
		if got := Closest(c.name, c.known); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
	if h := Hint("opencod", policies); h != "; did you mean opencode?" {
		t.Errorf("Hint = %q", h)
	}
	if h := Hint("nope", policies); h != "" {
		t.Errorf("Hint with no suggestion = %q", h)
	}
}
