package replay

import (
	"fmt"
	"iter"
	"slices"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Invariant names, as reported in violations.
const (
	RulePairing    = "tool-pairing"     // each tool_use keeps exactly one tool_result and vice versa
	RuleEmpty      = "empty-message"    // no message is left without content
	RuleCurrent    = "current-turn"     // the turn in progress keeps its messages and non-result blocks
	RuleClaimed    = "claimed-change"   // a compaction that changed nothing, or None that changed something
	RuleAccounting = "accounting"       // Outcome.Units/Count agree with a fresh measure
	RuleShrink     = "grew-the-history" // a non-rotation compaction must not make the context bigger
)

// checker verifies compaction outcomes. Some policies compact at nearly
// every request (swe-agent, clear-tool-results at trigger_at=1), so a check
// must cost what the compaction changed, not the working history, or the
// replay turns quadratic. The checker therefore keeps, for the working
// history, what the invariants need to know about it: tool_use and
// tool_result counts per call id and where each id first occurs, the ids of
// empty messages, the positions of real turns, and each message's measure.
// It catches up on the messages appended since the last check, and after a
// check replaces the state of the changed suffix with the outcome's.
//
// Messages before the first changed index (firstChanged) are the same
// messages, shared, in the input and in the outcome, so the checks only
// walk the suffixes in[fc:] and out[fc:]; what they need to know about the
// prefix comes from the state. A message's measure is taken once, when it
// enters the working history: Measure depends on the message alone (the
// walker's running sums rely on the same). The one walk that may start
// before fc is the current-turn comparison when the outcome's length
// differs from the input's and the first change is inside the turn: it
// then pairs each of the turn's shared messages with the one d places
// away, and stops at the first mismatch (at once, unless neighbouring
// messages are equal). An outcome made in place (Outcome.Overwrote) has
// rewritten the input itself: the checks read the input as handed through
// what it overwrote (handed), and trust it to list every message it
// wrote, as they trust the walker to have only appended between checks.
type checker struct {
	// known is how many messages of the working history the state covers,
	// and last the last of them: the walker only appends between
	// compactions, so at a check in[known:] are the new messages. A
	// history that is not such a continuation rebuilds the state.
	known int
	last  corpus.Message

	calls map[string]call // per call id in the history: its counts and first block
	empty map[string]int  // ids of messages without blocks, counted
	turns []int           // indexes of real turns, ascending
	ms    []measure       // p.Measure of each message
	sum   measure         // their sum

	// suspects are the ids a compaction's drop and push left with
	// unequal counts, as a stack from which an id that a later block of
	// the compaction evens is taken when it is near the top (a result
	// pushed soon after its call): the only ids whose pairing can have
	// broken.
	suspects []string
	broken   []brokenPair  // scratch
	kept     []keptMeasure // scratch
}

// keptMeasure is the measure of message i, unchanged by a compaction.
type keptMeasure struct {
	i int
	m measure
}

// call is what the state knows of one call id: its tool_use and
// tool_result counts and where it first occurs. The two live in one map
// entry (they were two maps): a block pushed or dropped costs one lookup
// and one store instead of three or four, and these were a tenth of a
// smith-staged sweep. An id is in the map exactly while its counts are not
// both zero, which is also when it has a first block: the state covers a
// prefix of the history, and the blocks a drop removes are all those from
// an index on, so an id loses its first block only with its last.
type call struct {
	pair
	first pos
}

// pos is a block's place in the history; call ids are reported in this
// order (history order, not map order: the report must be deterministic).
type pos struct{ msg, block int }

func (a pos) less(b pos) bool { return a.msg < b.msg || (a.msg == b.msg && a.block < b.block) }

type brokenPair struct {
	at            pos
	id            string
	before, after pair
}

func newChecker() *checker {
	return &checker{calls: map[string]call{}, empty: map[string]int{}}
}

// handed is the history a compaction was handed, read after it: in, but
// for the messages an outcome replaced in place (Outcome.Overwrote from
// OverwroteAt on), read from what it overwrote. A copying outcome
// leaves in as it was (over is nil).
type handed struct {
	in   []corpus.Message
	over []corpus.Message
	at   int
}

// handedTo is the history o was handed as in, read after Compact.
func handedTo(in []corpus.Message, o policy.Outcome) handed {
	return handed{in: in, over: o.Overwrote, at: o.OverwroteAt}
}

func (v handed) len() int { return len(v.in) }

// msg is message i of the history as handed.
func (v handed) msg(i int) *corpus.Message {
	if j := i - v.at; j >= 0 && j < len(v.over) {
		return &v.over[j]
	}
	return &v.in[i]
}

// check verifies one compaction outcome against the history it was given
// (the working history, a continuation of the last outcome checked). fc is
// policy.FirstChanged of the two. Pairing is judged relative to the input:
// a session whose pairs were already broken is not the policy's fault, but
// any pair the policy breaks (or duplicates) is.
func (c *checker) check(p policy.Policy, in handed, out policy.Outcome, fc, req int, ev *Event) []Violation {
	var vs []Violation
	add := func(rule, format string, a ...any) {
		vs = append(vs, Violation{Request: req, Rule: rule, Detail: fmt.Sprintf(format, a...)})
	}
	h := out.History
	c.catchUp(p, in)

	// Emptiness and the current turn are judged against the input's state,
	// so they run before the state moves to the outcome.
	var empties []int
	for i := fc; i < len(h); i++ {
		if len(h[i].Blocks) == 0 && c.empty[h[i].ID] == 0 {
			empties = append(empties, i)
		}
	}
	var current []Violation
	// A recording's mid-turn compactions are the agent's behaviour, not
	// violations (policy.Recording).
	_, recording := p.(policy.Recording)
	if out.Strategy != policy.Rotated && !recording {
		current, ev.CurrentTurnResultsCut = c.currentTurn(in, h, fc, req)
	}
	claimed := in.len() == len(h) && !changed(in, h, fc)
	// A message of the suffix that is in's own at the same index keeps
	// its measure (a policy that edits one message keeps the rest).
	kept := c.kept[:0]
	for i := fc; i < min(in.len(), len(h)); i++ {
		if policy.SameMessage(in.msg(i), &h[i]) {
			kept = append(kept, keptMeasure{i, c.ms[i]})
		}
	}
	c.kept = kept
	// Only the ids of the blocks dropped and pushed can change counts;
	// of those, the ones left uneven are the suspects.
	c.suspects = c.suspects[:0]
	c.drop(in, fc)
	for i := fc; i < len(h); i++ {
		if len(kept) > 0 && kept[0].i == i {
			c.pushMeasured(&h[i], i, kept[0].m)
			kept = kept[1:]
		} else {
			c.push(p, &h[i], i)
		}
	}
	c.known = len(h)
	if len(h) > 0 {
		c.last = h[len(h)-1]
	}

	// A call id is in the outcome when its counts there are not both
	// zero; it is reported at its first block there, when its counts are
	// uneven and not what they were before.
	broken := c.broken[:0]
	slices.Sort(c.suspects)
	for _, id := range slices.Compact(c.suspects) {
		e := c.calls[id]
		if a := e.pair; a != (pair{}) && a.uses != a.results {
			broken = append(broken, brokenPair{at: e.first, id: id, after: a})
		}
	}
	broken = countBefore(in, broken)
	slices.SortFunc(broken, func(x, y brokenPair) int {
		if x.at.less(y.at) {
			return -1
		}
		return 1
	})
	for _, x := range broken {
		add(RulePairing, "tool call %q has %d tool_use and %d tool_result after compaction (before: %d and %d)", x.id, x.after.uses, x.after.results, x.before.uses, x.before.results)
	}
	c.broken = broken

	for _, i := range empties {
		add(RuleEmpty, "message %d (%s, id %q) has no content after compaction", i, h[i].Role, h[i].ID)
	}
	vs = append(vs, current...)
	if out.Strategy != policy.Rotated && !recording && out.AfterTokens > out.BeforeTokens {
		add(RuleShrink, "compaction went from %d to %d tokens", out.BeforeTokens, out.AfterTokens)
	}
	if claimed {
		add(RuleClaimed, "strategy %q reported but the history is unchanged", out.Strategy)
	}
	if got := outcomeSums(out); got != c.sum {
		add(RuleAccounting, "outcome reports sums of %d, %d and %d, a fresh measure gives %d, %d and %d",
			got.units, got.count, got.thinking, c.sum.units, c.sum.count, c.sum.thinking)
	}
	return vs
}

// checkUnchanged verifies that a None outcome returned the history as it was.
func checkUnchanged(in []corpus.Message, out policy.Outcome, req int) *Violation {
	h := out.History
	if len(h) != len(in) || (len(h) > 0 && &h[0] != &in[0]) {
		return &Violation{Request: req, Rule: RuleClaimed, Detail: "strategy none returned a different history"}
	}
	return nil
}

type pair struct{ uses, results int }

// catchUp brings the state to in: the messages appended since the last
// check are added; a history that does not continue the last one checked
// (a test's, or a new walk's) rebuilds it.
func (c *checker) catchUp(p policy.Policy, in handed) {
	n := in.len()
	if n < c.known || (c.known > 0 && !policy.SameMessage(in.msg(c.known-1), &c.last)) {
		c.drop(in, 0)
	}
	for i := c.known; i < n; i++ {
		c.push(p, in.msg(i), i)
	}
	c.known = n
	if n > 0 {
		c.last = *in.msg(n - 1)
	}
}

// drop removes from the state the messages from index fc on of h, the
// history it covers.
func (c *checker) drop(h handed, fc int) {
	if fc == 0 {
		clear(c.calls)
		clear(c.empty)
		c.turns, c.ms, c.sum = c.turns[:0], c.ms[:0], measure{}
		return
	}
	for i := fc; i < min(h.len(), c.known); i++ {
		m := h.msg(i)
		for _, b := range toolBlocks(m) {
			id := b.ToolCallID
			e := c.calls[id]
			if e.pair = e.moved(b, -1); e.pair == (pair{}) {
				delete(c.calls, id) // its first block went with it
			} else {
				c.calls[id] = e // its first block is before fc
			}
			c.suspect(id, e.pair)
		}
		if len(m.Blocks) == 0 {
			if c.empty[m.ID]--; c.empty[m.ID] == 0 {
				delete(c.empty, m.ID)
			}
		}
	}
	for len(c.turns) > 0 && c.turns[len(c.turns)-1] >= fc {
		c.turns = c.turns[:len(c.turns)-1]
	}
	for i := fc; i < len(c.ms); i++ {
		c.sum = c.sum.minus(c.ms[i])
	}
	c.ms = c.ms[:fc]
}

// toolBlocks yields the tool_use and tool_result blocks of m with their
// indexes: the blocks that make the pair counts.
func toolBlocks(m *corpus.Message) iter.Seq2[int, *corpus.Block] {
	return func(yield func(int, *corpus.Block) bool) {
		for j := range m.Blocks {
			if b := &m.Blocks[j]; b.Kind == corpus.KindToolUse || b.Kind == corpus.KindToolResult {
				if !yield(j, b) {
					return
				}
			}
		}
	}
}

// suspect notes id, whose counts a block just moved to pc: an uneven id
// goes on the suspects' stack (once while on top), an even one comes off
// when it is among the top few (a call's result follows it closely, after
// the other calls of its message). An id uneven after its last move is
// therefore on the stack; one it leaves may be on it too (costing a
// lookup).
func (c *checker) suspect(id string, pc pair) {
	top := len(c.suspects) - 1
	if pc.uses != pc.results {
		if top < 0 || c.suspects[top] != id {
			c.suspects = append(c.suspects, id)
		}
		return
	}
	for k := top; k >= max(0, top-7); k-- {
		if c.suspects[k] == id {
			c.suspects[k] = c.suspects[top]
			c.suspects = c.suspects[:top]
			return
		}
	}
}

// countBefore fills in each broken pair's counts in the history as
// handed, and keeps those whose counts changed: one pass over in, for the
// few ids left uneven (none, in a well-formed session).
func countBefore(in handed, broken []brokenPair) []brokenPair {
	if len(broken) == 0 {
		return broken
	}
	// A few ids are compared in turn; many (a log whose results lost
	// their calls) are looked up, so the pass stays linear.
	var index map[string]int
	if len(broken) > 8 {
		index = make(map[string]int, len(broken))
		for k := range broken {
			index[broken[k].id] = k
		}
	}
	find := func(id string) int {
		if index != nil {
			if k, ok := index[id]; ok {
				return k
			}
			return -1
		}
		for k := range broken {
			if broken[k].id == id {
				return k
			}
		}
		return -1
	}
	for i := range in.len() {
		for _, b := range toolBlocks(in.msg(i)) {
			if k := find(b.ToolCallID); k >= 0 {
				broken[k].before = broken[k].before.moved(b, 1)
			}
		}
	}
	return slices.DeleteFunc(broken, func(x brokenPair) bool { return x.before == x.after })
}

// moved is pc with tool block b's side moved by d (+1 as a message is
// pushed, -1 as it is popped); the caller stores it.
func (pc pair) moved(b *corpus.Block, d int) pair {
	if b.Kind == corpus.KindToolUse {
		pc.uses += d
	} else {
		pc.results += d
	}
	return pc
}

// push adds m, message i of a history whose first i messages the state
// covers.
func (c *checker) push(p policy.Policy, m *corpus.Message, i int) {
	c.pushMeasured(m, i, measureOf(p, m))
}

// pushMeasured is push with the message's measure known.
func (c *checker) pushMeasured(m *corpus.Message, i int, ms measure) {
	for j, b := range toolBlocks(m) {
		id := b.ToolCallID
		e, ok := c.calls[id]
		if !ok {
			e.first = pos{i, j}
		}
		e.pair = e.moved(b, 1)
		c.calls[id] = e
		c.suspect(id, e.pair)
	}
	if len(m.Blocks) == 0 {
		c.empty[m.ID]++
	}
	if m.RealTurn() {
		c.turns = append(c.turns, i)
	}
	c.ms = append(c.ms, ms)
	c.sum = c.sum.plus(ms)
}

// currentTurn checks that the turn in progress of in (from its last real
// user message, or the whole history without one) keeps its messages at
// the end of h and changes only their tool results, whose changes it
// counts. When h has in's length its messages sit at in's indexes, and
// those before fc are in's own, so the comparison starts at fc.
func (c *checker) currentTurn(in handed, h []corpus.Message, fc, req int) (vs []Violation, cut int) {
	cur := 0
	if len(c.turns) > 0 {
		cur = c.turns[len(c.turns)-1]
	}
	n := in.len() - cur
	if len(h) < n {
		return []Violation{{Request: req, Rule: RuleCurrent, Detail: fmt.Sprintf("the current turn had %d messages and only %d remain in the history", n, len(h))}}, 0
	}
	tail := h[len(h)-n:]
	i := 0
	if len(h) == in.len() {
		i = max(0, fc-cur)
	}
	for ; i < n; i++ {
		k, ok := sameExceptResults(in.msg(cur+i), &tail[i])
		if !ok {
			return []Violation{{Request: req, Rule: RuleCurrent, Detail: fmt.Sprintf("message %d of the current turn (id %q) was changed beyond its tool results", i, in.msg(cur+i).ID)}}, cut
		}
		cut += k
	}
	return nil, cut
}

// sameExceptResults compares two messages block by block; tool_result text
// may differ (it reports how many did), nothing else may.
func sameExceptResults(a, b *corpus.Message) (cut int, ok bool) {
	if a.ID != b.ID || a.Role != b.Role || len(a.Blocks) != len(b.Blocks) {
		return 0, false
	}
	for i := range a.Blocks {
		x, y := &a.Blocks[i], &b.Blocks[i]
		if x.Kind != y.Kind || x.ToolCallID != y.ToolCallID {
			return 0, false
		}
		if x.Kind == corpus.KindToolResult {
			if x.Text != y.Text {
				cut++
			}
			continue
		}
		if x.Text != y.Text || x.Signature != y.Signature || string(x.Args) != string(y.Args) {
			return 0, false
		}
	}
	return cut, true
}

// changed reports whether a compaction changed anything from message fc
// on. Unchanged messages share their block slices with the input, so this
// is cheap.
func changed(in handed, out []corpus.Message, fc int) bool {
	if in.len() != len(out) {
		return true
	}
	for i := fc; i < len(out); i++ {
		m := in.msg(i)
		a, b := m.Blocks, out[i].Blocks
		if len(a) != len(b) || m.ID != out[i].ID {
			return true
		}
		if len(a) > 0 && &a[0] != &b[0] {
			for j := range a {
				if a[j].Text != b[j].Text || a[j].Kind != b[j].Kind || string(a[j].Args) != string(b[j].Args) {
					return true
				}
			}
		}
	}
	return false
}
