package policy

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// clearStageKind clears or masks old tool results. The choice of what to
// clear is clear-tool-results' own (its keep rules, exemptions, minimum
// reclaim and input clearing, run as a forced compaction on the part of
// the history the stage may touch); the stage adds what the general
// policy has no parameter for:
//   - protect_turns: results of the last N real user turns are neither
//     cleared nor counted (opencode's prune skips the last 2 turns, then
//     protects the newest 40,000 tokens of older tool output);
//   - keep_first: the first result is never cleared (an agent whose task
//     arrives as a tool result; SWE-agent's never-elided first observation
//     is its task, a user message, so its preset leaves this off);
//   - a stub with {lines} (the cleared output's line count, as Python's
//     str.splitlines counts) or {id} (the tool call id) is written per
//     result: SWE-agent's "Old environment output: ({lines} lines omitted)".
//     {preview} is Gemini CLI's preview of the output (gemini_preview.go):
//     by lines and sections for the shell_tools, by its first and last 250
//     characters as JSON for the others.
//     A result already holding such a stub is left as it is.
func clearStageKind() stageKind {
	return stageKind{kind: "clear", help: "clear or mask old tool results",
		specs: func() []ParamSpec {
			var out []ParamSpec
			for _, s := range clearToolResultsSpecs() {
				switch s.Name {
				case "keep", "keep_value", "exempt_tools", "stub", "clear_inputs", "min_reclaim":
					out = append(out, s)
				}
			}
			return append(out,
				ParamSpec{Name: "protect_turns", Kind: Int, Default: "0", Min: 0, Max: math.Inf(1), Help: "results of the last N real user turns are neither cleared nor counted by the keep rule (opencode: 2)"},
				ParamSpec{Name: "keep_first", Kind: Bool, Default: "false", Help: "never clear the first tool result"},
				ParamSpec{Name: "count_sent", Kind: Bool, Default: "true", Help: "the outputs being sent (since the last assistant message), never cleared, count toward keep; false: neither seen nor counted, as Gemini CLI masks the history the request is not yet part of"},
				ParamSpec{Name: "shell_tools", Kind: List, Default: "", Help: "tools whose {preview} in the stub is Gemini CLI's shell preview (sections, 10 head and 10 tail lines); other tools get the first and last 250 characters of the output as JSON"},
			)
		},
		build: buildClearStage}
}

// clearSentinel is the stub the inner clear-tool-results writes when the
// stage renders its own per-result stub: no tool output holds a NUL pair.
const clearSentinel = "\x00calib-cleared\x00"

type clearStage struct {
	inner        *ClearToolResults
	stub         string
	perResult    bool
	stubPrefix   string
	stubSuffix   string
	protectTurns int
	keepFirst    bool
	shellTools   []string // {preview}: these tools' outputs get the shell preview
	countSent    bool     // the step being sent counts toward keep
}

func buildClearStage(v stageValues, g globals) (stageRunner, error) {
	c := &clearStage{stub: v.Text("stub"),
		protectTurns: v.Int("protect_turns"), keepFirst: v.Bool("keep_first"), shellTools: v.List("shell_tools"),
		countSent: v.Bool("count_sent")}
	if i, j := strings.IndexByte(c.stub, '{'), strings.LastIndexByte(c.stub, '}'); i >= 0 && j > i &&
		(strings.Contains(c.stub, "{lines}") || strings.Contains(c.stub, "{id}") || strings.Contains(c.stub, "{preview}")) {
		c.perResult, c.stubPrefix, c.stubSuffix = true, c.stub[:i], c.stub[j+1:]
	}
	inner := map[string]string{
		"trigger": TriggerContextTokens, "trigger_at": "0", "meter": g.meter.Name(),
		"keep": v.Str("keep"), "keep_value": v.Str("keep_value"), "exempt_tools": strings.Join(v.List("exempt_tools"), ","),
		"stub": c.stub, "clear_inputs": v.Str("clear_inputs"), "min_reclaim": v.Str("min_reclaim"),
	}
	if c.perResult {
		inner["stub"] = clearSentinel
	}
	// clear-tool-results' other defaults are Claude Code's (its 9
	// compactable tools, the recorded usage, the step being sent left
	// unprotected); the general stage clears every tool's results, never
	// the step being sent, measures with its meter, and ends a keep=tokens
	// walk at the first result over the budget (which run's view from the
	// newest cleared result relies on). Resolve rejects a name it does not
	// know, so a renamed parameter fails here rather than leaking a default.
	inner["compactable_tools"], inner["protect_pending"] = "", "true"
	inner["context_source"], inner["keep_walk"] = SourceEstimate, WalkStop
	specs := clearToolResultsSpecs()
	vals, err := Resolve("clear-tool-results", specs, inner)
	if err != nil {
		return nil, fmt.Errorf("%sstub: %w", v.prefix, err)
	}
	vals.memo = v.v.memo
	inner2, err := newClearToolResults(vals)
	if err != nil {
		return nil, err
	}
	c.inner = inner2.(*ClearToolResults)
	c.inner.staged = true
	return c, nil
}

