package policy

import (
	"bytes"

	"github.com/calib-dev/calib/corpus"
)

// The recorded policy's stages are the kinds of event the agents record,
// so that loss and reclaim are reported per kind of event (issue 12: which
// stage hid what was later lost). The set is small and fixed whatever the
// agent, so that replay and sweep columns do not depend on the corpus:
//
//   - persisted: Claude Code persisted outputs that no boundary line
//     recorded (2.0.60–2.1.6), cleared at the request the reader placed
//     them (corpus.Persisted.Placed: a cache break, or arrival);
//   - microcompact: a recorded clear of named tool results: Claude Code's
//     microcompact_boundary (whose ids, in 2.1.9+, all have persisted
//     files: the boundary is the event that recorded them) and opencode's
//     prune;
//   - compact: a recorded summary that replaced the history before it:
//     Claude Code compact (isCompactSummary, compact_boundary), Codex
//     compacted, clai local_summary and session_rotation_summary (the
//     recorded window), opencode compaction;
//   - history: smith's compacted session.json history, where it was
//     written.
//
// The agent's own name of each compaction stays in the recording
// (corpus.Compaction.Strategy, shown by inspect).
const (
	RecordedPersisted    = "persisted"
	RecordedMicrocompact = "microcompact"
	RecordedCompact      = "compact"
	RecordedHistory      = "history"
)

// recordedStages are the recorded policy's stages (Def.Stages: the order
// of report columns; at a request, reports list them in the order they
// ran).
func recordedStages() []string {
	return []string{RecordedPersisted, RecordedMicrocompact, RecordedCompact, RecordedHistory}
}

// recordedStage names the stage of a compaction the agent recorded.
func recordedStage(c *corpus.Compaction) string {
	if c.Clearing() {
		return RecordedMicrocompact
	}
	return RecordedCompact
}

// effect is what one recorded event did to the history: the blocks it
// touched, the bytes it removed and the tool results it hid, in the terms
// of StageReport.
type effect struct {
	touched int
	bytes   int64
	hid     []string
}

// stageReports gathers a request's events into one StageReport per stage,
// listed in the order the stages first ran at the request (events apply by
// position; at one position, recorded compactions before smith's history
// before persisted outputs).
type stageReports struct {
	by    [4]*StageReport // indexed like recordedStages
	order []int           // indices into by, as first added
	seen  map[string]bool // ids hidden at this request, so each is listed once
}

// add records that an event of stage name took the charged context from
// before to after with effect e. Two events of one stage at one request
// make one report: it starts at the first one's before and reclaims what
// both did.
func (r *stageReports) add(name string, before, after int, e effect) {
	names := recordedStages()
	k := len(names) - 1
	for i, n := range names {
		if n == name {
			k = i
		}
	}
	st := r.by[k]
	if st == nil {
		st = &StageReport{Name: name, BeforeTokens: before, AfterTokens: before}
		r.by[k] = st
		r.order = append(r.order, k)
	}
	st.AfterTokens -= before - after
	st.BlocksTouched += e.touched
	st.BytesRemoved += e.bytes
	for _, id := range e.hid {
		if r.seen == nil {
			r.seen = map[string]bool{}
		}
		if !r.seen[id] {
			// A result an earlier event of this request cleared and a
			// later one dropped was hidden by the first.
			r.seen[id] = true
			st.Hid = append(st.Hid, id)
		}
	}
}

// list is the reports, in the order the stages ran.
func (r *stageReports) list() []StageReport {
	out := make([]StageReport, 0, len(r.order))
	for _, k := range r.order {
		out = append(out, *r.by[k])
	}
	return out
}

// replaced is the effect of replacing old by add: the blocks of old that do
// not reappear unchanged in add (matched by message id), the bytes that
// go (smithBytes, net of add), and the tool results of old that add does
// not carry with the same content.
func replaced(old, add []corpus.Message) effect {
	var e effect
	kept := make(map[string]*corpus.Message, len(add))
	results := map[string]*corpus.Block{}
	for i := range add {
		m := &add[i]
		if m.ID != "" {
			kept[m.ID] = m
		}
		for j := range m.Blocks {
			b := &m.Blocks[j]
			e.bytes -= smithBytes(b)
			if b.Kind == corpus.KindToolResult {
				results[b.ToolCallID] = b
			}
		}
	}
	for i := range old {
		m := &old[i]
		k := kept[m.ID]
		for j := range m.Blocks {
			b := &m.Blocks[j]
			e.bytes += smithBytes(b)
			if k == nil || j >= len(k.Blocks) || !sameBlock(b, &k.Blocks[j]) {
				e.touched++
			}
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if nb, ok := results[b.ToolCallID]; !ok || nb.Text != b.Text || !bytes.Equal(nb.Payload, b.Payload) {
				e.hid = append(e.hid, b.ToolCallID)
			}
		}
	}
	return e
}

func sameBlock(a, b *corpus.Block) bool {
	return a.Kind == b.Kind && a.Text == b.Text && a.ToolCallID == b.ToolCallID && a.ToolName == b.ToolName &&
		bytes.Equal(a.Args, b.Args) && bytes.Equal(a.Payload, b.Payload)
}
