package claudecode

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// Claude Code project logs (~/.claude/projects/<cwd-with-dashes>/<session>.jsonl,
// and <session>/subagents/agent-<id>.jsonl): one JSON record per line.
//
// How a log becomes sessions (see README "Claude Code and Codex logs"):
//   - The main thread (isSidechain false) is one Session. Its Messages are the
//     raw, pre-compaction history: Claude Code keeps the original content of
//     every tool_result even after microcompact cleared it.
//   - Each sidechain run (isSidechain true; a run starts at a line whose
//     parentUuid is null or unknown) is its own Session, with Meta.Parent set
//     to the main session id and every message marked Sidechain. Claude Code
//     1.0.x writes Task subagents inline; 2.x writes them to agent files,
//     which therefore load as sidechain sessions too. Keeping them apart means
//     a replay of the main thread never sees a subagent's turns.
//   - One API response is written as several assistant lines (one content
//     block each, the same message.id). They are merged into one Message,
//     which is what the provider produced and will be sent again.
//   - tool_result blocks (role "user" lines) become RoleTool messages. The
//     results that answer one assistant message are merged into one tool
//     message and put in tool_use order: Claude Code writes them in
//     completion order, but sends them (and lists them in
//     microcompact_boundary compactedToolIds) in tool_use order.
//   - compact_boundary and microcompact_boundary lines are Recorded
//     compactions; an isCompactSummary message is marked Summary and gives
//     its compaction the summary text (1.0.x writes only the summary).

// ccSkipTypes are the record types that hold no conversation: titles,
// snapshots for undo, UI progress, queue bookkeeping, tags. They are skipped
// silently; any other unknown type is skipped with one warning per type.
var ccSkipTypes = map[string]bool{
	"summary": true, "file-history-snapshot": true, "progress": true,
	"queue-operation": true, "custom-title": true, "ai-title": true,
	"last-prompt": true, "tag": true, "agent-name": true, "agent-color": true,
	"pr-link": true, "attachment": true, "attribution-snapshot": true,
}

// ccThread is the main thread or one sidechain run of a log.
type ccThread struct {
	sidechain   bool
	firstLine   int
	agentID     string
	model       string
	msgs        []corpus.Message
	apiIDs      []string // the API message id of each message ("" if none)
	lastAsst    int      // index of the last assistant message, -1 if none
	toolOpen    bool     // the last message is a tool message that takes more results
	uses        map[string]int
	useList     []ccUse
	results     []ccResult
	compactions []corpus.Compaction
	pendingComp int // a compact_boundary waiting for its summary message, -1 if none
	usage       ccUsageState
	persisted   []corpus.Persisted
}

type ccUse struct {
	id, name       string
	msg, block, ln int
	answered       bool
}

type ccResult struct {
	id string
	ln int
}

type ccLoader struct {
	path       string
	main       *ccThread
	runs       []*ccThread
	runOf      map[string]*ccThread // uuid -> sidechain run
	runByAgent map[string]*ccThread // agentId -> sidechain run
	useAt      map[string]ccUseAt   // tool_use id -> where, across threads
	tasks      []ccTask
	tally      jsonscan.Tallies
	warnings   []corpus.Warning // about the file, not one thread
	sessionID  string
	meta       corpus.Meta
	recent     ccRecent
	// lineTime is the current line's timestamp, parsed once by noteMeta
	// for all that uses it (zero: none, or not RFC 3339).
	lineTime time.Time
	// mapped is the array mapBlocks maps a line's blocks into: they are
	// copied into messages, so it serves every line.
	mapped []corpus.Block
	// buffers are the load's pooled buffers (reader.go).
	buffers *loadBuffers
}

type ccTask struct{ id, prompt string }

// ccUseAt is where a tool_use id was last used: one map entry for what
// pairing and persisted outputs ask of an id, set with one store per
// tool_use.
type ccUseAt struct {
	t    *ccThread
	line int
}

func newCCThread(sidechain bool, line int) *ccThread {
	return &ccThread{sidechain: sidechain, firstLine: line, lastAsst: -1, pendingComp: -1, uses: map[string]int{}}
}

// Load reads one Claude Code log: its main thread and each sidechain run
// as sessions (see the top of this file).
func Load(p string, opts corpus.Options) ([]*corpus.Session, error) {
	return jsonscan.LoadFile(p, opts, Read)
}

