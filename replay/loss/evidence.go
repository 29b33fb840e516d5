package loss

import (
	"bytes"
	"math/bits"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
)

// evidence is what the recording shows about a set of results: for each,
// its distinct content lines, the units quoting one of its distinctive
// lines and the units fetching it back, and, per name of the subjects, the
// units naming it. Only the entries of the results it was built for are
// filled in.
type evidence struct {
	lines    []int32      // per result: distinct content lines
	mentions [][]int32    // per result: name ids of its subject's mentions
	quotes   [][]quoteHit // per result: units quoting one of its distinctive lines, by unit
	fetched  [][]int32    // per result: units whose calls fetched it back by content or by its persisted file, ascending
	// mentionUnits[name id] are the units (ascending) naming a subject.
	mentionUnits [][]int32
	// facts are the calls' facts it was built from (calls.go).
	facts *callFacts
}

// quoteHit is a unit quoting a distinctive line of a result, and where
// that line ends in the result's text (a cut that kept the line whole
// left it visible: quoting it is no use of what was cut).
type quoteHit struct {
	unit, end int32
}

// contentShareCap is the most results a content line may be in and still
// count as evidence that one output repeats another: a line shared by more
// (a licence header, a generated banner, a test runner's summary) is
// boilerplate; it counts towards a result's lines but never as a repeat,
// and tracking its holders would make the cost quadratic.
const contentShareCap = 8

// fullEvidence is the evidence of every result, built once.
func (ix *Index) fullEvidence() *evidence {
	ix.fullOnce.Do(func() {
		ix.prepare()
		ix.full = ix.buildEvidence(new(Scratch), ix.all, nil, 0, true)
	})
	return ix.full
}

// evidenceFor is the evidence a list of hides needs. A shared index builds
// it for every result once; otherwise it is built for the hidden results
// alone: only their subjects' names and distinctive lines are looked for,
// in the agent's messages from the first hide on, and only the calls
// those messages and the hidden results hold are read (readCallsFor),
// leaving the index's shared facts unread. Their content lines are
// filed first and the other results' lines only looked up, unless the
// hidden results hold three quarters of the results' text or more. Each
// result's lines are split once either way (a filed result's count reads
// the ids it got), and a line looked up costs less than filing it; but
// keeping the ids of every hidden line costs memory that one pass filing
// and counting does not, which pays only when the other results are few
// (a smith-staged replay hides 92-97% of the text; the real logs' clears
// at most two thirds).
func (ix *Index) evidenceFor(hides []Hide) *evidence {
	if ix.shared {
		return ix.fullEvidence()
	}
	// A Scratch is some 20 KB of zeroed memory (the matchers' filters):
	// made only here, when none was given, so that a shared index's
	// reports, which read evidence built once, allocate none.
	sc := ix.scratch
	if sc == nil {
		sc = new(Scratch)
	}
	want := make([]bool, len(ix.Results))
	from := int32(len(ix.units))
	wanted, total := 0, 0
	for _, h := range hides {
		k, ok := ix.byID[h.CallID]
		if !ok {
			continue
		}
		if !want[k] {
			want[k] = true
			wanted += ix.textLen(k)
		}
		from = min(from, ix.unitAtOrAfter(h.At))
	}
	for k := range ix.Results {
		total += ix.textLen(k)
	}
	return ix.buildEvidence(sc, ix.readCallsFor(hides, from), want, from, 4*wanted >= 3*total)
}

// addNames registers in names what names each wanted result's subject
// (its mentions, and its base name when no other file has it) and notes
// their ids in ev.mentions.
func (ix *Index) addNames(ev *evidence, names *nameMatcher, wanted func(k int) bool) {
	for k := range ix.Results {
		if !wanted(k) {
			continue
		}
		for _, name := range ix.Results[k].Subject.Mentions {
			ev.mentions[k] = append(ev.mentions[k], names.add(name))
		}
		if b := ix.uniqueBase(ix.Results[k].Subject); b != "" {
			ev.mentions[k] = append(ev.mentions[k], names.addWhole(b))
		}
	}
}

