package policy

import (
	"fmt"
	"math"
	"strconv"

	"github.com/calib-dev/calib/corpus"
)

// ClaudeCodeName is the claude-code policy: what --policy auto replays a
// Claude Code log with.
const ClaudeCodeName = "claude-code"

// ClaudeCodeSummaryPrefix starts the user message that carries a Claude
// Code compaction summary (the isCompactSummary lines of the real 1.0.53
// logs; peers.md §4).
const ClaudeCodeSummaryPrefix = "This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\n"

// claudeCodeDef is Claude Code as its real logs show it: microcompact
// (clear-tool-results at its defaults, the silent persisted-output clears
// of 2.0.60-2.1.6 included) then auto-compaction near the window, with the
// defaults of the log's version where they differ (auto):
//   - microcompact from 1.0.68 (claudelog.com via peers.md §3; the 1.0.53
//     logs never clear); stub "[Old tool result content cleared]" before
//     2.0.60, the persisted-output marker from 2.0.60 (cc-findings §2);
//   - output reserve 32,000 before 2.0 (the model's full max output:
//     200,000 - 32,000 - 13,000 = 155,000 fits the 4 compactions of the
//     1.0.53 logs, T in (155,061, 155,509], cc-findings §3) and 20,000 from
//     2.0 (min(max output, 20,000), third-party; no 2.x log here compacts).
func claudeCodeDef() Def {
	inf := math.Inf(1)
	return Def{
		Formats: []corpus.Format{corpus.FormatClaudeCode},
		Stages:  []string{"clear", "compact"},
		Name:    ClaudeCodeName,
		Agent:   "Claude Code (its real logs 1.0.53-2.1.x in shared/corpus-real; peers.md §3, §4)",
		Summary: "Claude Code: microcompact (clear-tool-results at its defaults) then auto-compaction at window - output reserve - 13,000, per version",
		Specs: []ParamSpec{
			{Name: "microcompact", Kind: Enum, Default: "auto", Choices: []string{"auto", "on", "off"},
				Help: "clear old tool results (clear-tool-results at its defaults); auto: from 1.0.68"},
			{Name: "mc_trigger_at", Kind: Int, Default: "148500", Min: 0, Max: MaxTokens, Help: "microcompact: the previous request's context that fires it (clear-tool-results trigger_at)"},
			{Name: "mc_keep_tokens", Kind: Int, Default: "40000", Min: 0, Max: MaxTokens, Help: "microcompact: newest results kept, in tokens (clear-tool-results keep_value)"},
			{Name: "mc_min_reclaim", Kind: Int, Default: "20000", Min: 0, Max: MaxTokens, Help: "microcompact: smallest clear worth doing (clear-tool-results min_reclaim)"},
			{Name: "protect_pending", Kind: Bool, Default: "false", Help: "microcompact: never clear the step being sent (Claude Code: not protected)"},
			{Name: "stub", Kind: String, Default: "auto", Help: "microcompact replacement text; auto: " + ClaudeCodeStub + " before 2.0.60, the persisted-output marker from 2.0.60"},
			{Name: "full_compaction", Kind: Bool, Default: "true", Help: "auto-compact the whole history near the window"},
			{Name: "window_tokens", Kind: Int, Default: "200000", Min: 1, Max: MaxTokens, Help: "the model's context window"},
			{Name: "output_reserve", Kind: AutoInt, Default: "auto", Min: 0, Max: MaxTokens,
				Help: "tokens kept free for the response; auto: 32000 before 2.0 (fits the 1.0.53 logs), 20000 from 2.0"},
			{Name: "buffer_tokens", Kind: Int, Default: "13000", Min: 0, Max: MaxTokens, Help: "AUTOCOMPACT_BUFFER_TOKENS below the effective window"},
			{Name: "full_measure", Kind: Enum, Default: "auto", Choices: []string{"auto", "arriving", "previous"},
				Help: "auto-compaction's context: the previous request's prompt plus its response and what arrived since (arriving), or the previous request's usage alone (previous); auto: arriving before 2.0 (4 of 4 1.0.53 compactions), previous from 2.0 (fc491683 did not compact at 169,291 arriving)"},
			{Name: "summarizer", Kind: String, Default: "recorded", Canon: canonSummarizer,
				Help: "recorded: the nearest recorded summary; fixed:BYTES, ratio:R or fail"},
			{Name: "restore_files", Kind: Int, Default: "5", Min: 0, Max: inf, Help: "recently read files re-attached after a compaction"},
			{Name: "restore_file_tokens", Kind: Int, Default: "5000", Min: 0, Max: MaxTokens, Help: "tokens kept of each restored file"},
			{Name: "restore_budget", Kind: Int, Default: "50000", Min: 0, Max: MaxTokens, Help: "tokens of all restored files"},
			{Name: "overhead_tokens", Kind: Int, Default: "18000", Min: 0, Max: MaxTokens,
				Help: "system prompt and tools, added to the estimate where no earlier request of the session recorded usage (its first request; a log without usage) (2.x head: 18,020-21,200; a subagent's own is about 4,500, so its first request reads high)"},
		},
		New: newClaudeCode,
	}
}

