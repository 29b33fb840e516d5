package policy

import (
	"iter"
	"math"
	"slices"
	"strconv"

	"github.com/calib-dev/calib/corpus"
)

// smith's marker and stub texts, byte for byte (specs/smith.md §3.2, §3.7).
const (
	smithTruncationMarker = "truncated by smith to stay within the context window"
	smithSupersededMarker = "superseded by a later identical call"
	smithMediaMarker      = "removed to stay within the context window; mention it again to re-attach it"
	smithSummaryPrefix    = "Summary of the earlier conversation: "
	smithDroppedSuffix    = " earlier messages were dropped to stay within the context window. Ask the user if you need details from before this point."
)

// smithRequests gives both smith policies smith's checkpoints: Checkpoint
// reports whether smith asks its provider for a response right before
// next is appended (specs/smith.md §5): before every assistant
// message, and, in smith's own formats, where a request left no record:
// before a synthetic user message not preceded by an assistant message,
// and before a real user message that follows another user message. A
// summary followed by a user message is the normal shape of a compacted
// history, not a lost request. The lost requests are a fact about smith's
// recordings (a failed request leaves the user message and no reply), not
// about other agents': in a Claude Code log a user message after another
// is a local command (/context, /export) and in a Codex rollout the
// instructions, the environment and the prompt are three user messages of
// one request, so there smith's policies ask before assistant messages only,
// as every other policy does.
type smithRequests struct{}

func (smithRequests) Checkpoint(f corpus.Format, prev, next *corpus.Message) bool {
	switch {
	case next.Role == corpus.RoleAssistant:
		return true
	case next.Role != corpus.RoleUser || prev == nil || !f.Smith():
		return false
	case next.Synthetic:
		return prev.Role != corpus.RoleAssistant
	default:
		return prev.Role == corpus.RoleUser && !prev.Summary
	}
}

// windowStart is smith's window_start(msgs, n): the index of the n-th last
// real turn start, 0 when there are at most n of them, len(h) when n <= 0
// (nothing protected). It scans from the end, so it costs the window, not
// the history, in the common case.
func windowStart(h []corpus.Message, n int) int {
	if n <= 0 {
		return len(h)
	}
	seen, at := 0, 0
	for i := len(h) - 1; i >= 0; i-- {
		if !h[i].RealTurn() { // smith's window_start test; a summary counts (it is not synthetic)
			continue
		}
		seen++
		if seen == n {
			at = i
		} else if seen > n {
			return at
		}
	}
	return 0
}

// working is smith's Working: the history being compacted with per-message
// units and a running total, so that every fits? test is O(1) and the total
// always equals a fresh measure of the array. The input history is never
// modified: the slice is copied on the first write and a message's blocks
// on the first write to that message.
type working struct {
	msgs  []corpus.Message
	sizes []int64
	total int64
	meter *Meter
	// copied is set once msgs no longer aliases the input; owned[i] once
	// msgs[i].Blocks no longer aliases the input's blocks.
	copied bool
	owned  []bool
	// The stages' scratch: the calls supersedeDuplicates reads and the
	// candidates truncateLargestFirst sorts. None of it outlives the
	// compaction; a workPool keeps it (and sizes and owned) for the next.
	uses   []*corpus.Block
	calls  map[string]callKey
	newest map[callKey]string
	cands  []resultCand
	// spare is Checkpoint.Spare until a new history is built in it
	// (newHistory).
	spare []corpus.Message
}

func newWorking(h []corpus.Message, m *Meter) *working {
	w := &working{}
	w.reset(h, m)
	return w
}

// newWorkingBefore is the working history of h for a stage that changes
// only blocks of messages before end, by setBlock, given h's total (the
// replay's running sum of m over h): nothing is measured, so a stage that
// runs at every request of a long turn does not measure the whole history
// each time. No message's size is known (sizes hold only what setBlock
// changed, and none from end on): the total is, and it is all such a
// stage reads.
func newWorkingBefore(h []corpus.Message, m *Meter, total int64, end int) *working {
	return &working{msgs: h, meter: m, total: total, sizes: make([]int64, end)}
}

// reset makes w the working history of h, keeping the arrays and maps of
// its scratch.
func (w *working) reset(h []corpus.Message, m *Meter) {
	w.msgs, w.meter, w.total, w.copied = h, m, 0, false
	w.sizes = slices.Grow(w.sizes[:0], len(h))[:len(h)]
	for i := range h {
		w.sizes[i] = m.Message(&h[i])
		w.total += w.sizes[i]
	}
}

func (w *working) tokens() int { return w.meter.Tokens(w.total) }

