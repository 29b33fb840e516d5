package claudecode

import (
	"github.com/calib-dev/calib/corpus"
)

// Persisted outputs inferred without their folder. Claude Code 2.0.60 to
// 2.1.6 cleared results without writing a boundary line, so a log copied
// without its <session>/tool-results/ folder (or whose folder was cleaned
// up) shows no clear at all, and a
// replay of it sends results the model never had. The clears can be read
// from the transcript alone: at a mid-turn prompt-cache break where the
// recorded prompt fell, the keep-40,000 microcompact (breakClears) clears
// what it would clear. On the real logs that finds the 68 files of the 4
// sessions that have any, id for id and at the same requests, with their
// folders taken away, and nothing in the 3 2.x sessions that have none
// (they have no mid-turn break); the 1.0.53 logs' 4 mid-turn breaks, which
// predate persisted outputs, all have a prompt that grew (a cache that
// expired sends everything again), so the fall is what tells a clear.

// inferFrom and inferBefore bound the versions that cleared results
// without a boundary line: persisted outputs came with 2.0.60 (the stub
// from then on is their marker), boundaries with 2.1.9. An unknown version
// counts as the newest, so nothing is inferred for it.
const (
	inferFrom   = "2.0.60"
	inferBefore = "2.1.9"
)

// inferPersisted gives each thread of a log that has no tool-results
// folder the persisted results its clears imply (PlacedInferred).
func (l *ccLoader) inferPersisted(session string) {
	v := l.meta.AgentVersion
	if !corpus.VersionAtLeast(v, inferFrom) || corpus.VersionAtLeast(v, inferBefore) {
		return
	}
	for _, t := range append([]*ccThread{l.main}, l.runs...) {
		if hasBoundary(t) {
			continue // a version that writes them (2.1.7 or 2.1.8, unseen): they are the record
		}
		var ps []corpus.Persisted
		t.breakClears(func(mi int, ids []string, fell bool) {
			if !fell {
				return
			}
			// A full compaction also makes the prompt fall and the cache
			// break: the results before it were summarized away, not
			// persisted (at its own request, that is all of them).
			last := t.lastFullCompaction(mi)
			for _, id := range ids {
				if last >= 0 && t.useList[t.uses[id]].msg < last {
					continue
				}
				text, _ := t.resultText(id)
				ps = append(ps, corpus.Persisted{ToolCallID: id, Bytes: int64(len(text)), Boundary: -1, AtMessage: mi,
					Placed: corpus.PlacedInferred, Marker: PersistedMarker(PersistedPath(l.meta.Cwd, session, id)), Chars: utf16Len(text)})
			}
		})
		t.persisted = ps
	}
}

// hasBoundary reports whether the thread records a microcompact boundary.
func hasBoundary(t *ccThread) bool {
	for _, c := range t.compactions {
		if c.Strategy == "microcompact" {
			return true
		}
	}
	return false
}

// lastFullCompaction is the message at which the last recorded full
// compaction (compact_boundary, or a summary without one) took effect at
// or before message mi; -1 if none did.
func (t *ccThread) lastFullCompaction(mi int) int {
	last := -1
	for _, c := range t.compactions {
		if c.Strategy != "microcompact" && c.AtMessage >= 0 && c.AtMessage <= mi {
			last = max(last, c.AtMessage)
		}
	}
	return last
}
