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
	// lastResponse reads the context up to the last response, not the
	// request being sent (context_at=last_response).
	lastResponse bool
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
		before: s.Int("messages_before"), lastResponse: s.Str("context_at") == AtLastResponse}
}
func (s stageValues) summarizer() (Summarizer, error) {
	sm, err := ParseSummarizer(s.Str("summarizer"))
	if err != nil {
		return sm, fmt.Errorf("parameter %ssummarizer=%q: %v", s.prefix, s.Str("summarizer"), err)
	}
	return sm, nil
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
		{Name: "context_at", Kind: Enum, Default: AtRequest, Choices: []string{AtRequest, AtLastResponse},
			Help: "the history a token trigger measures: request, the one being sent; last_response, what the previous request sent and its response, without the step since (an agent reading its provider's usage: Goose, opencode, Cline, Gemini CLI; Aider's done messages)"},
	}
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

// compState is the history a checkpoint's stages pass along: the messages,
// their meter units, count and thinking (the running sums the replay
// keeps, as Composed.Measure defines them) and the reports.
type compState struct {
	h        []corpus.Message
	units    int64
	count    int64
	thinking int64
	// turns are h's real-turn starts (Checkpoint.Turns) while they hold:
	// set (a summary, a dropped middle, a smith rewrite) and the thinking
	// stage's drop make them nil; cow's rewrites keep them, since they
	// move no message and change no block's kind.
	turns  []TurnStart
	weigh  *clearStage // what count sums (Composed.weigh), nil: messages
	thinks bool        // whether thinking sums droppableThinking (Composed.thinks)
	g      globals
	in     []corpus.Message // the history Compact was handed
	// owned says that h's array may be written in place: it is in, which
	// the caller owns (Checkpoint.Owned), or one this compaction made.
	// over keeps in's messages that a stage replaced in place
	// (Outcome.Overwrote), while h is in.
	owned  bool
	over   overwrite
	stages []StageReport
	// strategy is set by a stage that summarizes or drops (Truncated
	// otherwise); removed and summ go to the outcome.
	strategy Strategy
	removed  int
	summ     string
	// prompt predicts the provider's count of the history
	// (context_source=calibrated on a session with recorded usage); nil:
	// the meter plus overhead_tokens.
	prompt *PromptModel
	// pending is the units of h's messages after its last assistant
	// message (Checkpoint.Pending), -1 until read back; only the cap stage
	// rewrites them, and it adjusts it.
	pending int64
	// first is the session's first request, which no response precedes:
	// an agent reading its last response's usage reads nothing there.
	first bool
}

// tokens is the context the request would send, as the triggers and
// reports read it: by the prompt model or the meter plus overhead_tokens.
func (st *compState) tokens() int { return st.tokensOf(st.units) }

// lastResponseTokens is the context of the history up to the last
// response, without the step the request is about to send: what a
// trigger with context_at=last_response reads; 0 at the session's first
// request, before any response (no usage to read yet).
func (st *compState) lastResponseTokens() int {
	if st.first {
		return 0
	}
	return st.tokensOf(st.units - st.pendingUnits())
}

// triggerTokens is the context trigger t reads.
func (st *compState) triggerTokens(t stageTrigger) int {
	if t.lastResponse {
		return st.lastResponseTokens()
	}
	return st.tokens()
}

func (st *compState) tokensOf(units int64) int {
	if st.prompt != nil {
		return st.prompt.Tokens(st.g.meter.Tokens(units))
	}
	return st.g.meter.Tokens(units) + st.g.overhead
}

// pendingUnits is st.pending, read back over the messages after the last
// assistant message when the caller did not keep it.
func (st *compState) pendingUnits() int64 {
	if st.pending < 0 {
		st.pending = 0
		for i := stepStart(st.h); i < len(st.h); i++ {
			st.pending += st.g.meter.Message(&st.h[i])
		}
	}
	return st.pending
}

// stepStart is where the step a request is about to send starts in h:
// right after its last assistant message (0 when it has none). The cap
// stage cuts only there, and a last_response trigger leaves it out.
func stepStart(h []corpus.Message) int {
	i := len(h)
	for i > 0 && h[i-1].Role != corpus.RoleAssistant {
		i--
	}
	return i
}

// set replaces the history by out, a new array, whose units are known;
// its count and thinking are recounted (a summary or a dropped middle,
// rare and already O(n)).
func (st *compState) set(out []corpus.Message, units int64) {
	st.turns = nil
	st.setCounted(out, units, weighAll(st.weigh, st.g.meter, out), thinkingAll(st.thinks, out))
	st.owned = false // its stage does not say whether it keeps the array
}

// setCounted replaces the history by out, whose units, count and thinking
// are known. When out is not the history as handed, messages a stage
// replaced there in place go back: out was built from them (a copy), and
// the caller reads the history it handed as it was.
func (st *compState) setCounted(out []corpus.Message, units, count, thinking int64) {
	if !sameSlice(out, st.in) {
		st.over.undo(st.in)
	}
	st.h, st.units, st.count, st.thinking = out, units, count, thinking
}

// asHanded reports whether h is still the history Compact was handed,
// unchanged: no stage copied it nor wrote in it in place.
func (st *compState) asHanded() bool { return st.over.msgs == nil && sameSlice(st.h, st.in) }