// ClaudeCode is the claude-code policy with resolved parameters.
type ClaudeCode struct {
	params Params
	// mc is microcompact with each stub: [0] before 2.0.60, [1] from it.
	mc          [2]*ClearToolResults
	mcMode      string
	full        bool
	window      int
	reserve     string
	buffer      int
	measure     string
	stage       fullCompaction
	overhead    int
	meter       *Meter
	strategiesC []string
}

func newClaudeCode(v Values) (Policy, error) {
	p := &ClaudeCode{params: v.Params(), mcMode: v.Str("microcompact"), full: v.Bool("full_compaction"),
		window: v.Int("window_tokens"), reserve: v.Str("output_reserve"), buffer: v.Int("buffer_tokens"), measure: v.Str("full_measure"),
		overhead: v.Int("overhead_tokens"), strategiesC: []string{"compact"}}
	// The threshold is window - reserve - buffer: at or below 0 it fires
	// at every request, a summary each time, with exit 0. An auto reserve
	// is 32,000 at most (before 2.0).
	reserve, what := 32000, "output_reserve (auto: up to 32000)"
	if p.reserve != "auto" {
		reserve, _ = strconv.Atoi(p.reserve)
		what = "output_reserve " + p.reserve
	}
	if p.full && reserve+p.buffer >= p.window {
		return nil, fmt.Errorf("claude-code: %s + buffer_tokens %d >= window_tokens %d: the auto-compact threshold (window - reserve - buffer) would be 0 or below, a summary at every request; expected window_tokens above their sum", what, p.buffer, p.window)
	}
	stubs := [2]string{ClaudeCodeStub, PersistedOutputStub}
	if s := v.Str("stub"); s != "auto" {
		stubs = [2]string{s, s}
	}
	for i, stub := range stubs {
		cv, err := Resolve("clear-tool-results", clearToolResultsSpecs(), map[string]string{
			"trigger_at": strconv.Itoa(v.Int("mc_trigger_at")), "keep_value": strconv.Itoa(v.Int("mc_keep_tokens")),
			"min_reclaim": strconv.Itoa(v.Int("mc_min_reclaim")), "protect_pending": v.Str("protect_pending"), "stub": stub})
		if err != nil {
			return nil, err
		}
		cv.memo = v.memo
		mc, err := newClearToolResults(cv)
		if err != nil {
			return nil, err
		}
		p.mc[i] = mc.(*ClearToolResults)
	}
	sum, err := ParseSummarizer(v.Str("summarizer"))
	if err != nil {
		return nil, err
	}
	p.meter = p.mc[1].meter
	p.stage = fullCompaction{summarizer: sum, restoreFiles: v.Int("restore_files"),
		restoreFileTokens: v.Int("restore_file_tokens"), restoreBudget: v.Int("restore_budget"),
		prefix: ClaudeCodeSummaryPrefix, strategies: p.strategiesC, meter: p.meter}
	return p, nil
}

func (p *ClaudeCode) Name() string   { return ClaudeCodeName }
func (p *ClaudeCode) Params() Params { return p.params }

// Checkpoint: before each request, like microcompact and auto-compact.
func (p *ClaudeCode) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleAssistant
}

// Window is window_tokens (Windowed).
func (p *ClaudeCode) Window(*corpus.Session) int { return p.window }

// Stub is the stub of 2.0.60 and later (Clearer): the only versions that
// record which ids they cleared (microcompact_boundary, from 2.1.9).
func (p *ClaudeCode) Stub() string { return p.mc[1].Stub() }

// Metering is the meter and overhead_tokens (policy.Metered).
func (p *ClaudeCode) Metering() (*Meter, int) { return p.meter, p.overhead }