// textLen is the length of a result's text, for choosing how to build.
func (ix *Index) textLen(k int) int {
	r := &ix.Results[k]
	b := &ix.Session.Messages[r.Msg].Blocks[r.Block]
	return len(b.Text) + len(b.Payload)
}

// buildEvidence builds the evidence of the results marked in want (nil:
// all), with the agent's messages read from unit from on (earlier ones
// can need nothing the hides ask about), filing every result's lines in
// one pass when fileAll is set (indexLines), from the facts f of the
// calls (which must hold the wanted results' calls and every call from
// unit from on). Its tables are built in sc, and released when it is done.
func (ix *Index) buildEvidence(sc *Scratch, f *callFacts, want []bool, from int32, fileAll bool) *evidence {
	ev := &evidence{facts: f, lines: make([]int32, len(ix.Results)), mentions: make([][]int32, len(ix.Results)),
		quotes: make([][]quoteHit, len(ix.Results)), fetched: make([][]int32, len(ix.Results))}
	wanted := func(k int) bool { return want == nil || want[k] }
	names := &sc.names
	names.reset()
	ix.addNames(ev, names, wanted)
	for k := range ix.Results {
		if !wanted(k) {
			continue
		}
		if us, ok := f.persistReads[ix.Results[k].ID]; ok {
			ev.fetched[k] = mergeUnits(ev.fetched[k], us)
		}
	}
	q := ix.indexLines(sc, ev, want, fileAll || want == nil)
	names.build()
	ev.mentionUnits = make([][]int32, len(names.ids))
	ix.scanUnits(ev, names, q, from, &sc.unescaped)
	sc.release()
	return ev
}

// lineEntry is one distinct line of the results and who holds it; its
// index in the entries is the line's id in the lineTable.
type lineEntry struct {
	end   int32 // where the line ends in the text of the result that filed it
	first int32 // the first result holding the line, -1 before any
	more  int32 // where its next holders start in the pool of holders, -1 before any
	count int32 // results holding the line; -1 if it is not a content line
	last  int32 // the last result counted
}

