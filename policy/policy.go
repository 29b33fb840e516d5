// Package policy holds pure compaction policies over []corpus.Message: the
// agents' own (smith-staged, smith-legacy, clai-rotation) and general ones,
// their parameters, defaults and validation, and the token meters they count
// with. Policies do no I/O.
//
// Files: policy.go (the interface and outcome), params.go and registry.go
// (parameters, `calib policies`), meter.go and summarizer.go (shared by the
// policies); then one file per policy — smith_staged.go (its stages in
// smith_stages.go), smith_legacy.go (both built on smith_history.go:
// smith's working history, window, safe cut and summary stage), clai_rotation.go (built on clai_digest.go and
// clai_select.go: clai's rendering and select_head_and_tail, legacy and
// fixed), clear_tool_results.go (its plan in clear_tool_results_plan.go);
// turns.go (where a history's real turns start, kept by the replay);
// recorded_index.go (what the agent's own clears and compactions had done
// by each message, for the triggers that read recorded usage);
// the general stages composed into presets
// (compose.go and compose_<kind>.go, preset.go, presets.go: one preset per
// agent).
package policy

import "github.com/calib-dev/calib/corpus"

// Policy is one compaction policy with resolved parameters.
//
// Beyond DESIGN.md's three methods, a policy also says where its agent
// checks (Checkpoint) and how much each message weighs towards its trigger
// (Measure). Both belong to the agent being modelled, not to the corpus, and
// together they let the replay keep a running total so that a checkpoint
// that does not trigger costs O(1).
type Policy interface {
	Name() string
	// Params are the resolved values, in declaration order, for reports.
	Params() Params
	// Checkpoint reports whether the agent checks for compaction right
	// before next is appended (prev is the raw message before it, nil at
	// the start of the session; f is the session's format, for a rule
	// that reads a trait of one agent's recordings, as smith's lost
	// requests).
	Checkpoint(f corpus.Format, prev, next *corpus.Message) bool
	// Measure is a message's contribution to the running sums a trigger
	// or a stage reads, in the policy's own units: units is its weight
	// (bytes for smith, rendered chars for clai, context tokens for
	// clear-tool-results), count a second quantity: 1 for a message that
	// counts towards a message-count threshold (smith, clai), the
	// uncleared result tokens or results for clear-tool-results and for
	// a preset with a clear stage (Composed.Measure). thinking is 1 for a
	// message holding thinking beside other content under a preset with a
	// thinking stage (what that stage may drop), 0 otherwise: with it the
	// stage sees in O(1) that nothing before its window is droppable.
	Measure(m *corpus.Message) (units, count, thinking int64)
	// Compact decides at one checkpoint. h is the working history; it must
	// not be modified (return a new slice that shares unchanged messages),
	// unless at.Owned lets it overwrite messages in place (Outcome.Overwrote).
	Compact(h []corpus.Message, at Checkpoint) Outcome
}

// Checkpoint is one moment the agent would have asked its provider for a
// response.
type Checkpoint struct {
	Request int // 0-based request number in the session
	Raw     int // number of raw messages appended so far
	Turn    int // 1-based real-turn number (user messages that are not synthetic)
	// Units, Count and Thinking are the sums of Measure over h, kept
	// incrementally by the replay.
	Units    int64
	Count    int64
	Thinking int64
	// Turns are h's real-turn starts, oldest first, with the thinking sum
	// before each, kept by the replay (AddTurn, AdoptTurns); read only.
	// nil when the caller does not keep them (a stage then reads h back).
	Turns []TurnStart
	// Results mark h's messages holding tool results, with the sums a
	// preset's clear stage reads (ResultMark), kept by the replay
	// (ResultMarks, AddResult, AdoptResults); read only. nil when the
	// caller does not keep them or the policy has no use for them.
	Results []ResultMark
	// Cleared is the sum of Measure the replay's own clears (outcomes
	// Truncated) have taken out of h so far: how far h has drifted below
	// the history the agent recorded, for a trigger that reads the
	// recorded usage (clear-tool-results). -1 when unknown: a summary,
	// drop or rotation happened, or the walk follows the recording.
	Cleared int64
	// Session is the session being replayed, for summarizers that use what
	// the agent recorded (summarizer=recorded).
	Session *corpus.Session
	// Recorded indexes what Session's agent had done to its history by
	// each message, for a trigger that reads recorded usage; built once
	// per walk by the replay. nil when the caller keeps none: each
	// checkpoint that needs it then builds it (at.recorded).
	Recorded *RecordedIndex
	// Pending is the sum of Measure's units over h's messages after its
	// last assistant message (the step this request is about to send: tool
	// results, a user message), kept by the replay, for a trigger that reads
	// the last response as an agent reading its provider's usage does
	// (context_at=last_response); -1 when the caller does not know it (the
	// policy then reads h back over that step).
	Pending int64
	// Prompt is the session's prompt model, fitted to its recorded usage,
	// for a policy that asks for it (PromptCalibrated); nil when it does
	// not or the session records no usage.
	Prompt *PromptModel
	// Force asks the policy to decide as if its trigger had fired. The
	// replay never sets it; agreement with a recording does, because there
	// the agent is known to have acted (replay.Agree).
	Force bool
	// Next is the index in Session.Messages of the message about to be
	// appended (the checkpoint sits right before it), for policies that
	// replay what the agent recorded at positions of the session
	// (recorded); -1 when unknown.
	Next int
	// Owned says that the caller owns h's array and nothing else reads it
	// (the replay's own history, never the session's Messages nor a
	// recording, and never a history Compact is handed twice): Compact may
	// then replace messages of h in place (h[i] = a new message; never a
	// message's blocks) instead of copying the history, and reports what
	// it replaced in Outcome.Overwrote. A checkpoint that rewrites a few
	// messages then costs those, not the history.
	Owned bool
	// Spare is an array of the caller's that nothing else reads and that
	// shares nothing with h's, handed with length 0, or nil: a policy that
	// makes a new history may build it there when the capacity is enough,
	// instead of allocating one, and reports it Outcome.Owned. The replay
	// hands the array of the history its last compaction replaced, so
	// that a session's compactions alternate between two arrays instead of
	// allocating one each (smith's stages and summary).
	Spare []corpus.Message
}

