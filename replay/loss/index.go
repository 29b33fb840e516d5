package loss

import (
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Options tune the index.
type Options struct {
	// Meter measures a result for refetch_tokens; nil means chars4, the
	// estimate Claude Code itself makes.
	Meter *policy.Meter
	// Shared says the index serves many replays of its session (a sweep's
	// parameter sets, compare's policies): the evidence is then built once
	// for every result and kept. Without it each report builds the
	// evidence of the results its replay hid, and only those (evidence.go).
	Shared bool
	// Scratch, when set and the index is not shared, is where the index's
	// reports build their tables (scratch.go): the caller's, reused from
	// one session's report to the next. Not safe for concurrent use: one
	// report at a time, on the goroutine that owns it.
	Scratch *Scratch
}

// Result is one tool result of the session and what the recording shows
// the agent did with it later.
type Result struct {
	ID      string
	Tool    string // "" when no tool call has the result's id
	Subject Subject
	// Msg and Block locate the result in Session.Messages; CallMsg is the
	// assistant message holding its call (-1 if none).
	Msg, Block, CallMsg int
	pos                 int   // its index in Index.Results, for Index.sizes
	call                int32 // its call's index in Index.calls, -1 if none
}

// unit is one message the agent wrote: an assistant message of the thread.
type unit struct {
	msg  int32
	line int32
	// calls are its tool calls: Index.calls[calls[0]:calls[1]].
	calls [2]int32
}

// toolCall is one tool_use of the thread.
type toolCall struct {
	unit  int32
	block int32 // in the unit's message
}

// Index is the recording side of loss for one session: every tool result,
// its subject, and where the agent later named, quoted or fetched it.
// Building it is linear in the session, in three steps each paid only when
// needed: Build lists the results and calls (what a replay's tracker
// needs); a report reads the calls' subjects (calls.go: every call once
// for a shared index, the calls it can need for one replay's); the
// evidence (evidence.go) scans the results' lines and the agent's messages
// once for the results a report asks about.
type Index struct {
	Session *corpus.Session
	Results []Result
	byID    map[string]int
	units   []unit
	calls   []toolCall
	callOf  map[string]int32 // tool call id -> index in calls
	meter   *policy.Meter
	shared  bool
	scratch *Scratch // Options.Scratch, nil for a shared index
	// sizes[k] is Results[k]'s size in meter units plus one, 0 until first
	// measured. A sweep's jobs share the index and read the same refetched
	// results' sizes for every parameter set: measuring each once (an
	// atomic store of a value every racer computes alike) saves re-reading
	// the text, without measuring results no signal asks for.
	sizes []atomic.Int64

	// all are the facts of every call, read once by prepare (calls.go).
	prepared sync.Once
	all      *callFacts

	// bases counts the files of the session by base name (basename.go).
	basesOnce sync.Once
	bases     map[string]int

	// twin[k] is the first result with result k's text (twins.go).
	twinOnce sync.Once
	twin     []int32

	// full is the evidence of every result, built once for a shared index
	// (or when a report's hidden results are most of the session's text).
	fullOnce sync.Once
	full     *evidence
}

// Tokens is a result's size in the index's meter: the content the model
// was sent for it (corpus.Block.Content: a structured result's payload
// JSON), as every meter measures a result, without its tool name. It is
// measured on demand, for hidden results only, so the index never
// measures every result, and once for all the results with the same text
// (twins.go).
func (ix *Index) Tokens(r *Result) int {
	root := &ix.Results[ix.twins()[r.pos]]
	size := &ix.sizes[root.pos]
	if v := size.Load(); v > 0 {
		return ix.meter.Tokens(v - 1)
	}
	b := &ix.Session.Messages[root.Msg].Blocks[root.Block]
	v := ix.meter.Block(&corpus.Block{Kind: corpus.KindText, Text: b.Content()})
	size.Store(v + 1)
	return ix.meter.Tokens(v)
}

// Build indexes a session's main thread (or, for a session that is all
// sidechain, the whole of it: a subagent's own log). It only lists the
// results and the calls, in one pass without decoding anything: a replay
// that hides nothing never pays for more.
func Build(s *corpus.Session, opt Options) *Index {
	meter := opt.Meter
	if meter == nil {
		meter, _ = policy.NewMeter(policy.MeterChars4, policy.MeterOptions{})
	}
	side := allSidechain(s)
	// Counting first sizes every list and map once: appending grew the
	// results a quarter at a time, several times their size allocated in
	// all, and Build's allocations were a replay's largest after loading.
	units, calls, results := 0, 0, 0
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Sidechain && !side {
			continue
		}
		if m.Role == corpus.RoleAssistant {
			units++
		}
		for j := range m.Blocks {
			switch {
			case m.Blocks[j].Kind == corpus.KindToolUse && m.Role == corpus.RoleAssistant:
				calls++
			case m.Blocks[j].Kind == corpus.KindToolResult && m.Role != corpus.RoleAssistant:
				results++
			}
		}
	}
	ix := &Index{Session: s, byID: make(map[string]int, results), callOf: make(map[string]int32, calls), meter: meter, shared: opt.Shared,
		Results: make([]Result, 0, results), units: make([]unit, 0, units), calls: make([]toolCall, 0, calls)}
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Sidechain && !side {
			continue
		}
		if m.Role == corpus.RoleAssistant {
			u := int32(len(ix.units))
			first := int32(len(ix.calls))
			for j := range m.Blocks {
				if b := &m.Blocks[j]; b.Kind == corpus.KindToolUse {
					ix.callOf[b.ToolCallID] = int32(len(ix.calls))
					ix.calls = append(ix.calls, toolCall{unit: u, block: int32(j)})
				}
			}
			ix.units = append(ix.units, unit{msg: int32(i), line: int32(m.Line), calls: [2]int32{first, int32(len(ix.calls))}})
			continue
		}
		for j := range m.Blocks {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			r := Result{ID: b.ToolCallID, Msg: i, Block: j, CallMsg: -1, call: -1, pos: len(ix.Results)}
			if c, ok := ix.callOf[b.ToolCallID]; ok {
				r.call, r.CallMsg = c, int(ix.units[ix.calls[c].unit].msg)
			}
			if _, dup := ix.byID[r.ID]; !dup {
				ix.byID[r.ID] = len(ix.Results)
			}
			ix.Results = append(ix.Results, r)
		}
	}
	ix.sizes = make([]atomic.Int64, len(ix.Results))
	if !opt.Shared {
		ix.scratch = opt.Scratch
	}
	return ix
}

