package policy

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// --policy auto: each format is replayed with the policy of the agent that
// wrote it, declared on the policy (Def.Formats).
func TestForFormat(t *testing.T) {
	for f, want := range map[corpus.Format]string{
		corpus.FormatSmithTranscript: "smith-staged",
		corpus.FormatSmithSession:    "smith-staged",
		corpus.FormatClai:            ClaiRotationName,
		corpus.FormatClaudeCode:      ClaudeCodeName,
		corpus.FormatCodex:           CodexName,
		corpus.FormatGemini:          "gemini-cli",
		corpus.FormatOpencode:        "opencode",
		corpus.Format("unknown"):     "smith-staged",
	} {
		if got := ForFormat(f); got != want {
			t.Errorf("ForFormat(%s) = %s, want %s", f, got, want)
		}
	}
}

// BenchmarkBuild compares New, which looks the policy up among every
// definition, with Def.Build on a definition looked up once, as a sweep
// builds one policy per parameter set and job.
func BenchmarkBuild(b *testing.B) {
	for _, name := range []string{"smith-staged", "claude-code", "anthropic-context-editing"} {
		d, err := Lookup(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("new/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := New(name, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("build/"+name, func(b *testing.B) {
			for b.Loop() {
				if _, err := d.Build(nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestContradictoryParametersRefused: settings a policy cannot mean are
// refused when it is built, naming the parameters (each ran with exit 0:
// a threshold at or below 0, a summary or clear at every request, or a
// stage that could never act).
func TestContradictoryParametersRefused(t *testing.T) {
	for _, c := range []struct {
		policy string
		set    map[string]string
		want   string
	}{
		{ClaudeCodeName, map[string]string{"buffer_tokens": "300000"},
			"claude-code: output_reserve (auto: up to 32000) + buffer_tokens 300000 >= window_tokens 200000: the auto-compact threshold (window - reserve - buffer) would be 0 or below, a summary at every request; expected window_tokens above their sum"},
		{ClaudeCodeName, map[string]string{"window_tokens": "30000", "output_reserve": "20000"},
			"claude-code: output_reserve 20000 + buffer_tokens 13000 >= window_tokens 30000: the auto-compact threshold (window - reserve - buffer) would be 0 or below, a summary at every request; expected window_tokens above their sum"},
		{"cline", map[string]string{"truncate.trigger_at": "300000"},
			"parameter truncate.trigger_at=300000: with trigger=window_reserve it is the tokens kept free below window_tokens (200000), so less than it; at or above it the stage runs at every request"},
		{"openhands", map[string]string{"condense.trigger_at": "50.5"},
			"parameter condense.trigger_at=50.5: with trigger=messages it is a count of messages, a whole number"},
		{"gemini-cli", map[string]string{"compress.tail_value": "2"},
			"parameter compress.tail_value=2: with tail=chars it is the fraction of the characters kept, in (0, 1]"},
		{"openhands", map[string]string{"condense.tail_value": "0.5"},
			"parameter condense.tail_value=0.5: with tail=events it is a count, a whole number"},
		{"goose", map[string]string{"compact.tail_value": "1.5"},
			"parameter compact.tail_value=1.5: with tail=turns it is a count, a whole number"},
		{"smith-staged", map[string]string{"thinking_window": "0"},
			`parameter thinking_window="0": out of range (valid: int in [1, ∞])`},
		{"anthropic-context-editing", map[string]string{"clear-thinking.keep_turns": "0"},
			`parameter clear-thinking.keep_turns="0": out of range (valid: int in [1, ∞])`},
	} {
		_, err := New(c.policy, c.set)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s %v: error %v\nwant %s", c.policy, c.set, err, c.want)
		}
	}
	// Their sound neighbours build.
	for _, c := range []struct {
		policy string
		set    map[string]string
	}{
		{ClaudeCodeName, map[string]string{"window_tokens": "1000", "full_compaction": "false"}},
		{"cline", map[string]string{"truncate.trigger_at": "199999"}},
		{"gemini-cli", map[string]string{"compress.tail_value": "1"}},
		{"openhands", map[string]string{"condense.trigger_at": "50"}},
	} {
		if _, err := New(c.policy, c.set); err != nil {
			t.Errorf("%s %v: %v", c.policy, c.set, err)
		}
	}
}
