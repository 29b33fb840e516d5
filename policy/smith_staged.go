package policy

import (
	"fmt"
	"math"

	"github.com/calib-dev/calib/corpus"
)

// smithStagedDef is smith's staged compaction (webmatze/smith 43ec9511 with
// the attachments stage of e533ff42; specs/smith.md §3). The defaults are
// smith's own constants.
func smithStagedDef() Def {
	return Def{
		Formats: []corpus.Format{corpus.FormatSmithTranscript, corpus.FormatSmithSession},
		Name:    "smith-staged",
		Agent:   "smith (webmatze/smith 43ec9511 with e533ff42; shared/specs/smith.md)",
		Summary: "smith's staged compaction: 80/50 trigger/target, stale thinking, stale attachments, superseded reads, largest-first 512-byte caps outside a 3-turn window, then a summary at a safe cut",
		Specs:   smithStagedSpecs(),
		Stages:  []string{"thinking", "attachments", "duplicates", "truncate", "summarize"},
		New:     newSmithStaged,
	}
}

func smithStagedSpecs() []ParamSpec {
	inf := math.Inf(1)
	return []ParamSpec{
		{Name: "max_tokens", Kind: Int, Default: "120000", Min: 1, Max: MaxTokens, Help: "smith's configured budget ([context] max_tokens), not the model's window"},
		{Name: "compact_at", Kind: Float, Default: "0.8", Min: 0, Max: 1, Help: "trigger as a fraction of max_tokens; needs 0 < compact_to < compact_at < 1"},
		{Name: "compact_to", Kind: Float, Default: "0.5", Min: 0, Max: 1, Help: "target as a fraction of max_tokens"},
		{Name: "overhead_tokens", Kind: Int, Default: "0", Min: 0, Max: MaxTokens, Help: "system prompt + tool definitions (bytes/4); smith does not record it"},
		{Name: "ratio", Kind: Float, Default: "1", Min: 1, Max: 2, Help: "estimate-to-billed calibration ratio (RATIO_MIN..RATIO_MAX)"},
		{Name: "ratio_recorded", Kind: Bool, Default: "false", Help: "use the session's recorded context_ratio (session.json) instead of ratio when it has one"},
		{Name: "window_turns", Kind: Int, Default: "3", Min: 0, Max: inf, Help: "real turns exempt from stages attachments/duplicates/truncate (0: none)"},
		{Name: "thinking_window", Kind: Int, Default: "1", Min: 1, Max: inf, Help: "real turns whose thinking is kept (1: the current turn, which stage 0 keeps byte for byte, so at least 1)"},
		{Name: "old_result_bytes", Kind: Int, Default: "512", Min: 0, Max: inf, Help: "head kept by the truncate stage"},
		{Name: "supersedable_tools", Kind: List, Default: "read_file,grep,glob", Help: "tools whose repeated identical calls are superseded (never bash)"},
		{Name: "image_tokens", Kind: Int, Default: "1600", Min: 0, Max: MaxTokens, Help: "tokens charged per image block"},
		{Name: "document_tokens", Kind: Int, Default: "5000", Min: 0, Max: MaxTokens, Help: "tokens charged per document block"},
		{Name: "summarizer", Kind: String, Default: DefaultSummarizer, Canon: canonSummarizer, Help: "fixed:BYTES | ratio:R | recorded | fail"},
		{Name: "meter", Kind: Enum, Default: MeterBytes4, Choices: []string{MeterBytes4, MeterO200k, MeterChars4}, Help: "bytes4 is smith's own estimate"},
		{Name: "stage_thinking", Kind: Bool, Default: "true", Help: "stage 0: drop stale thinking"},
		{Name: "stage_attachments", Kind: Bool, Default: "true", Help: "stage 0b: replace stale images/documents by a note"},
		{Name: "stage_duplicates", Kind: Bool, Default: "true", Help: "stage 1: stub superseded reads"},
		{Name: "stage_truncate", Kind: Bool, Default: "true", Help: "stage 2: cap old results, largest first"},
		{Name: "stage_summarize", Kind: Bool, Default: "true", Help: "stage 3: summarize the prefix at the safe cut"},
	}
}

// SmithStaged is the smith-staged policy with resolved parameters.
type SmithStaged struct {
	smithRequests  // Checkpoint: before every provider request (specs/smith.md §5)
	params         Params
	budget         smithBudget
	ratioRecorded  bool
	window         int
	thinkingWindow int
	keep           int
	tools          map[string]bool
	summarizer     Summarizer
	meter          *Meter
	thinking       bool
	attachments    bool
	duplicates     bool
	truncate       bool
	summarize      bool
	work           workPool
}

