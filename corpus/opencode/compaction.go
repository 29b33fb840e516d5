package opencode

import (
	"sort"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// How opencode's compactions are recorded (session/compaction.ts):
//
//   - A compaction (automatic at the overflow, or /compact) writes a user
//     message with a compaction part {auto, overflow?}, then an assistant
//     message with summary true (mode and agent "compaction") whose text is
//     the summary. filterCompacted starts every later request's history at
//     that user message, so the compaction takes effect there; its summary
//     is the assistant message's text. The summary counts once it finished
//     (finish set); one that failed or never finished is recorded with that
//     status.
//   - A prune marks old completed tool parts: state.time.compacted =
//     Date.now(), each part in turn, once the loop ends. The output stays in
//     the stored part (opencode sends "[Old tool result content cleared]"
//     instead), so the history keeps the original text and the prune is a
//     recorded clearing event. Parts whose marks are less than pruneGap
//     apart are one prune; it takes effect at the first message written
//     after it.

// pruneGap separates two prunes: one pass marks its parts within
// milliseconds, and passes are at least a model turn apart.
const pruneGap = 1000 // ms

// compaction records a summary message.
func (b *builder) compaction(m *message, in *info, text, status string, at int) {
	c := corpus.Compaction{ID: m.id, Strategy: "compaction", Status: status, AtMessage: at,
		SummaryID: m.id, Summary: text, SummaryMissing: text == "",
		CreatedAt: millis(in.Time.Created), CompletedAt: millis(in.Time.Completed), Line: m.line}
	if r, ok := b.requests[in.ParentID]; ok {
		c.AtMessage = r.at
		c.Trigger = "manual"
		if r.auto {
			c.Trigger = "auto"
		}
		b.window(&c, r)
	} else {
		b.warn(&m.row, "%s: compaction summary whose request (parent %s) is not a user message with a compaction part; it takes effect at the summary", m.where("message"), in.ParentID)
	}
	if c.AtMessage < 0 {
		c.AtMessage = len(b.s.Messages)
	}
	b.s.Recorded.Compactions = append(b.s.Recorded.Compactions, c)
}

// window records what a compaction summarized: the messages from the
// previous compaction's request (or the start) to the one before the
// request, or before the kept tail when the request names one
// (tail_start_id, newer builds: filterCompacted then sends the request, the
// summary, the tail and what follows, so the tail stays verbatim).
func (b *builder) window(c *corpus.Compaction, r request) {
	// from is the last compaction recorded before this one that took
	// effect before its request: found from the end, as a pass from the
	// start made a session of many compactions quadratic.
	from := 0
	for i := len(b.s.Recorded.Compactions) - 1; i >= 0; i-- {
		if prev := &b.s.Recorded.Compactions[i]; prev.Strategy == "compaction" && prev.AtMessage < r.at {
			from = prev.AtMessage
			break
		}
	}
	to := r.at - 1
	if r.tail != "" {
		for i := from; i < r.at; i++ {
			if b.s.Messages[i].ID == r.tail {
				to = i - 1
				break
			}
		}
	}
	if from > to || to >= len(b.s.Messages) {
		return
	}
	c.SourceFrom, c.SourceTo, c.InputMessages = b.s.Messages[from].ID, b.s.Messages[to].ID, to-from+1
}

// prunes groups the pruned tool parts into prunes and puts every recorded
// compaction in the order it took effect.
func (b *builder) prunes() {
	ps := b.pruned
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return ps[order[i]].at < ps[order[j]].at })
	rc := &b.s.Recorded
	// A prune takes effect at the first message written after its last
	// mark. Prunes come in the order of their last marks, so that message
	// never comes before the previous prune's: one pointer finds them all
	// (next), where a pass over the messages per prune was quadratic. A
	// mark too large for a time (past 2^63 ms) reads as one long past, and
	// sends the pointer back to the start.
	next, prev := 0, time.Time{}
	for k := 0; k < len(order); {
		end := k + 1
		for end < len(order) && ps[order[end]].at-ps[order[end-1]].at < pruneGap {
			end++
		}
		group := append([]int(nil), order[k:end]...)
		sort.Ints(group) // history order
		last := ps[order[end-1]].at
		c := corpus.Compaction{Strategy: "prune", Trigger: "auto", Status: "completed",
			CreatedAt: millis(ps[order[k]].at), CompletedAt: millis(last), Line: ps[group[0]].line}
		for _, i := range group {
			c.ClearedIDs = append(c.ClearedIDs, ps[i].callID)
		}
		t := millis(last)
		if t.Before(prev) {
			next = 0
		}
		for next < len(b.s.Messages) && !b.s.Messages[next].Time.After(t) {
			next++
		}
		prev = t
		c.AtMessage = next
		rc.Compactions = append(rc.Compactions, c)
		k = end
	}
	sort.SliceStable(rc.Compactions, func(i, j int) bool { return rc.Compactions[i].AtMessage < rc.Compactions[j].AtMessage })
	for i := range rc.Compactions {
		rc.Compactions[i].Index = i
	}
}
