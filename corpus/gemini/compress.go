package gemini

import (
	"regexp"
	"strconv"

	"github.com/calib-dev/calib/corpus"
)

// How a compression shows in a chat file. ChatCompressionService replaces
// the head of the in-memory history with a <state_snapshot> summary, but the
// chat file is append-only and keeps every original message; neither the
// summary nor the new history is written. What is written is the notice the
// CLI shows: useHistoryManager records every UI item of type info or
// compression as an {type: "info"} message record. The notices, from
// packages/cli/src/ui/hooks/useGeminiStream.ts (handleChatCompressionEvent)
// and ui/commands/compressCommand.ts:
//
//   - automatic compression, older builds: "IMPORTANT: This conversation
//     approached the input token limit for <model>. A compressed context will
//     be sent for future messages (compressed from: <before> to <after>
//     tokens)." (<before>/<after> may be "unknown");
//   - automatic compression, newer builds: "Context compressed from <p>% to
//     <q>%." (shares of the model's window, no token counts);
//   - /compress: a compression item has no text, so an info record with
//     empty content. It is written whatever the outcome (also when nothing
//     was compressed), so its status is "unknown".
//
// The notice is written before the user message whose request first used
// the compressed history, so the compaction takes effect at that message.
var (
	compressedTokens  = regexp.MustCompile(`A compressed context will be sent for future messages \(compressed from: (\d+|unknown) to (\d+|unknown) tokens\)`)
	compressedPercent = regexp.MustCompile(`^Context compressed from (\d+)% to (\d+)%\.`)
)

// compression recognises a compression notice in an info record's text.
func compression(text string) (corpus.Compaction, bool) {
	c := corpus.Compaction{Strategy: "compress", SummaryMissing: true}
	switch {
	case text == "":
		c.Trigger, c.Status = "manual", "unknown"
	case compressedTokens.MatchString(text):
		m := compressedTokens.FindStringSubmatch(text)
		c.Trigger, c.Status = "auto", "completed"
		c.TokensBefore, _ = strconv.Atoi(m[1])
		c.TokensAfter, _ = strconv.Atoi(m[2])
		if c.TokensBefore > 0 && c.TokensAfter > 0 {
			c.TokensSaved = c.TokensBefore - c.TokensAfter
		}
	case compressedPercent.MatchString(text):
		c.Trigger, c.Status = "auto", "completed"
	default:
		return c, false
	}
	return c, true
}
