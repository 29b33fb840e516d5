package policy

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// A composed policy is an ordered list of general stages (compose_*.go),
// each with its own trigger and parameters. A preset (presets.go) names
// one composition with an agent's own defaults. Its parameters are the
// preset's globals (window_tokens, overhead_tokens, meter) and every
// stage's parameters prefixed by the stage's name: prune.keep_value,
// compress.tail_value. So --set validates against exactly that preset's
// parameters, and two stages of one kind never share a value.
//
// At each checkpoint (before every assistant message, as every modelled
// agent asks its provider) the stages run in order on the history the
// previous one left; each decides on its own trigger against the context
// as it stands then. A checkpoint where no trigger fires costs O(1): the
// replay keeps the running sums Measure defines (meter units, messages).

// stageKind is one general stage: its parameters (with neutral defaults;
// a preset overrides them) and how to build it from validated values.
type stageKind struct {
	kind  string
	help  string
	specs func() []ParamSpec
	build func(v stageValues, g globals) (stageRunner, error)
}

// stageRunner is a built stage. run rewrites st (copy on write: the input
// history is never modified, but for the messages a stage replaces in a
// history the caller lends, Checkpoint.Owned, which compState.writable
// records in st.over) and reports what it did, nil when nothing.
type stageRunner interface {
	run(st *compState, at Checkpoint) *StageReport
}

// globals are the preset-wide values every stage may read.
type globals struct {
	window   int
	overhead int
	meter    *Meter
	// calibrated is context_source=calibrated: context tokens are the
	// session's PromptModel of the metered history where the replay gives
	// one (Checkpoint.Prompt).
	calibrated bool
}

// stageValues reads one stage's parameters out of the preset's values.
type stageValues struct {
	prefix string
	v      Values
}

func (s stageValues) Str(n string) string    { return s.v.Str(s.prefix + n) }
func (s stageValues) Text(n string) string   { return s.v.Text(s.prefix + n) }
func (s stageValues) Int(n string) int       { return s.v.Int(s.prefix + n) }
func (s stageValues) Float(n string) float64 { return s.v.Float(s.prefix + n) }
func (s stageValues) Bool(n string) bool     { return s.v.Bool(s.prefix + n) }
func (s stageValues) List(n string) []string { return s.v.List(s.prefix + n) }
func (s stageValues) trigger() stageTrigger {
	return stageTrigger{unit: s.Str("trigger"), at: s.Float("trigger_at"), turnOnly: s.Bool("turn_start_only"), above: s.Bool("trigger_above"),
		before: s.Int("messages_before"), contextAt: s.Str("context_at")}
}
func (s stageValues) summarizer() (Summarizer, error) {
	sm, err := ParseSummarizer(s.Str("summarizer"))
	if err != nil {
		return sm, fmt.Errorf("parameter %ssummarizer=%q: %v", s.prefix, s.Str("summarizer"), err)
	}
	return sm, nil
}

// globalSpecs are the preset-wide parameters.
func globalSpecs(window int, meter, source string) []ParamSpec {
	if source == "" {
		source = SourceEstimate
	}
	return []ParamSpec{
		{Name: "window_tokens", Kind: Int, Default: fmt.Sprint(window), Min: 1, Max: MaxTokens, Help: "the model's context window (window_fraction and window_reserve triggers)"},
		{Name: "overhead_tokens", Kind: Int, Default: "0", Min: 0, Max: MaxTokens, Help: "system prompt + tool definitions not in the history, added to context tokens"},
		{Name: "meter", Kind: Enum, Default: meter, Choices: []string{MeterChars4, MeterBytes4, MeterO200k}, Help: "how tokens are estimated"},
		{Name: "context_source", Kind: Enum, Default: source, Choices: []string{SourceCalibrated, SourceEstimate},
			Help: "what token triggers read: calibrated, the provider's count predicted from the session's recorded usage (overhead + scale × metered history; the estimate where the log records none); estimate, the meter plus overhead_tokens"},
	}
}

// Composed is a policy built from stages.
type Composed struct {
	name    string
	params  Params
	g       globals
	stages  []composedStage
	minTrig int // smallest token threshold of a token-triggered stage, for reports
	// weigh is the first clear stage, whose uncleared results Measure
	// counts (nil: Measure counts messages).
	weigh *clearStage
	// thinks is set when a stage drops thinking: Measure then counts the
	// messages it could drop thinking from (droppableThinking).
	thinks bool
}

type composedStage struct {
	name string
	trig stageTrigger
	run  stageRunner
}