// appendCallKey appends what identifies "the same call again" to dst:
// for files any file tool on the same path (a Read after an Edit gets the
// content back as well), for the rest the same tool with the same key
// input; nothing for a call without a key.
func appendCallKey(dst []byte, s Subject) []byte {
	switch {
	case s.Family == FamilyFile:
		if s.Key == "" {
			return dst
		}
		return append(append(dst, "file\x00"...), s.Key...)
	case s.Key == "" || s.Key == "\x00\x00":
		return dst
	}
	return append(append(append(dst, s.Tool...), 0), s.Key...)
}

// persistedIDs appends to dst the tool call ids whose persisted outputs a
// call reads back: Claude Code's `<project>/<session>/tool-results/<id>.txt`,
// given to a file tool as its path or named in a shell command (`cat`,
// `head`, `sed -n` of the file print what the model was not shown). A
// search's pattern, path or glob is not a read back: Grep and Glob answer
// with names or matching lines, not the output.
func persistedIDs(dst []string, s Subject) []string {
	switch s.Family {
	case FamilyFile:
		dir, file := path.Split(s.Key)
		if path.Base(dir) == "tool-results" && strings.HasSuffix(file, ".txt") {
			dst = append(dst, strings.TrimSuffix(file, ".txt"))
		}
	case FamilyShell:
		dst = persistedInCommand(dst, s.Key)
	}
	return dst
}

// persistedInCommand finds `tool-results/<id>.txt` (or with a backslash,
// a session recorded on Windows) in a command line.
func persistedInCommand(dst []string, cmd string) []string {
	const dir = "tool-results"
	for rest := cmd; ; {
		i := strings.Index(rest, dir)
		if i < 0 {
			return dst
		}
		rest = rest[i+len(dir):]
		if id, ok := persistedName(rest); ok {
			dst = append(dst, id)
		}
	}
}

// persistedName reads the "/<id>.txt" (or "\<id>.txt") that starts s: the
// id is the run of characters a tool call id is made of (letters, digits,
// '_' and '-'), and the file name must end after ".txt" (`<id>.txt.bak` is
// another file).
func persistedName(s string) (string, bool) {
	if s == "" || s[0] != '/' && s[0] != '\\' {
		return "", false
	}
	n := 1
	for n < len(s) && isIDByte(s[n]) {
		n++
	}
	after, ok := strings.CutPrefix(s[n:], ".txt")
	if n == 1 || !ok || after != "" && (isIDByte(after[0]) || after[0] == '.') {
		return "", false
	}
	return s[1:n], true
}

func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func allSidechain(s *corpus.Session) bool {
	for i := range s.Messages {
		if !s.Messages[i].Sidechain {
			return false
		}
	}
	return true
}

// appendUnit appends u unless it is already the last element (lists are
// built in unit order, so this keeps them strictly ascending).
func appendUnit(l []int32, u int32) []int32 {
	if n := len(l); n > 0 && l[n-1] >= u {
		if l[n-1] == u {
			return l
		}
		return insertUnit(l, u)
	}
	return append(l, u)
}

func insertUnit(l []int32, u int32) []int32 {
	i := sort.Search(len(l), func(i int) bool { return l[i] >= u })
	if i < len(l) && l[i] == u {
		return l
	}
	l = append(l, 0)
	copy(l[i+1:], l[i:])
	l[i] = u
	return l
}

func mergeUnits(a, b []int32) []int32 {
	for _, u := range b {
		a = appendUnit(a, u)
	}
	return a
}

// firstAtOrAfter is the first element of an ascending list >= u, or -1.
func firstAtOrAfter(l []int32, u int32) int32 {
	lo, hi := 0, len(l)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if l[mid] < u {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(l) {
		return -1
	}
	return l[lo]
}
