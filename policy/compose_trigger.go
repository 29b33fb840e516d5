package policy

import (
	"fmt"
	"math"
)

// Trigger units of a stage (the <stage>.trigger parameter).
const (
	OnTokens         = "tokens"          // context tokens >= trigger_at (Anthropic API input_tokens, Aider)
	OnWindowFraction = "window_fraction" // context tokens >= trigger_at × window_tokens (Gemini 0.5, Goose 0.8, Codex 0.9)
	OnWindowReserve  = "window_reserve"  // context tokens >= window_tokens − trigger_at (opencode overflow, Cline maxAllowedSize)
	OnMessages       = "messages"        // more than trigger_at messages in the history (OpenHands len(view) > max_size)
	OnTurnStart      = "turn_start"      // the first request of each real user turn (opencode's prune after each loop)
	OnEveryRequest   = "every_request"   // every request (SWE-agent's history processors, output caps)
)

var triggerUnits = []string{OnTokens, OnWindowFraction, OnWindowReserve, OnMessages, OnTurnStart, OnEveryRequest}

// stageTrigger decides whether a stage runs at a checkpoint.
type stageTrigger struct {
	unit string
	at   float64
	// turnOnly checks the trigger only at the first request of a user
	// turn: Goose tests its threshold when a user message arrives, Aider
	// its history's size when a turn is done, neither inside a tool loop.
	turnOnly bool
	// above fires only past the threshold, not at it (Goose's
	// usage_ratio > threshold, Aider's total > max_tokens).
	above bool
	// before is what a messages trigger adds to the history's length:
	// OpenHands' view begins with a SystemPromptEvent no log holds.
	before int
	// contextAt is the history a token trigger reads (context_at):
	// AtRequest, AtLastResponse or AtLastPrompt.
	contextAt string
}

// fires applies the trigger to the context as it stands: tokens charged
// (history + overhead), messages in the history, and whether the request
// is the first of a user turn.
func (t stageTrigger) fires(tokens, messages int, turnStart bool, window int) bool {
	if t.turnOnly && !turnStart {
		return false
	}
	var th float64
	switch t.unit {
	case OnTokens:
		th = t.at
	case OnWindowFraction:
		th = t.at * float64(window)
	case OnWindowReserve:
		th = float64(window) - t.at
	case OnMessages:
		return float64(messages+t.before) > t.at
	case OnTurnStart:
		return turnStart
	default:
		return true
	}
	if t.above {
		return float64(tokens) > th
	}
	return float64(tokens) >= th
}

// check refuses a threshold its unit cannot mean (prefix names the
// stage's parameters): a window fraction outside (0, 1], a reserve that
// leaves no window (it fired at every request, with exit 0), a fraction
// of a message.
func (t stageTrigger) check(prefix string, window int) error {
	switch {
	case t.unit == OnWindowFraction && (t.at <= 0 || t.at > 1):
		return fmt.Errorf("parameter %strigger_at=%g: with trigger=window_fraction it is a fraction of window_tokens in (0, 1]", prefix, t.at)
	case t.unit == OnWindowReserve && t.at >= float64(window):
		return fmt.Errorf("parameter %strigger_at=%g: with trigger=window_reserve it is the tokens kept free below window_tokens (%d), so less than it; at or above it the stage runs at every request", prefix, t.at, window)
	case t.unit == OnMessages && t.at != math.Trunc(t.at):
		return fmt.Errorf("parameter %strigger_at=%g: with trigger=messages it is a count of messages, a whole number", prefix, t.at)
	}
	return nil
}

// threshold is the trigger in context tokens, 0 when it is not one.
func (t stageTrigger) threshold(window int) int {
	switch t.unit {
	case OnTokens:
		return int(t.at)
	case OnWindowFraction:
		return int(t.at * float64(window))
	case OnWindowReserve:
		return window - int(t.at)
	}
	return 0
}

// triggerSpecs are the two parameters every stage has.
func triggerSpecs() []ParamSpec {
	return []ParamSpec{
		{Name: "trigger", Kind: Enum, Default: OnEveryRequest, Choices: triggerUnits,
			Help: "when the stage runs: context tokens, a fraction of window_tokens, window_tokens minus a reserve, more than N messages, the first request of each user turn, or every request"},
		{Name: "trigger_at", Kind: Float, Default: "0", Min: 0, Max: MaxTokens,
			Help: "the threshold in the trigger's unit (tokens, a fraction, reserve tokens or messages)"},
		{Name: "trigger_above", Kind: Bool, Default: "false",
			Help: "a tokens, window_fraction or window_reserve trigger fires only above its threshold, not at it (Goose, Aider)"},
		{Name: "messages_before", Kind: Int, Default: "0", Min: 0, Max: 1e6,
			Help: "events the agent counts before the history, for a messages trigger and a summarize stage's keep_first and events tail (OpenHands' view begins with its system prompt: 1)"},
		{Name: "turn_start_only", Kind: Bool, Default: "false",
			Help: "check the trigger only at the first request of each user turn, never inside a tool loop (Goose, Aider)"},
		{Name: "context_at", Kind: Enum, Default: AtRequest, Choices: []string{AtRequest, AtLastResponse, AtLastPrompt},
			Help: "the history a token trigger measures: request, the one being sent; last_response, what the previous request sent and its response, without the step since (an agent reading its provider's usage of input and output: Goose, opencode, Cline; Aider's done messages); last_prompt, what the previous request sent, without its response (an agent reading the last prompt's count: Gemini CLI)"},
	}
}