// Measure is microcompact's: chars4 context units (its trigger reads the
// context, so the second sum is 0).
func (p *ClaudeCode) Measure(m *corpus.Message) (int64, int64, int64) { return p.mc[1].Measure(m) }

func sessionVersion(s *corpus.Session) string {
	if s == nil {
		return ""
	}
	return s.Meta.AgentVersion
}

// trigger is the full compaction threshold for a version.
func (p *ClaudeCode) trigger(version string) int {
	reserve, err := strconv.Atoi(p.reserve)
	if err != nil { // auto
		reserve = 20000
		if !corpus.VersionAtLeast(version, "2.0") {
			reserve = 32000
		}
	}
	return p.window - reserve - p.buffer
}

// Compact runs microcompact, then auto-compaction on what it left. A
// forced checkpoint (agreement with a recorded microcompact) runs
// microcompact only.
func (p *ClaudeCode) Compact(h []corpus.Message, at Checkpoint) Outcome {
	version := sessionVersion(at.Session)
	o := Outcome{History: h, Strategy: None, Units: at.Units, Count: at.Count, ReachedTarget: true,
		MaxTokens: p.window, TriggerTokens: p.trigger(version), TargetTokens: p.trigger(version)}
	if p.mcMode == "on" || p.mcMode == "auto" && corpus.VersionAtLeast(version, "1.0.68") {
		mc := p.mc[1]
		if !corpus.VersionAtLeast(version, "2.0.60") {
			mc = p.mc[0]
		}
		o = mc.Compact(h, at)
		o.MaxTokens = p.window
		if o.Strategy == None {
			// Nothing cleared: what is reported is auto-compaction's
			// trigger; a clear reports microcompact's own (148,500), the
			// threshold it crossed.
			o.TriggerTokens, o.TargetTokens = p.trigger(version), p.trigger(version)
		}
	}
	if at.Force {
		return o
	}
	// The context as auto-compaction measures it, before and after what
	// microcompact just cleared: what the request carries, for reports.
	arriving := p.measure == "arriving" || p.measure == "auto" && !corpus.VersionAtLeast(version, "2.0")
	usage := usageContext
	if arriving {
		usage = func(u *corpus.Usage) int { return u.Prompt() } // the response is measured by the meter
	}
	before, _ := anchoredContext(h, at, p.meter, p.overhead, p.strategiesC, usage, arriving)
	ctx := before - (p.meter.Tokens(at.Units) - p.meter.Tokens(o.Units))
	o.BeforeTokens, o.AfterTokens = before, ctx
	for i := range o.Stages { // microcompact's clear, in this context
		o.Stages[i].BeforeTokens, o.Stages[i].AfterTokens = before, ctx
	}
	if !p.full || ctx < p.trigger(version) {
		return o
	}
	cur := o.History
	// The turn in progress survives: from the user prompt being answered
	// on (f67ab274's first request after its summary sent 102,368 tokens
	// for a 2,502-token summary: restored files alone, within 50,000,
	// cannot explain it).
	keep := cur[currentTurnStart(cur):]
	out, used, err := p.stage.compact(cur, keep, at)
	if err != nil {
		return o // the summarizer failed: Claude Code retries later
	}
	var units, count int64
	for i := range out {
		u, c, _ := p.Measure(&out[i])
		units += u
		count += c
	}
	if p.meter.Tokens(units) >= p.meter.Tokens(o.Units) {
		// A summary that would not shrink the history (the turn in
		// progress, which survives, holds nearly all of it) is not kept,
		// as the presets' summarize stage does not keep one: kept, it
		// came back at every request of a long turn, each with a
		// summarizer call, and grew the history.
		return o
	}
	after := p.meter.Tokens(units) + p.overhead
	// What the summary replaced: every message before the turn in
	// progress, less what it added (the summary, the restored files). The
	// loss report attributes the results it dropped to this stage by its
	// blocks touched, as it does the presets' summaries.
	blocks, bytes := contentOf(cur[:len(cur)-len(keep)])
	_, added := contentOf(out[:len(out)-len(keep)])
	stages := append(o.Stages, StageReport{Name: "compact", BeforeTokens: ctx, AfterTokens: after, BlocksTouched: blocks, BytesRemoved: bytes - added})
	return Outcome{History: out, Strategy: Summarized, Stages: stages, BeforeTokens: before, AfterTokens: after,
		TriggerTokens: p.trigger(version), TargetTokens: p.trigger(version), MaxTokens: p.window, ReachedTarget: true,
		Removed: len(cur) - len(keep), Units: units, Count: count, Summarizer: used}
}
