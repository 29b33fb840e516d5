package policy

import (
	"slices"
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// RecordedIndex is what a session's agent had done to its own history by
// each message, as a trigger that reads recorded usage needs it: how much
// its clears had taken out (clears) and how many full compactions of a
// strategy had happened (before). Built once per walk
// (Checkpoint.Recorded), it answers each in O(log n); read from the
// recording at every checkpoint, they made a replay quadratic in a log
// with many boundaries (20,000 took 5 s). One walk's own: eventsOf and
// locate fill it as the walk first asks, so it is not for concurrent use.
type RecordedIndex struct {
	// clearAt are the messages at which a microcompact boundary took
	// effect, ascending, and clearSum[i] the tokens saved by the first i.
	clearAt, clearSum []int
	// persistedAt are the messages from which a persisted output no
	// boundary lists was sent as its marker, ascending; persistedChars and
	// persistedBytes are the prefix sums of what each took out, in chars/4
	// and in bytes/4.
	persistedAt, persistedChars, persistedBytes []int
	// fullAt are, per strategy, the messages at which the recorded
	// compactions of that strategy took effect, ascending, and fullIdx
	// their positions in Recorded.Compactions (in that order: a tie keeps
	// the recording's).
	fullAt, fullIdx map[string][]int
	// events are the recorded policy's events of eventsFor, by position,
	// listed at its first checkpoint (eventsOf). They are kept per walk:
	// kept in the policy, keyed by session, they kept every session a
	// replay had let go of reachable, with its compactions.
	events    []recordedEvent
	eventsFor *corpus.Session
	// main says that eventsFor has a main thread (hasMain: a subagent's
	// log is all sidechain), found once with the events: asked at every
	// request, a log of sidechain messages was read whole each time.
	main bool
	// lineOf is, for each tool call id that one result block of eventsFor
	// holds, the line of the message holding it (-1 when several hold it
	// or the message has no line), and markers the persisted
	// outputs' markers by id (the first listed): a recorded clear finds its
	// results by them (holders, marker) instead of reading the history and
	// the persisted list, which made a log with a clear at every request
	// quadratic. Built with the first clear (located).
	lineOf  map[string]int
	markers map[string]string
	located bool
	// prev is the previous request clear-tool-results' trigger last
	// found (lastRequestUsage).
	prev requestMemo
	// unlined is, for unlinedFor, the position of each message without a
	// line by its id (-1 for an id two of them have), built at the first
	// such message asked about (unlinedAt).
	unlined    map[string]int
	unlinedFor *corpus.Session
}

// unlinedAt is the position in s.Messages of the message without a line
// whose id is id, or -1 (none, or several).
func (x *RecordedIndex) unlinedAt(s *corpus.Session, id string) int {
	if x.unlinedFor != s {
		x.unlined, x.unlinedFor = map[string]int{}, s
		for i := range s.Messages {
			if m := &s.Messages[i]; m.Line <= 0 {
				if _, dup := x.unlined[m.ID]; dup {
					x.unlined[m.ID] = -1
				} else {
					x.unlined[m.ID] = i
				}
			}
		}
	}
	if i, ok := x.unlined[id]; ok {
		return i
	}
	return -1
}

// locate builds lineOf and markers for s, once per walk.
func (x *RecordedIndex) locate(s *corpus.Session) {
	if x.located {
		return
	}
	x.located = true
	x.lineOf, x.markers = map[string]int{}, map[string]string{}
	held := map[string]int{}
	for i := range s.Messages {
		m := &s.Messages[i]
		for j := range m.Blocks {
			if b := &m.Blocks[j]; b.Kind == corpus.KindToolResult {
				held[b.ToolCallID]++
				x.lineOf[b.ToolCallID] = m.Line
			}
		}
	}
	for id, n := range held {
		if n > 1 || x.lineOf[id] <= 0 {
			x.lineOf[id] = -1 // found by reading the history
		}
	}
	for i := range s.Recorded.Persisted {
		ps := &s.Recorded.Persisted[i]
		if _, seen := x.markers[ps.ToolCallID]; !seen {
			x.markers[ps.ToolCallID] = ps.Marker
		}
	}
}

// holders are the positions in h, ascending, of the messages holding the
// results ids names, found by line (h keeps the session's order, and a
// message its line); ok is false when some id is not found so, and the
// caller reads the whole history. The session's own results are unique by
// lineOf, and h holds no result that is not the session's (s keeps no
// recorded history of its own, which holders is not asked about): an id
// no result of the session holds is in no message of h, and is passed
// over (a log whose boundaries named such ids read the whole history at
// every one of them: 20,000 took 4.4 s).
func (x *RecordedIndex) holders(s *corpus.Session, h []corpus.Message, ids []string) (at []int, ok bool) {
	x.locate(s)
	at = []int{}
	for _, id := range ids {
		line, held := x.lineOf[id]
		if !held {
			continue
		}
		if line < 0 {
			return nil, false
		}
		i := sort.Search(len(h), func(i int) bool { return h[i].Line >= line })
		found := false
		for ; i < len(h) && h[i].Line == line && !found; i++ {
			found = holds(&h[i], id)
		}
		if !found {
			return nil, false
		}
		at = append(at, i-1)
	}
	slices.Sort(at)
	return slices.Compact(at), true
}

func holds(m *corpus.Message, id string) bool {
	for j := range m.Blocks {
		if m.Blocks[j].Kind == corpus.KindToolResult && m.Blocks[j].ToolCallID == id {
			return true
		}
	}
	return false
}

// eventsOf is recordedEvents(s), listed once per walk: a replay asks at
// every request, and smith's written-at position costs a scan of the
// session.
func (x *RecordedIndex) eventsOf(s *corpus.Session) []recordedEvent {
	if x.eventsFor != s {
		x.events, x.eventsFor, x.main = recordedEvents(s), s, hasMain(s)
	}
	return x.events
}

// NewRecordedIndex indexes s's recorded compactions and persisted
// outputs; nil s gives an empty index.
func NewRecordedIndex(s *corpus.Session) *RecordedIndex {
	x := &RecordedIndex{clearSum: []int{0}, persistedChars: []int{0}, persistedBytes: []int{0}}
	if s == nil {
		return x
	}
	type event struct{ at, a, b int }
	var clears, persisted []event
	full := map[string][]event{} // a: the position in Recorded.Compactions
	for i := range s.Recorded.Compactions {
		c := &s.Recorded.Compactions[i]
		if c.AtMessage < 0 {
			continue
		}
		full[c.Strategy] = append(full[c.Strategy], event{at: c.AtMessage, a: i})
		if c.Clearing() {
			clears = append(clears, event{at: c.AtMessage, a: c.TokensSaved})
		}
	}
	for i := range s.Recorded.Persisted {
		p := &s.Recorded.Persisted[i]
		if p.Boundary >= 0 || p.AtMessage < 0 {
			continue
		}
		persisted = append(persisted, event{at: p.AtMessage,
			a: (p.Chars+2)/4 - (len(p.Marker)+2)/4, // the marker is ASCII
			b: int((p.Bytes - int64(len(p.Marker))) / 4)})
	}
	byAt := func(a, b event) int { return a.at - b.at }
	if len(full) > 0 {
		x.fullAt, x.fullIdx = map[string][]int{}, map[string][]int{}
	}
	for st, evs := range full {
		slices.SortStableFunc(evs, byAt)
		for _, e := range evs {
			x.fullAt[st] = append(x.fullAt[st], e.at)
			x.fullIdx[st] = append(x.fullIdx[st], e.a)
		}
	}
	slices.SortStableFunc(clears, byAt)
	slices.SortStableFunc(persisted, byAt)
	for _, e := range clears {
		x.clearAt = append(x.clearAt, e.at)
		x.clearSum = append(x.clearSum, x.clearSum[len(x.clearSum)-1]+e.a)
	}
	for _, e := range persisted {
		x.persistedAt = append(x.persistedAt, e.at)
		x.persistedChars = append(x.persistedChars, x.persistedChars[len(x.persistedChars)-1]+e.a)
		x.persistedBytes = append(x.persistedBytes, x.persistedBytes[len(x.persistedBytes)-1]+e.b)
	}
	return x
}

// upTo is how many of the ascending ats are at most at.
func upTo(ats []int, at int) int {
	return sort.Search(len(ats), func(i int) bool { return ats[i] > at })
}

// clears is what the agent's own clears had taken out of its history by
// the request that wrote message at, in m's tokens: each microcompact
// boundary's recorded tokens saved (Claude Code's own chars/4 count), and
// for each persisted output no boundary lists (Claude Code before 2.1.9
// records no figure) its text less its marker, from their lengths
// (chars/4 of the UTF-16 length; bytes/4 for the bytes4 meter).
func (x *RecordedIndex) clears(at int, m *Meter) int {
	n := x.clearSum[upTo(x.clearAt, at)]
	k := upTo(x.persistedAt, at)
	if m.Name() == MeterBytes4 {
		return n + x.persistedBytes[k]
	}
	return n + x.persistedChars[k]
}

// before counts the recorded compactions of the given strategies that
// took effect at or before message at.
func (x *RecordedIndex) before(at int, strategies []string) int {
	n := 0
	for i, st := range strategies {
		if !slices.Contains(strategies[:i], st) {
			n += upTo(x.fullAt[st], at)
		}
	}
	return n
}

// nearest is the position in Recorded.Compactions of the recorded
// compaction of the given strategies whose message is nearest to at (the
// first recorded on a tie), or -1 when there is none: O(log n) per
// strategy, where reading the recording made a replay that compacts at
// every recorded compaction quadratic (32,000 took 6 s).
func (x *RecordedIndex) nearest(at int, strategies []string) int {
	best, bestD := -1, 0
	for i, st := range strategies {
		if slices.Contains(strategies[:i], st) {
			continue
		}
		if k := NearestAt(x.fullAt[st], x.fullIdx[st], at); k >= 0 {
			if d := absInt(x.fullAt[st][k] - at); best < 0 || d < bestD || d == bestD && x.fullIdx[st][k] < best {
				best, bestD = x.fullIdx[st][k], d
			}
		}
	}
	return best
}

// NearestAt is the position in ats (ascending) of the value nearest to
// target, or -1 when ats is empty. Of several as near, it is the one whose
// order is least (order[k] is ats[k]'s place in the list the caller
// sorted, ascending among equal values): what a scan of that list keeping
// the first strictly nearer value finds, in O(log n).
func NearestAt(ats, order []int, target int) int {
	hi := sort.SearchInts(ats, target) // the first at or after target
	lo := -1
	if hi > 0 { // the first of the values just below target
		lo = sort.SearchInts(ats, ats[hi-1])
	}
	switch {
	case lo < 0 && hi == len(ats):
		return -1
	case lo < 0:
		return hi
	case hi == len(ats):
		return lo
	}
	dl, dh := target-ats[lo], ats[hi]-target
	if dl < dh || dl == dh && order[lo] < order[hi] {
		return lo
	}
	return hi
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
