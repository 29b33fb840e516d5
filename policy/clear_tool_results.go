package policy

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// Replacement texts of a cleared tool result (the stub parameter; {id} is
// the tool call id, {path} the file Claude Code saved the result to:
// ~/.claude/projects/<cwd with every character but letters, digits and
// '-' as '-'>/<session id>/tool-results/<id>.txt).
//   - ClaudeCodeStub: Claude Code before 2.0.60 (microcompact from 1.0.68)
//     and opencode's prune.
//   - PersistedOutputStub: Claude Code 2.0.60 and later. 2.1.9+ agents
//     quote exactly the cleared ids as having "returned <persisted-output>"
//     (3 sessions, cc-findings §2); the text is the marker as the repository
//     author and the agents quote it. Whether a preview follows is open.
//
// As a parameter value, \n stands for a newline (so that a stub fits on a
// command line and in one CSV cell).
const (
	ClaudeCodeStub      = "[Old tool result content cleared]"
	PersistedOutputStub = `<persisted-output>Tool result saved to: {path}\n\nUse Read to view</persisted-output>`
)

// ClaudeCodeCompactable are the tools whose results Claude Code's
// microcompact clears: Read, Bash, Grep, Glob and Edit were cleared in the
// real logs (firm: 103 of 103 files are their results); Write, WebFetch,
// WebSearch and NotebookEdit never occur there (open: they complete the
// third-party count of 9 compactable built-in tools, peers.md §3). Skill,
// SlashCommand, Task and TodoWrite were never cleared (0 of 23).
const ClaudeCodeCompactable = "Read,Bash,Grep,Glob,Edit,Write,WebFetch,WebSearch,NotebookEdit"

// Trigger kinds of clear-tool-results (peers.md §9 "Trigger units").
const (
	TriggerContextTokens  = "context_tokens"  // tokens of the whole history (+ overhead): Codex, Anthropic API context editing
	TriggerResultTokens   = "result_tokens"   // tokens of the tool results not yet cleared: Claude Code's preTokens
	TriggerWindowFraction = "window_fraction" // context tokens as a fraction of window_tokens: Gemini, Goose, Roo, Letta
	TriggerResultCount    = "result_count"    // tool results not yet cleared: Claude Code cached microcompact, OpenHands max_size
)

// Where context tokens come from (context_source).
const (
	// SourceRecorded reads the previous request's recorded usage (input +
	// cache read + cache write + output) when the history holds it: Claude
	// Code decides on the last API response's usage, which does not yet
	// include the newest results (the "one request late" pattern of
	// cc-findings §1). Without recorded usage it falls back to the estimate.
	SourceRecorded = "recorded"
	// SourceEstimate measures the history with the meter, plus
	// overhead_tokens.
	SourceEstimate = "estimate"
	// SourceCalibrated predicts the provider's count of the history from
	// the session's recorded usage (PromptModel), for the presets: their
	// replayed history is not the recorded one, so the recorded figure
	// itself does not apply after their first compaction, but the
	// unlogged prompt and the meter's bias it reveals do.
	SourceCalibrated = "calibrated"
)

// Keep walks of keep=tokens (keep_walk).
const (
	WalkStop = "stop" // the first result that overflows the budget ends the walk (every event fits it)
	WalkSkip = "skip" // an overflowing result is cleared and the walk goes on to older, smaller ones
)

// Keep rules of clear-tool-results (peers.md §9 "Stubbing stage").
const (
	KeepResults = "results" // the newest keep_value results: Claude Code 5, Anthropic API 3, SWE-agent 5
	KeepTokens  = "tokens"  // the newest results up to keep_value tokens: opencode 40,000, Gemini 50,000
	KeepTurns   = "turns"   // results of the last keep_value real user turns: opencode 2
	KeepSteps   = "steps"   // results answering the last keep_value assistant messages
)

// clearToolResultsDef is a general tool-result clearing policy: the
// stubbing stage every agent of peers.md §9 has in some form, with its
// trigger, retention, exemptions, stub and minimum reclaim as parameters.
// The defaults are Claude Code's microcompact as the real 2.x logs show it
// (cc-findings §1-2: 6 boundary events of 2.1.9-2.1.20 and 9 silent clears
// of 2.0.60-2.1.6 that left tool-results/ files, 215 checkpoints): fire
// when the previous request's recorded context reaches 148,500 and the
// clear reclaims at least 20,000; keep the newest compactable results
// that fit in 40,000 tokens, the pending step included; replace the rest
// by the persisted-output marker. The evidence for each constant is in
// clear_tool_results_evidence_test.go and the README.
func clearToolResultsDef() Def {
	return Def{
		Name:    "clear-tool-results",
		Summary: "tool-result clearing (Claude Code microcompact, opencode prune, Anthropic context editing): replace old tool results by a stub, keeping the newest",
		Specs:   clearToolResultsSpecs(),
		Stages:  []string{"clear"},
		New:     newClearToolResults,
	}
}

