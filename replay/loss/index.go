package loss

import (
	"bytes"
	"hash/maphash"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Options tune the index.
type Options struct {
	// Meter measures a result for refetch_tokens; nil means chars4, the
	// estimate Claude Code itself makes.
	Meter *policy.Meter
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
	pos                 int        // its index in Index.Results, for Index.sizes
	lines               int        // distinct content lines
	mentions            []int32    // name ids of Subject.Mentions
	key                 int32      // call key id, -1 if the call has no key
	quotes              []quoteHit // units quoting one of its distinctive lines, by unit
	fetched             []int32    // units whose calls fetched it back by content or by its persisted file, ascending
}

// quoteHit is a unit quoting a distinctive line of a result, and where
// that line ends in the result's text (a cut that kept the line whole
// left it visible: quoting it is no use of what was cut).
type quoteHit struct {
	unit, end int32
}

// unit is one message the agent wrote: an assistant message of the thread.
type unit struct {
	msg  int32
	line int32
	// own are the name ids its own calls' subjects mention: naming a
	// subject in order to act on it again (read the path, rerun the
	// command) is not using what an earlier result held.
	own []int32
}

// Index is the recording side of loss for one session: every tool result,
// its subject, and where the agent later named, quoted or fetched it.
// Building it is linear in the session: each message is scanned once
// against all names and all distinctive lines together (match.go), and
// each result's lines are looked up once.
type Index struct {
	Session *corpus.Session
	Results []Result
	byID    map[string]int
	units   []unit
	// mentionUnits[name id] and keyUnits[key id] are the units (ascending)
	// that name a subject or repeat a call with the same key.
	mentionUnits [][]int32
	keyUnits     [][]int32
	meter        *policy.Meter
	// sizes[k] is Results[k]'s size in meter units plus one, 0 until first
	// measured. A sweep's jobs share the index and read the same refetched
	// results' sizes for every parameter set: measuring each once (an
	// atomic store of a value every racer computes alike) saves re-reading
	// the text, without measuring results no signal asks for.
	sizes   []atomic.Int64
	once    sync.Once
	pending *pendingEvidence
}

// Tokens is a result's size in the index's meter: its text alone, also for
// a structured result (a meter counts Text, not Payload), since that is
// what the agent had to read back. It is measured on demand, for hidden
// results only, so the index never measures every result, and once.
func (ix *Index) Tokens(r *Result) int {
	size := &ix.sizes[r.pos]
	if v := size.Load(); v > 0 {
		return ix.meter.Tokens(v - 1)
	}
	b := &ix.Session.Messages[r.Msg].Blocks[r.Block]
	v := ix.meter.Block(&corpus.Block{Kind: corpus.KindText, Text: resultText(b)})
	size.Store(v + 1)
	return ix.meter.Tokens(v)
}

// contentShareCap is the most results a content line may be in and still
// count as evidence that one output repeats another: a line shared by more
// (a licence header, a generated banner, a test runner's summary) is
// boilerplate; it counts towards a result's lines but never as a repeat,
// and tracking its holders would make the cost quadratic.
const contentShareCap = 8

// call is one tool_use of the thread.
type call struct {
	unit int32
	subj Subject
}

// Build indexes a session's main thread (or, for a session that is all
// sidechain, the whole of it: a subagent's own log).
func Build(s *corpus.Session, opt Options) *Index {
	meter := opt.Meter
	if meter == nil {
		meter, _ = policy.NewMeter(policy.MeterChars4, policy.MeterOptions{})
	}
	ix := &Index{Session: s, byID: map[string]int{}, meter: meter}
	side := allSidechain(s)
	calls := map[string]call{}
	names := newNameMatcher()
	keys := map[string]int32{}
	persistReads := map[string][]int32{}
	for i := range s.Messages {
		m := &s.Messages[i]
		if m.Sidechain && !side {
			continue
		}
		if m.Role == corpus.RoleAssistant {
			u := int32(len(ix.units))
			ix.units = append(ix.units, unit{msg: int32(i), line: int32(m.Line)})
			for j := range m.Blocks {
				b := &m.Blocks[j]
				if b.Kind != corpus.KindToolUse {
					continue
				}
				c := call{unit: u, subj: SubjectOf(b.ToolName, b.Args, s.Meta.Cwd)}
				calls[b.ToolCallID] = c
				for _, name := range c.subj.Mentions {
					ix.units[u].own = append(ix.units[u].own, names.add(name))
				}
				if k := callKey(c.subj); k != "" {
					id, ok := keys[k]
					if !ok {
						id = int32(len(ix.keyUnits))
						keys[k] = id
						ix.keyUnits = append(ix.keyUnits, nil)
					}
					ix.keyUnits[id] = appendUnit(ix.keyUnits[id], u)
				}
				if id := persistedID(c.subj); id != "" {
					persistReads[id] = appendUnit(persistReads[id], u)
				}
			}
			continue
		}
		for j := range m.Blocks {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolResult {
				continue
			}
			r := Result{ID: b.ToolCallID, Msg: i, Block: j, CallMsg: -1, key: -1, pos: len(ix.Results)}
			if c, ok := calls[b.ToolCallID]; ok {
				r.Tool, r.Subject, r.CallMsg = c.subj.Tool, c.subj, int(ix.units[c.unit].msg)
				if k := callKey(c.subj); k != "" {
					r.key = keys[k]
				}
				for _, name := range c.subj.Mentions {
					r.mentions = append(r.mentions, names.add(name)) // already added with the call
				}
			} else {
				r.Subject = Subject{Family: FamilyOther}
			}
			if _, dup := ix.byID[r.ID]; !dup {
				ix.byID[r.ID] = len(ix.Results)
			}
			ix.Results = append(ix.Results, r)
		}
	}
	ix.sizes = make([]atomic.Int64, len(ix.Results))
	ix.pending = &pendingEvidence{calls: calls, names: names, persistReads: persistReads}
	return ix
}

// pendingEvidence is what the first pass leaves for the second.
type pendingEvidence struct {
	calls        map[string]call
	names        *nameMatcher
	persistReads map[string][]int32
}

// ready runs the second, costly pass the first time a signal is read:
// every result's content lines and every message's scan for names and
// quotes. A replay whose policy hid nothing never reads a signal, so it
// never pays for it; a sweep pays once per session, whatever the number of
// parameter sets (the pass is safe to race for: it runs once).
func (ix *Index) ready() {
	ix.once.Do(func() {
		p := ix.pending
		ix.pending = nil
		ix.evidence(p.calls, p.names, p.persistReads)
	})
}

func (ix *Index) evidence(calls map[string]call, names *nameMatcher, persistReads map[string][]int32) {
	texts := make([]string, len(ix.Results))
	for k := range ix.Results {
		r := &ix.Results[k]
		texts[k] = resultText(&ix.Session.Messages[r.Msg].Blocks[r.Block])
	}
	names.build()
	ix.mentionUnits = make([][]int32, len(names.ids))
	lines := ix.indexLines(texts, calls)
	for id, us := range persistReads {
		if k, ok := ix.byID[id]; ok {
			r := &ix.Results[k]
			r.fetched = mergeUnits(r.fetched, us)
		}
	}
	ix.scanUnits(names, lines)
}

// indexLines counts each content line once per result, marks content
// refetches (a later call whose result holds at least half of an earlier
// result's content lines, when that result has at least three), and
// returns the matcher of distinctive lines (those in exactly one result)
// with the result each belongs to.
func (ix *Index) indexLines(texts []string, calls map[string]call) *quoteLines {
	// Lines are keyed by a 64-bit hash (a collision between two of a
	// session's lines, about n²/2⁶⁵, could only make a line look shared)
	// and kept in one slice, so that the common case, a line seen once,
	// costs one map entry and no allocation of its own.
	type seen struct {
		line  string
		end   int32   // where the line ends in the first result's text
		first int32   // the first result holding the line
		more  []int32 // the next ones, up to contentShareCap in all
		count int32   // results holding the line
		last  int32   // the last result counted
	}
	// Sized from the text (a guess of one content line per 100 bytes; a
	// wrong guess only costs growth) so that the map and slice grow less.
	size := 0
	for _, text := range texts {
		size += len(text)
	}
	size /= 100
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]int32, size)
	all := make([]seen, 0, size)
	shared := map[int32]int32{}
	for k, text := range texts {
		r := &ix.Results[k]
		clear(shared)
		ContentLines(text, func(ln string) {
			h := maphash.String(seed, ln)
			i, ok := byHash[h]
			if !ok {
				i = int32(len(all))
				byHash[h] = i
				all = append(all, seen{line: ln, end: int32(offsetIn(text, ln) + len(ln)), first: int32(k), last: -1})
			}
			e := &all[i]
			if e.last == int32(k) {
				return // the same line twice in one result counts once
			}
			e.last = int32(k)
			r.lines++
			e.count++
			switch {
			case e.count == 1:
				return
			case e.count > contentShareCap:
				e.more = nil // boilerplate from now on
				return
			}
			shared[e.first]++
			for _, o := range e.more {
				shared[o]++
			}
			e.more = append(e.more, int32(k))
		})
		c, ok := calls[r.ID]
		if !ok {
			continue
		}
		for o, n := range shared {
			if prev := &ix.Results[o]; prev.lines >= 3 && 2*int(n) >= prev.lines {
				prev.fetched = appendUnit(prev.fetched, c.unit)
			}
		}
	}
	distinct := 0
	for i := range all {
		if all[i].count == 1 {
			distinct++
		}
	}
	q := &quoteLines{m: newLineMatcher(distinct), owner: make([]int32, 0, distinct), end: make([]int32, 0, distinct)}
	for i := range all { // first-seen order, so ids are deterministic
		if e := &all[i]; e.count == 1 {
			q.m.add(e.line)
			q.owner = append(q.owner, e.first)
			q.end = append(q.end, e.end)
		}
	}
	return q
}

