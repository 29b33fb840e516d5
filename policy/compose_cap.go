package policy

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
)

// Units of the cap stage (cap.unit).
const (
	CapBytes  = "bytes"  // UTF-8 bytes (Codex Bytes(10_000))
	CapChars  = "chars"  // UTF-16 code units, JavaScript's length (Gemini CLI 40,000, opencode 2,000)
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
				{Name: "max", Kind: Int, Default: "10000", Min: 1, Max: math.Inf(1), Help: "the most a tool output may hold, in unit, marker included"},
				{Name: "unit", Kind: Enum, Default: CapBytes, Choices: []string{CapBytes, CapChars, CapTokens}, Help: "bytes, UTF-16 chars, or tokens at 4 bytes each"},
				{Name: "keep", Kind: Enum, Default: CapHeadTail, Choices: []string{CapHead, CapHeadTail}, Help: "keep the head, or half head and half tail around the marker"},
				{Name: "marker", Kind: String, Default: "\n[... {omitted} {unit} truncated ...]\n", Help: "text put where the output was cut; {omitted} is the amount cut, {unit} the unit"},
			}
		},
		build: func(v stageValues, g globals) (stageRunner, error) {
			return &capStage{max: v.Int("max"), unit: v.Str("unit"), keep: v.Str("keep"), marker: v.Str("marker")}, nil
		}}
}

type capStage struct {
	max        int
	unit, keep string
	marker     string
}

func (c *capStage) run(st *compState, _ Checkpoint) *StageReport {
	w := newCow(st)
	h := st.h
	start := len(h)
	for start > 0 && h[start-1].Role != corpus.RoleAssistant {
		start--
	}
	for i := start; i < len(h); i++ {
		for j := range h[i].Blocks {
			b := &h[i].Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if text, ok := c.capText(b.Content()); ok {
				nb := *b
				nb.Text, nb.Payload = text, nil
				w.setBlock(i, j, nb)
			}
		}
	}
	return w.done(st)
}

// capText cuts text to the cap; ok is false when it fits.
func (c *capStage) capText(text string) (string, bool) {
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
		marker = strings.NewReplacer("{omitted}", strconv.Itoa(n-keep), "{unit}", c.unit).Replace(c.marker)
		keep = max(0, limit-measure(marker))
	}
	if c.keep == CapHead {
		return prefixUnits(text, keep, unit) + marker, true
	}
	head := prefixUnits(text, keep/2, unit)
	tail := suffixUnits(text, keep-measure(head), unit)
	return head + marker + tail, true
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
