package policy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
)

// Units of the cap stage (cap.unit).
const (
	CapBytes  = "bytes"  // UTF-8 bytes (Codex Bytes(10_000))
	CapChars  = "chars"  // UTF-16 code units, JavaScript's length (Gemini CLI 40,000)
	CapTokens = "tokens" // 4 bytes per token, Codex's approximate count (Tokens(10_000))
)

// Which part of a capped output stays (cap.keep).
const (
	CapHead     = "head"      // the first part, then the marker
	CapHeadTail = "head_tail" // half before the marker, half after it
)

// capStageKind caps each tool output as it arrives: at the request right
// after a result, any result longer than max is cut so that what the model
// sees, marker included, is at most max. Only results after the last
// assistant message are looked at: older ones were capped when they
// arrived, so a checkpoint costs the step, not the history.
func capStageKind() stageKind {
	return stageKind{kind: "cap", help: "cap tool output as it arrives",
		specs: func() []ParamSpec {
			return []ParamSpec{
				{Name: "max", Kind: Int, Default: "10000", Min: 1, Max: math.Inf(1), Help: "the most a tool output may hold, in unit, marker included (with max_lines: before the marker)"},
				{Name: "unit", Kind: Enum, Default: CapBytes, Choices: []string{CapBytes, CapChars, CapTokens}, Help: "bytes, UTF-16 chars, or tokens at 4 bytes each"},
				{Name: "keep", Kind: Enum, Default: CapHeadTail, Choices: []string{CapHead, CapHeadTail}, Help: "keep the head, or half head and half tail around the marker"},
				{Name: "max_lines", Kind: Int, Default: "0", Min: 0, Max: math.Inf(1),
					Help: "0: none; else opencode's Truncate.output: an output over max_lines lines or max bytes keeps its first whole lines within both, and the marker follows them, uncounted"},
				{Name: "tools", Kind: List, Default: "", Help: "tool names whose outputs are capped (empty: every tool's)"},
				{Name: "marker", Kind: String, Default: `\n[... {omitted} {unit} truncated ...]\n`, Help: `text put where the output was cut; {omitted} is the amount cut, {unit} the unit, {id} the tool call's id, \n a newline`},
			}
		},
		build: func(v stageValues, g globals) (stageRunner, error) {
			c := &capStage{max: v.Int("max"), unit: v.Str("unit"), keep: v.Str("keep"), maxLines: v.Int("max_lines"), tools: v.List("tools"),
				marker: v.Text("marker")}
			if c.maxLines > 0 && (c.unit != CapBytes || c.keep != CapHead) {
				return nil, fmt.Errorf("%[1]smax_lines=%[2]d cuts whole lines within %[1]smax bytes from the head (opencode's Truncate.output): set %[1]sunit=%[3]s and %[1]skeep=%[4]s with it, or %[1]smax_lines=0",
					v.prefix, c.maxLines, CapBytes, CapHead)
			}
			return c, nil
		}}
}

type capStage struct {
	max        int
	unit, keep string
	maxLines   int      // > 0: opencode's line-and-byte cut (capLines)
	tools      []string // only these tools' outputs (none: every tool's)
	marker     string
}

func (c *capStage) run(st *compState, _ Checkpoint) *StageReport {
	before := st.units
	w := newCow(st)
	h := st.h
	start := stepStart(h)
	for i := start; i < len(h); i++ {
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			if b.Kind != corpus.KindToolResult || !c.caps(b, h[:start]) {
				continue
			}
			if text, ok := c.capText(b.Content(), b.ToolCallID); ok {
				nb := *b
				nb.Text, nb.Payload = text, nil
				w.setBlock(i, j, nb)
			}
		}
	}
	r := w.done(st)
	// It rewrites only the step being sent: what it takes comes off the
	// pending units too.
	if st.pending >= 0 {
		st.pending += st.units - before
	}
	return r
}

