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
