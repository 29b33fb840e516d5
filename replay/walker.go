package replay

import (
	"iter"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

// walker is the working history an agent holds while a session is walked
// message by message: the one place that decides which raw messages belong
// to the thread, counts real turns and requests, keeps the policy's
// running measure (so a checkpoint that does not trigger costs O(1)) and
// where the history's real turns start (so a stage finds the turn in
// progress without reading it back), and adopts what a compaction returns. Run and Chain walk with the policy's
// own compactions; Agree walks the agent's recorded history.
//
// It also tracks, per request, the first message of the prompt that
// differs from the previous request's prompt (firstChanged): messages are
// only appended between requests, and a compaction shares every message it
// left alone, so the index costs a prefix scan at a compaction that copies
// the history, and nothing at one made in place, which reports it
// (policy.ChangedFrom), or otherwise. The prompt-cache model reads from
// Request.Rewrote whether it fell inside the previous prompt.
type walker struct {
	p   policy.Policy
	s   *corpus.Session
	h   []corpus.Message
	sum measure // the sums of p.Measure over h
	// turns are h's real-turn starts with the thinking sum before each
	// (Checkpoint.Turns), kept like sum; never nil, since nil tells a
	// policy that they are unknown.
	turns []policy.TurnStart
	// results mark h's messages holding tool results (Checkpoint.Results),
	// kept like turns; nil for a policy that does not read them.
	results []policy.ResultMark
	// cleared is what the replay's own clears took out of h
	// (Checkpoint.Cleared); -1 once unknown.
	cleared int64
	// recorded indexes what the agent did to its own history
	// (Checkpoint.Recorded), once per walk.
	recorded *policy.RecordedIndex
	turn     int // real turns appended so far
	raw      int // raw messages appended so far (skipped ones excluded)
	reqs     int // requests sent so far
	prev     *corpus.Message
	// dirty is the index of the first message of h that differs from the
	// last request's prompt, and sent that prompt's length.
	dirty, sent int
	mode        walkMode
	// owned says that h's array is the walker's alone (its own appends, or
	// an outcome that says so): a policy may then rewrite it in place
	// (Checkpoint.Owned). Only a walk that follows the policy lends it: Agree
	// hands one history to Compact more than once.
	owned bool
	// spare is an array of the walker's that nothing reads and that shares
	// nothing with h's (Checkpoint.Spare): the one a compaction replaced,
	// when it was owned. A policy that builds its new history there lets
	// a session's compactions alternate between two arrays. Only adopt
	// sets it, so only a walk that follows the policy lends it (Agree,
	// which asks the policy more than once at a checkpoint, never does).
	spare []corpus.Message
	// skipSide skips sidechain messages: a subagent run inline in a main
	// thread is not part of it, but a subagent's own session (all
	// sidechain) is replayed.
	skipSide bool
	// held finds h's results by id, for the agent's recorded clears; only
	// a walk that follows the recording keeps it (nil otherwise).
	held *heldResults
	// prompt is the session's prompt model for a policy that reads it
	// (Checkpoint.Prompt, promptModel), fitted once per walk, and pre the
	// measures of the session's messages the fit took (units -1: not
	// taken), which add reads instead of measuring again; nil without a
	// fit.
	fit    *cache.Calibration
	prompt *policy.PromptModel
	pre    []measure
	// pending is Checkpoint.Pending: the units of h's messages since its
	// last assistant message, -1 once a compaction or a recorded clear
	// rewrote h (until the next assistant message).
	pending int64
}

// measure is a policy's Measure of a message, or a sum of them: the
// running sums a Checkpoint carries and an Outcome returns.
type measure struct{ units, count, thinking int64 }

func measureOf(p policy.Policy, m *corpus.Message) measure {
	u, c, t := p.Measure(m)
	return measure{u, c, t}
}

func (a measure) plus(b measure) measure {
	return measure{a.units + b.units, a.count + b.count, a.thinking + b.thinking}
}

func (a measure) minus(b measure) measure {
	return measure{a.units - b.units, a.count - b.count, a.thinking - b.thinking}
}

// outcomeSums is the sums o reports for its history.
func outcomeSums(o policy.Outcome) measure { return measure{o.Units, o.Count, o.Thinking} }

// walkMode says whose compactions shape the working history.
type walkMode int

const (
	// followPolicy: the policy compacts; a recorded summary after the first
	// message is a product of the agent's own compaction, which the policy
	// replaces with its own, so it is skipped. Only a summary that starts
	// the log (a smith log seeded from a compacted session) is history.
	followPolicy walkMode = iota
	// followRecording: the agent's own history as recorded (Agree): its
	// summaries are history and its full compactions restart it (reset).
	followRecording
)

func newWalker(s *corpus.Session, p policy.Policy, mode walkMode) *walker {
	w := &walker{p: p, s: s, mode: mode, skipSide: hasMainThread(s), owned: true,
		h: make([]corpus.Message, 0, min(len(s.Messages), 1024)), turns: []policy.TurnStart{},
		results: policy.ResultMarks(p), recorded: policy.NewRecordedIndex(s)}
	if mode == followRecording {
		w.held = newHeldResults()
	}
	w.fit = fitPrompt(w)
	w.prompt = promptModel(p, w.fit)
	return w
}

// requests is how many requests a walk of msgs from the walker's start
// sends: feed's skips and checks without the walk.
func (w *walker) requests(msgs []corpus.Message) int {
	n := 0
	for _, asks := range w.thread(w.mode, msgs) {
		if asks {
			n++
		}
	}
	return n
}

// thread yields the index of each message of msgs that a walk following
// mode takes, from the walker's start, and whether the agent asks its
// provider right before it: feed's skips and checks without the walk.
func (w *walker) thread(mode walkMode, msgs []corpus.Message) iter.Seq2[int, bool] {
	return func(yield func(int, bool) bool) {
		raw := 0
		var prev *corpus.Message
		for i := range msgs {
			m := &msgs[i]
			if w.skipsIn(mode, m, raw) {
				continue
			}
			if !yield(i, w.p.Checkpoint(w.s.Format, prev, m)) {
				return
			}
			prev, raw = m, raw+1
		}
	}
}

// skips reports whether m is not part of the walked thread.
func (w *walker) skips(m *corpus.Message) bool { return w.skipsAfter(m, w.raw) }

// skipsAfter is skips after raw messages of the thread.
func (w *walker) skipsAfter(m *corpus.Message, raw int) bool { return w.skipsIn(w.mode, m, raw) }

// skipsIn is skipsAfter in a walk that follows mode.
func (w *walker) skipsIn(mode walkMode, m *corpus.Message, raw int) bool {
	return (m.Sidechain && w.skipSide) || (mode == followPolicy && m.Summary && raw > 0)
}

// checks reports whether the agent asks its provider right before m.
func (w *walker) checks(m *corpus.Message) bool { return w.p.Checkpoint(w.s.Format, w.prev, m) }

// at is the policy's view of the current moment.
func (w *walker) at(next int) policy.Checkpoint {
	return policy.Checkpoint{Request: w.reqs, Raw: w.raw, Turn: w.turn,
		Units: w.sum.units, Count: w.sum.count, Thinking: w.sum.thinking, Turns: w.turns, Results: w.results,
		Session: w.s, Recorded: w.recorded, Prompt: w.prompt, Pending: w.pending, Next: next, Owned: w.owned && w.mode == followPolicy, Spare: w.spare[:0], Cleared: w.drift()}
}

// drift is Checkpoint.Cleared: what the policy's clears took out, known
// only while the walk follows the policy and every compaction was one.
func (w *walker) drift() int64 {
	if w.mode != followPolicy {
		return -1
	}
	return w.cleared
}

// adopt makes a compaction's outcome the working history; fc is the
// first message it changed (Outcome.OverwroteAt, or policy.FirstChanged
// of the history as handed and out.History), which the invariant checks
// use too.
func (w *walker) adopt(out policy.Outcome, fc int) {
	w.dirty = min(w.dirty, fc)
	w.turns = policy.AdoptTurns(w.p, w.turns, out, fc)
	w.results = policy.AdoptResults(w.p, w.results, out.History, fc)
	old, owned := w.h, w.owned
	w.h = out.History
	if w.cleared >= 0 && out.Strategy == policy.Truncated {
		w.cleared += w.sum.units - out.Units
	} else {
		w.cleared = -1
	}
	w.sum = outcomeSums(out)
	w.pending = -1 // a cap may have rewritten the step; known again at the next response
	w.owned = out.Owned
	// The history replaced becomes the spare when it was the walker's own
	// and the new one shares nothing of it (not the same array rewritten
	// in place, nor a part of it); of it and the spare not built in, the
	// larger stays.
	if shares(w.spare, w.h) {
		w.spare = nil
	}
	if owned && !shares(old, w.h) && cap(old) > cap(w.spare) {
		w.spare = old
	}
}

// shares reports whether two slices' arrays overlap (up to their
// capacities).
func shares(a, b []corpus.Message) bool {
	if cap(a) == 0 || cap(b) == 0 {
		return false
	}
	size := unsafe.Sizeof(corpus.Message{})
	a0, b0 := uintptr(unsafe.Pointer(unsafe.SliceData(a))), uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a0 < b0+uintptr(cap(b))*size && b0 < a0+uintptr(cap(a))*size
}

// request records that the current history was sent; it returns the
// index of the first message that differs from the previous prompt, and
// whether that message is one the previous prompt held (not one appended
// since): whether a prompt cache finds less than that prompt left it.
func (w *walker) request() (firstChanged int, rewrote bool) {
	fc := w.dirty
	rewrote = fc < w.sent
	w.dirty, w.sent = len(w.h), len(w.h)
	w.reqs++
	return fc, rewrote
}

// add appends a raw message of the thread.
func (w *walker) add(m *corpus.Message) {
	if m.RealTurn() {
		w.turn++
	}
	w.turns = policy.AddTurn(w.turns, m, len(w.h), w.sum.thinking)
	w.results = policy.AddResult(w.p, w.results, w.h, m)
	if w.held != nil {
		w.held.add(m, len(w.h))
	}
	w.h = append(w.h, *m)
	ms := w.measured(m)
	w.sum = w.sum.plus(ms)
	switch {
	case m.Role == corpus.RoleAssistant:
		w.pending = 0
	case w.pending >= 0:
		w.pending += ms.units
	}
	w.prev = m
	w.raw++
}

// reset empties the history (a recorded full compaction restarts it).
func (w *walker) reset() {
	w.h = w.h[:0:0]
	w.owned = true
	w.turns = w.turns[:0]
	w.results = w.results[:0]
	w.sum, w.dirty, w.pending = measure{}, 0, 0
	if w.held != nil {
		w.held.reset()
	}
}

// clear applies an agent's recorded clears: the named results get the
// stub (new block slices: the session is never written to), and the
// measure is adjusted by the touched messages' deltas, and the result
// marks are read again from the first touched message. The turn starts
// stay: a stub changes no message's role and no block's kind. Only the
// messages holding the ids are read, when held can name them all.
func (w *walker) clear(ids []string, stub string) {
	if len(ids) == 0 {
		return
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	first := len(w.h)
	stubIn := func(i int) {
		m := &w.h[i]
		copied := false
		for j := range m.Blocks {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolResult || !set[b.ToolCallID] || b.Text == stub {
				continue
			}
			if !copied {
				w.sum = w.sum.minus(measureOf(w.p, m))
				w.pending = -1 // the step may hold it: read back if asked
				m.Blocks = append([]corpus.Block(nil), m.Blocks...)
				copied = true
				b = &m.Blocks[j]
				w.dirty = min(w.dirty, i)
				first = min(first, i)
			}
			b.Text, b.Payload = stub, nil
		}
		if copied {
			w.sum = w.sum.plus(measureOf(w.p, m))
		}
	}
	if holders, ok := w.heldBy(ids); ok {
		for _, i := range holders {
			stubIn(i)
		}
	} else {
		for i := range w.h {
			stubIn(i)
		}
	}
	w.results = policy.AdoptResults(w.p, w.results, w.h, first)
}

// heldBy is held.holders, false without held.
func (w *walker) heldBy(ids []string) ([]int, bool) {
	if w.held == nil {
		return nil, false
	}
	return w.held.holders(ids)
}

// hasMainThread reports whether any message of s is on the main thread.
func hasMainThread(s *corpus.Session) bool {
	for i := range s.Messages {
		if !s.Messages[i].Sidechain {
			return true
		}
	}
	return false
}