// indexLines counts each content line once per result, marks content
// refetches of the wanted results (a later call whose result holds at
// least half of an earlier result's content lines, when that result has
// at least three), and returns the matcher of their distinctive lines
// (those in exactly one result) with the result each belongs to.
//
// With fileAll it is one pass that files every line. Otherwise it first
// files the wanted results' lines, then passes over every result looking
// each line up without filing new ones: a line no wanted result holds can
// change none of their counts, so the other results' lines cost a hash
// and a lookup, not the content-line test and an entry each.
func (ix *Index) indexLines(sc *Scratch, ev *evidence, want []bool, fileAll bool) *quoteLines {
	texts := make([]string, len(ix.Results))
	size := 0
	for k := range ix.Results {
		if fileAll || want[k] {
			r := &ix.Results[k]
			texts[k] = resultText(&ix.Session.Messages[r.Msg].Blocks[r.Block])
			size += len(texts[k])
		}
	}
	// Every distinct line gets an id in the table and an entry, the same
	// index, so that the common case, a line seen before, costs a hash
	// and a probe, and a line seen once no allocation of its own. They
	// start sized for one line per 100 bytes of text, capped: a large
	// tool-heavy session repeats most of its lines, and memory asked for
	// and never used is paid for (fresh pages) all the same.
	guess := min(size/100, maxLineGuess)
	tab := &sc.tab
	tab.reset(guess)
	all := reuse(sc.entries, guess)
	// holders are the entries' next holders after the first, a block of
	// contentShareCap-1 per line held by two results or more: no
	// allocation per shared line.
	holders := sc.holders[:0]
	// file returns a line's id, filing it if it is new. The content-line
	// test runs once per distinct line: the entry remembers a line that
	// failed it (count -1), so a line repeated across results (a test
	// runner's output, a file read twice) costs a lookup.
	file := func(text, ln string) int32 {
		h := tab.hash(ln)
		i, at, ok := tab.find(ln, h)
		if ok {
			tab.again(i)
			return i
		}
		e := lineEntry{first: -1, more: -1, last: -1, count: -1}
		if contentLine(ln) {
			e.end, e.count = int32(offsetIn(text, ln)+len(ln)), 0
		}
		all = append(all, e)
		return tab.put(ln, h, at)
	}
	var filter lineFilter
	// Without fileAll, the wanted results' lines are filed first, and the
	// ids they got are kept (filed[k] is result k's run of ids in fileIDs),
	// so that counting them later reads the ids instead of splitting and
	// hashing the same lines again.
	var filed [][2]int32
	fileIDs := sc.ids[:0]
	twin := ix.twins()
	if !fileAll {
		filed = make([][2]int32, len(ix.Results))
		for k, text := range texts {
			if j := twin[k]; want[k] && int(j) != k && want[j] {
				filed[k] = filed[j] // the same lines, all filed already
			} else if want[k] {
				start := int32(len(fileIDs))
				candidateLines(text, func(ln string) { fileIDs = append(fileIDs, file(text, ln)) })
				filed[k] = [2]int32{start, int32(len(fileIDs))}
			}
		}
		filter = newLineFilter(tab.lines, all)
	}
	// twinned marks the results some later result repeats: filing every
	// line, their ids are kept for the twins to count.
	var twinned []bool
	if fileAll {
		filed = make([][2]int32, len(ix.Results))
		twinned = make([]bool, len(ix.Results))
		for k, j := range twin {
			twinned[j] = twinned[j] || int(j) != k
		}
	}
	// shared[o] counts the content lines of the current result that
	// result o holds too; touched lists the o counted.
	shared := make([]int32, len(ix.Results))
	var touched []int32
	for k := range ix.Results {
		text := texts[k]
		lookup := !fileAll && !want[k]
		if lookup {
			r := &ix.Results[k]
			text = resultText(&ix.Session.Messages[r.Msg].Blocks[r.Block])
		}
		for _, o := range touched {
			shared[o] = 0
		}
		touched = touched[:0]
		see := func(o int32) {
			if shared[o] == 0 {
				touched = append(touched, o)
			}
			shared[o]++
		}
		countID := func(i int32) {
			e := &all[i]
			if e.count < 0 {
				return // not a content line
			}
			if e.last == int32(k) {
				return // the same line twice in one result counts once
			}
			e.last = int32(k)
			ev.lines[k]++
			e.count++
			switch {
			case e.count == 1:
				e.first = int32(k)
				return
			case e.count > contentShareCap:
				return // boilerplate from now on
			case e.count == 2:
				e.more = int32(len(holders))
				holders = append(holders, make([]int32, contentShareCap-1)...)
			}
			see(e.first)
			more := holders[e.more : e.more+e.count-1]
			for _, o := range more[:len(more)-1] {
				see(o)
			}
			more[len(more)-1] = int32(k)
		}
		switch {
		case fileAll && int(twin[k]) != k:
			// A twin's lines are its first's, all filed: count the ids
			// they got.
			for _, i := range fileIDs[filed[twin[k]][0]:filed[twin[k]][1]] {
				countID(i)
			}
		case fileAll && twinned[k]:
			start := int32(len(fileIDs))
			candidateLines(text, func(ln string) {
				i := file(text, ln)
				fileIDs = append(fileIDs, i)
				countID(i)
			})
			filed[k] = [2]int32{start, int32(len(fileIDs))}
		case fileAll:
			candidateLines(text, func(ln string) { countID(file(text, ln)) })
		case lookup:
			candidateLines(text, func(ln string) {
				if !filter.has(ln) {
					return
				}
				if i, _, ok := tab.find(ln, tab.hash(ln)); ok {
					tab.again(i)
					countID(i)
				}
			})
		default:
			for _, i := range fileIDs[filed[k][0]:filed[k][1]] {
				countID(i)
			}
		}
		c, ok := ix.callOf[ix.Results[k].ID]
		if !ok {
			continue
		}
		u := ix.calls[c].unit
		for _, o := range touched {
			if want != nil && !want[o] {
				continue
			}
			if l, n := ev.lines[o], shared[o]; l >= 3 && 2*n >= l {
				ev.fetched[o] = appendUnit(ev.fetched[o], u)
			}
		}
	}
	// A distinctive line of a result not wanted is no quote anyone asks for.
	distinctive := func(e *lineEntry) bool { return e.count == 1 && (want == nil || want[e.first]) }
	distinct := 0
	for i := range all {
		if distinctive(&all[i]) {
			distinct++
		}
	}
	sc.entries, sc.ids, sc.holders = all, fileIDs, holders // kept for the next report
	sc.quotes.reset(distinct)
	q := &quoteLines{m: &sc.quotes, owner: make([]int32, 0, distinct), end: make([]int32, 0, distinct)}
	for i := range all { // first-filed order, so ids are deterministic
		if e := &all[i]; distinctive(e) {
			q.m.add(tab.lines[i])
			q.owner = append(q.owner, e.first)
			q.end = append(q.end, e.end)
		}
	}
	return q
}