func clearToolResultsSpecs() []ParamSpec {
	return []ParamSpec{
		{Name: "trigger", Kind: Enum, Default: TriggerContextTokens,
			Choices: []string{TriggerContextTokens, TriggerResultTokens, TriggerWindowFraction, TriggerResultCount},
			Help:    "what the trigger measures: context tokens (Claude Code 2.x: the previous request's), tokens of uncleared tool results, a fraction of window_tokens, or a count of uncleared results"},
		{Name: "trigger_at", Kind: Float, Default: "148500", Min: 0, Max: MaxTokens,
			Help: "threshold (fires at or above it): tokens, a result count, or for window_fraction a fraction in (0, 1]; Claude Code 2.x: any value in (147967, 149081] reproduces all 13 real 2.x logs (likely: one session, b6240830, bounds it)"},
		{Name: "context_source", Kind: Enum, Default: SourceRecorded, Choices: []string{SourceRecorded, SourceEstimate},
			Help: "context tokens from the previous request's recorded usage (falls back to the estimate where the log has none) or from the meter plus overhead_tokens"},
		{Name: "window_tokens", Kind: Int, Default: "200000", Min: 1, Max: MaxTokens, Help: "the model's context window, for trigger=window_fraction"},
		{Name: "overhead_tokens", Kind: Int, Default: "0", Min: 0, Max: MaxTokens, Help: "system prompt + tool definitions not in the history, added to estimated context tokens"},
		{Name: "keep", Kind: Enum, Default: KeepTokens, Choices: []string{KeepResults, KeepTokens, KeepTurns, KeepSteps},
			Help: "what stays: the newest keep_value results, the newest results up to keep_value tokens, or the results of the last keep_value user turns or assistant steps"},
		{Name: "keep_value", Kind: Int, Default: "40000", Min: 0, Max: MaxTokens,
			Help: "K results, T tokens, or N turns/steps, per keep; Claude Code 2.x keeps the newest results within 40,000 tokens (15 of 15 events; with the other defaults any budget in [39777, 40146) fits)"},
		{Name: "keep_walk", Kind: Enum, Default: WalkStop, Choices: []string{WalkStop, WalkSkip},
			Help: "keep=tokens: stop at the first result that overflows the budget, or skip it and keep older ones that fit (no real event tells them apart)"},
		{Name: "protect_pending", Kind: Bool, Default: "false",
			Help: "never clear the results of the step being sent (answering the last assistant message); Claude Code does not protect them"},
		{Name: "compactable_tools", Kind: List, Default: ClaudeCodeCompactable,
			Help: "only these tools' results are cleared (empty: every tool); Claude Code's 9 built-in tools, 5 of them seen cleared"},
		{Name: "exempt_tools", Kind: List, Default: "", Help: "tool names whose results are never cleared (opencode: skill)"},
		{Name: "stub", Kind: String, Default: PersistedOutputStub,
			Help: "text that replaces a cleared result; {id} is the tool call id, {path} Claude Code's tool-results/<id>.txt path, \\n a newline (older Claude Code: " + ClaudeCodeStub + ")"},
		{Name: "clear_inputs", Kind: Bool, Default: "false", Help: "also replace the cleared calls' inputs by {} (Anthropic clear_tool_inputs), before the current user turn"},
		{Name: "min_reclaim", Kind: Int, Default: "20000", Min: 0, Max: MaxTokens,
			Help: "do nothing unless the cleared results hold at least this many tokens; Claude Code: any value in (19888, 20659] fits, 20,000 is v2.0.76's documented figure"},
		{Name: "meter", Kind: Enum, Default: MeterChars4, Choices: []string{MeterChars4, MeterBytes4, MeterO200k},
			Help: "chars4 is Claude Code's own estimate (JavaScript length/4 per block)"},
	}
}