// Read reads a log from r (a file, or standard input); p names it in
// sessions and warnings.
func Read(p string, r io.Reader, opts corpus.Options) ([]*corpus.Session, error) {
	l := &ccLoader{path: p, main: newCCThread(false, 0), runOf: map[string]*ccThread{}, runByAgent: map[string]*ccThread{},
		useAt: map[string]ccUseAt{}, tally: jsonscan.NewTallies()}
	l.meta.Provider = "anthropic"
	l.buffers = loadPool.Get().(*loadBuffers)
	l.recent.scratch = l.buffers.scratch
	defer func() {
		l.buffers.scratch = l.recent.scratch[:0]
		loadPool.Put(l.buffers)
	}()
	if err := l.buffers.streamLines(r, l.line); err != nil {
		return nil, jsonscan.ReadError(p, err)
	}
	return l.finish(), nil
}

func (l *ccLoader) warn(line int, format string, args ...any) {
	l.warnings = append(l.warnings, corpus.Warnf(l.path, line, format, args...))
}

func (l *ccLoader) line(n int, b []byte, final bool) error {
	var ln ccLine
	if err := ccDecodeLine(b, &ln, &l.recent); err != nil {
		if final {
			l.warn(n, "the log is cut mid-line: the last line (%d bytes, no newline) is not complete JSON; line skipped", len(b))
		} else {
			l.warn(n, "invalid JSON (%v); line skipped", err)
		}
		return nil
	}
	l.noteMeta(&ln, n)
	l.tally.Odd.Note(ln.odd, n)
	if ln.typeJSON != "" {
		l.thread(&ln, n, false) // keep a sidechain's parent chain intact
		l.warn(n, "type is %s, not a string naming the line's type; line skipped", jsonscan.Excerpt(ln.typeJSON))
		return nil
	}
	switch ln.Type {
	case "user", "assistant":
		switch {
		case ln.messageJSON != "":
			l.warn(n, "%s line's message is %s, not an object; line skipped", ln.Type, jsonscan.Excerpt(ln.messageJSON))
			return nil
		case ln.Message == nil:
			l.warn(n, "%s line has no message; line skipped", ln.Type)
			return nil
		}
		t := l.thread(&ln, n, true)
		if ln.Type == "user" {
			l.user(t, &ln, n)
		} else {
			l.assistant(t, &ln, n)
		}
	case "system":
		t := l.thread(&ln, n, false)
		switch ln.Subtype {
		case "compact_boundary", "microcompact_boundary":
			if t == nil {
				t = l.thread(&ln, n, true)
			}
			l.boundary(t, &ln, n)
		case "stop_hook_summary":
			if t != nil {
				t.usage.stopHook = true
			}
		}
		// Every other system line (turn_duration, api_error, model switch
		// notes, local commands) is a harness note, not conversation.
	case "summary":
		if l.meta.Title == "" {
			l.meta.Title = ln.Summary
		}
	default:
		l.thread(&ln, n, false) // keep a sidechain's parent chain intact
		if !ccSkipTypes[ln.Type] {
			name := ln.Type
			if name == "" {
				name = "(none)"
			}
			l.tally.Unknown.Add("line type "+name, n)
		}
	}
	return nil
}

func (l *ccLoader) noteMeta(ln *ccLine, n int) {
	if l.sessionID == "" && ln.SessionID != "" {
		l.sessionID = ln.SessionID
	}
	if l.meta.AgentVersion == "" && ln.Version != "" {
		l.meta.AgentVersion = ln.Version
	}
	if l.meta.Cwd == "" && ln.Cwd != "" {
		l.meta.Cwd = ln.Cwd
	}
	l.lineTime = time.Time{}
	if ts := l.tally.Times.Parse(ln.Timestamp, n); !ts.IsZero() {
		if l.meta.CreatedAt.IsZero() {
			l.meta.CreatedAt = ts
		}
		l.meta.UpdatedAt = ts
		l.lineTime = ts
	}
}