func (w *working) fits(limit int) bool { return w.tokens() <= limit }

// resultsUntilFit yields the tool results of the messages before end,
// oldest first, as message and block indexes, until the history fits
// limit (checked before each). The loop body may replace the block
// (setBlock), so it looks it up by its indexes.
func (w *working) resultsUntilFit(end, limit int) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for i := 0; i < end; i++ {
			for j := range w.msgs[i].Blocks {
				if w.msgs[i].Blocks[j].Kind != corpus.KindToolResult {
					continue
				}
				if w.fits(limit) || !yield(i, j) {
					return
				}
			}
		}
	}
}

func (w *working) changed() bool { return w.copied }

// ownHistory copies msgs on the first write, into an array with the room
// a summarized history gets (historyRoom): summarize then writes its
// history into this copy instead of a second array, and a history the
// stages alone compacted has room to grow.
func (w *working) ownHistory() {
	if !w.copied {
		w.msgs = append(w.newHistory(len(w.msgs)), w.msgs...)
		w.owned = slices.Grow(w.owned[:0], len(w.msgs))[:len(w.msgs)]
		clear(w.owned)
		w.copied = true
	}
}

// newHistory is an empty array for a compacted history of at most n
// messages: the caller's spare when it has historyRoom(n), a new one
// otherwise. The spare is used once.
func (w *working) newHistory(n int) []corpus.Message {
	buf := w.spare
	w.spare = nil
	if cap(buf) < historyRoom(n) {
		return make([]corpus.Message, 0, historyRoom(n))
	}
	return buf[:0]
}

// historyRoom is the capacity of a compacted history of at most n
// messages: the replay appends to it message by message until the next
// compaction, by when it has grown back to about the length it had before
// this one (n) or longer: room for that and a quarter more saves the
// copies and doublings of an array filled to the brim.
func historyRoom(n int) int {
	room := n + 1
	return room + room/4
}

func (w *working) own(i int) {
	w.ownHistory()
	if !w.owned[i] {
		w.msgs[i].Blocks = slices.Clone(w.msgs[i].Blocks)
		w.owned[i] = true
	}
}

// setBlock replaces block j of message i and returns the smith bytes removed.
func (w *working) setBlock(i, j int, b corpus.Block) int64 {
	w.own(i)
	old := &w.msgs[i].Blocks[j]
	removed := smithBytes(old) - smithBytes(&b)
	d := w.meter.Block(&b) - w.meter.Block(old)
	*old = b
	w.sizes[i] += d
	w.total += d
	return removed
}

// setBlocks replaces all blocks of message i (keeping its id, role and
// flags) and returns the smith bytes removed.
func (w *working) setBlocks(i int, blocks []corpus.Block) int64 {
	// The old blocks are read, never written: they need no copy.
	w.ownHistory()
	w.owned[i] = true
	var removed int64
	for k := range w.msgs[i].Blocks {
		removed += smithBytes(&w.msgs[i].Blocks[k])
	}
	for k := range blocks {
		removed -= smithBytes(&blocks[k])
	}
	w.msgs[i].Blocks = blocks
	n := w.meter.Message(&w.msgs[i])
	w.total += n - w.sizes[i]
	w.sizes[i] = n
	return removed
}

// smithBytes is the content a block carries, in bytes, whatever the meter:
// what StageReport.BytesRemoved counts.
func smithBytes(b *corpus.Block) int64 {
	return int64(len(b.Content()) + len(b.Args) + len(b.ToolName) + len(b.Signature))
}

// contentOf is the blocks of msgs and their bytes (smithBytes): what a
// stage that summarizes or drops them reports as touched and removed.
func contentOf(msgs []corpus.Message) (blocks int, bytes int64) {
	for i := range msgs {
		blocks += len(msgs[i].Blocks)
		for k := range msgs[i].Blocks {
			bytes += smithBytes(&msgs[i].Blocks[k])
		}
	}
	return blocks, bytes
}

// safeCutIndex is smith's safe_cut_index over the working history: the
// first candidate i > 0 whose suffix fits in limit tokens, else the last
// candidate (which keeps at least the current turn), else 0. Candidates are
// user messages, and with realOnly (the staged design) only real ones, so
// the cut never strands a continuation or splits a tool pair.
func (w *working) safeCutIndex(limit int, realOnly bool) int {
	suffix := w.total
	last := 0
	for i := range w.msgs {
		if i > 0 {
			m := &w.msgs[i]
			if m.Role == corpus.RoleUser && (!realOnly || !m.Synthetic) {
				if w.meter.Tokens(suffix) <= limit {
					return i
				}
				last = i
			}
		}
		suffix -= w.sizes[i]
	}
	return last
}