// ClearToolResults is the clear-tool-results policy with resolved
// parameters.
type ClearToolResults struct {
	params      Params
	trigger     string
	triggerAt   float64
	source      string
	window      int
	overhead    int
	keep        string
	keepValue   int
	walkSkip    bool
	protect     bool
	compactable map[string]bool // nil: every tool
	exempt      map[string]bool
	stub        stubTemplate
	clearInput  bool
	minReclaim  int
	meter       *Meter
	// staged is set by the clear stage that runs this policy inside a
	// preset (buildClearStage): the stage reads only which blocks an
	// outcome rewrote and recounts them itself, so plan need not
	// measure results whose units decide nothing (planUnits).
	staged bool
}

func newClearToolResults(v Values) (Policy, error) {
	p := &ClearToolResults{
		params:     v.Params(),
		trigger:    v.Str("trigger"),
		triggerAt:  v.Float("trigger_at"),
		source:     v.Str("context_source"),
		window:     v.Int("window_tokens"),
		overhead:   v.Int("overhead_tokens"),
		keep:       v.Str("keep"),
		keepValue:  v.Int("keep_value"),
		walkSkip:   v.Str("keep_walk") == WalkSkip,
		protect:    v.Bool("protect_pending"),
		exempt:     map[string]bool{},
		stub:       newStubTemplate(v.Text("stub")),
		clearInput: v.Bool("clear_inputs"),
		minReclaim: v.Int("min_reclaim"),
	}
	if p.trigger == TriggerWindowFraction && (p.triggerAt <= 0 || p.triggerAt > 1) {
		return nil, fmt.Errorf("parameter trigger_at=%g: with trigger=window_fraction it is a fraction of window_tokens in (0, 1] (e.g. trigger_at=0.8)", p.triggerAt)
	}
	for _, t := range v.List("exempt_tools") {
		p.exempt[t] = true
	}
	if tools := v.List("compactable_tools"); len(tools) > 0 {
		p.compactable = map[string]bool{}
		for _, t := range tools {
			p.compactable[t] = true
		}
	}
	m, err := NewMeter(v.Str("meter"), MeterOptions{Memo: v.memo})
	if err != nil {
		return nil, err
	}
	p.meter = m
	return p, nil
}

func (p *ClearToolResults) Name() string   { return "clear-tool-results" }
func (p *ClearToolResults) Params() Params { return p.params }

// Checkpoint: like Claude Code, the policy runs right before each request
// to the provider, that is before each assistant message.
func (p *ClearToolResults) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleAssistant
}

// Stub is the stub template (Clearer); IsStub recognises it rendered for
// any id.
func (p *ClearToolResults) Stub() string { return p.stub.text }

// IsStub reports whether a tool result's text is this policy's stub, for
// any tool call id and path.
func (p *ClearToolResults) IsStub(text string) bool { return p.stub.matches(text) }

// Metering is the meter and overhead_tokens (policy.Metered).
func (p *ClearToolResults) Metering() (*Meter, int) { return p.meter, p.overhead }

// Window is window_tokens (Windowed).
func (p *ClearToolResults) Window(*corpus.Session) int { return p.window }

// Measure is the message's context in the meter's units and (for the
// result triggers) its uncleared tool results, in the trigger's own
// quantity: their units or their number. The replay keeps both sums, so a
// checkpoint that does not trigger is O(1) for every trigger kind while the
// outcome still reports whole-context tokens. A result whose text is the
// stub is cleared and not counted again.
func (p *ClearToolResults) Measure(m *corpus.Message) (int64, int64, int64) {
	ctx := p.meter.Message(m)
	var trig int64
	if p.trigger == TriggerResultTokens || p.trigger == TriggerResultCount {
		for i := range m.Blocks {
			b := &m.Blocks[i]
			if b.Kind != corpus.KindToolResult || p.stub.matches(b.Text) {
				continue
			}
			if p.trigger == TriggerResultCount {
				trig++
			} else {
				trig += p.meter.Block(b)
			}
		}
	}
	return ctx, trig, 0
}

// fires applies the trigger: trig is the running sum of the result
// triggers' quantity, ctxTokens the context as the trigger measures it
// (contextTokens).
func (p *ClearToolResults) fires(trig int64, ctxTokens int) bool {
	switch p.trigger {
	case TriggerResultTokens:
		return float64(p.meter.Tokens(trig)) >= p.triggerAt
	case TriggerResultCount:
		return float64(trig) >= p.triggerAt
	case TriggerWindowFraction:
		return float64(ctxTokens) >= p.triggerAt*float64(p.window)
	}
	return float64(ctxTokens) >= p.triggerAt
}

