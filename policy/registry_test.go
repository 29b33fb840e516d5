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
