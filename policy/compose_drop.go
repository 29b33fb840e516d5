package policy

import (
	"github.com/calib-dev/calib/corpus"
)

// How much of the middle the drop-middle stage removes (drop.keep).
const (
	DropHalf    = "half"    // remove about half of what follows the first pair
	DropQuarter = "quarter" // keep about a quarter of it
	DropAuto    = "auto"    // Cline: quarter when half the context still exceeds the trigger, else half
)

// Cline's notices, from src/core/prompts/responses.ts (formatResponse);
// peers.md §1 quotes the first and names the second.
const (
	ClineDuplicateReadNotice = "[[NOTE] This file read has been removed to save space in the context window. Refer to the latest file read for the most up to date version of this file.]"
	ClineTruncationNotice    = "[NOTE] Some previous conversation history with the user has been removed to maintain optimal context window length. The initial user task has been retained for continuity, while intermediate conversation history has been removed. Keep this in mind as you continue assisting the user. Pay special attention to the user's latest messages."
)

// dropMiddleStageKind is Cline's context truncation: first, earlier reads
// of a file read again later are replaced by a notice (smith's
// superseded-reads stage with Cline's notice), and when that saved at
// least save_enough of the characters nothing more happens; otherwise the
// first user/assistant pair stays and a middle range after it goes
// (ContextManager.getNextTruncationRange), with a notice appended to the
// first assistant message.
func dropMiddleStageKind() stageKind {
	return stageKind{kind: "drop-middle", help: "drop the middle of the history",
		specs: func() []ParamSpec {
			return []ParamSpec{
				{Name: "keep", Kind: Enum, Default: DropAuto, Choices: []string{DropHalf, DropQuarter, DropAuto}, Help: "remove half of the middle, three quarters, or choose as Cline does"},
				{Name: "dedupe_reads", Kind: Bool, Default: "true", Help: "replace earlier reads of a file read again by read_notice first"},
				{Name: "read_tools", Kind: List, Default: "read_file", Help: "tools whose identical calls are file reads"},
				{Name: "read_notice", Kind: String, Default: ClineDuplicateReadNotice, Help: "text of a removed duplicate read"},
				{Name: "save_enough", Kind: Float, Default: "0.3", Min: 0, Max: 1, Help: "when dedupe saved at least this share of the characters, nothing is dropped"},
				{Name: "notice", Kind: String, Default: ClineTruncationNotice, Help: "text appended to the first assistant message when the middle is dropped (empty: none)"},
			}
		},
		build: func(v stageValues, g globals) (stageRunner, error) {
			tools := map[string]bool{}
			for _, t := range v.List("read_tools") {
				tools[t] = true
			}
			return &dropStage{keep: v.Str("keep"), dedupe: v.Bool("dedupe_reads"), tools: tools, readNotice: v.Str("read_notice"),
				saveEnough: v.Float("save_enough"), notice: v.Str("notice"), trig: v.trigger()}, nil
		}}
}

type dropStage struct {
	keep               string
	dedupe             bool
	tools              map[string]bool
	readNotice, notice string
	saveEnough         float64
	trig               stageTrigger
}

func (d *dropStage) run(st *compState, at Checkpoint) *StageReport {
	// Both steps touch only what precedes the turn in progress: dedupe
	// rewrites reads before it, the range dropped ends before it.
	if st.onlyTurnInProgress() {
		return nil
	}
	r := &StageReport{BeforeTokens: st.tokens()}
	// Only reads before the turn in progress are replaced: with no tool
	// result there (a long turn after a short prompt), nothing is, and
	// the calls of the whole history need not be read at every request.
	if ts := st.nthLastTurn(1); d.dedupe && holdsResult(st.h[:ts]) {
		w := newWorkingBefore(st.h, st.g.meter, st.units, ts)
		before := w.total
		n, bytes := w.supersedeDuplicates(ts, -1, d.tools, func(string, *corpus.Block) string { return d.readNotice })
		if n > 0 {
			st.set(w.msgs, w.total)
			r.BlocksTouched += n
			r.BytesRemoved += bytes
			if before > 0 && float64(before-w.total) >= d.saveEnough*float64(before) {
				r.AfterTokens = st.tokens()
				return r
			}
		}
	}
	d.dropMiddle(st, r)
	if r.BlocksTouched == 0 {
		return nil
	}
	r.AfterTokens = st.tokens()
	return r
}

// holdsResult reports whether a message of h holds a tool result.
func holdsResult(h []corpus.Message) bool {
	for i := range h {
		if hasKind(&h[i], corpus.KindToolResult) {
			return true
		}
	}
	return false
}

// dropMiddle removes Cline's next truncation range. Cline counts API
// messages (a user message carries the tool results); here the range end
// moves back until the first kept message after it carries no tool result,
// and the first pair grows to include its own results.
func (d *dropStage) dropMiddle(st *compState, r *StageReport) {
	h := st.h
	start := 2
	for start < len(h) && !safeCut(h, start) {
		start++
	}
	keep := d.keep
	if keep == DropAuto {
		keep = DropHalf
		if th := d.trig.threshold(st.g.window); th > 0 && st.tokens()/2 > th {
			keep = DropQuarter
		}
	}
	rest := len(h) - start
	remove := rest / 4 * 2
	if keep == DropQuarter {
		remove = rest * 3 / 4 / 2 * 2
	}
	end := start + remove - 1 // inclusive
	if end >= start && h[end].Role != corpus.RoleAssistant {
		end--
	}
	end = min(end, st.nthLastTurn(1)-1) // currentTurnStart(h): h is st.h
	for end >= start && !safeCut(h, end+1) {
		end--
	}
	if end < start {
		return
	}
	m := st.g.meter
	units := st.units
	for i := start; i <= end; i++ {
		units -= m.Message(&h[i])
	}
	blocks, bytes := contentOf(h[start : end+1])
	r.BlocksTouched += blocks
	r.BytesRemoved += bytes
	out := make([]corpus.Message, 0, len(h)-(end-start+1))
	out = append(out, h[:start]...)
	out = append(out, h[end+1:]...)
	if d.notice != "" {
		for i := 0; i < start; i++ {
			if out[i].Role == corpus.RoleAssistant {
				if bs := out[i].Blocks; len(bs) > 0 && bs[len(bs)-1].Text == d.notice {
					break // added by an earlier truncation
				}
				nb := corpus.Block{Kind: corpus.KindText, Text: d.notice}
				out[i].Blocks = append(append([]corpus.Block(nil), out[i].Blocks...), nb)
				units += m.Block(&nb)
				r.BytesRemoved -= smithBytes(&nb)
				break
			}
		}
	}
	st.set(out, units)
	st.strategy = Dropped
	st.removed += end - start + 1
}