func newSmithStaged(v Values) (Policy, error) {
	maxTok, at, to := v.Int("max_tokens"), v.Float("compact_at"), v.Float("compact_to")
	if err := checkFractions(at, to); err != nil {
		return nil, err
	}
	s, err := ParseSummarizer(v.Str("summarizer"))
	if err != nil {
		return nil, fmt.Errorf("parameter summarizer=%q: %v", v.Str("summarizer"), err)
	}
	m, err := NewMeter(v.Str("meter"), MeterOptions{
		Signatures:     true,
		ImageTokens:    int64(v.Int("image_tokens")),
		DocumentTokens: int64(v.Int("document_tokens")),
		Memo:           v.memo,
	})
	if err != nil {
		return nil, err
	}
	tools := map[string]bool{}
	for _, t := range v.List("supersedable_tools") {
		tools[t] = true
	}
	return &SmithStaged{
		params: v.Params(),
		budget: smithBudget{
			max:      maxTok,
			trigger:  int(float64(maxTok) * at),
			target:   int(float64(maxTok) * to),
			overhead: v.Int("overhead_tokens"),
			ratio:    v.Float("ratio"),
		},
		ratioRecorded:  v.Bool("ratio_recorded"),
		window:         v.Int("window_turns"),
		thinkingWindow: v.Int("thinking_window"),
		keep:           v.Int("old_result_bytes"),
		tools:          tools,
		summarizer:     s,
		meter:          m,
		thinking:       v.Bool("stage_thinking"),
		attachments:    v.Bool("stage_attachments"),
		duplicates:     v.Bool("stage_duplicates"),
		truncate:       v.Bool("stage_truncate"),
		summarize:      v.Bool("stage_summarize"),
	}, nil
}

// checkFractions is smith's validity rule for its settings. smith itself
// warns and falls back to the defaults; calib refuses, so that a sweep
// never silently runs other numbers than it says.
func checkFractions(at, to float64) error {
	if !(0 < to && to < at && at < 1) {
		return fmt.Errorf("parameters compact_at=%g, compact_to=%g: need 0 < compact_to < compact_at < 1 (e.g. compact_at=0.8,compact_to=0.5)", at, to)
	}
	return nil
}

func (p *SmithStaged) Name() string   { return "smith-staged" }
func (p *SmithStaged) Params() Params { return p.params }

// Measure is smith's estimate of one message in bytes (text, tool_args,
// tool_name, signature, media ×4) with bytes4, or tokens with another meter.
func (p *SmithStaged) Measure(m *corpus.Message) (int64, int64, int64) {
	return p.meter.Message(m), 1, 0
}

// budgetFor applies ratio_recorded: the session's learned ratio, clamped
// as smith clamps it.
func (p *SmithStaged) budgetFor(at Checkpoint) smithBudget {
	b := p.budget
	if p.ratioRecorded && at.Session != nil && at.Session.Meta.ContextRatio > 0 {
		b.ratio = min(max(at.Session.Meta.ContextRatio, 1.0), 2.0)
	}
	return b
}

// Compact is smith's Context.compact (specs/smith.md §3.4), step by step.
func (p *SmithStaged) Compact(h []corpus.Message, at Checkpoint) Outcome {
	b := p.budgetFor(at)
	before := b.charged(p.meter.Tokens(at.Units))
	o := untouched(h, at, before)
	o.TargetTokens, o.TriggerTokens, o.MaxTokens = b.target, b.trigger, b.max
	finish := func() Outcome { return o.settled() }
	// Step 2: below the trigger nothing happens, in O(1).
	if before <= b.trigger {
		return finish()
	}
	// Step 3: the raw allowance; when the overhead alone fills the target,
	// aim for the ceiling; when it fills that too, give up untouched.
	target := b.allowance(b.target)
	if target == 0 {
		target = b.allowance(b.max)
		if target == 0 {
			return finish()
		}
	}
	w := p.work.get(h, p.meter, at.Spare)
	defer p.work.put(w)
	run := func(on bool, name string, f func() (int, int64)) {
		if !on {
			return
		}
		t0 := b.charged(w.tokens())
		n, bytes := f()
		if n > 0 {
			o.Stages = append(o.Stages, StageReport{Name: name, BeforeTokens: t0, AfterTokens: b.charged(w.tokens()), BlocksTouched: n, BytesRemoved: bytes})
		}
	}
	ws := windowStart(w.msgs, p.window)
	run(p.thinking, "thinking", func() (int, int64) { return w.dropStaleThinking(windowStart(w.msgs, p.thinkingWindow), target) })
	run(p.attachments, "attachments", func() (int, int64) { return w.dropStaleMedia(ws, target, false) })
	run(p.duplicates, "duplicates", func() (int, int64) { return w.supersedeDuplicates(ws, target, p.tools, smithSupersededStub) })
	run(p.truncate, "truncate", func() (int, int64) { return w.truncateLargestFirst(ws, target, p.keep) })

	staged := func() Outcome {
		if w.changed() {
			o.Strategy, o.History, o.Owned = Truncated, w.msgs, true
		}
		o.AfterTokens = b.charged(w.tokens())
		o.Units, o.Count = w.total, int64(len(w.msgs))
		return finish()
	}
	if w.fits(target) {
		return staged()
	}
	// Stage 3: summarize at the safe cut, or, with no turn boundary to cut
	// at, the last resort: give up the window for tool output (the user's
	// own attachments stay) and cap results again. Duplicates do not rerun.
	cut := w.safeCutIndex(target, true)
	if cut == 0 {
		all := len(w.msgs)
		run(p.attachments, "attachments", func() (int, int64) { return w.dropStaleMedia(all, target, true) })
		run(p.truncate, "truncate", func() (int, int64) { return w.truncateLargestFirst(all, target, p.keep) })
		return staged()
	}
	if !p.summarize {
		return staged()
	}
	// Stage 3: summarize the prefix (stage edits in the tail stay).
	w.summaryStage(cut, p.summarizer, at, p.meter, b.charged, &o)
	return finish()
}