// quoteLines is the matcher of distinctive lines and each line's result.
type quoteLines struct {
	m     *lineMatcher
	owner []int32
	end   []int32 // where each line ends in its result's text
}

// offsetIn is where sub, a substring sharing text's memory (ContentLines
// yields such), starts in text.
func offsetIn(text, sub string) int {
	return int(uintptr(unsafe.Pointer(unsafe.StringData(sub))) - uintptr(unsafe.Pointer(unsafe.StringData(text))))
}

// scanUnits reads every unit once: its text blocks and the string values
// of its tool inputs (decoded, so a quoted line with quotes or backslashes
// in it still matches). Thinking is not a use: the model reasoning about
// a file is not the recording showing it relied on the file's content, and
// the analyst found it changes no count on the real logs.
func (ix *Index) scanUnits(names *nameMatcher, q *quoteLines) {
	lastName := make([]int32, len(names.ids))
	for i := range lastName {
		lastName[i] = -1
	}
	for u := range ix.units {
		uu := int32(u)
		for _, id := range ix.units[u].own {
			lastName[id] = uu // never recorded for this unit
		}
		visit := func(text string) {
			names.scan(text, func(id int32) {
				if lastName[id] != uu {
					lastName[id] = uu
					ix.mentionUnits[id] = append(ix.mentionUnits[id], uu)
				}
			})
			q.m.scan(text, func(id int32) {
				r := &ix.Results[q.owner[id]]
				r.quotes = append(r.quotes, quoteHit{uu, q.end[id]})
			})
		}
		m := &ix.Session.Messages[ix.units[u].msg]
		for j := range m.Blocks {
			b := &m.Blocks[j]
			switch b.Kind {
			case corpus.KindText:
				visit(b.Text)
			case corpus.KindToolUse:
				if bytes.IndexByte(b.Args, '\\') < 0 {
					// No escapes: every string value is verbatim in the
					// raw JSON, so scan it whole (keys and punctuation
					// match no path, command or content line).
					visit(unsafe.String(unsafe.SliceData(b.Args), len(b.Args)))
				} else {
					forEachString(b.Args, visit)
				}
			}
		}
	}
}

// callKey identifies "the same call again": for files any file tool on the
// same path (a Read after an Edit gets the content back as well), for the
// rest the same tool with the same key input.
func callKey(s Subject) string {
	switch {
	case s.Family == FamilyFile:
		if s.Key == "" {
			return ""
		}
		return "file\x00" + s.Key
	case s.Key == "" || s.Key == "\x00\x00":
		return ""
	}
	return s.Tool + "\x00" + s.Key
}

// persistedID is the tool call id whose persisted output a file call reads
// back: Claude Code's `<project>/<session>/tool-results/<id>.txt`.
func persistedID(s Subject) string {
	if s.Family != FamilyFile || s.Key == "" {
		return ""
	}
	dir, file := path.Split(s.Key)
	if path.Base(dir) != "tool-results" || !strings.HasSuffix(file, ".txt") {
		return ""
	}
	return strings.TrimSuffix(file, ".txt")
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
