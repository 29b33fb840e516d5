package loss

import (
	"bytes"
	"cmp"
	"slices"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Tracker follows one replay and notes, per tool result, the first request
// that carried something other than its full text, and which stage of the
// compaction did it. The replay calls Changed after every compaction (a
// history changes only then); each call costs one pass over the history
// plus one over the results that have arrived, or, for a compaction made
// in place, one over its changed suffix and the results read there or
// arrived since.
type Tracker struct {
	ix      *Index
	hides   []Hide // per result; Request -1 while not hidden
	seen    []int32
	how     []int8 // per result, at the current call: absent, stubbed or cut
	kept    []int  // per result, at the current call: bytes of its head a cut kept
	stamp   int32
	arrived int     // results (in message order) that arrived before the current request
	reqAt   []int32 // per request sent, the index of the message it precedes
	known   int     // the length of the history at the last call of Changed
	read    []int   // scratch: the results read at the current call
}

// Sent records that request req was sent right before the session's
// message at; the replay calls it for every request, so that a message can
// be named by the request that produced it.
func (t *Tracker) Sent(req, at int) {
	for len(t.reqAt) < req {
		t.reqAt = append(t.reqAt, -1) // a request the replay did not report: none
	}
	t.reqAt = append(t.reqAt[:req], int32(at))
}

// requestOf is the request whose response is message msg: the last request
// sent before it; -1 when none (or no request was recorded).
func (t *Tracker) requestOf(msg int) int {
	lo, hi := 0, len(t.reqAt)
	for lo < hi {
		mid := (lo + hi) / 2
		if int(t.reqAt[mid]) <= msg {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo - 1
}

const (
	absent int8 = iota
	stubbed
	cut
	whole
)

// NewTracker starts tracking a replay of the index's session.
func (ix *Index) NewTracker() *Tracker {
	t := &Tracker{ix: ix, hides: make([]Hide, len(ix.Results)), seen: make([]int32, len(ix.Results)), how: make([]int8, len(ix.Results)), kept: make([]int, len(ix.Results))}
	for i := range t.hides {
		t.hides[i] = Hide{CallID: ix.Results[i].ID, Request: -1, Event: -1}
	}
	return t
}

// Changed records the history h sent at request req, right before the
// session's message at (its index in Session.Messages; len(Messages) after
// the last), after compaction event ev did stages. Every result that
// arrived before at and is not in h with its full text is hidden from
// here on, unless an earlier call already hid it.
//
// Which stage hid a result is the first stage whose report lists it
// (StageReport.Hid: the recorded policy knows the ids each recorded event
// hid, and two events at one request, such as a microcompact boundary and
// persisted outputs placed at the same request, hide different results
// with the same kind of marker). For a result no report lists, which is
// every result of the other policies, it is read from how it changed,
// since their stage reports say how many blocks they touched, not which.
// Thinking and attachment stages never touch tool results and are
// skipped; of the rest, in order:
//   - a result that left the history went with the last stage (the stages
//     that drop messages, summary or rotation, run last in every policy);
//   - when the outcome summarized, dropped or rotated, that last stage
//     only drops, and the stages before it rewrote texts;
//   - a result whose text still starts with its original head was cut: the
//     last text stage (truncation follows stubbing in smith);
//   - any other new text is a stub or marker: the first text stage.
//
// With no stage reports the outcome's strategy names the stage; a stage
// that touched no blocks by its report still names what went with it.
//
// same > 0 says that h is the history of the previous call with messages
// appended and the ones from same on rewritten in place (none moved or
// left: Outcome.Overwrote): the results before same, and before that
// call's length, are as they were then, whole or already hidden, so only
// the rest is read and the call costs the changed suffix. With same 0
// the whole history is read.
func (t *Tracker) Changed(req, at, ev int, h []corpus.Message, same int, stages []policy.StageReport, strategy policy.Strategy) {
	t.stamp++
	judged := t.arrived
	for t.arrived < len(t.ix.Results) && t.ix.Results[t.arrived].Msg < at {
		t.arrived++
	}
	from := min(same, t.known)
	t.known = len(h)
	read := t.read[:0]
	for i := from; i < len(h); i++ {
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			k, ok := t.ix.byID[b.ToolCallID]
			if !ok || t.hides[k].Request >= 0 {
				continue
			}
			r := &t.ix.Results[k]
			orig := &t.ix.Session.Messages[r.Msg].Blocks[r.Block]
			t.seen[k] = t.stamp
			read = append(read, k)
			switch {
			case b.Text == orig.Text && bytes.Equal(b.Payload, orig.Payload):
				t.how[k] = whole
			case keepsHead(b.Text, orig.Text):
				t.how[k], t.kept[k] = cut, commonPrefix(b.Text, orig.Text)
			default:
				t.how[k] = stubbed
			}
		}
	}
	var names []string
	for _, s := range stages {
		if s.BlocksTouched > 0 && s.Name != "thinking" && s.Name != "attachments" {
			names = append(names, s.Name)
		}
	}
	switch {
	case len(names) == 0 && len(stages) > 0:
		// A stage that reports no blocks still did it: its name, never
		// the strategy's ("rotated" was no stage of codex's).
		names = []string{stages[len(stages)-1].Name}
	case len(names) == 0:
		names = []string{string(strategy)}
	}
	drop := names[len(names)-1]
	text := names
	if len(names) > 1 && (strategy == policy.Summarized || strategy == policy.Dropped || strategy == policy.Rotated) {
		text = names[:len(names)-1]
	}
	stageOf := map[int8]string{absent: drop, stubbed: text[0], cut: text[len(text)-1]}
	var listed map[string]string // tool call id -> the first stage that lists it
	for _, s := range stages {
		for _, id := range s.Hid {
			if listed == nil {
				listed = map[string]string{}
			}
			if _, ok := listed[id]; !ok {
				listed[id] = s.Name
			}
		}
	}
	t.read = read
	hide := func(k int) {
		if k >= t.arrived || t.hides[k].Request >= 0 {
			return
		}
		how := absent
		if t.seen[k] == t.stamp {
			how = t.how[k]
		}
		if how == whole {
			return
		}
		stage, ok := listed[t.ix.Results[k].ID]
		if !ok {
			stage = stageOf[how]
		}
		t.hides[k].Request, t.hides[k].At, t.hides[k].Stage, t.hides[k].Event = req, at, stage, ev
		if how == cut {
			t.hides[k].Kept = t.kept[k]
		}
	}
	if from == 0 {
		for k := range t.arrived {
			hide(k)
		}
		return
	}
	// The results not read that arrived before the previous call are
	// whole (or hidden then); those that arrived since and were not read
	// are absent.
	for _, k := range read {
		hide(k)
	}
	for k := judged; k < t.arrived; k++ {
		hide(k)
	}
}

// keepsHead reports whether a changed text keeps the first line (at most
// 64 bytes) of the original: the mark of a truncated head.
func keepsHead(now, orig string) bool {
	head := orig
	if i := strings.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if len(head) > 64 {
		head = head[:64]
	}
	return head != "" && strings.HasPrefix(now, head)
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Hides are the results hidden so far, by request, then message order.
func (t *Tracker) Hides() []Hide {
	n := 0
	for i := range t.hides {
		if t.hides[i].Request >= 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Hide, 0, n)
	for _, h := range t.hides {
		if h.Request >= 0 {
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(a, b Hide) int { return cmp.Compare(a.Request, b.Request) })
	return out
}

// Report reads the signals of every hidden result, naming the messages
// that needed or fetched them back by the requests that produced them.
func (t *Tracker) Report() Report {
	rep := t.ix.Report(t.Hides())
	for _, s := range rep.Signals {
		s.ArrivedRequest = t.requestOf(s.Result.Msg) + 1
		if s.NeededMsg >= 0 {
			s.NeededRequest = t.requestOf(s.NeededMsg)
		}
		if s.FetchedMsg >= 0 {
			s.FetchedRequest = t.requestOf(s.FetchedMsg)
		}
	}
	return rep
}

// Report is the loss of one replay of one session.
type Report struct {
	Counts
	// ByStage sums the signals per stage that hid the results, ByEvent per
	// compaction (indexed like the trace's events; hides with Event -1 are
	// in no entry).
	ByStage map[string]Counts
	ByEvent map[int]Counts
	// ByEventStage splits ByEvent by stage: what each stage of each
	// compaction hid, beside what it reclaimed.
	ByEventStage map[int]map[string]Counts
	// Signals has one entry per hidden result, in hiding order.
	Signals []*Signal
}

// Report reads the signals of a list of hides (a replay's, or the clears
// an agent recorded).
func (ix *Index) Report(hides []Hide) Report {
	rep := Report{ByStage: map[string]Counts{}, ByEvent: map[int]Counts{}, ByEventStage: map[int]map[string]Counts{}}
	if len(hides) == 0 {
		// Before evidenceFor: a replay that hid nothing (most sessions of
		// a light policy) reads no call's subject either.
		return rep
	}
	ev := ix.evidenceFor(hides)
	signals := make([]Signal, len(hides))
	rep.Signals = make([]*Signal, 0, len(hides))
	for i, h := range hides {
		s := &signals[i]
		if !ix.readSignal(ev, h, s) {
			continue
		}
		rep.Signals = append(rep.Signals, s)
		rep.Counts.Add(s)
		var one Counts
		one.Add(s)
		rep.ByStage[h.Stage] = rep.ByStage[h.Stage].Plus(one)
		if h.Event >= 0 {
			rep.ByEvent[h.Event] = rep.ByEvent[h.Event].Plus(one)
			if rep.ByEventStage[h.Event] == nil {
				rep.ByEventStage[h.Event] = map[string]Counts{}
			}
			rep.ByEventStage[h.Event][h.Stage] = rep.ByEventStage[h.Event][h.Stage].Plus(one)
		}
	}
	return rep
}