// weigh is a block's share of the history's count when the stage is its
// preset's first (Composed.Measure): a tool result the inner rule would
// not take for a stub weighs its units under keep=tokens and 1 under the
// other keep rules; anything else weighs 0. Exempt tools are counted too,
// so the sum bounds what the inner rule's view (a part of the history)
// holds, and under a per-result stub, whose rendered stubs the inner
// rule counts as results, every result is counted. units is b's units in
// the preset's meter, which the inner rule measures with too (same name,
// same options): the caller has them, and measuring twice would double
// the meter's cost.
func (c *clearStage) weigh(b *corpus.Block, units int64) int64 {
	if b.Kind != corpus.KindToolResult || c.inner.stub.matches(b.Text) {
		return 0
	}
	return c.inner.keepWeight(units)
}

// nothingToClear reports whether the inner rule, given any part of a
// history whose count (the sum of weigh) is n, keeps every result: at most
// keep_value results under keep=results; under keep=tokens, results that
// all fit the budget (every newer-first partial sum is at most n) or whose
// clearing could not reclaim min_reclaim; none at all otherwise.
func (c *clearStage) nothingToClear(n int64) bool {
	switch p := c.inner; {
	case n == 0:
		return true
	case !p.usesMarks(): // keep=turns or steps: the count bounds nothing
		return false
	default:
		return !p.overflows(n) || p.keep == KeepTokens && p.meter.Tokens(n) < p.minReclaim
	}
}

func (c *clearStage) isStub(text string) bool {
	if !c.perResult {
		return text == c.stub
	}
	return len(text) >= len(c.stubPrefix)+len(c.stubSuffix) && strings.HasPrefix(text, c.stubPrefix) && strings.HasSuffix(text, c.stubSuffix)
}

// render writes the per-result stub of b; shell picks the shell {preview}.
func (c *clearStage) render(b *corpus.Block, shell bool) string {
	s := strings.ReplaceAll(c.stub, "{id}", b.ToolCallID)
	if strings.Contains(s, "{lines}") {
		s = strings.ReplaceAll(s, "{lines}", strconv.Itoa(splitLines(b.Content())))
	}
	if strings.Contains(s, "{preview}") {
		s = strings.ReplaceAll(s, "{preview}", geminiPreview(b.Content(), shell))
	}
	return s
}

func (c *clearStage) run(st *compState, at Checkpoint) *StageReport {
	// The history's count bounds every part of it the inner rule could
	// see: when even that leaves nothing to clear, the checkpoint costs
	// O(1), not a scan of the session (a long session that never gives
	// the stage anything to clear was quadratic).
	if st.weigh == c && c.nothingToClear(st.count) {
		return nil
	}
	h := st.h
	end := len(h)
	if c.protectTurns > 0 {
		end = st.nthLastTurn(c.protectTurns)
	}
	if !c.countSent {
		end = min(end, stepStart(h))
	}
	// Where the count is only a bound, the result marks (at.Results) can
	// still show that nothing would be written, in O(log n): without them
	// the checkpoint reads back to the newest stub below.
	if c.writesNothing(st, at.Results, end) {
		return nil
	}
	// Every keep rule clears all it does not keep at once, so nothing
	// before the newest result already cleared can change: the inner
	// policy sees the history from there, and a checkpoint costs the
	// results since, not the session.
	base := c.newestCleared(h[:end])
	if end <= base {
		return nil
	}
	// Forced, the inner policy decides from the history alone; its sums
	// only feed its own figures, which the rebuild below recounts, so the
	// view is not measured here, nor its results by plan unless its keep
	// rule or min_reclaim reads their units (planUnits).
	o := c.inner.Compact(h[base:end], Checkpoint{Force: true, Request: at.Request, Session: at.Session, Recorded: at.Recorded})
	if o.Strategy == None {
		return nil
	}
	// Rebuild block by block against the input: restore what this stage
	// must not clear, render per-result stubs, and count exactly.
	w := newCow(st)
	first := c.firstResult(h)
	var names map[string]string // every call's tool, read once when a result's call is not near it
	for k := range o.History {
		i := base + k
		if len(h[i].Blocks) == 0 || &o.History[k].Blocks[0] == &h[i].Blocks[0] {
			continue
		}
		for j := range h[i].Blocks {
			old, nb := &h[i].Blocks[j], o.History[k].Blocks[j]
			if old.Text == nb.Text && string(old.Args) == string(nb.Args) {
				continue
			}
			if old.Kind != corpus.KindToolResult {
				w.setBlock(i, j, nb)
				continue
			}
			if (c.keepFirst && i == first[0] && j == first[1]) || c.isStub(old.Text) {
				continue
			}
			if c.perResult {
				nb.Text = c.render(old, c.shell(h, i, old, &names))
			}
			// A stub no shorter than the output stays unwritten (a
			// compaction never grows the context; SWE-agent would write
			// it, over outputs of a line or two).
			if nu, ou := st.g.meter.Block(&nb), st.g.meter.Block(old); nu < ou {
				w.setMeasured(i, j, nb, nu, ou)
			}
		}
	}
	return w.done(st)
}

