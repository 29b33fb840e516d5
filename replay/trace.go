// Package replay drives recorded sessions through compaction policies,
// checkpoint by checkpoint, as the agent would have, and checks every
// outcome against the invariants a compaction must keep.
package replay

import (
	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
	"github.com/calib-dev/calib/replay/loss"
)

// Trace is everything one replay of one session through one policy saw.
type Trace struct {
	Session *corpus.Session
	Policy  string
	Params  policy.Params
	// Requests has one entry per checkpoint: what the agent would have
	// sent to its provider.
	Requests []Request
	// Window is the context window the policy assumes for the session
	// (policy.Windowed), 0 for a policy that assumes none.
	Window int
	// Events has one entry per checkpoint at which the policy compacted.
	Events []Event
	// Violations are broken invariants; a non-empty list fails the run.
	Violations []Violation
	// Final is the working history after the last message, when
	// Options.KeepFinal is set.
	Final []corpus.Message
	// Messages is how many raw messages were replayed: sidechains are
	// skipped, and so are the summaries the agent recorded, which a
	// policy's own compactions replace (walker.skips).
	Messages int
	// Loss is what hiding tool results cost the agent, when
	// Options.Loss was set.
	Loss *loss.Report
	// Fit is the session's prompt calibration, fitted to the recording
	// for the policy's meter (fitPrompt), which Cost prices with; nil
	// when the policy meters nothing or the session records no usage.
	Fit *cache.Calibration
}

// Request is one checkpoint: a provider request.
type Request struct {
	Index int // 0-based request number
	Raw   int // raw messages appended before it
	Turn  int // real turn number (1-based; 0 before the first user message)
	// Tokens is the history before the policy ran and Sent the history it
	// sent (they differ only when it compacted), by the policy's meter
	// plus its overhead: tokens_sent, peak_tokens and the cost layer read
	// them. Overhead is the part of both that is the policy's own guess at
	// the prompt the log does not hold, where it tells it apart (0
	// otherwise): the cost layer replaces it by what it infers from
	// recorded usage.
	Tokens, Sent, Overhead int
	// Context and ContextBefore are Sent and Tokens as the policy's
	// trigger measures them (Outcome.AfterTokens, BeforeTokens), what its
	// trigger line is drawn against. They differ from Sent and Tokens only
	// for a policy whose measure is anchored on recorded usage
	// (policy.Metered: the previous request's recorded figure, one
	// request behind the history sent, in the provider's tokens).
	Context, ContextBefore int
	// Event is the index into Trace.Events of the compaction at this
	// request, or -1.
	Event int
	// Next is the index in Session.Messages of the message the request
	// produced (the checkpoint sits right before it).
	Next int
	// Response is that message's content bytes (corpus.Message.Bytes) and
	// Thinking whether it holds thinking, taken as the replay appends it:
	// the cost layer reading them back from the session, one message at a
	// time, was half of its time.
	Response int
	Thinking bool
	// FirstChanged is the index of the first message of this prompt that
	// differs from the previous request's prompt (0 for the first request
	// and after a rotation; the previous prompt's length when only
	// messages were appended): where a provider's prompt cache stops
	// matching.
	FirstChanged int
	// Rewrote is whether that message is one the previous prompt held: a
	// compaction that changed only what was appended since (a cap on
	// arriving output) leaves the cached prefix whole.
	Rewrote bool
}

// Event is one compaction.
type Event struct {
	Index   int // 0-based compaction number in the session
	Request int
	Raw     int
	Turn    int
	// HistoryBefore and HistoryAfter are message counts.
	HistoryBefore int
	HistoryAfter  int
	// Outcome is the policy's outcome with its History (and a digest's
	// Text) dropped: the trace must not hold every intermediate history.
	Outcome policy.Outcome
	// CurrentTurnResultsCut counts tool results of the current turn that
	// the policy shortened (smith's last resort does this by design).
	CurrentTurnResultsCut int
}

// Violation is a broken invariant.
type Violation struct {
	Request int    `json:"request"`
	Rule    string `json:"rule"`
	Detail  string `json:"detail"`
}

// Compactions counts the events that changed the history.
func (t *Trace) Compactions() int { return len(t.Events) }
