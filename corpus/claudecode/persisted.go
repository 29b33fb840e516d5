package claudecode

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// Persisted outputs. Claude Code stores some tool results in
// <dir>/<session>/tool-results/<tool_use_id>.txt, beside <dir>/<session>.jsonl,
// and from some request on sends the model a marker in their place; the
// transcript keeps the original. The files are what microcompact cleared
// (cc-findings §2): every file equals its transcript result byte for byte
// (103/103 in the real logs), and
//   - in 2.1.9+ a microcompact_boundary lists each cleared id, right before
//     the request that first carried the marker (6/6 boundaries);
//   - in 2.0.60-2.1.6 no boundary is written. The results were sent whole
//     when they arrived (the recorded context grows by their size), and
//     were cleared at a request where the prompt cache breaks mid-turn:
//     cache_read falls to the system-prompt head right after tool results.
//     Claude Code keeps the newest compactable results that fit in 40,000
//     chars4 tokens and clears the older ones; simulating that at every
//     such break reproduces every file of the 7 real sessions exactly
//     (0 missing, 0 extra), so it is how the reader places those clears.

// Constants of the inference (cc-findings §1-2).
const (
	// persistKeepTokens is the keep budget: the newest compactable results
	// whose chars4 sizes fit in it stay, walking from the newest and
	// stopping at the first that overflows. Feasible interval in the real
	// logs: [39,340, 40,146), from 15 events in two scenario families.
	persistKeepTokens = 40000
	// A mid-turn cache break: cache_read above breakFrom at the previous
	// request and below breakTo at this one (the system-prompt head is
	// about 18k in every real log), with a tool message right before it.
	breakFrom = 60000
	breakTo   = 30000
)

// neverCleared are the tools whose results microcompact never cleared in
// the real logs (0 of 23 results). Every other tool counts as compactable.
var neverCleared = map[string]bool{"Skill": true, "SlashCommand": true, "Task": true, "TodoWrite": true}

// PersistedMarker is the text the model was sent instead of a persisted
// result (SOURCES.md, quoting the repository's REPRODUCTION.md).
func PersistedMarker(path string) string {
	return "<persisted-output>Tool result saved to: " + path + "\n\nUse Read to view</persisted-output>"
}