// thread returns the thread a line belongs to: the main thread, or the
// sidechain run of its parent line. create starts a new run for a sidechain
// line with no known parent; without it such a line returns nil.
func (l *ccLoader) thread(ln *ccLine, n int, create bool) *ccThread {
	if !ln.IsSidechain {
		return l.main
	}
	var t *ccThread
	switch {
	case ln.ParentUUID != nil:
		t = l.runOf[*ln.ParentUUID]
	case ln.LogicalParentUUID != "":
		t = l.runOf[ln.LogicalParentUUID] // a compaction inside a subagent
	}
	if t == nil && ln.AgentID != "" {
		t = l.runByAgent[ln.AgentID] // 2.x names the agent on every line
	}
	if t == nil {
		if !create {
			return nil
		}
		t = newCCThread(true, n)
		t.agentID = ln.AgentID
		l.runs = append(l.runs, t)
		if ln.AgentID != "" {
			l.runByAgent[ln.AgentID] = t
		}
	}
	if ln.UUID != "" {
		l.runOf[ln.UUID] = t
	}
	return t
}

func (t *ccThread) add(m corpus.Message, apiID string) int {
	m.Sidechain = t.sidechain
	t.msgs = append(t.msgs, m)
	t.apiIDs = append(t.apiIDs, apiID)
	t.toolOpen = m.Role == corpus.RoleTool
	return len(t.msgs) - 1
}

func (l *ccLoader) user(t *ccThread, ln *ccLine, n int) {
	text, blocks, isString, err := ln.Message.content.get(ln.Message.Content)
	if err != nil {
		l.warn(n, "message.content is neither a string nor a list of content blocks (%v); line skipped", err)
		return
	}
	msg := corpus.Message{ID: ln.UUID, Role: corpus.RoleUser, Synthetic: ln.IsMeta, Summary: ln.IsCompactSummary,
		Time: l.lineTime, Line: n}
	t.usage.sawUser(msg.Time, n)
	if isString {
		msg.Blocks = []corpus.Block{{Kind: corpus.KindText, Text: text}}
		l.addUser(t, msg, n)
		return
	}
	mapped, err := l.mapBlocks(blocks, n)
	if err != nil {
		l.warn(n, "%v; line skipped", err)
		return
	}
	if len(mapped) == 0 {
		l.warn(n, "user message with no content blocks (the API never receives one); line skipped")
		return
	}
	var tools, rest []corpus.Block
	for _, b := range mapped {
		if b.Kind == corpus.KindToolResult || (b.ToolCallID != "" && b.Kind != corpus.KindToolUse) {
			tools = append(tools, b)
		} else {
			rest = append(rest, b)
		}
	}
	if len(tools) > 0 {
		for _, b := range tools {
			if b.Kind == corpus.KindToolResult {
				t.results = append(t.results, ccResult{id: b.ToolCallID, ln: n})
			}
		}
		if t.toolOpen && len(t.msgs) > 0 {
			last := &t.msgs[len(t.msgs)-1]
			last.Blocks = append(last.Blocks, tools...)
		} else {
			t.add(corpus.Message{ID: ln.UUID, Role: corpus.RoleTool, Blocks: tools, Time: msg.Time, Line: n}, "")
		}
	}
	if len(rest) > 0 {
		if len(tools) > 0 {
			msg.ID = ln.UUID + "/text" // the same line also gave a tool message
		}
		msg.Blocks = rest
		l.addUser(t, msg, n)
	}
}

// addUser adds a user message and, for a compact summary, records it as
// (or attaches it to) a compaction.
func (l *ccLoader) addUser(t *ccThread, msg corpus.Message, n int) {
	if !msg.Synthetic && localCommandOutput(&msg) {
		// A local command (/context, /export, /exit) and its output are
		// history the model is sent, behind the caveat Claude Code writes
		// before them, but no turn: the model answers neither.
		msg.Synthetic = true
		if k := len(t.msgs) - 1; k >= 0 && commandLine(&t.msgs[k]) {
			t.msgs[k].Synthetic = true
		}
	}
	i := t.add(msg, "")
	if !msg.Summary {
		return
	}
	var texts []string
	for _, b := range msg.Blocks {
		if b.Kind == corpus.KindText {
			texts = append(texts, b.Text)
		}
	}
	text := strings.Join(texts, "\n")
	if p := t.pendingComp; p >= 0 {
		t.compactions[p].SummaryID = msg.ID
		t.compactions[p].Summary = text
		t.pendingComp = -1
		return
	}
	// Claude Code 1.0.x writes no boundary line: the summary is the record.
	t.compactions = append(t.compactions, corpus.Compaction{Strategy: "compact", AtMessage: i,
		SummaryID: msg.ID, Summary: text, CreatedAt: msg.Time, Line: n})
}

