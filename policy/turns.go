package policy

import "github.com/calib-dev/calib/corpus"

// TurnStart is where a real user turn starts in a working history (the
// index of a message for which Message.RealTurn holds, as windowStart
// counts them) and the history's thinking sum before it (Measure's third,
// over the messages before At). With them a stage finds the start of its
// window of the last N real turns, and what droppable thinking lies before
// it, without reading the history back: in a session of one long turn
// that read was the whole turn at every request.
type TurnStart struct {
	At       int
	Thinking int64
}

// AddTurn returns ts with m's start appended when m starts a real turn;
// m is about to be appended at index at of a history whose thinking sum
// is thinking. The replay calls it as it appends, like its running sums.
func AddTurn(ts []TurnStart, m *corpus.Message, at int, thinking int64) []TurnStart {
	if m.RealTurn() {
		ts = append(ts, TurnStart{At: at, Thinking: thinking})
	}
	return ts
}

// thinkingOf is p.Measure(m)'s thinking sum. A composed policy (the only
// one with a thinking stage) gives it without measuring m: the walker
// adopts the turn starts after every compaction, and measuring the changed
// suffix's text there only to read its kinds was, on a session that
// clears at most requests, a twentieth of the meter's work.
func thinkingOf(p Policy, m *corpus.Message) int64 {
	if c, ok := p.(*Composed); ok {
		return c.thinkingOf(m)
	}
	_, _, k := p.Measure(m)
	return k
}

// AdoptTurns returns the turn starts of o.History, given ts, those of the
// history Compact was handed, and fc = FirstChanged(that history,
// o.History): the starts before fc are kept (the messages before them are
// shared, unchanged), and the rest are read from o.History[fc:], whose
// thinking sums follow from o.Thinking. It costs the changed suffix, as
// the invariant checks do. ts's array is reused.
func AdoptTurns(p Policy, ts []TurnStart, o Outcome, fc int) []TurnStart {
	for len(ts) > 0 && ts[len(ts)-1].At >= fc {
		ts = ts[:len(ts)-1]
	}
	h := o.History
	kept := len(ts)
	var suffix int64 // thinking sum of h[fc:i]
	for i := fc; i < len(h); i++ {
		ts = AddTurn(ts, &h[i], i, suffix)
		if o.Thinking != 0 { // a policy without thinking sums none: skip measuring
			suffix += thinkingOf(p, &h[i])
		}
	}
	// The sum before fc is the outcome's less the suffix's.
	for j := kept; j < len(ts); j++ {
		ts[j].Thinking += o.Thinking - suffix
	}
	return ts
}