// maxLineGuess caps the lines the index makes room for before it has seen
// any: about the most distinct lines the largest real sessions have.
const maxLineGuess = 1 << 13

// lineFilter holds a cheap fingerprint of each filed line (its length and
// its first and last eight bytes), so that most lines of the other results
// are turned away without hashing the whole line and probing the map: in a
// session, most lines are held by no hidden result.
type lineFilter struct {
	bits []uint64
	mask uint64
}

// newLineFilter holds the content lines filed (those whose entry has a
// count: a line that is not one can change no count either).
func newLineFilter(lines []string, entries []lineEntry) lineFilter {
	n := uint64(1024)
	for n < 16*uint64(len(lines)) { // at most 1 in 16 bits set: few false hits
		n <<= 1
	}
	f := lineFilter{bits: make([]uint64, n/64), mask: n - 1}
	for i := range lines {
		if entries[i].count < 0 {
			continue
		}
		h := fingerprint(lines[i]) & f.mask
		f.bits[h/64] |= 1 << (h % 64)
	}
	return f
}

func (f lineFilter) has(ln string) bool {
	h := fingerprint(ln) & f.mask
	return f.bits[h/64]&(1<<(h%64)) != 0
}

// fingerprint mixes a line's length and its first and last eight bytes
// (every content line has at least minLineRunes bytes).
func fingerprint(ln string) uint64 {
	h := (le64(ln) ^ bits.RotateLeft64(le64(ln[len(ln)-8:]), 29) ^ uint64(len(ln))) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
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

// scanUnits reads every unit from from on once: its text blocks and the
// string values of its tool inputs (decoded, so a quoted line with quotes
// or backslashes in it still matches). Thinking is not a use: the model
// reasoning about a file is not the recording showing it relied on the
// file's content, and the analyst found it changes no count on the real
// logs. scratch is the buffer escaped strings are decoded into, one at
// a time (the caller's Scratch keeps it from one report to the next).
func (ix *Index) scanUnits(ev *evidence, names *nameMatcher, q *quoteLines, from int32, scratch *[]byte) {
	lastName := make([]int32, len(names.ids))
	for i := range lastName {
		lastName[i] = -1
	}
	for u := from; int(u) < len(ix.units); u++ {
		// Naming a subject in order to act on it again (read the path,
		// rerun the command) is not using what an earlier result held:
		// the unit's own calls' names are never recorded for it.
		for _, subj := range ev.facts.subj[ix.units[u].calls[0]:ix.units[u].calls[1]] {
			for _, name := range subj.Mentions {
				if id, ok := names.ids[name]; ok {
					lastName[id] = u
				}
			}
			if b := baseName(subj.Key); b != "" && subj.Family == FamilyFile {
				if id, ok := names.ids[b]; ok && names.whole[id] {
					lastName[id] = u
				}
			}
		}
		visit := func(text string) {
			names.scanAt(text, func(id int32, end int) {
				if names.whole[id] && !wholeName(text, end-len(names.names[id]), end) {
					return
				}
				if lastName[id] != u {
					lastName[id] = u
					ev.mentionUnits[id] = append(ev.mentionUnits[id], u)
				}
			})
			q.m.scan(text, func(id int32) {
				o := q.owner[id]
				ev.quotes[o] = append(ev.quotes[o], quoteHit{u, q.end[id]})
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
					forEachString(b.Args, scratch, visit)
				}
			}
		}
	}
}
