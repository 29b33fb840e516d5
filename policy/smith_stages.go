package policy

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
)

// The stages of smith's staged compaction (specs/smith.md §3.4), as
// operations on a working history. Each checks fits?(target) before every
// rewrite and reports how many blocks it touched and the bytes it removed.

// dropStaleThinking is stage 0: thinking and redacted_thinking blocks
// before protectedFrom go, unless they are all a message holds (an
// assistant message with no blocks is rejected by providers).
func (w *working) dropStaleThinking(protectedFrom, target int) (touched int, removed int64) {
	for i := 0; i < protectedFrom; i++ {
		if !hasKind(&w.msgs[i], corpus.KindThinking, corpus.KindRedactedThinking) {
			continue
		}
		if w.fits(target) {
			break
		}
		old := w.msgs[i].Blocks
		kept := make([]corpus.Block, 0, len(old))
		for _, b := range old {
			if b.Kind != corpus.KindThinking && b.Kind != corpus.KindRedactedThinking {
				kept = append(kept, b)
			}
		}
		if len(kept) == 0 {
			continue
		}
		touched += len(old) - len(kept)
		removed += w.setBlocks(i, kept)
	}
	return touched, removed
}

// mediaNote is the text that replaces an attachment:
// "[shot.png — removed to stay within the context window; …]". smith uses
// source || media_type || "attachment"; an empty string stands for nil.
func mediaNote(b *corpus.Block) string {
	name := b.Source
	if name == "" {
		name = b.MediaType
	}
	if name == "" {
		name = "attachment"
	}
	return "[" + name + " \u2014 " + smithMediaMarker + "]"
}

// dropStaleMedia is stage 0b: attachments before end become notes. In a
// user message each media block becomes a text block holding the note; in
// a tool message the media blocks go and their notes are appended to the
// tool_result with the same tool_call_id. toolOnly (the last resort) leaves
// the user's own attachments alone.
func (w *working) dropStaleMedia(end, target int, toolOnly bool) (touched int, removed int64) {
	for i := 0; i < end; i++ {
		m := &w.msgs[i]
		if !hasKind(m, corpus.KindImage, corpus.KindDocument) || (toolOnly && m.Role != corpus.RoleTool) {
			continue
		}
		if w.fits(target) {
			break
		}
		var blocks []corpus.Block
		if m.Role == corpus.RoleTool {
			blocks = mediaIntoResults(m.Blocks)
		} else {
			blocks = make([]corpus.Block, len(m.Blocks))
			for k, b := range m.Blocks {
				if isMedia(&b) {
					b = corpus.Block{Kind: corpus.KindText, Text: mediaNote(&b)}
				}
				blocks[k] = b
			}
		}
		for k := range m.Blocks {
			if isMedia(&m.Blocks[k]) {
				touched++
			}
		}
		removed += w.setBlocks(i, blocks)
	}
	return touched, removed
}

// mediaIntoResults drops the media blocks of a tool message and appends
// their notes to the matching tool_result as text + "\n\n" + notes joined
// by "\n". A media block whose id matches no result (which smith never
// writes) is noted on the nearest result before it, or kept as a text note
// when the message has none, so that nothing vanishes silently.
func mediaIntoResults(old []corpus.Block) []corpus.Block {
	notes := map[string][]string{}
	var out []corpus.Block
	lastResult := ""
	for k := range old {
		b := &old[k]
		switch {
		case b.Kind == corpus.KindToolResult:
			lastResult = b.ToolCallID
			out = append(out, *b)
		case isMedia(b):
			id := b.ToolCallID
			if !hasResult(old, id) {
				id = lastResult
			}
			if !hasResult(old, id) {
				out = append(out, corpus.Block{Kind: corpus.KindText, Text: mediaNote(b)})
				continue
			}
			notes[id] = append(notes[id], mediaNote(b))
		default:
			out = append(out, *b)
		}
	}
	for k := range out {
		b := &out[k]
		if b.Kind == corpus.KindToolResult && len(notes[b.ToolCallID]) > 0 {
			b.Text = b.Text + "\n\n" + strings.Join(notes[b.ToolCallID], "\n")
			delete(notes, b.ToolCallID) // the first result with that id takes them
		}
	}
	return out
}

func hasResult(bs []corpus.Block, id string) bool {
	if id == "" {
		return false
	}
	for k := range bs {
		if bs[k].Kind == corpus.KindToolResult && bs[k].ToolCallID == id {
			return true
		}
	}
	return false
}