// writable reports whether a stage may replace messages of h[lo:hi] in
// place (h[i] = a new message): h is owned (st.owned). When h is the
// history the caller lent, those messages join what st.over keeps first
// (overwrite.keep). Otherwise the stage copies the history.
func (st *compState) writable(lo, hi int) bool {
	if !st.owned {
		return false
	}
	if sameSlice(st.h, st.in) { // else an array this compaction made
		st.over.keep(st.h, lo, hi)
	}
	return true
}

// sameSlice reports whether a and b are the same slice of one array.
func sameSlice(a, b []corpus.Message) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// weighAll is the count Composed.Measure gives msgs, for the clear stage
// c (nil: one per message) in the preset's meter m.
func weighAll(c *clearStage, m *Meter, msgs []corpus.Message) int64 {
	if c == nil {
		return int64(len(msgs))
	}
	var n int64
	for i := range msgs {
		for j := range msgs[i].Blocks {
			if b := &msgs[i].Blocks[j]; b.Kind == corpus.KindToolResult {
				n += c.weigh(b, m.Block(b))
			}
		}
	}
	return n
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

// cow is a copy-on-write rewrite of a few blocks of a history: the slice
// is copied on the first write, unless the stage may write it in place
// (compState.writable: a history the caller lends, or one this compaction
// made), a message's blocks on the first write to it, and the units
// follow block by block (every meter is a sum over blocks), so a stage
// that touches k blocks costs O(k) measures. Its callers rewrite a
// block's text or arguments, never its kind, so the thinking sum (which
// reads kinds alone) does not move.
type cow struct {
	st      *compState
	h       []corpus.Message
	owned   map[int]bool // the messages whose blocks it copied
	inPlace bool         // h is st.h, written in place
	units   int64
	count   int64
	weigh   *clearStage
	meter   *Meter
	touched int
	bytes   int64
}

func newCow(st *compState) *cow {
	return &cow{st: st, h: st.h, units: st.units, count: st.count, weigh: st.weigh, meter: st.g.meter}
}

func (c *cow) setBlock(i, j int, b corpus.Block) {
	c.setMeasured(i, j, b, c.meter.Block(&b), c.meter.Block(&c.h[i].Blocks[j]))
}

// setMeasured is setBlock for a caller that has measured b (nu units) and
// the block it replaces (ou) in the preset's meter: the clear stage
// measures both to decide whether its stub is shorter, and a result
// measured twice more here was a tenth of the meter's work on a session
// that clears at most requests.
func (c *cow) setMeasured(i, j int, b corpus.Block, nu, ou int64) {
	if c.owned == nil {
		c.owned = map[int]bool{}
		c.inPlace = c.st.writable(i, i+1)
		if !c.inPlace {
			c.h = append([]corpus.Message(nil), c.h...)
		}
	}
	if !c.owned[i] {
		if c.inPlace {
			c.st.writable(i, i+1)
		}
		c.h[i].Blocks = append([]corpus.Block(nil), c.h[i].Blocks...)
		c.owned[i] = true
	}
	old := &c.h[i].Blocks[j]
	c.units += nu - ou
	if c.weigh != nil {
		c.count += c.weigh.weigh(&b, nu) - c.weigh.weigh(old, ou)
	}
	c.bytes += smithBytes(old) - smithBytes(&b)
	c.touched++
	*old = b
}

// done hands the rewrite to st and returns its report, nil when nothing
// changed.
func (c *cow) done(st *compState) *StageReport {
	if c.touched == 0 {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: c.touched, BytesRemoved: c.bytes}
	st.setCounted(c.h, c.units, c.count, st.thinking)
	st.owned = true // setBlock copied the history, or wrote one it may
	r.AfterTokens = st.tokens()
	return r
}

// fromWorking hands a smith working history to st.
func fromWorking(st *compState, w *working, touched int, bytes int64) *StageReport {
	if touched == 0 || !w.changed() {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens(), BlocksTouched: touched, BytesRemoved: bytes}
	st.set(w.msgs, w.total)
	r.AfterTokens = st.tokens()
	return r
}

// safeCut reports whether the history can be cut right before i: no
// tool call before i has its result at or after i, as far as adjacent
// messages show (h[i] carries no result and h[i-1] no call).
func safeCut(h []corpus.Message, i int) bool {
	if i <= 0 || i >= len(h) {
		return true
	}
	return !hasKind(&h[i], corpus.KindToolResult) && !hasKind(&h[i-1], corpus.KindToolUse)
}

// onlyTurnInProgress reports whether the turn in progress starts the
// history, in O(1): a stage that only touches what precedes that turn (a
// summary, cline's dedupe and dropped range) then has nothing to do, and
// need not read the history to find out at every request of a long turn
// (one turn of 10,000 tool calls made that quadratic).
func (st *compState) onlyTurnInProgress() bool { return st.nthLastTurn(1) == 0 }

// nthLastTurn is nthLast(st.h, n, RealTurn): the start of the n-th last
// real turn, 0 when there are fewer, len(st.h) when n <= 0. It reads the
// turn starts while they hold, so a stage that looks for the turn in
// progress at every request does not read a long turn back each time.
func (st *compState) nthLastTurn(n int) int {
	ts := st.turns
	switch {
	case ts == nil:
		return nthLast(st.h, n, (*corpus.Message).RealTurn)
	case n <= 0:
		return len(st.h)
	case len(ts) < n:
		return 0
	}
	return ts[len(ts)-n].At
}

// currentTurnStart is the index of the last real user message, which a
// compaction keeps with everything after it (0 when there is none: the
// whole history is one turn).
func currentTurnStart(h []corpus.Message) int { return nthLast(h, 1, (*corpus.Message).RealTurn) }