// shell reports whether result b in h[i] answers one of the shell_tools
// (its tool named by its call), when the stub has a {preview}. names maps
// every call of h to its tool, built on the first call not found near
// its result.
func (c *clearStage) shell(h []corpus.Message, i int, b *corpus.Block, names *map[string]string) bool {
	if len(c.shellTools) == 0 || !strings.Contains(c.stub, "{preview}") {
		return false
	}
	name, found := callName(h[:i], &h[i], b)
	if !found {
		if *names == nil {
			*names = callNames(h)
		}
		name = (*names)[b.ToolCallID]
	}
	return slices.Contains(c.shellTools, name)
}

// newestCleared is the index of the newest message of h holding a result
// this stage cleared, 0 when none.
func (c *clearStage) newestCleared(h []corpus.Message) int {
	for i := len(h) - 1; i >= 0; i-- {
		for j := range h[i].Blocks {
			if b := &h[i].Blocks[j]; b.Kind == corpus.KindToolResult && c.isStub(b.Text) {
				return i
			}
		}
	}
	return 0
}

// firstResult is the position of the first tool result in h, {-1, -1}
// when there is none.
func (c *clearStage) firstResult(h []corpus.Message) [2]int {
	if !c.keepFirst {
		return [2]int{-1, -1}
	}
	for i := range h {
		for j := range h[i].Blocks {
			if h[i].Blocks[j].Kind == corpus.KindToolResult {
				return [2]int{i, j}
			}
		}
	}
	return [2]int{-1, -1}
}

// splitLines is len(s.splitlines()) in Python: lines end at \n, \r, \r\n,
// \v, \f, \x1c, \x1d, \x1e, \x85, \u2028 or \u2029, and a final line
// break adds no empty line.
func splitLines(s string) int {
	if onlyNewlines(s) {
		// Only \n ends lines, as in nearly every tool output: counted by
		// the runtime's vectorised search, where the loop below took 12% of
		// a compare of the real Claude Code logs (a stub that says how many
		// lines it replaced is rendered as each result is marked).
		n := strings.Count(s, "\n")
		if s != "" && s[len(s)-1] != '\n' {
			n++
		}
		return n
	}
	return splitLinesLoop(s)
}

// splitLinesLoop is splitLines byte by byte, for every line break
// (FuzzSplitLines holds the fast path to it).
func splitLinesLoop(s string) int {
	n, open := 0, false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			n, open = n+1, false
		case ch == '\n' || ch == '\v' || ch == '\f' || ch == 0x1c || ch == 0x1d || ch == 0x1e:
			n, open = n+1, false
		case ch == 0xc2 && i+1 < len(s) && s[i+1] == 0x85:
			i++
			n, open = n+1, false
		case ch == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
			i += 2
			n, open = n+1, false
		default:
			open = true
		}
	}
	if open {
		n++
	}
	return n
}

// onlyNewlines reports whether \n is the only Python line break in s. Each
// rare break is looked for with the runtime's vectorised byte search: one
// pass per byte is still faster than one pass testing every byte for all.
func onlyNewlines(s string) bool {
	for _, c := range []byte("\r\v\f\x1c\x1d\x1e") {
		if strings.IndexByte(s, c) >= 0 {
			return false
		}
	}
	return !strings.Contains(s, "\u0085") && !strings.Contains(s, "\u2028") && !strings.Contains(s, "\u2029")
}