// Strategy is what a compaction did to the history.
type Strategy string

const (
	None       Strategy = "none"
	Truncated  Strategy = "truncated"
	Summarized Strategy = "summarized"
	Dropped    Strategy = "dropped"
	Rotated    Strategy = "rotated"
)

// Outcome is the result of one Compact call.
type Outcome struct {
	// History is the new working history. When Strategy is None it is the
	// input slice itself (the prompt cache is untouched).
	History  []corpus.Message
	Strategy Strategy
	Stages   []StageReport
	// Token figures are the policy's charged request cost (history plus
	// overhead, times ratio, for smith).
	BeforeTokens  int
	AfterTokens   int
	TargetTokens  int
	TriggerTokens int
	// TriggerUnit names what TriggerTokens counts when that is not the
	// charged context ("result tokens", "results"); empty means context
	// tokens, the unit of BeforeTokens, so plots draw the trigger only then.
	TriggerUnit   string
	MaxTokens     int
	ReachedTarget bool
	Exhausted     bool
	// Removed is how many messages left the front of the history.
	Removed int
	// Units, Count and Thinking are the sums of Measure over History, so
	// the replay need not re-measure after a compaction.
	Units    int64
	Count    int64
	Thinking int64
	// Digest is set by rotation policies.
	Digest *Digest
	// Summarizer names the summarizer used, when a summary was written,
	// and SummaryTokens is that summary's size in the policy's meter (the
	// output of a summarizer call, which the cost layer prices).
	Summarizer    string
	SummaryTokens int
	// Overwrote is set when Compact replaced messages of the history it
	// was handed in place (Checkpoint.Owned): History is that history,
	// and Overwrote the messages that were at OverwroteAt, the first that
	// changed (what FirstChanged would find), before the compaction. The
	// caller reads the history as handed through them.
	Overwrote   []corpus.Message
	OverwroteAt int
	// Owned says that History's array is the caller's to hand back with
	// Checkpoint.Owned: Compact made it (in Checkpoint.Spare or not), or
	// rewrote an owned one in place, and keeps no reference to it.
	Owned bool
}

// FirstChanged is the index of the first message of out that is not the
// same message as in's at that index (SameMessage: a compaction shares
// every message it leaves alone), or the shorter length when none
// differs: the walker's firstChanged, and where AdoptTurns starts.
func FirstChanged(in, out []corpus.Message) int {
	n := min(len(in), len(out))
	for i := range n {
		if !SameMessage(&in[i], &out[i]) {
			return i
		}
	}
	return n
}

// ChangedFrom is FirstChanged(in, o.History) for the outcome o of
// Compact(in, ...): o.OverwroteAt when o rewrote in in place (in then
// holds the outcome, so a scan would find nothing), for nothing; a scan of
// the shared prefix otherwise.
func ChangedFrom(in []corpus.Message, o Outcome) int {
	if o.Overwrote != nil {
		return o.OverwroteAt
	}
	return FirstChanged(in, o.History)
}

// SameMessage reports whether b is a, unchanged: the same fields and the
// same block slice. The invariant checks skip such messages, so every
// field they or a policy's Measure read is compared.
func SameMessage(a, b *corpus.Message) bool {
	x, y := a.Blocks, b.Blocks
	return a.ID == b.ID && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0]) &&
		a.Role == b.Role && a.Synthetic == b.Synthetic && a.Summary == b.Summary &&
		a.Sidechain == b.Sidechain && a.Source == b.Source && a.Line == b.Line && a.Time.Equal(b.Time)
}

// untouched is the Outcome of a checkpoint that leaves h as it is: the
// history, its measure and its cost before and after; the policy adds its
// trigger, target and ceiling.
func untouched(h []corpus.Message, at Checkpoint, before int) Outcome {
	return Outcome{History: h, Strategy: None, BeforeTokens: before, AfterTokens: before,
		Units: at.Units, Count: at.Count, Thinking: at.Thinking}
}