// PersistedPath is where Claude Code wrote a persisted result on the
// recording machine: <home>/.claude/projects/<cwd with every character but
// an ASCII letter or digit as '-'>/<session>/tool-results/<id>.txt (the real
// logs' read-backs name -Users-gray-Projects-barebones-phantom-reads). Home
// is the /Users/<u> or /home/<u> prefix of cwd, which makes the path the
// absolute one the marker quoted; "~" when cwd has neither (the marker then
// has the right shape, not the exact length). session is the main
// session's id: a subagent's results live in its main session's folder.
// It is the one place the reader (Recorded.Persisted markers), the
// recorded policy and clear-tool-results' {path} take the path from.
//
// On Windows (cwd C:\Users\<u>\...) home is C:\Users\<u> and the separators
// are backslashes, as Node's path.join writes them there; no real log here
// was recorded on Windows, so that form is read from the code's shape, not
// checked against a marker.
func PersistedPath(cwd, session, id string) string {
	home, sep := "~", "/"
	if parts := strings.SplitN(cwd, "/", 4); len(parts) >= 3 && parts[0] == "" && (parts[1] == "Users" || parts[1] == "home") {
		home = "/" + parts[1] + "/" + parts[2]
	}
	if len(cwd) >= 3 && cwd[1] == ':' && cwd[2] == '\\' {
		sep = `\`
		if parts := strings.SplitN(cwd, `\`, 4); len(parts) >= 3 && strings.EqualFold(parts[1], "Users") {
			home = parts[0] + `\` + parts[1] + `\` + parts[2]
		}
	}
	proj := []byte(cwd)
	for i, c := range proj {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			proj[i] = '-'
		}
	}
	return home + sep + ".claude" + sep + "projects" + sep + string(proj) + sep + session + sep + "tool-results" + sep + id + ".txt"
}

// persistedDir is the folder of the persisted outputs of the log at p,
// whose records name session: <id>/tool-results beside <id>.jsonl. A
// subagent shares its main session's folder (PersistedPath), so a subagent
// log, <id>/subagents/agent-*.jsonl (2.1.x) or agent-*.jsonl beside
// <id>.jsonl (2.0.x), reads that one, and shared is true: the folder also
// holds the other threads' outputs. A log named otherwise than .jsonl
// (piped in, or renamed) has none: "" then.
func persistedDir(p, session string) (dir string, shared bool) {
	if !strings.HasSuffix(p, ".jsonl") {
		return "", false
	}
	parent := filepath.Dir(p)
	if filepath.Base(parent) == "subagents" {
		return filepath.Join(filepath.Dir(parent), "tool-results"), true
	}
	if strings.HasPrefix(filepath.Base(p), "agent-") && session != "" {
		return filepath.Join(parent, session, "tool-results"), true
	}
	return filepath.Join(strings.TrimSuffix(p, ".jsonl"), "tool-results"), false
}

// subagentLogs are the subagent logs of the main log at p: what may hold
// the tool calls of persisted outputs the main log does not have.
func subagentLogs(p string) []string {
	a, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(p, ".jsonl"), "subagents", "*.jsonl"))
	b, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "agent-*.jsonl"))
	return append(a, b...)
}

// markMentioned sets strays[id] for each id some file of files holds as a
// JSON string ("id"): a persisted output of a subagent's tool call is the
// subagent log's to read, not a stray file of the main session's. Each
// log is streamed once and its quoted strings looked up, so a folder of
// many stray files costs one pass over the logs, not one per file, and
// memory does not grow with a log's size (the real logs have no stray
// file at all).
func markMentioned(files []string, strays map[string]bool) {
	for _, p := range files {
		f, err := jsonscan.Open(p)
		if err != nil {
			continue // the log's own reader reports it
		}
		markIn(bufio.NewReaderSize(f, 64<<10), strays)
		f.Close()
	}
}

// markIn looks up every run between two consecutive quotes of r: "id"
// occurs exactly when one of those runs is id, as ids hold no quote. A
// run longer than r's buffer is no id, and is passed over.
func markIn(r *bufio.Reader, strays map[string]bool) {
	long := false
	for {
		run, err := r.ReadSlice('"')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			long = true
			continue
		case err != nil:
			return // the end, or a read error the log's own reader reports
		}
		if id := run[:len(run)-1]; !long {
			if _, ok := strays[string(id)]; ok {
				strays[string(id)] = true
			}
		}
		long = false
	}
}

// IsPersistedDir reports whether dir is the persisted-output folder of a
// Claude Code log beside it. A folder walk must not sniff those files as
// sessions: the reader of the log reads them, and an output can itself be
// a log (a Bash cat of one), which would come back as a session of its
// own.
func IsPersistedDir(dir string) bool {
	parent := filepath.Dir(dir)
	return filepath.Base(dir) == "tool-results" && parent != "." && jsonscan.Exists(parent+".jsonl")
}

// readPersisted reads the tool-results folder beside the log, if any, and
// gives each thread its persisted results. Bad files are warnings naming
// the file; they never stop the log from loading.
func (l *ccLoader) readPersisted(session string) {
	dir, shared := persistedDir(l.path, session)
	if dir == "" {
		l.inferPersisted(session) // piped in, or renamed: no folder to look for
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.inferPersisted(session)
		} else if !shared {
			l.warnings = append(l.warnings, corpus.Warning{File: dir, Message: "tool-results folder unreadable (" + err.Error() + "); persisted outputs ignored"})
		}
		return
	}
	fileWarn := func(p, msg string) { l.warnings = append(l.warnings, corpus.Warning{File: p, Message: msg}) }
	results := 0
	for _, t := range append([]*ccThread{l.main}, l.runs...) {
		results += len(t.results)
	}
	byThread := map[*ccThread][]corpus.Persisted{}
	// strays are the outputs of calls the log does not have, each true
	// when a subagent log holds the call.
	strays := map[string]bool{}
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".txt"); ok && id != "" && !e.IsDir() && l.useAt[id].t == nil {
			strays[id] = false
		}
	}
	if len(strays) > 0 && !shared {
		markMentioned(subagentLogs(l.path), strays)
	}
	data := l.buffers.file // each file in turn: only compared and measured
	defer func() { l.buffers.file = data[:0] }()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".txt") {
			continue
		}
		p := filepath.Join(dir, name)
		id := strings.TrimSuffix(name, ".txt")
		if id == "" {
			if !shared {
				fileWarn(p, "persisted output with no tool call id in its name (expected <tool_use_id>.txt); file ignored")
			}
			continue
		}
		t := l.useAt[id].t
		if t == nil {
			if shared {
				continue // another thread's: its log reads it
			}
			if strays[id] {
				continue
			}
			if results == 0 {
				fileWarn(p, "persisted output, but the transcript has no tool results at all; file ignored")
			} else {
				fileWarn(p, "persisted output for tool call "+id+", which the transcript does not have; file ignored")
			}
			continue
		}
		text, hasText := t.resultText(id)
		if hasText && cap(data) <= len(text) {
			// Room for the file, which should be the text, and for the
			// read that finds its end: ReadInto then reads it in one
			// call instead of growing from nothing (a dozen reads).
			data = make([]byte, 0, len(text)+1)
		}
		data, err = jsonscan.ReadInto(p, data)
		if err != nil {
			fileWarn(p, "persisted output unreadable ("+err.Error()+"); file ignored")
			continue
		}
		if len(data) == 0 {
			fileWarn(p, "persisted output is empty (expected the full text of tool result "+id+"); file ignored")
			continue
		}
		if hasText && text != string(data) {
			fileWarn(p, "persisted output differs from the transcript's result for "+id+" (the transcript's text is replayed)")
		}
		replayed := text
		if !hasText {
			replayed = string(data)
		}
		byThread[t] = append(byThread[t], corpus.Persisted{ToolCallID: id, File: p, Bytes: int64(len(data)), Boundary: -1, AtMessage: -1,
			Marker: PersistedMarker(PersistedPath(l.meta.Cwd, session, id)), Chars: utf16Len(replayed)})
	}
	for t, ps := range byThread {
		t.placePersisted(ps)
		t.persisted = ps
	}
}

// resultText is the text of the tool result with a tool call id.
func (t *ccThread) resultText(id string) (string, bool) {
	u, ok := t.uses[id]
	if !ok {
		return "", false
	}
	from := t.useList[u].msg
	for mi := from + 1; mi < len(t.msgs); mi++ {
		for _, b := range t.msgs[mi].Blocks {
			if b.Kind == corpus.KindToolResult && b.ToolCallID == id {
				return b.Text, true
			}
		}
	}
	return "", false
}

// placePersisted finds the request at which each result was first sent as
// its marker: the boundary that lists it, else the keep-40k clear at a
// mid-turn cache break, else the first request after it arrived.
func (t *ccThread) placePersisted(ps []corpus.Persisted) {
	want := map[string]int{}
	for i := range ps {
		want[ps[i].ToolCallID] = i
	}
	for k, c := range t.compactions {
		if c.Strategy != "microcompact" {
			continue
		}
		for _, id := range c.ClearedIDs {
			if i, ok := want[id]; ok && ps[i].Boundary < 0 {
				ps[i].Boundary, ps[i].AtMessage, ps[i].Placed = k, c.AtMessage, corpus.PlacedBoundary
			}
		}
	}
	if !unplaced(ps) {
		return // the boundaries placed every one (2.1.9+ logs)
	}
	t.breakClears(func(mi int, ids []string, _ bool) {
		for _, id := range ids {
			if i, ok := want[id]; ok && ps[i].AtMessage < 0 {
				ps[i].AtMessage, ps[i].Placed = mi, corpus.PlacedCacheBreak
			}
		}
	})
	for i := range ps {
		if ps[i].AtMessage < 0 {
			ps[i].AtMessage, ps[i].Placed = t.firstAssistantAfter(ps[i].ToolCallID), corpus.PlacedArrival
		}
	}
}

// breakClears walks the thread's requests and calls clear at each
// mid-turn prompt-cache break (the recorded cache read falls from above
// breakFrom to below breakTo right after tool results) with the ids Claude
// Code's microcompact clears there: the compactable results sent so far
// and not cleared, but for the newest that fit in persistKeepTokens chars4
// tokens, oldest first. fell says whether the break's recorded prompt
// (uncached input, cache write and read) is smaller than the previous
// request's: a clear takes results out; a cache that merely expired sends
// everything again.
func (t *ccThread) breakClears(clear func(mi int, ids []string, fell bool)) {
	// A result's chars4 size is only needed when a break's keep walk
	// reaches it, which is at most the few newest: it is computed then
	// (tokens < 0 until), not for every result of the session.
	type live struct {
		id     string
		text   string
		tokens int
	}
	type recorded struct{ read, prompt int }
	usage := make(map[int]recorded, len(t.usage.list)) // assistant message -> its request's usage
	for _, u := range t.usage.list {
		if u.AtMessage >= 0 {
			usage[u.AtMessage] = recorded{u.CacheReadTokens, u.Prompt()}
		}
	}
	var uncleared []live // compactable results sent so far, not cleared, in tool_use order
	arrived := map[string]bool{}
	prev := recorded{read: -1}
	var ids []string
	for mi := range t.msgs {
		m := &t.msgs[mi]
		if m.Role == corpus.RoleTool {
			for _, b := range m.Blocks {
				if b.Kind != corpus.KindToolResult || arrived[b.ToolCallID] {
					continue
				}
				arrived[b.ToolCallID] = true
				if u, ok := t.uses[b.ToolCallID]; ok && !neverCleared[t.useList[u].name] {
					uncleared = append(uncleared, live{b.ToolCallID, b.Text, -1})
				}
			}
			continue
		}
		if m.Role != corpus.RoleAssistant {
			continue
		}
		u, ok := usage[mi]
		if !ok {
			continue
		}
		if prev.read > breakFrom && u.read < breakTo && mi > 0 && t.msgs[mi-1].Role == corpus.RoleTool {
			kept, total := 0, 0
			for j := len(uncleared) - 1; j >= 0; j-- {
				r := &uncleared[j]
				if r.tokens < 0 {
					r.tokens = chars4(r.text)
				}
				if total+r.tokens > persistKeepTokens {
					break
				}
				total += r.tokens
				kept++
			}
			ids = ids[:0]
			for _, r := range uncleared[:len(uncleared)-kept] {
				ids = append(ids, r.id)
			}
			clear(mi, ids, u.prompt < prev.prompt)
			uncleared = append(uncleared[:0], uncleared[len(uncleared)-kept:]...)
		}
		prev = u
	}
}

// unplaced reports whether some persisted result has no request yet.
func unplaced(ps []corpus.Persisted) bool {
	for i := range ps {
		if ps[i].AtMessage < 0 {
			return true
		}
	}
	return false
}

// firstAssistantAfter is the first assistant message after the one that
// called id (len(msgs) when none: the result was never sent).
func (t *ccThread) firstAssistantAfter(id string) int {
	from := t.useList[t.uses[id]].msg
	for mi := from + 1; mi < len(t.msgs); mi++ {
		if t.msgs[mi].Role == corpus.RoleAssistant {
			return mi
		}
	}
	return len(t.msgs)
}

// chars4 is Claude Code's own size estimate of a text: UTF-16 code units
// divided by 4, rounded half up (JavaScript's Math.round(s.length / 4)).
// The keep budget is in these units.
func chars4(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++ // a surrogate pair
		}
	}
	return (n + 2) / 4
}

// utf16Len is s's length in UTF-16 code units, as JavaScript counts it (an
// invalid byte is one U+FFFD); policy's chars4 meter counts the same, with
// fast paths it needs at every request and this, once per file, does not.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
