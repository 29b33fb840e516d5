package policy

import (
	"fmt"
	"math"
	"strconv"

	"github.com/calib-dev/calib/corpus"
)

// What the summarize stage keeps after the summary (summarize.tail).
const (
	TailChars  = "chars"  // the last tail_value of the characters, split before a user message (Gemini CLI 0.3)
	TailTokens = "tokens" // a tail under half of tail_value tokens, the head summarized, recursing while summary + tail >= tail_value (Aider)
	TailEvents = "events" // keep_first events, a summary, and a tail up to tail_value/2 events in all (OpenHands max_size), messages_before of them not in the history
	TailTurns  = "turns"  // the last tail_value real user turns (1: the turn in progress)
)

// summarizeStageKind replaces the head of the history by one summary
// message (and, for Gemini CLI, the model's acknowledgement), keeping a
// tail chosen by one of four rules. Whatever the rule, the turn in progress
// stays whole and a cut never separates a tool call from its result: a cut
// that would moves back (the tail keeps more). The summary is written by
// the same summarizers as smith's stage 3; a summary that would not shrink
// the context, or that fails, leaves the history as it was.
func summarizeStageKind() stageKind {
	inf := math.Inf(1)
	return stageKind{kind: "summarize", help: "summarize the head, keep a tail",
		specs: func() []ParamSpec {
			return []ParamSpec{
				{Name: "tail", Kind: Enum, Default: TailTurns, Choices: []string{TailChars, TailTokens, TailEvents, TailTurns},
					Help: "what stays after the summary: a fraction of the characters, a token budget's half (recursive), a message count, or user turns"},
				{Name: "tail_value", Kind: Float, Default: "1", Min: 0, Max: MaxTokens, Help: "per tail: the fraction kept, the token budget, max_size in messages, or turns"},
				{Name: "keep_first", Kind: Int, Default: "0", Min: 0, Max: inf, Help: "events kept before the summary (OpenHands keep_first), messages_before of them outside the history"},
				{Name: "depth", Kind: Int, Default: "3", Min: 0, Max: 100, Help: "tail=tokens: recursion depth past which everything before the turn in progress is summarized (Aider 3)"},
				{Name: "prefix", Kind: String, Default: "", Help: "text before the summary in its message; \\n a newline"},
				{Name: "suffix", Kind: String, Default: "", Help: "text after the summary in its message; \\n a newline"},
				{Name: "ack", Kind: String, Default: "", Help: "an assistant message after the summary (empty: none); \\n a newline"},
				{Name: "summarizer", Kind: String, Default: DefaultSummarizer, Canon: canonSummarizer, Help: "fixed:BYTES | ratio:R | recorded | fail"},
			}
		},
		build: func(v stageValues, g globals) (stageRunner, error) {
			sm, err := v.summarizer()
			if err != nil {
				return nil, err
			}
			if err := checkTail(v.prefix, v.Str("tail"), v.Float("tail_value")); err != nil {
				return nil, err
			}
			return &summarizeStage{tail: v.Str("tail"), value: v.Float("tail_value"), keepFirst: v.Int("keep_first"), before: v.Int("messages_before"),
				depth: v.Int("depth"), prefix: v.Text("prefix"), suffix: v.Text("suffix"), ack: v.Text("ack"), sum: sm}, nil
		}}
}

type summarizeStage struct {
	tail                string
	value               float64
	keepFirst, depth    int
	before              int // events before the history that keep_first counts (TailEvents)
	prefix, suffix, ack string
	sum                 Summarizer
}

