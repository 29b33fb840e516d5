package policy

import (
	"fmt"
	"math"

	"github.com/calib-dev/calib/corpus"
)

// smithLegacyDef is smith before the stages (webmatze/smith df4050d;
// specs/smith.md §2): one threshold, oldest-first 2 000-byte truncation,
// then a summary at the safe cut.
func smithLegacyDef() Def {
	return Def{
		Name:    "smith-legacy",
		Agent:   "smith before the stages (shared/specs/smith.md)",
		Summary: "smith before the stages: one max_tokens threshold, oldest-first truncation of results to 2000 bytes, then a summary at a safe cut",
		Specs:   smithLegacySpecs(),
		Stages:  []string{"truncate", "summarize"},
		New:     newSmithLegacy,
	}
}

func smithLegacySpecs() []ParamSpec {
	inf := math.Inf(1)
	return []ParamSpec{
		{Name: "max_tokens", Kind: Int, Default: "120000", Min: 1, Max: MaxTokens, Help: "the single threshold: compact when the estimate exceeds it, down to it"},
		{Name: "result_bytes", Kind: Int, Default: "2000", Min: 0, Max: inf, Help: "head kept by truncation (TRUNCATED_RESULT_BYTES); shorter results are skipped"},
		{Name: "summarizer", Kind: String, Default: DefaultSummarizer, Canon: canonSummarizer, Help: "fixed:BYTES | ratio:R | recorded | fail"},
		{Name: "meter", Kind: Enum, Default: MeterBytes4, Choices: []string{MeterBytes4, MeterO200k, MeterChars4}, Help: "bytes4 is smith's own estimate (signatures not counted)"},
	}
}

// SmithLegacy is the smith-legacy policy with resolved parameters.
type SmithLegacy struct {
	smithRequests // Checkpoint: before every provider request (specs/smith.md §5)
	params        Params
	max           int
	keep          int
	summarizer    Summarizer
	meter         *Meter
	work          workPool
}

func newSmithLegacy(v Values) (Policy, error) {
	s, err := ParseSummarizer(v.Str("summarizer"))
	if err != nil {
		return nil, fmt.Errorf("parameter summarizer=%q: %v", v.Str("summarizer"), err)
	}
	// The snapshot counts neither signatures nor media.
	m, err := NewMeter(v.Str("meter"), MeterOptions{Memo: v.memo})
	if err != nil {
		return nil, err
	}
	return &SmithLegacy{params: v.Params(), max: v.Int("max_tokens"), keep: v.Int("result_bytes"), summarizer: s, meter: m}, nil
}

func (p *SmithLegacy) Name() string   { return "smith-legacy" }
func (p *SmithLegacy) Params() Params { return p.params }

// Measure is the snapshot's estimate: text + tool_args + tool_name bytes.
func (p *SmithLegacy) Measure(m *corpus.Message) (int64, int64, int64) {
	return p.meter.Message(m), 1, 0
}

// Compact is the snapshot's Context.compact (specs/smith.md §2). smith
// re-estimates the whole array before each truncation candidate; the
// running total of working gives the same figure in O(1), so the result is
// identical and the cost linear.
func (p *SmithLegacy) Compact(h []corpus.Message, at Checkpoint) Outcome {
	before := p.meter.Tokens(at.Units)
	o := untouched(h, at, before)
	o.TargetTokens, o.TriggerTokens, o.MaxTokens = p.max, p.max, p.max
	finish := func() Outcome { return o.settled() }
	if before <= p.max {
		return finish()
	}
	w := p.work.get(h, p.meter, at.Spare)
	defer p.work.put(w)
	if n, bytes := w.truncateOldestFirst(p.max, p.keep); n > 0 {
		o.Stages = append(o.Stages, StageReport{Name: "truncate", BeforeTokens: before, AfterTokens: w.tokens(), BlocksTouched: n, BytesRemoved: bytes})
	}
	truncated := func() Outcome {
		o.AfterTokens = w.tokens()
		if o.AfterTokens < before {
			o.Strategy, o.History, o.Owned = Truncated, w.msgs, true
			o.Units, o.Count = w.total, int64(len(w.msgs))
		} else {
			o.Stages = nil // nothing is claimed that did not happen
			o.AfterTokens = before
		}
		return finish()
	}
	if w.fits(p.max) {
		return truncated()
	}
	cut := w.safeCutIndex(p.max, false)
	if cut == 0 {
		return truncated()
	}
	w.summaryStage(cut, p.summarizer, at, p.meter, func(t int) int { return t }, &o)
	return finish()
}

// truncateOldestFirst is the snapshot's truncate_old_tool_results: results
// of tool messages, oldest first, longer than keep bytes, are cut to their
// head and a marker until the history fits. An already-cut result is cut
// again (the snapshot has no guard), which a later compaction can do.
func (w *working) truncateOldestFirst(limit, keep int) (touched int, removed int64) {
	for i, j := range w.resultsUntilFit(len(w.msgs), limit) {
		b := &w.msgs[i].Blocks[j]
		if w.msgs[i].Role != corpus.RoleTool || len(b.Content()) <= keep {
			continue
		}
		removed += w.setBlock(i, j, resultBlock(b, truncatedHead(b.Content(), keep)))
		touched++
	}
	return touched, removed
}