// caps reports whether the stage caps result b: always without a tools
// list, else when its tool is listed. A result that does not name its tool
// is named by its call, in the assistant message before (the last of
// before, which the results follow).
func (c *capStage) caps(b *corpus.Block, before []corpus.Message) bool {
	if len(c.tools) == 0 {
		return true
	}
	name := b.ToolName
	if name == "" && len(before) > 0 {
		for _, u := range before[len(before)-1].Blocks {
			if u.Kind == corpus.KindToolUse && u.ToolCallID == b.ToolCallID {
				name = u.ToolName
				break
			}
		}
	}
	return slices.Contains(c.tools, name)
}

// capText cuts text, the output of tool call id, to the cap; ok is false
// when it fits.
func (c *capStage) capText(text, id string) (string, bool) {
	if c.maxLines > 0 {
		return c.capLines(text, id)
	}
	limit, unit := c.max, c.unit
	measure := func(s string) int { return len(s) }
	switch unit {
	case CapChars:
		measure = func(s string) int { return int(utf16Len(s)) }
	case CapTokens:
		limit, unit = c.max*4, CapBytes
	}
	n := measure(text)
	if n <= limit {
		return "", false
	}
	// The marker names the amount cut, which depends on the marker's own
	// length: two passes settle it (the digits change at most once).
	var marker string
	keep := limit
	for range 2 {
		marker = strings.NewReplacer("{omitted}", strconv.Itoa(n-keep), "{unit}", c.unit, "{id}", id).Replace(c.marker)
		keep = max(0, limit-measure(marker))
	}
	if c.keep == CapHead {
		return prefixUnits(text, keep, unit) + marker, true
	}
	head := prefixUnits(text, keep/2, unit)
	tail := suffixUnits(text, keep-measure(head), unit)
	return head + marker + tail, true
}

// capLines is opencode's Truncate.output with direction head
// (packages/opencode/src/tool/truncation.ts): an output of at most
// maxLines lines (split on "\n") and max UTF-8 bytes stays whole; a longer
// one keeps its first lines while they number fewer than maxLines and,
// joined by "\n", fit in max bytes (none, when the first line alone is
// longer), and the marker follows, naming the lines cut ("lines") or, when
// the bytes stopped it, the bytes cut ("bytes"). The marker is not counted
// in the limit, as in opencode.
func (c *capStage) capLines(text, id string) (string, bool) {
	lines := strings.Count(text, "\n") + 1
	if lines <= c.maxLines && len(text) <= c.max {
		return "", false
	}
	kept, size, hitBytes := 0, 0, false
	for rest := text; kept < lines && kept < c.maxLines; kept++ {
		line, after, _ := strings.Cut(rest, "\n")
		n := len(line)
		if kept > 0 {
			n++
		}
		if size+n > c.max {
			hitBytes = true
			break
		}
		size += n
		rest = after
	}
	removed, unit := lines-kept, "lines"
	if hitBytes {
		removed, unit = len(text)-size, CapBytes
	}
	marker := strings.NewReplacer("{omitted}", strconv.Itoa(removed), "{unit}", unit, "{id}", id).Replace(c.marker)
	return text[:size] + marker, true
}

// prefixUnits is the longest prefix of s of at most n units that ends on
// a character boundary.
func prefixUnits(s string, n int, unit string) string {
	used, i := 0, 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := runeUnits(r, size, unit)
		if used+w > n {
			break
		}
		used += w
		i += size
	}
	return s[:i]
}

// suffixUnits is the longest suffix of s of at most n units that starts
// on a character boundary.
func suffixUnits(s string, n int, unit string) string {
	used, i := 0, len(s)
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		w := runeUnits(r, size, unit)
		if used+w > n {
			break
		}
		used += w
		i -= size
	}
	return s[i:]
}

// runeUnits is the width in unit of a character of size UTF-8 bytes.
func runeUnits(r rune, size int, unit string) int {
	if unit == CapChars {
		return utf16Units(r)
	}
	return size
}

func utf16Units(r rune) int {
	if r >= 0x10000 {
		return 2
	}
	return 1
}