func (s *summarizeStage) run(st *compState, at Checkpoint) *StageReport {
	// replace clamps every cut to the turn in progress, so the cut
	// (Gemini's split, Aider's walk back to an assistant message: each a
	// pass over the history) is not looked for when nothing precedes it.
	if st.onlyTurnInProgress() {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens()}
	if s.tail == TailTokens {
		s.aider(st, at, r)
	} else {
		h := st.h
		head, cut := 0, 0
		switch s.tail {
		case TailChars:
			cut = charsSplitBefore(h, 1-s.value, st.nthLastTurn(1))
		case TailEvents:
			// LLMSummarizingCondenser: keep_first events, and from the
			// tail max_size//2 − keep_first − 1; the first messages_before
			// of the kept head are not in the history.
			head = min(max(s.keepFirst-s.before, 0), len(h))
			cut = max(head, len(h)-(int(s.value)/2-s.keepFirst-1))
		case TailTurns:
			cut = st.nthLastTurn(max(1, int(s.value)))
		}
		s.replace(st, at, head, cut, r)
	}
	if r.BlocksTouched == 0 {
		return nil
	}
	r.AfterTokens = st.tokens()
	return r
}

// aider is Aider's summarize_real: walking back, the tail takes messages
// while it stays under half the budget; the head must end with an
// assistant message; a head of at most 4 messages, or recursion past
// depth, summarizes everything (here: everything before the turn in
// progress); and while summary + tail is not under the budget it recurses.
func (s *summarizeStage) aider(st *compState, at Checkpoint, r *StageReport) {
	const minSplit = 4
	budget := int(s.value)
	for depth := 0; ; depth++ {
		h, ts := st.h, st.nthLastTurn(1) // currentTurnStart(h)
		split := len(h)
		if len(h) > minSplit && depth <= s.depth {
			tail := 0
			for i := len(h) - 1; i >= 0; i-- {
				t := st.g.meter.Tokens(st.g.meter.Message(&h[i]))
				if tail+t >= budget/2 {
					break
				}
				tail += t
				split = i
			}
			for split > 1 && !(h[split-1].Role == corpus.RoleAssistant && safeCut(h, split)) {
				split--
			}
		}
		if split <= minSplit || depth > s.depth {
			split = len(h)
		}
		if !s.replace(st, at, 0, split, r) || st.tokens() < budget || split >= ts {
			return
		}
	}
}

// replace summarizes h[head:cut] (cut first clamped to the turn in
// progress and moved back to a safe boundary) into r; false when nothing
// was done.
func (s *summarizeStage) replace(st *compState, at Checkpoint, head, cut int, r *StageReport) bool {
	h := st.h
	for head > 0 && !safeCut(h, head) {
		head--
	}
	cut = min(cut, st.nthLastTurn(1)) // currentTurnStart(h): h is st.h
	for cut > head && !safeCut(h, cut) {
		cut--
	}
	if cut <= head || cut >= len(h) {
		return false
	}
	text, used, err := s.sum.Summarize(SummaryRequest{Prefix: h[head:cut], Next: &h[cut], Session: at.Session})
	if err != nil {
		return false
	}
	m := st.g.meter
	id := strconv.Itoa(at.Request)
	add := []corpus.Message{{ID: "calib-summary-" + id, Role: corpus.RoleUser, Summary: true,
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: s.prefix + text + s.suffix}}}}
	if s.ack != "" {
		add = append(add, corpus.Message{ID: "calib-ack-" + id, Role: corpus.RoleAssistant, Synthetic: true,
			Blocks: []corpus.Block{{Kind: corpus.KindText, Text: s.ack}}})
	}
	units := st.units
	for i := head; i < cut; i++ {
		units -= m.Message(&h[i])
	}
	for i := range add {
		units += m.Message(&add[i])
	}
	blocks, bytes := contentOf(h[head:cut])
	_, added := contentOf(add)
	bytes -= added
	if m.Tokens(units) >= m.Tokens(st.units) {
		return false // a summary that does not shrink the context is not kept
	}
	out := make([]corpus.Message, 0, head+len(add)+len(h)-cut)
	out = append(out, h[:head]...)
	out = append(out, add...)
	out = append(out, h[cut:]...)
	st.set(out, units)
	st.strategy, st.summ = Summarized, used
	st.removed += cut - head
	r.BlocksTouched += blocks
	r.BytesRemoved += bytes
	return true
}