// settled is o with its verdict against its own figures: the target is
// reached at or below TargetTokens, and the compaction exhausted above
// MaxTokens.
func (o Outcome) settled() Outcome {
	o.ReachedTarget = o.AfterTokens <= o.TargetTokens
	o.Exhausted = o.AfterTokens > o.MaxTokens
	return o
}

// StageReport is what one stage of a compaction did. BeforeTokens and
// AfterTokens are the context, in the compaction's own tokens, before and
// after this stage: the stages of one compaction chain from its
// BeforeTokens to its AfterTokens.
type StageReport struct {
	Name          string
	BeforeTokens  int
	AfterTokens   int
	BlocksTouched int
	BytesRemoved  int64
	// Agent is the stage's work in the agent's own count, where the agent
	// records one to compare with (Claude Code's microcompact: preTokens
	// and tokensSaved over its tool results alone, markers not taken
	// off); nil otherwise. Agreement reads it.
	Agent *AgentCount
	// Hid lists the tool call ids whose results this stage hid (replaced
	// by a marker, cut, or removed from the history), when the policy
	// knows them exactly (recorded: the ids its recorded events name);
	// nil otherwise. The loss tracker attributes a hidden result to the
	// first stage that lists it, and infers the stage from how the result
	// changed only for results no stage lists.
	Hid []string
}

// AgentCount is a stage's before and saved tokens as its agent counts them.
type AgentCount struct {
	Before, Saved int
}

// Digest describes a rotation digest (clai's session_rotation_summary).
type Digest struct {
	Text           string
	WindowMessages int
	Msg0Bytes      int // bytes of window message 0 (the previous digest in a chain)
	P1, P2         int // preamble copies: the nesting depth
	Omissions      int // omission markers in the text
	// CLIHeadBytes is the size of the head the CLI boundary clamp keeps,
	// and CLIHeadPreambleBytes how much of it is preamble copies.
	CLIHeadBytes         int
	CLIHeadPreambleBytes int
	OverBudget           bool
	// Budget is the size in bytes the digest was held to (0: none), so
	// that reports can draw it without knowing the policy's parameters.
	Budget int
	// Bytes and SHA256 identify Text, which a replay trace drops (it must
	// not hold every digest of a chain).
	Bytes  int
	SHA256 [32]byte
}

// Clearer is implemented by policies that clear tool results in place:
// Stub is the text a cleared result gets. Agreement applies the agent's
// recorded clears with it, so that the policy sees its own stub as cleared.
type Clearer interface {
	Stub() string
}

// Recording is implemented by a policy that replays what the agent
// recorded instead of deciding (recorded). The agent's own compactions may
// rewrite the turn in progress (Claude Code 1.0.x compacts mid-turn, after
// a tool result): the replay reports that as the agent's behaviour, not as
// a broken invariant.
type Recording interface {
	ReplaysRecording()
}

// Metered is implemented by policies whose figures are their meter's
// tokens plus overhead_tokens, to tell the two apart, and by those whose
// figures are something else: claude-code, codex and clear-tool-results
// (context_source=recorded) anchor their context measure on the previous
// request's recorded usage, so their Outcome.BeforeTokens and AfterTokens
// are what the agent's trigger compares, the provider's count of the
// request before, not the size of the history being sent. Metering gives
// the meter their Measure sums in and overhead, the policy's guess at the
// prompt the log does not hold: a history whose Measure sums to units is
// m.Tokens(units) + overhead tokens, which a cost model prices, replacing
// overhead with what recorded usage calibrates (the recorded policy and
// the presets implement it for that alone; smith-staged, whose overhead is
// scaled by its ratio, does not).
type Metered interface {
	Metering() (m *Meter, overhead int)
}

// Windowed is implemented by policies that assume a model's context
// window (window_tokens, Codex's context_window): Window is that window for
// a session, in the policy's context tokens. A request whose context goes
// past it could not have been sent (metrics: over_window). smith's
// max_tokens is a budget, not a window, and clai-rotation and recorded
// assume none.
type Windowed interface {
	Window(s *corpus.Session) int
}

// Varianted is implemented by policies that come in variants
// (clai-rotation's legacy and fixed): reports label their rows by it.
type Varianted interface {
	Variant() string
}

// Bounded is implemented by rotation policies that know whether their
// digest stays within a fixed size (clai-rotation with its clamp on): a
// chain of them costs time linear in its length and flat memory, so
// replay.CheckRotations lets it run longer.
type Bounded interface {
	BoundedDigest() bool
}

// Rederiver is implemented by policies whose agent stores digests that can
// be derived again from the recording (clai-rotation): RederiveParams are
// the parameters to render them with.
type Rederiver interface {
	RederiveParams() ClaiParams
}

// recorded is at.Recorded, or, for a caller that keeps none, the index
// built now.
func (at Checkpoint) recorded() *RecordedIndex {
	if at.Recorded != nil {
		return at.Recorded
	}
	return NewRecordedIndex(at.Session)
}