func (p *Composed) Name() string   { return p.name }
func (p *Composed) Params() Params { return p.params }

// Checkpoint: before every assistant message, one provider request each.
func (p *Composed) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleAssistant
}

// Metering is the meter and overhead_tokens (policy.Metered).
func (p *Composed) Metering() (*Meter, int) { return p.g.meter, p.g.overhead }

// CalibratedPrompt reports context_source=calibrated (PromptCalibrated).
func (p *Composed) CalibratedPrompt() bool { return p.g.calibrated }

// Window is window_tokens (Windowed).
func (p *Composed) Window(*corpus.Session) int { return p.g.window }

// Measure is the message's units in the preset's meter, and its count:
// with a clear stage, that stage's weight of the message's uncleared tool
// results (clearStage.weigh), which lets the stage see in O(1) that it has
// nothing to clear; otherwise 1 (a message-count trigger reads the
// history's length). With a thinking stage, thinking is 1 for a message
// that stage could drop thinking from (droppableThinking), which lets it
// see in O(1) whether any such message lies before its window.
func (p *Composed) Measure(m *corpus.Message) (units, count, thinking int64) {
	thinking = p.thinkingOf(m)
	if p.weigh == nil {
		return p.g.meter.Message(m), 1, thinking
	}
	for i := range m.Blocks {
		b := &m.Blocks[i]
		u := p.g.meter.Block(b)
		units += u
		count += p.weigh.weigh(b, u)
	}
	return units, count, thinking
}

// thinkingOf is Measure's third sum alone, which reads block kinds and
// measures nothing.
func (p *Composed) thinkingOf(m *corpus.Message) int64 {
	if p.thinks && droppableThinking(m) {
		return 1
	}
	return 0
}

// Compact runs the stages whose triggers fire, in order.
func (p *Composed) Compact(h []corpus.Message, at Checkpoint) Outcome {
	st := &compState{h: h, in: h, units: at.Units, count: at.Count, thinking: at.Thinking, turns: at.Turns,
		weigh: p.weigh, thinks: p.thinks, g: p.g, strategy: None, owned: at.Owned}
	if p.g.calibrated {
		st.prompt = at.Prompt
	}
	st.pending, st.first = at.Pending, at.Request == 0
	before := st.tokens()
	turnStart := len(h) > 0 && h[len(h)-1].RealTurn()
	for _, s := range p.stages {
		if !at.Force && !s.trig.fires(st.triggerTokens(s.trig), len(st.h), turnStart, p.g.window) {
			continue
		}
		if r := s.run.run(st, at); r != nil {
			r.Name = s.name
			st.stages = append(st.stages, *r)
		}
	}
	o := untouched(h, at, before)
	o.TriggerTokens, o.TargetTokens, o.MaxTokens = p.minTrig, p.minTrig, p.g.window
	o.ReachedTarget = true
	if len(st.stages) == 0 {
		return o
	}
	o.History, o.Units, o.Count, o.Thinking = st.h, st.units, st.count, st.thinking
	o.AfterTokens = st.tokens()
	o.Stages = st.stages
	o.Strategy = st.strategy
	if o.Strategy == None {
		o.Strategy = Truncated
	}
	o.Removed, o.Summarizer = st.removed, st.summ
	o.Overwrote, o.OverwroteAt, o.Owned = st.over.msgs, st.over.at, st.owned
	o.Exhausted = o.AfterTokens > p.g.window
	o.ReachedTarget = p.minTrig == 0 || o.AfterTokens < p.minTrig
	return o
}

// ArrivalStage is the name of every preset's cap stage, which rewrites
// tool output as it arrives (before the model sees it): a report counts its
// events apart from compactions, which rewrite what the model has seen.
const ArrivalStage = "cap"

// IsArrivalOnly reports whether a compaction's stages only capped new tool
// output: such an event leaves the prompt cache alone.
func IsArrivalOnly(o Outcome) bool {
	for _, s := range o.Stages {
		if s.Name != ArrivalStage {
			return false
		}
	}
	return len(o.Stages) > 0
}

// stageKinds lists the general stages, by kind.
func stageKinds() []stageKind {
	return []stageKind{capStageKind(), clearStageKind(), thinkingStageKind(), summarizeStageKind(), dropMiddleStageKind()}
}

func lookupStageKind(kind string) stageKind {
	for _, k := range stageKinds() {
		if k.kind == kind {
			return k
		}
	}
	panic("policy: unknown stage kind " + kind) // presets are declared in this package
}