// contextTokens is the context the trigger reads at checkpoint at: with
// context_source=recorded, the recorded usage of the previous request (the
// last assistant message of h, a synthetic one passed over) when it has
// one, corrected for the replay's drift from the recording: where the
// replay's own clears (at.Cleared) took out more or less than the agent's
// had by then (recordedClears), by driftMin or more, the difference. The
// recorded figure counts the agent's history, and without it a replay
// that cleared what the agent did not read the agent's larger context at
// the next request and cleared again at once. Otherwise the meter's tokens
// of h plus overhead_tokens. Finding the previous request walks back over
// the pending step only, so a checkpoint stays O(1) in the history's
// length (recordedClears is linear in the recorded clears).
func (p *ClearToolResults) contextTokens(h []corpus.Message, at Checkpoint) (int, bool) {
	if p.source == SourceRecorded {
		if u, k := lastRequestUsage(h, at); u != nil {
			return usageContext(u) - drift(at, at.Session, k, p.meter), true
		}
	}
	return p.meter.Tokens(at.Units) + p.overhead, false
}

// triggerUnit is what threshold counts, when it is not context tokens.
func (p *ClearToolResults) triggerUnit() string {
	switch p.trigger {
	case TriggerResultTokens:
		return "result tokens"
	case TriggerResultCount:
		return "results"
	}
	return ""
}

// threshold is the trigger in its own units, for reports.
func (p *ClearToolResults) threshold() int {
	if p.trigger == TriggerWindowFraction {
		return int(p.triggerAt * float64(p.window))
	}
	return int(p.triggerAt)
}

// Compact clears old tool results when the trigger fires (or when the
// checkpoint is forced). With protect_pending the results answering the
// last assistant message (the step the request is about to send) are never
// cleared; Claude Code does not protect them (issue 13's held-out case:
// five parallel Reads, the first cleared before the model saw it). Tool
// inputs are only cleared before the current user turn, which must stay
// untouched beyond its results. A checkpoint that fires but whose result
// marks (at.Results) show that plan would clear nothing, or less than
// min_reclaim, returns what plan's answer would without reading h; a
// forced one still plans, for the stage figures agreement reads.
func (p *ClearToolResults) Compact(h []corpus.Message, at Checkpoint) Outcome {
	before, recorded := p.contextTokens(h, at)
	o := untouched(h, at, before)
	o.TriggerTokens, o.TargetTokens, o.MaxTokens = p.threshold(), p.threshold(), p.window
	o.TriggerUnit, o.ReachedTarget = p.triggerUnit(), true
	if !at.Force && (!p.fires(at.Count, before) || p.clearsNothing(at.Results)) {
		return o
	}
	pl := p.plan(h)
	// The stage chains the context like any other; Claude Code's own
	// figures, over its results alone, go to agreement.
	st := StageReport{Name: "clear", BeforeTokens: before, AfterTokens: before,
		Agent: &AgentCount{Before: p.meter.Tokens(pl.resultUnits),
			Saved: p.meter.Tokens(pl.resultUnits) - p.meter.Tokens(pl.resultUnits-pl.clearedUnits)}}
	if len(pl.clear) == 0 || p.meter.Tokens(pl.clearedUnits) < p.minReclaim {
		st.Agent.Saved = 0
		if at.Force {
			o.Stages = []StageReport{st} // agreement reads the measured figures
		}
		return o
	}
	out, units, count := p.apply(h, pl, at, &st)
	after := p.meter.Tokens(units) + p.overhead
	if recorded {
		// The recorded figure less what this clear removed.
		after = before - (p.meter.Tokens(at.Units) - p.meter.Tokens(units))
	}
	if after >= before && !at.Force {
		return o // only stubs longer than what they replace: nothing gained
	}
	o.History, o.Strategy = out, Truncated
	o.AfterTokens, o.Units, o.Count = after, units, count
	st.AfterTokens = after
	o.Stages = []StageReport{st}
	o.ReachedTarget = !p.fires(count, after)
	o.Exhausted = !o.ReachedTarget
	return o
}

// Cleared lists the tool call ids whose results a compaction changed or
// removed, in the order of in. It is how agreement reads what any policy
// cleared, whether it stubs results or summarizes them away.
func Cleared(in, out []corpus.Message) []string {
	after := map[string]string{}
	for i := range out {
		for j := range out[i].Blocks {
			if b := &out[i].Blocks[j]; b.Kind == corpus.KindToolResult {
				after[b.ToolCallID] = b.Text
			}
		}
	}
	var ids []string
	for i := range in {
		for j := range in[i].Blocks {
			b := &in[i].Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if t, ok := after[b.ToolCallID]; !ok || t != b.Text {
				ids = append(ids, b.ToolCallID)
			}
		}
	}
	return ids
}
