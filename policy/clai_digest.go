package policy

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
)

// clai's deterministic digest (src-tauri/src/assistant/compaction.rs @HEAD
// 57dc2d9, shared/specs/clai.md §2), reproduced byte for byte, plus the
// PR #154 fix (clamp each message to its slice, strip a prior digest's
// preambles) as a reconstruction, since the PR diff is not available.
//
// Every size here is a UTF-8 byte count, as clai's str::len is, and every
// cut backs off to a rune boundary as Rust's is_char_boundary loops do.

// clai's constants (compaction.rs:13-31).
const (
	claiCompactionSource  = "clai-compaction"
	claiSummaryToolCall   = 4000 // SUMMARY_TOOL_CALL_MAX_CHARS: the trigger's estimate
	claiSummaryToolResult = 8000 // SUMMARY_TOOL_RESULT_MAX_CHARS
	claiSep               = 2    // "\n\n" between rendered messages
	claiTruncated         = "...[truncated]"
)

// claiCLIClampMarker joins the head and tail the CLI boundary keeps of an
// oversized digest. The PR text gives the bracketed words; the surrounding
// blank lines are our choice (not pinned by any readable source) and the
// marker is not charged to cli_clamp_bytes.
const claiCLIClampMarker = "\n\n[... middle of oversized compacted summary omitted ...]\n\n"

// claiMarkerTail is the fixed part of select_head_and_tail's omission
// marker after "{n} middle message{s}" (compaction.rs:482-492).
const claiMarkerTail = " omitted during compaction; recover the full verbatim history with the read-only `history_query` tool (`.clai/data.sqlite`) ...]"

// Clamp notes of the fixed variant. PR #154 says each clamp adds "an
// explicit note pointing at history_query" but its strings are unknown;
// these are ours. They are charged to the slice budget (the clamped message,
// note included, fits its slice), so the digest bound does not depend on
// their length.
const (
	claiHeadNoteA = "\n[... "
	claiHeadNoteB = " more bytes of this message clipped during compaction; recover them with the read-only `history_query` tool (`.clai/data.sqlite`) ...]"
	claiTailNoteA = "[... "
	claiTailNoteB = " earlier bytes of this message clipped during compaction; recover them with the read-only `history_query` tool (`.clai/data.sqlite`) ...]\n"
)

// claiDigestOverhead bounds what a fixed-variant digest may add to its
// budget: P1, P2, their two "\n\n" separators and the omission marker with
// a count of up to nine digits. With the clamp on, every digest satisfies
// len(text) <= budget + claiDigestOverhead (1 161 bytes: 96 000 → 97 161,
// the "≈97.2 KB" of the PR).
const claiDigestOverhead = len(clai.SummaryPreamble) + len(clai.DigestPreamble) + 2*claiSep +
	len("[... ") + 9 + len(" middle messages") + len(claiMarkerTail)

// claiSafePrefix is Rust's safe_prefix: s cut at max bytes, backed off to a
// rune boundary.
func claiSafePrefix(s string, max int) string {
	if max >= len(s) {
		return s
	}
	if max < 0 {
		max = 0
	}
	end := max
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end]
}

// claiSafeSuffix is safe_suffix: the last max bytes of s, moved forward to a
// rune boundary.
func claiSafeSuffix(s string, max int) string {
	if max >= len(s) {
		return s
	}
	if max < 0 {
		max = 0
	}
	start := len(s) - max
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}

// claiTruncateJSON is truncate_json. raw is serde_json's compact output;
// clai stored content_json with the same serializer, so the recorded raw
// bytes are byte-identical to to_string(value) (specs §2.5) and are never
// re-marshalled. Absent JSON is serde's "null".
func claiTruncateJSON(raw []byte, max int) string {
	s := claiJSON(raw)
	if len(s) <= max {
		return s
	}
	return claiSafePrefix(s, max) + claiTruncated
}

// claiTruncatedLen is len(claiTruncateJSON(raw, max)) without the copy.
func claiTruncatedLen(raw []byte, max int) int {
	if len(raw) == 0 {
		raw = []byte("null")
	}
	if len(raw) <= max {
		return len(raw)
	}
	end := max
	for end > 0 && !utf8.RuneStart(raw[end]) {
		end--
	}
	return end + len(claiTruncated)
}

func claiJSON(raw []byte) string {
	if len(raw) == 0 {
		return "null"
	}
	return string(raw)
}