// supersedeDuplicates is stage 1: a result of a supersedable tool whose
// call (name + exact argument JSON) is repeated later becomes a stub. The
// newest call of each key is found over the whole history, window
// included; only results before end are rewritten, by stub's text (smith's
// is smithSupersededStub).
func (w *working) supersedeDuplicates(end, target int, tools map[string]bool, stub func(name string, b *corpus.Block) string) (touched int, removed int64) {
	if w.fits(target) {
		return 0, 0 // nothing to do: skip building the maps
	}
	// Collect the supersedable calls first (one tools lookup each: they
	// were a fifth of this stage) and size calls for them: sized for
	// len(w.msgs), as it was, both maps allocated and cleared tables about
	// twice as big as they needed (a tenth of a smith-staged sweep), and
	// unsized, calls grew by rehashing (a third of this stage's time on
	// tool-heavy sessions). newest holds one entry per distinct call, far
	// fewer (repeats are what this stage is about), so it grows from small.
	// With fewer than two such calls nothing can be superseded. A working
	// from a workPool brings the maps of an earlier compaction, emptied.
	uses := w.uses[:0]
	for i := range w.msgs {
		for k := range w.msgs[i].Blocks {
			if b := &w.msgs[i].Blocks[k]; b.Kind == corpus.KindToolUse && tools[b.ToolName] {
				uses = append(uses, b)
			}
		}
	}
	w.uses = uses
	if len(uses) < 2 {
		return 0, 0
	}
	if w.calls == nil {
		w.calls = make(map[string]callKey, len(uses))
		w.newest = make(map[callKey]string)
	}
	calls, newest := w.calls, w.newest
	for _, b := range uses {
		// The key views the recorded argument bytes as a string without
		// copying them (they are never modified).
		k := callKey{b.ToolName, unsafe.String(unsafe.SliceData(b.Args), len(b.Args))}
		calls[b.ToolCallID] = k
		newest[k] = b.ToolCallID
	}
	for i, j := range w.resultsUntilFit(end, target) {
		b := &w.msgs[i].Blocks[j]
		c, ok := calls[b.ToolCallID]
		if !ok || newest[c] == b.ToolCallID {
			continue
		}
		text := stub(c.name, b)
		if text == "" || len(text) >= len(b.Content()) {
			continue
		}
		removed += w.setBlock(i, j, resultBlock(b, text))
		touched++
	}
	return touched, removed
}

// callKey is what makes two tool calls the same call: the tool's name and
// its exact argument JSON.
type callKey struct{ name, args string }

// smithSupersededStub is smith's text for a superseded result, or "" when
// it would be no shorter than the result (the stage then leaves it): a
// result stubbed at an earlier compaction is seen again at every later
// one, and building its stub anew only to drop it was a twentieth of the
// bytes a smith-staged sweep allocated.
func smithSupersededStub(name string, b *corpus.Block) string {
	const head, tail = "[: " + smithSupersededMarker + ", ", " KiB omitted by smith]"
	kib := len(b.Content()) / 1024
	if len(head)+len(name)+decimalLen(kib)+len(tail) >= len(b.Content()) {
		return ""
	}
	return "[" + name + ": " + smithSupersededMarker + ", " + strconv.Itoa(kib) + " KiB omitted by smith]"
}

// truncateLargestFirst is stage 2: the results of tool messages before end,
// largest first (a stable sort, so ties stay in transcript order), are
// shortened by shortenResult until the history fits.
func (w *working) truncateLargestFirst(end, target, keep int) (touched int, removed int64) {
	cands := w.cands[:0]
	for i := 0; i < end; i++ {
		if w.msgs[i].Role != corpus.RoleTool {
			continue
		}
		for j := range w.msgs[i].Blocks {
			if b := &w.msgs[i].Blocks[j]; b.Kind == corpus.KindToolResult {
				cands = append(cands, resultCand{i, j, len(b.Content())})
			}
		}
	}
	w.cands = cands
	// Largest first, ties in transcript order: cands are collected in that
	// order, so breaking ties by it gives what a stable sort gives, for
	// the cost of an unstable one.
	slices.SortFunc(cands, func(a, b resultCand) int {
		if c := cmp.Compare(b.size, a.size); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j))
	})
	for _, c := range cands {
		if w.fits(target) {
			break
		}
		b := &w.msgs[c.i].Blocks[c.j]
		short := shortenResult(b.Content(), keep)
		if short == "" {
			continue
		}
		removed += w.setBlock(c.i, c.j, resultBlock(b, short))
		touched++
	}
	return touched, removed
}

// resultCand is a tool result truncateLargestFirst may shorten: message
// and block index, and its size.
type resultCand struct{ i, j, size int }

// shortenResult is smith's shorten, when it makes text shorter, and ""
// when it does not (the stage then leaves the result alone; the lengths
// are worked out first, so that a result already shortened at an earlier
// compaction costs no text built only to be dropped): a text that already
// carries a marker collapses to a one-line stub (its current size in KiB);
// a longer text keeps its first keep bytes (byte_slice, which may split a
// character, as Go slicing does) and a marker.
func shortenResult(text string, keep int) string {
	const stubLen = len("[ KiB " + smithTruncationMarker + "]")
	const headLen = len("\n\n[...  KiB " + smithTruncationMarker + " ...]")
	if hasSmithMarker(text) {
		if stubLen+decimalLen(len(text)/1024) >= len(text) {
			return ""
		}
		return "[" + strconv.Itoa(len(text)/1024) + " KiB " + smithTruncationMarker + "]"
	}
	if len(text) <= keep || keep+headLen+decimalLen((len(text)-keep)/1024) >= len(text) {
		return ""
	}
	return truncatedHead(text, keep)
}

// decimalLen is len(strconv.Itoa(n)) for n >= 0, without the string.
func decimalLen(n int) int {
	d := 1
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}

func hasKind(m *corpus.Message, kinds ...corpus.BlockKind) bool {
	for k := range m.Blocks {
		if slices.Contains(kinds, m.Blocks[k].Kind) {
			return true
		}
	}
	return false
}

func isMedia(b *corpus.Block) bool {
	return b.Kind == corpus.KindImage || b.Kind == corpus.KindDocument
}