func (l *ccLoader) assistant(t *ccThread, ln *ccLine, n int) {
	text, blocks, isString, err := ln.Message.content.get(ln.Message.Content)
	if err != nil {
		l.warn(n, "message.content is neither a string nor a list of content blocks (%v); line skipped", err)
		return
	}
	var mapped []corpus.Block
	if isString {
		mapped = []corpus.Block{{Kind: corpus.KindText, Text: text}}
	} else if mapped, err = l.mapBlocks(blocks, n); err != nil {
		l.warn(n, "%v; line skipped", err)
		return
	}
	model := ln.Message.Model
	if model != "" && model != "<synthetic>" {
		if t.model == "" {
			t.model = model
		}
		if l.meta.Model == "" && !t.sidechain {
			l.meta.Model = model
		}
	}
	if len(mapped) == 0 {
		l.warn(n, "assistant message with no content blocks; line skipped")
		return
	}
	mi := -1
	if a := t.lastAsst; a >= 0 && ln.Message.ID != "" && t.apiIDs[a] == ln.Message.ID && t.onlyToolsAfter(a) {
		mi = a // another content block of the same API response
	} else {
		mi = t.add(corpus.Message{ID: ln.UUID, Role: corpus.RoleAssistant, Synthetic: model == "<synthetic>",
			Time: l.lineTime, Line: n}, ln.Message.ID)
		t.lastAsst = mi
	}
	l.noteUsage(t, ln, n, mi)
	m := &t.msgs[mi]
	for _, b := range mapped {
		if b.Kind == corpus.KindToolUse {
			l.noteUse(t, b, mi, len(m.Blocks), n)
			if len(b.Args) > 0 && b.Args[0] != '{' && b.Args[0] != 'n' { // null: no input, nothing to name
				l.tally.Odd.Note([]jsonscan.OddValue{{Name: "tool_use input", JSON: string(b.Args), Want: "an object",
					Effect: "kept as recorded, but no path, command or URL is read from it"}}, n)
			}
		}
		m.Blocks = append(m.Blocks, b)
	}
}

func (t *ccThread) onlyToolsAfter(a int) bool {
	for _, m := range t.msgs[a+1:] {
		if m.Role != corpus.RoleTool {
			return false
		}
	}
	return true
}

func (l *ccLoader) noteUse(t *ccThread, b corpus.Block, mi, bi, n int) {
	if prev, ok := l.useAt[b.ToolCallID]; ok {
		l.warn(n, "tool_use id %s already used at line %d; the later one is kept for pairing", b.ToolCallID, prev.line)
	}
	t.uses[b.ToolCallID] = len(t.useList)
	t.useList = append(t.useList, ccUse{id: b.ToolCallID, name: b.ToolName, msg: mi, block: bi, ln: n})
	l.useAt[b.ToolCallID] = ccUseAt{t: t, line: n}
	if !t.sidechain && (b.ToolName == "Task" || b.ToolName == "Agent") {
		var in struct {
			Prompt string `json:"prompt"`
		}
		if json.Unmarshal(b.Args, &in) == nil && in.Prompt != "" {
			l.tasks = append(l.tasks, ccTask{id: b.ToolCallID, prompt: in.Prompt})
		}
	}
}

func (l *ccLoader) boundary(t *ccThread, ln *ccLine, n int) {
	c := corpus.Compaction{ID: ln.UUID, Strategy: "compact", AtMessage: len(t.msgs),
		CreatedAt: l.lineTime, Line: n}
	md := ln.CompactMetadata
	if ln.Subtype == "microcompact_boundary" {
		c.Strategy, md = "microcompact", ln.MicrocompactMetadata
	}
	if md == nil {
		l.warn(n, "%s line has no metadata; recorded with no token figures", ln.Subtype)
	} else {
		c.Trigger, c.TokensBefore, c.TokensAfter, c.TokensSaved = md.Trigger, md.PreTokens, md.PostTokens, md.TokensSaved
		c.ClearedIDs = md.CompactedToolIDs
	}
	var missing []string
	for _, id := range c.ClearedIDs {
		if _, ok := t.uses[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		l.warn(n, "%s names %d tool id(s) that do not occur before it in this thread (first: %s)",
			ln.Subtype, len(missing), missing[0])
	}
	t.compactions = append(t.compactions, c)
	if c.Strategy == "compact" {
		t.pendingComp = len(t.compactions) - 1
	}
	t.toolOpen = false // results after a boundary were sent after it
}