// claiResultJSON is the payload of a tool result. clai's is structured JSON
// (Block.Payload); a result from another format that only has text is
// rendered as that text's JSON string, as serde would write it.
func claiResultJSON(b *corpus.Block) []byte {
	if len(b.Payload) > 0 || b.Text == "" {
		return b.Payload
	}
	return clai.AppendJSONString(make([]byte, 0, len(b.Text)+2), b.Text)
}

// claiRenderContentParts is render_content_parts: each part mapped, the
// mapped parts joined with "\n". Text is verbatim and never capped;
// thinking is dropped (not joined); tool calls and results are capped with
// truncate_json. Kinds clai does not have: redacted thinking and unknown
// blocks are dropped like thinking, a document renders as "[document]".
func claiRenderContentParts(blocks []corpus.Block, callMax, resultMax int) string {
	if len(blocks) == 1 && blocks[0].Kind == corpus.KindText {
		return blocks[0].Text // shared, not copied: a chained digest is megabytes
	}
	var b strings.Builder
	b.Grow(claiContentLen(blocks, callMax, resultMax))
	first := true
	for i := range blocks {
		bl := &blocks[i]
		if !claiRendered(bl.Kind) {
			continue
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		switch bl.Kind {
		case corpus.KindText:
			b.WriteString(bl.Text)
		case corpus.KindToolUse:
			b.WriteString("[tool call: ")
			b.WriteString(bl.ToolName)
			b.WriteByte(' ')
			b.WriteString(claiTruncateJSON(bl.Args, callMax))
			b.WriteByte(']')
		case corpus.KindToolResult:
			b.WriteString("[tool result: ")
			b.WriteString(claiTruncateJSON(claiResultJSON(bl), resultMax))
			b.WriteByte(']')
		case corpus.KindImage:
			b.WriteString("[image]")
		case corpus.KindDocument:
			b.WriteString("[document]")
		}
	}
	return b.String()
}

func claiRendered(k corpus.BlockKind) bool {
	switch k {
	case corpus.KindText, corpus.KindToolUse, corpus.KindToolResult, corpus.KindImage, corpus.KindDocument:
		return true
	}
	return false
}

// claiContentLen is len(claiRenderContentParts(...)) without building the
// string: the trigger's estimate measures every message once, and this
// keeps that O(blocks) with no allocation for clai's own payloads.
func claiContentLen(blocks []corpus.Block, callMax, resultMax int) int {
	n, parts := 0, 0
	for i := range blocks {
		bl := &blocks[i]
		if !claiRendered(bl.Kind) {
			continue
		}
		parts++
		switch bl.Kind {
		case corpus.KindText:
			n += len(bl.Text)
		case corpus.KindToolUse:
			n += len("[tool call: ") + len(bl.ToolName) + 1 + claiTruncatedLen(bl.Args, callMax) + 1
		case corpus.KindToolResult:
			raw := bl.Payload
			if len(raw) == 0 && bl.Text != "" {
				raw = claiResultJSON(bl)
			}
			n += len("[tool result: ") + claiTruncatedLen(raw, resultMax) + 1
		case corpus.KindImage:
			n += len("[image]")
		case corpus.KindDocument:
			n += len("[document]")
		}
	}
	if parts > 1 {
		n += parts - 1
	}
	return n
}

// claiIsSummary is is_compaction_summary_message (compaction.rs:45-52),
// which tests only the metadata source; a loader's Summary mark counts too.
func claiIsSummary(m *corpus.Message) bool {
	return m.Source == claiCompactionSource || m.Summary
}

// claiPiece is one rendered message, header + body, kept as its two
// parts until the digest is written: a chained legacy digest is message 0's
// body, megabytes, and joining the parts copied it once more per rotation.
type claiPiece struct{ header, body string }

func (r claiPiece) len() int { return len(r.header) + len(r.body) }

func (r claiPiece) String() string { return r.header + r.body }

// claiRenderParts renders one message as render_messages does:
// "[{role} message {id}]\n{body}", header and body apart. With strip, a
// compaction summary's preambles are removed first (the PR #154 fix).
func claiRenderParts(m *corpus.Message, callMax, resultMax int, strip bool) claiPiece {
	body := claiRenderContentParts(m.Blocks, callMax, resultMax)
	if strip && claiIsSummary(m) {
		body = claiStripCompactionPreambles(body)
	}
	return claiPiece{header: "[" + string(m.Role) + " message " + m.ID + "]\n", body: body}
}

// claiRenderMessages is render_messages: one rendered message per message.
func claiRenderMessages(msgs []corpus.Message, callMax, resultMax int, strip bool) []claiPiece {
	out := make([]claiPiece, len(msgs))
	for i := range msgs {
		out[i] = claiRenderParts(&msgs[i], callMax, resultMax, strip)
	}
	return out
}

// claiStripCompactionPreambles is the fix's strip_compaction_preambles:
// while the text starts with a preamble (P1 or P1_old, longest first; P2
// or P2_old), remove it and the blank lines after it. Once a preamble has
// been removed, the "[system message <id>]" header of a summary nested
// inside it goes too, so a digest chained from legacy digests loses every
// stacked layer at its start, and a fixed chain does not stack one header
// per rotation. Text that does not start with a preamble is returned
// unchanged.
func claiStripCompactionPreambles(text string) string {
	s := text
	stripped := false
	for {
		rest := strings.TrimLeft(s, "\n")
		var ok bool
		for _, p := range claiPreamblesLongestFirst {
			if r, cut := strings.CutPrefix(rest, p); cut {
				rest, ok = r, true
				break
			}
		}
		if !ok && stripped {
			rest, ok = cutSummaryHeader(rest)
		}
		if !ok {
			if stripped {
				return strings.TrimLeft(s, "\n")
			}
			return text
		}
		s, stripped = rest, true
	}
}

var claiPreamblesLongestFirst = [...]string{
	clai.SummaryPreamble, clai.SummaryPreambleOld,
	clai.DigestPreamble, clai.DigestPreambleOld,
}

// cutSummaryHeader removes a leading "[system message <id>]\n".
func cutSummaryHeader(s string) (string, bool) {
	const open = "[system message "
	if !strings.HasPrefix(s, open) {
		return s, false
	}
	end := strings.IndexByte(s, '\n')
	if end < 0 || end > len(open)+128 || s[end-1] != ']' || strings.ContainsAny(s[len(open):end-1], "[] ") {
		return s, false
	}
	return s[end+1:], true
}

// claiOmissionMarker is the marker select_head_and_tail puts where n middle
// messages were dropped.
func claiOmissionMarker(n int) string {
	s := "s"
	if n == 1 {
		s = ""
	}
	return "[... " + strconv.Itoa(n) + " middle message" + s + claiMarkerTail
}

// claiSummaryMessageText is summary_message_text: P1, a blank line, and the
// summary trimmed (Rust's str::trim: Unicode White_Space, as Go's
// unicode.IsSpace).
func claiSummaryMessageText(summary string) string {
	return clai.SummaryPreamble + "\n\n" + strings.TrimSpace(summary)
}

// claiTrimEnd trims what str::trim removes at the end.
func claiTrimEnd(s string) string { return strings.TrimRightFunc(s, unicode.IsSpace) }

// claiCountOmissions counts omission markers and clamp notes in a digest,
// nested copies included.
// It scans for "[... " (a short needle, searched fast) and checks what
// follows, rather than counting the long tails, which start with a space
// and would make strings.Count crawl through megabytes of prose.
func claiCountOmissions(text string) int {
	const open = "[... "
	n := 0
	for i := 0; ; {
		j := strings.Index(text[i:], open)
		if j < 0 {
			return n
		}
		i += j + len(open)
		k := i
		for k < len(text) && k < i+20 && text[k] >= '0' && text[k] <= '9' {
			k++
		}
		rest := text[k:]
		if r, ok := strings.CutPrefix(rest, " middle message"); ok {
			if strings.HasPrefix(strings.TrimPrefix(r, "s"), claiMarkerTail) {
				n++
			}
		} else if strings.HasPrefix(rest, claiHeadNoteB) || strings.HasPrefix(rest, claiTailNoteB) {
			n++
		}
	}
}

// claiFallbackSummary is fallback_summary (compaction.rs:415-433): P2, a
// blank line, and the head-and-tail selection of the window rendered with
// the digest caps.
func claiFallbackSummary(window []corpus.Message, o ClaiDigestOptions) string {
	sel := o.selection(claiRenderMessages(window, o.ToolCallCap, o.ToolResultCap, o.Strip))
	var b strings.Builder
	b.Grow(len(clai.DigestPreamble) + claiSep + sel.len())
	b.WriteString(clai.DigestPreamble)
	b.WriteString("\n\n")
	sel.writeTo(&b)
	return b.String()
}

func (o ClaiDigestOptions) selection(rendered []claiPiece) claiSelection {
	return claiSelect(rendered, o.Budget, o.headBudget(), o.Clamp)
}

// ClaiDigestText is the stored text of a deterministic compaction summary,
// summary_message_text(fallback_summary(window)), written into one buffer
// (a legacy chain's digests reach megabytes). msg0 is the rendered size of
// window message 0 as it entered the selection (after the strip).
func ClaiDigestText(window []corpus.Message, o ClaiDigestOptions) (text string, msg0 int) {
	rendered := claiRenderMessages(window, o.ToolCallCap, o.ToolResultCap, o.Strip)
	if len(rendered) > 0 {
		msg0 = rendered[0].len()
	}
	sel := o.selection(rendered)
	var b strings.Builder
	b.Grow(len(clai.SummaryPreamble) + len(clai.DigestPreamble) + 2*claiSep + sel.len())
	b.WriteString(clai.SummaryPreamble)
	b.WriteString("\n\n")
	b.WriteString(clai.DigestPreamble) // P2 starts the summary: no leading space to trim
	b.WriteString("\n\n")
	sel.writeTo(&b)
	return claiTrimEnd(b.String()), msg0
}

// claiTruncateCLIContextHeadTail models the CLI-boundary clamp that PR #154
// reports (truncate_cli_context_head_tail with
// CLI_FRESH_CONTEXT_SUMMARY_MAX_BYTES): a digest longer than max reaches
// the model as its first max*headNum/headDen bytes, claiCLIClampMarker, and
// its last max-head bytes. max <= 0 means no clamp (HEAD).
func claiTruncateCLIContextHeadTail(value string, max, headNum, headDen int) string {
	head, tail, clamped := claiCLISplit(value, max, headNum, headDen)
	if !clamped {
		return value
	}
	return head + claiCLIClampMarker + tail
}

func claiCLISplit(value string, max, headNum, headDen int) (head, tail string, clamped bool) {
	if max <= 0 || len(value) <= max {
		return value, "", false
	}
	h := max * headNum / headDen
	return claiSafePrefix(value, h), claiSafeSuffix(value, max-h), true
}

// claiPreambleBytes is how many bytes of text[:limit] are copies of P1 or
// P2 (current or old texts; a copy cut by limit counts for its part).
func claiPreambleBytes(text string, limit int) int {
	limit = min(limit, len(text))
	n := 0
	count := func(p, longer string) {
		for i := 0; i < limit; {
			j := strings.Index(text[i:min(len(text), limit+len(p)-1)], p)
			if j < 0 {
				return
			}
			at := i + j
			i = at + len(p)
			if longer != "" && strings.HasPrefix(text[at:], longer) {
				continue // counted as the longer text
			}
			n += min(at+len(p), limit) - at
		}
	}
	count(clai.SummaryPreamble, "")
	count(clai.SummaryPreambleOld, clai.SummaryPreamble)
	count(clai.DigestPreamble, "")
	count(clai.DigestPreambleOld, "")
	return n
}

// ClaiWrittenVariant is the variant that wrote stored, a digest clai
// rendered from window, told from the text: legacy when it nests preamble
// copies (the fix strips them); fixed when it carries one of the fix's
// clamp notes, or when window holds an earlier summary whose preambles are
// not nested in it (legacy would have nested them); legacy otherwise, where
// both variants write the same bytes. Legacy, clai as released, is the
// default because PR #154 is in no released clai. Re-derivation renders
// with it, so that it answers "is this what clai wrote" whatever variant
// the run itself models.
func ClaiWrittenVariant(stored string, window []corpus.Message) string {
	if p1, p2 := clai.PreambleCounts(stored); p1 > 1 || p2 > 1 {
		return ClaiLegacy
	}
	if strings.Contains(stored, claiHeadNoteB) || strings.Contains(stored, claiTailNoteB) {
		return ClaiFixed
	}
	for i := range window {
		if claiIsSummary(&window[i]) {
			return ClaiFixed
		}
	}
	return ClaiLegacy
}

// WithVariant is p rendering as variant does by default: the variant's
// clamp, strip and CLI clamp, the other parameters kept.
func (p ClaiParams) WithVariant(variant string) ClaiParams {
	d := ClaiDefaults(variant)
	p.Variant, p.Clamp, p.Strip, p.CLIClampBytes = variant, d.Clamp, d.Strip, d.CLIClampBytes
	return p
}
