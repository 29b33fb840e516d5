package policy

import "math"

// PromptModel predicts the prompt a provider counts for a history from the
// history's metered size: P = Overhead + Scale·history. The replay fits it
// per session to the session's recorded usage (replay/cache.CalibrateRecording,
// the calibration its cost model reads: the overhead is the system prompt and
// tools the log does not hold, the scale the meter's bias against the
// provider's tokenizer) and hands it to the policies that ask for it
// (PromptCalibrated) in Checkpoint.Prompt.
//
// Why a model rather than the recorded figure: a preset's replayed history
// is not the recorded one after its first compaction, so the usage the log
// records from then on describes a history the replay no longer holds,
// while the overhead and the bias still apply.
type PromptModel struct {
	Overhead int
	Scale    float64
}

// Tokens is the predicted prompt of a history of history metered tokens.
func (m *PromptModel) Tokens(history int) int {
	return m.Overhead + int(math.Round(m.Scale*float64(history)))
}

// Which history a preset's token triggers measure (context_at).
const (
	// AtRequest measures the history the request is about to send.
	AtRequest = "request"
	// AtLastResponse measures the history up to the last response: what
	// the previous request sent and what it answered, not the step since
	// (its tool results, a new user message). An agent that reads its
	// provider's usage of the last response (Goose, opencode, Cline,
	// Gemini CLI) or counts its done messages (Aider) sees that.
	AtLastResponse = "last_response"
	// AtLastPrompt measures the history the last request sent, without
	// its response or the step since: what an agent reading its
	// provider's prompt count of the last request sees (Gemini CLI's
	// getLastPromptTokenCount, the last response's input tokens).
	AtLastPrompt = "last_prompt"
)

// PromptCalibrated is implemented by policies whose token triggers can
// read the provider's count instead of their own estimate (the presets'
// context_source=calibrated): CalibratedPrompt says whether this one does,
// and the replay hands the model (which it fits for the cost of every
// metering policy) only to those that do.
type PromptCalibrated interface {
	CalibratedPrompt() bool
}
