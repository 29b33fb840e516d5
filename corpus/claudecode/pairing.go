package claudecode

import (
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// sortResults puts the results of each tool message in tool_use order. A
// result travels with the media blocks that follow it; results whose
// tool_use is unknown keep their place at the end.
func (t *ccThread) sortResults() {
	for mi := range t.msgs {
		m := &t.msgs[mi]
		if m.Role != corpus.RoleTool || len(m.Blocks) < 2 {
			continue
		}
		type group struct {
			key    [2]int
			blocks []corpus.Block
		}
		var groups []group
		for _, b := range m.Blocks {
			if b.Kind == corpus.KindToolResult || len(groups) == 0 {
				key := [2]int{1 << 30, 0}
				if u, ok := t.uses[b.ToolCallID]; ok {
					key = [2]int{t.useList[u].msg, t.useList[u].block}
				}
				groups = append(groups, group{key: key})
			}
			g := &groups[len(groups)-1]
			g.blocks = append(g.blocks, b)
		}
		if len(groups) < 2 {
			continue
		}
		sort.SliceStable(groups, func(i, j int) bool {
			a, b := groups[i].key, groups[j].key
			return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1])
		})
		blocks := make([]corpus.Block, 0, len(m.Blocks))
		for _, g := range groups {
			blocks = append(blocks, g.blocks...)
		}
		m.Blocks = blocks
	}
}

// pairing checks that every tool_use of a thread has exactly one
// tool_result in the same thread and vice versa; held says which threads
// hold a result for each id.
func (l *ccLoader) pairing(t *ccThread, held resultThreads) []corpus.Warning {
	var ws []corpus.Warning
	w := func(line int, format string, args ...any) {
		ws = append(ws, corpus.Warnf(l.path, line, format, args...))
	}
	for _, r := range t.results {
		if u, ok := t.uses[r.id]; ok {
			if t.useList[u].answered {
				w(r.ln, "second tool_result for tool_use %s (line %d)", r.id, t.useList[u].ln)
			}
			t.useList[u].answered = true
			continue
		}
		if other, ok := l.useAt[r.id]; ok {
			where := "a sidechain (subagent) run"
			if !other.t.sidechain {
				where = "the main thread"
			}
			w(r.ln, "tool_result for %s answers a tool_use in %s (line %d), not in its own thread", r.id, where, other.line)
			continue
		}
		w(r.ln, "tool_result for tool_use id %s, which never occurs in this log", r.id)
	}
	for i, u := range t.useList {
		if k := t.uses[u.id]; k != i {
			// An earlier tool_use of the same id (a duplicated line),
			// already named as such: the later one is paired.
			continue
		}
		if !u.answered {
			if at, elsewhere := l.useAt[u.id]; elsewhere && at.t != t {
				continue
			}
			if !held.elsewhere(t, u.id) {
				w(u.ln, "tool_use %s (%s) has no tool_result", u.id, u.name)
			}
		}
	}
	return ws
}

// resultThreads is, for each tool_result id, the thread holding a result
// for it, or, when several threads do, any one of them with more set.
// Built once for the log: searched by every unanswered tool_use, the
// results of every other thread made a log of many unanswered calls
// quadratic.
type resultThreads map[string]struct {
	t    *ccThread
	more bool
}

func newResultThreads(threads []*ccThread) resultThreads {
	held := resultThreads{}
	for _, t := range threads {
		for _, r := range t.results {
			e, ok := held[r.id]
			switch {
			case !ok:
				e.t = t
			case e.t != t:
				e.more = true
			}
			held[r.id] = e
		}
	}
	return held
}

// elsewhere reports whether a thread other than t holds a result for id
// (that result already has its own warning).
func (held resultThreads) elsewhere(t *ccThread, id string) bool {
	e, ok := held[id]
	return ok && (e.more || e.t != t)
}
