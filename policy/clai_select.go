package policy

import (
	"strconv"
	"strings"
)

// select_head_and_tail (compaction.rs:440-493) as released, and the PR #154
// clamp that closes its two holes.

// ClaiDigestOptions are the digest's knobs (clai's constants by default).
type ClaiDigestOptions struct {
	Budget int // SUMMARY_TRANSCRIPT_MAX_CHARS
	// The head slice is Budget*HeadNum/HeadDen (clai: budget/3), the tail
	// slice the rest.
	HeadNum, HeadDen int
	ToolCallCap      int // DIGEST_TOOL_CALL_MAX_CHARS
	ToolResultCap    int // DIGEST_TOOL_RESULT_MAX_CHARS
	// Clamp and Strip are the two halves of PR #154.
	Clamp, Strip bool
}

// claiLegacyDigest are HEAD's values: no clamp, no strip.
func claiLegacyDigest() ClaiDigestOptions {
	return ClaiDigestOptions{Budget: 96_000, HeadNum: 1, HeadDen: 3, ToolCallCap: 200, ToolResultCap: 400}
}

func (o ClaiDigestOptions) headBudget() int { return o.Budget * o.HeadNum / o.HeadDen }

// claiSelection is select_head_and_tail's result before it is joined, so
// the digest can be written into one buffer: pieces joined by "\n\n", with
// the omission marker for omitted messages before pieces[markerAt].
type claiSelection struct {
	pieces   []claiPiece
	markerAt int // -1: no marker
	omitted  int
}

func (s claiSelection) len() int {
	n := 0
	for _, p := range s.pieces {
		n += p.len()
	}
	if len(s.pieces) > 1 {
		n += claiSep * (len(s.pieces) - 1)
	}
	if s.markerAt >= 0 {
		n += len(claiOmissionMarker(s.omitted)) + claiSep
	}
	return n
}

func (s claiSelection) writeTo(b *strings.Builder) {
	for i, p := range s.pieces {
		if i == s.markerAt {
			b.WriteString("\n\n")
			b.WriteString(claiOmissionMarker(s.omitted))
		}
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(p.header)
		b.WriteString(p.body)
	}
}

func (s claiSelection) String() string {
	var b strings.Builder
	b.Grow(s.len())
	s.writeTo(&b)
	return b.String()
}

// claiSelectHeadAndTail is select_head_and_tail as released (HEAD,
// compaction.rs:440-493), holes included: message 0 is always kept whole
// (line 456), the newest message too (line 470), and when head and tail
// meet everything is returned with no budget check (lines 478-480).
func claiSelectHeadAndTail(rendered []string, budget int) string {
	return claiSelect(claiBodies(rendered), budget, budget/3, false).String()
}

// claiBodies are rendered messages given whole, as bodies.
func claiBodies(rendered []string) []claiPiece {
	out := make([]claiPiece, len(rendered))
	for i, r := range rendered {
		out[i].body = r
	}
	return out
}

// claiSelect is select_head_and_tail with the head slice given, and with
// clamp the fix: a message that alone exceeds the slice it lands in is cut
// to fit it (the head keeps its start, the tail its end, each with a note),
// so the result never exceeds budget plus the omission marker.
func claiSelect(rendered []claiPiece, budget, headBudget int, clamp bool) claiSelection {
	total := 0
	for _, r := range rendered {
		total += r.len() + claiSep
	}
	if total <= budget {
		return claiSelection{pieces: rendered, markerAt: -1}
	}
	tailBudget := budget - headBudget
	n := len(rendered)
	var first, last claiPiece // clamped versions of message 0 and n-1
	var clampedFirst, clampedLast bool
	headEnd, acc := 0, 0
	for headEnd < n {
		r := rendered[headEnd]
		next := acc + r.len() + claiSep
		if next > headBudget {
			if headEnd > 0 {
				break
			}
			if clamp {
				first, clampedFirst = claiPiece{body: claiClampMessage(r.String(), headBudget-claiSep, true)}, true
				next = first.len() + claiSep
			}
		}
		acc = next
		headEnd++
	}
	tailStart := n
	acc = 0
	for tailStart > headEnd {
		r := rendered[tailStart-1]
		next := acc + r.len() + claiSep
		if next > tailBudget {
			if tailStart < n {
				break
			}
			if clamp {
				last, clampedLast = claiPiece{body: claiClampMessage(r.String(), tailBudget-claiSep, false)}, true
				next = last.len() + claiSep
			}
		}
		acc = next
		tailStart--
	}
	pieces := rendered
	if clampedFirst || clampedLast {
		pieces = append([]claiPiece(nil), rendered...)
		if clampedFirst {
			pieces[0] = first
		}
		if clampedLast {
			pieces[n-1] = last
		}
	}
	if tailStart <= headEnd {
		return claiSelection{pieces: pieces, markerAt: -1}
	}
	kept := make([]claiPiece, 0, headEnd+n-tailStart)
	kept = append(kept, pieces[:headEnd]...)
	kept = append(kept, pieces[tailStart:]...)
	return claiSelection{pieces: kept, markerAt: headEnd, omitted: tailStart - headEnd}
}

// claiClampMessage is the fix's clamp_message: a rendered message cut to at
// most max bytes, note included. keepStart keeps its opening (the head
// slice: the original goal); otherwise its header line and its end (the
// tail slice: the most recent text). The note says how many bytes were cut
// and points at history_query. If max cannot even hold the note, the
// message is cut without one, so the bound holds for any slice size.
func claiClampMessage(rendered string, max int, keepStart bool) string {
	if len(rendered) <= max {
		return rendered
	}
	if max < 0 {
		max = 0
	}
	// The note's count is at most len(rendered), so sizing the note for
	// that many digits keeps the result within max.
	digits := len(strconv.Itoa(len(rendered)))
	if keepStart {
		room := max - len(claiHeadNoteA) - digits - len(claiHeadNoteB)
		if room < 0 {
			return claiSafePrefix(rendered, max)
		}
		kept := claiSafePrefix(rendered, room)
		return kept + claiHeadNoteA + strconv.Itoa(len(rendered)-len(kept)) + claiHeadNoteB
	}
	header := ""
	if i := strings.IndexByte(rendered, '\n'); i >= 0 {
		header = rendered[:i+1]
	}
	body := rendered[len(header):]
	room := max - len(header) - len(claiTailNoteA) - digits - len(claiTailNoteB)
	if room < 0 {
		return claiSafeSuffix(rendered, max)
	}
	kept := claiSafeSuffix(body, room)
	return header + claiTailNoteA + strconv.Itoa(len(body)-len(kept)) + claiTailNoteB + kept
}