// charsSplit is Gemini CLI's findCompressSplitPoint(contents, fraction):
// the first user message that is not a function response and has at
// least fraction of the characters before it; failing that, the end when
// the last message is a model message with no function call, else the
// last such user message. Characters are the UTF-16 length of each
// message's text, arguments and tool names (Gemini counts its JSON).
func charsSplit(h []corpus.Message, fraction float64) int {
	counts := make([]int64, len(h))
	var total int64
	for i := range h {
		counts[i] = splitChars(&h[i])
		total += counts[i]
	}
	target := float64(total) * fraction
	last := 0
	var cum int64
	for i := range h {
		if splitCandidate(&h[i]) {
			if float64(cum) >= target {
				return i
			}
			last = i
		}
		cum += counts[i]
	}
	if endsWithAnswer(h) {
		return len(h)
	}
	return last
}

// splitChars is the characters charsSplit counts for a message.
func splitChars(m *corpus.Message) (c int64) {
	for k := range m.Blocks {
		b := &m.Blocks[k]
		c += utf16Len(b.Content()) + int64(len(b.Args)) + utf16Len(b.ToolName)
	}
	return c
}

// splitCandidate is a message charsSplit may split at: a user message
// that is not a function response.
func splitCandidate(m *corpus.Message) bool {
	return m.Role == corpus.RoleUser && !hasKind(m, corpus.KindToolResult)
}

// endsWithAnswer: the last message is a model message with no function
// call.
func endsWithAnswer(h []corpus.Message) bool {
	n := len(h)
	return n > 0 && h[n-1].Role == corpus.RoleAssistant && !hasKind(&h[n-1], corpus.KindToolUse)
}

// charsSplitBefore is min(charsSplit(h, fraction), ts): the split as the
// stage uses it, clamped to the turn in progress, which starts at ts.
// Only a split point up to ts matters, so it counts the characters of
// h[:ts+1], and those after only until they show that no point up to ts
// can have fraction of the total before it. Over a long turn after a
// short one, charsSplit counted the whole history at every request (a
// 6,000-step turn: 2.2 s); this counts about the short turn.
func charsSplitBefore(h []corpus.Message, fraction float64, ts int) int {
	if ts >= len(h) {
		return charsSplit(h, fraction)
	}
	// The split points up to ts, and the characters before each.
	var at []int
	var before []int64
	var total int64
	for i := 0; i <= ts; i++ {
		if splitCandidate(&h[i]) {
			at, before = append(at, i), append(before, total)
		}
		total += splitChars(&h[i])
	}
	// The most characters before any of them: once fraction of the total
	// so far exceeds it, fraction of the whole does (a larger product of
	// floats is never rounded below a smaller one; a fraction of 0 or less
	// never stops the count early).
	most := int64(-1)
	if len(before) > 0 {
		most = before[len(before)-1]
	}
	i := ts + 1
	for ; i < len(h) && most >= 0 && float64(most) >= float64(total)*fraction; i++ {
		total += splitChars(&h[i])
	}
	if i == len(h) {
		target := float64(total) * fraction
		for k, c := range at {
			if float64(before[k]) >= target {
				return c
			}
		}
	}
	// No point up to ts qualifies: charsSplit returns a later point, the
	// end, or the last point, which is ts or later when ts is one, or
	// when any message after ts is one.
	if len(at) > 0 && at[len(at)-1] == ts || endsWithAnswer(h) {
		return ts
	}
	for j := ts + 1; j < len(h); j++ {
		if splitCandidate(&h[j]) {
			return ts
		}
	}
	if len(at) == 0 {
		return 0
	}
	return at[len(at)-1]
}

// checkTail refuses a tail_value its tail cannot mean: a fraction of the
// characters outside (0, 1] (2 kept everything, so the stage never acted),
// or part of a message or turn (0.5 events never condensed).
func checkTail(prefix, tail string, value float64) error {
	switch {
	case tail == TailChars && (value <= 0 || value > 1):
		return fmt.Errorf("parameter %stail_value=%g: with tail=chars it is the fraction of the characters kept, in (0, 1]", prefix, value)
	case (tail == TailEvents || tail == TailTurns) && value != math.Trunc(value):
		return fmt.Errorf("parameter %stail_value=%g: with tail=%s it is a count, a whole number", prefix, value, tail)
	}
	return nil
}