// summarize replaces msgs[:cut] with one summary message (smith's stage 3):
// the summarizer's text, or smith's Dropped text when it fails. It returns
// the new history, its units, the strategy and the summarizer's own
// description.
func (w *working) summarize(cut int, s Summarizer, at Checkpoint) ([]corpus.Message, int64, Strategy, string) {
	prefix, tail := w.msgs[:cut], w.msgs[cut:]
	text, used, err := s.Summarize(SummaryRequest{Prefix: prefix, Next: &tail[0], Session: at.Session})
	strategy := Summarized
	if err != nil {
		strategy = Dropped
		text = strconv.Itoa(len(prefix)) + smithDroppedSuffix
		used = used + " (failed: " + err.Error() + "; dropped)"
	}
	sum := corpus.Message{
		ID:      "calib-summary-" + strconv.Itoa(at.Request),
		Role:    corpus.RoleUser,
		Summary: true,
		Blocks:  []corpus.Block{{Kind: corpus.KindText, Text: smithSummaryPrefix + text}},
	}
	// The new history becomes the replay's, which appends to it
	// (historyRoom). When the stages copied the history, that copy is
	// this compaction's own: the summary and the tail move to its front
	// (copy moves overlapping messages as memmove does) and the rest is
	// cleared, so that the array keeps no dropped message alive.
	var out []corpus.Message
	if w.copied {
		w.msgs[0] = sum
		n := 1 + copy(w.msgs[1:], tail)
		clear(w.msgs[n:])
		out = w.msgs[:n]
	} else {
		out = append(w.newHistory(len(w.msgs)), sum)
		out = append(out, tail...)
	}
	var units int64
	for i := cut; i < len(w.msgs); i++ {
		units += w.sizes[i]
	}
	units += w.meter.Message(&out[0])
	return out, units, strategy, used
}

// smithBudget is smith's Budget (specs/smith.md §3.3): trigger and target
// truncated from fractions of max, the request cost charged with overhead
// and ratio, rounded ties-to-even as current Crystal rounds.
type smithBudget struct {
	max, trigger, target, overhead int
	ratio                          float64
}

func (b smithBudget) charged(raw int) int {
	return int(math.RoundToEven(float64(raw+b.overhead) * b.ratio))
}

// allowance is the largest raw history estimate whose charged cost fits.
func (b smithBudget) allowance(limit int) int {
	return max(0, int(float64(limit)/b.ratio)-b.overhead)
}

// resultBlock rebuilds a tool_result as smith does: id, new text, is_error.
func resultBlock(b *corpus.Block, text string) corpus.Block {
	return corpus.Block{Kind: corpus.KindToolResult, Text: text, ToolCallID: b.ToolCallID, IsError: b.IsError}
}

// truncatedHead is "<keep bytes>\n\n[... N KiB truncated by smith … ...]",
// shared with smith-legacy (keep = 2 000).
func truncatedHead(text string, keep int) string {
	return text[:keep] + "\n\n[... " + strconv.Itoa((len(text)-keep)/1024) + " KiB " + smithTruncationMarker + " ...]"
}

// summaryStage is stage 3, shared by both smith policies: the prefix before
// cut is replaced by a summary message (or the Dropped text), and the
// outcome gets the stage's report and the new history. charge converts raw
// tokens to the policy's charged cost.
func (w *working) summaryStage(cut int, s Summarizer, at Checkpoint, m *Meter, charge func(int) int, o *Outcome) {
	t0 := charge(w.tokens())
	var blocks int
	var bytes int64
	for i := 0; i < cut; i++ {
		blocks += len(w.msgs[i].Blocks)
		for k := range w.msgs[i].Blocks {
			bytes += smithBytes(&w.msgs[i].Blocks[k])
		}
	}
	out, units, strategy, used := w.summarize(cut, s, at)
	bytes -= smithBytes(&out[0].Blocks[0])
	o.AfterTokens = charge(m.Tokens(units))
	name := "summarize"
	if strategy == Dropped {
		name = "drop"
	}
	o.Stages = append(o.Stages, StageReport{Name: name, BeforeTokens: t0, AfterTokens: o.AfterTokens, BlocksTouched: blocks, BytesRemoved: bytes})
	o.History, o.Strategy, o.Summarizer, o.Owned = out, strategy, used, true
	if strategy == Summarized {
		o.SummaryTokens = m.Tokens(m.Message(&out[0]))
	}
	o.Removed = cut - 1
	o.Units, o.Count = units, int64(len(out))
}
