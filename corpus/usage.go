package corpus

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Usage is what a provider reported for one request, or for a whole
// session when the format keeps only totals. Counts are the provider's
// tokens: InputTokens is uncached input only (Codex's input_tokens, which
// includes the cached part, is stored minus CacheReadTokens), so the
// prompt is always InputTokens + CacheWriteTokens + CacheReadTokens.
type Usage struct {
	// AtMessage is the index in Session.Messages of the assistant message
	// the request produced; -1 for session totals and for requests whose
	// message is not in Messages.
	AtMessage int
	Model     string
	// Requests is 1 for one request, the count for totals (0: unknown).
	Requests         int
	InputTokens      int
	CacheWriteTokens int
	// CacheWrite5m and CacheWrite1h split the writes by TTL when Split is
	// true (Claude Code 2.0.60 and later); read them through Writes, which
	// also answers for a log without a split (Claude Code 1.0.x, clai,
	// smith, opencode): a reader sets CacheWriteTokens alone and cannot
	// leave the split at 0 by forgetting it (opencode's writes read as 0).
	CacheWrite5m    int
	CacheWrite1h    int
	Split           bool
	CacheReadTokens int
	// OutputTokens includes reasoning; ReasoningTokens is its reasoning
	// part where recorded (Codex). Claude Code 2.1.9+ records the
	// stream-start count (1–10), not the final output.
	OutputTokens    int
	ReasoningTokens int
	// ContextWindow is the model's window where recorded (Codex).
	ContextWindow int
	// Sent is when the request was sent (Claude Code: the last user line
	// before it) and Done when its response was written (the last line of
	// the message); zero when the log has no timestamps.
	Sent, Done time.Time
	// AfterStopHook is true when a stop_hook_summary line came since the
	// previous request (Claude Code).
	AfterStopHook bool
	// Breakpoint is the tool_use id of the tool result on the last
	// transcript line before the request (Claude Code writes parallel
	// results in completion order and marks its cache breakpoint there).
	Breakpoint string
	// Cost is what the agent itself computed for the request, in USD
	// (opencode records one per step); 0 when the format records none.
	Cost float64
	// Line is the line (or rowid) the figures were taken from.
	Line int
}

// Prompt is every input token of the request.
func (u Usage) Prompt() int { return u.InputTokens + u.CacheWriteTokens + u.CacheReadTokens }

// Writes is the cache writes by TTL: the recorded split where the log has
// one (Split), else every write a 5-minute one, the default TTL and the
// only one a log without a split can mean.
func (u Usage) Writes() (w5m, w1h int) {
	if u.Split {
		return u.CacheWrite5m, u.CacheWrite1h
	}
	return u.CacheWriteTokens, 0
}

// Add sums usage into totals (times, ids and flags are not summed); the
// totals carry the split (Writes) of what they sum.
func (u *Usage) Add(v Usage) {
	u.CacheWrite5m, u.CacheWrite1h = u.Writes()
	w5m, w1h := v.Writes()
	u.Split = true
	u.Requests += max(v.Requests, 1)
	u.InputTokens += v.InputTokens
	u.CacheWriteTokens += v.CacheWriteTokens
	u.CacheWrite5m += w5m
	u.CacheWrite1h += w1h
	u.CacheReadTokens += v.CacheReadTokens
	u.OutputTokens += v.OutputTokens
	u.ReasoningTokens += v.ReasoningTokens
	u.Cost += v.Cost
}

// UsageField is one recorded count and its name as the format spells it,
// for CheckUsage.
type UsageField struct {
	Name  string
	Value *int64 // nil: absent
}

// UsageDecodeError words why a usage object did not decode, for a
// warning: the field and what it held (BadCount, BadUsage), where
// encoding/json's error named Go's types ("Go struct field
// ccUsage.output_tokens of type int64").
func UsageDecodeError(what string, err error) string {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return BadCount(what+"."+te.Field, te.Value)
	case errors.As(err, &te):
		return BadUsage(what, te.Value)
	}
	return fmt.Sprintf("%s is not an object of token counts (%v)", what, err)
}

// BadCount is the warning for a token count that is not a whole number:
// "message.usage.output_tokens holds number 1e+30 (expected a whole token
// count)". Every reader words it so.
func BadCount(field, held string) string {
	return fmt.Sprintf("%s holds %s (expected a whole token count)", field, held)
}

// BadUsage is the warning for a usage that is not an object.
func BadUsage(what, held string) string {
	return fmt.Sprintf("%s holds %s (expected an object of token counts)", what, held)
}

// CheckUsage validates recorded counts: every field present and not
// negative. It returns the warning message for the first bad field
// ("" when all are good), naming the field and what was expected.
func CheckUsage(what string, fields ...UsageField) string {
	for _, f := range fields {
		switch {
		case f.Value == nil:
			return fmt.Sprintf("%s has no %s (expected a token count); the request's usage is ignored", what, f.Name)
		case *f.Value < 0:
			return fmt.Sprintf("%s %s is %d (expected a count ≥ 0); the request's usage is ignored", what, f.Name, *f.Value)
		}
	}
	return ""
}
