package claudecode

// Assembling a log's threads into sessions once every line is read: the
// main thread and each sidechain run become a session, with the file's
// warnings on the first, and a run is named after the Task call that
// opened it.

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// finish orders tool results, checks pairing and builds the sessions.
func (l *ccLoader) finish() []*corpus.Session {
	id := l.sessionID
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(l.path), ".jsonl")
	}
	threadWarn := map[*ccThread][]corpus.Warning{}
	all := append([]*ccThread{l.main}, l.runs...)
	held := newResultThreads(all)
	for _, t := range all {
		t.sortResults()
		threadWarn[t] = l.pairing(t, held)
	}
	l.readPersisted(id)
	l.warnings = append(l.warnings, l.tally.Warnings(l.path, "Claude Code")...)

	var out []*corpus.Session
	emitMain := len(l.main.msgs) > 0 || len(l.main.compactions) > 0 || len(l.runs) == 0
	fileWarnings := l.warnings
	if emitMain {
		out = append(out, l.session(l.main, id, l.meta, append(fileWarnings, threadWarn[l.main]...)))
		fileWarnings = nil
	}
	used := map[string]bool{}
	for k, t := range l.runs {
		meta := l.meta
		meta.Parent, meta.Kind, meta.Model, meta.Title = id, "subagent", t.model, ""
		if meta.Model == "" {
			meta.Model = l.meta.Model
		}
		sid := fmt.Sprintf("%s/sidechain-%d", id, k+1)
		if t.agentID != "" {
			sid = id + "/agent-" + t.agentID
		}
		if task := l.taskFor(t, used); task != "" {
			meta.Title = "Task " + task
		}
		out = append(out, l.session(t, sid, meta, append(fileWarnings, threadWarn[t]...)))
		fileWarnings = nil
	}
	if emitMain && len(out[0].Messages) == 0 {
		out[0].Warnings = append(out[0].Warnings, corpus.Warning{File: l.path, Line: 0,
			Message: "no user or assistant messages in this log (only metadata lines)"})
	}
	return out
}

func (l *ccLoader) session(t *ccThread, id string, meta corpus.Meta, ws []corpus.Warning) *corpus.Session {
	for i := range t.compactions {
		t.compactions[i].Index = i
	}
	ws = append(ws, t.usage.warning(l.path)...)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Line < ws[j].Line })
	return &corpus.Session{ID: id, Format: corpus.FormatClaudeCode, Path: l.path, Meta: meta, Messages: t.msgs,
		Recorded: corpus.Recorded{Compactions: t.compactions, Persisted: t.persisted, Usage: t.usage.list}, Warnings: ws}
}

// taskFor finds the main-thread Task tool_use whose prompt opened a
// sidechain run.
func (l *ccLoader) taskFor(t *ccThread, used map[string]bool) string {
	if len(t.msgs) == 0 || t.msgs[0].Role != corpus.RoleUser || len(t.msgs[0].Blocks) == 0 {
		return ""
	}
	first := t.msgs[0].Blocks[0].Text
	for _, task := range l.tasks {
		if !used[task.id] && task.prompt == first {
			used[task.id] = true
			return task.id
		}
	}
	return ""
}
