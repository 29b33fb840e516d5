package loss

import "hash/maphash"

// oracleEvidence and oracleIndexLines are buildEvidence and indexLines as
// they were before the line table (linetable.go), lines keyed by their
// hash alone in a map sized from the text: the oracle the current code is
// checked against (evidence_diff_test.go).
//
// oracleEvidence builds the evidence of the results marked in want (nil:
// all), with the agent's messages read from unit from on, filing every
// result's lines in one pass when fileAll is set. It needs prepare.
func (ix *Index) oracleEvidence(want []bool, from int32, fileAll bool) *evidence {
	ev := &evidence{facts: ix.all, lines: make([]int32, len(ix.Results)), mentions: make([][]int32, len(ix.Results)),
		quotes: make([][]quoteHit, len(ix.Results)), fetched: make([][]int32, len(ix.Results))}
	wanted := func(k int) bool { return want == nil || want[k] }
	names := newNameMatcher()
	ix.addNames(ev, names, wanted)
	for k := range ix.Results {
		if !wanted(k) {
			continue
		}
		if us, ok := ix.all.persistReads[ix.Results[k].ID]; ok {
			ev.fetched[k] = mergeUnits(ev.fetched[k], us)
		}
	}
	q := ix.oracleIndexLines(ev, want, fileAll || want == nil)
	names.build()
	ev.mentionUnits = make([][]int32, len(names.ids))
	ix.scanUnits(ev, names, q, from, new([]byte))
	return ev
}

// oracleLineEntry is one content line of the results and who holds it.
type oracleLineEntry struct {
	line  string
	end   int32   // where the line ends in the first wanted result's text
	first int32   // the first result holding the line, -1 before any
	more  []int32 // the next ones, up to contentShareCap in all
	count int32   // results holding the line
	last  int32   // the last result counted
}

// oracleIndexLines counts each content line once per result, marks content
// refetches of the wanted results (a later call whose result holds at
// least half of an earlier result's content lines, when that result has
// at least three), and returns the matcher of their distinctive lines
// (those in exactly one result) with the result each belongs to.
//
// With fileAll it is one pass that files every content line. Otherwise it
// first files the wanted results' lines, then passes over every result
// looking each line up without filing new ones: a line no wanted result
// holds can change none of their counts, so the other results' lines cost
// a hash and a lookup, not the content-line test and a map entry each.
func (ix *Index) oracleIndexLines(ev *evidence, want []bool, fileAll bool) *quoteLines {
	texts := make([]string, len(ix.Results))
	size := 0
	for k := range ix.Results {
		if fileAll || want[k] {
			r := &ix.Results[k]
			texts[k] = resultText(&ix.Session.Messages[r.Msg].Blocks[r.Block])
			size += len(texts[k])
		}
	}
	// Lines are keyed by a 64-bit hash (a collision between two of a
	// session's lines, about n²/2⁶⁵, could only make a line look shared)
	// and kept in one slice, so that the common case, a line seen once,
	// costs one map entry and no allocation of its own. Sized from the
	// text (a guess of one content line per 100 bytes; a wrong guess only
	// costs growth) so that the map and slice grow less.
	size /= 100
	seed := maphash.MakeSeed()
	byHash := make(map[uint64]int32, size)
	all := make([]oracleLineEntry, 0, size)
	// file returns a line's entry, filing it if it is a content line, or
	// -1 if it is not one. The content-line test runs once per distinct
	// line: the map remembers a line that failed it as -1, so a line
	// repeated across results (a test runner's output, a file read twice)
	// costs a lookup.
	file := func(text, ln string) int32 {
		h := maphash.String(seed, ln)
		if i, ok := byHash[h]; ok {
			return i
		}
		if !contentLine(ln) {
			byHash[h] = -1
			return -1
		}
		i := int32(len(all))
		byHash[h] = i
		all = append(all, oracleLineEntry{line: ln, end: int32(offsetIn(text, ln) + len(ln)), first: -1, last: -1})
		return i
	}
	var filter lineFilter
	if !fileAll {
		for k, text := range texts {
			if want[k] {
				candidateLines(text, func(ln string) { file(text, ln) })
			}
		}
		lines, ents := make([]string, len(all)), make([]lineEntry, len(all))
		for i := range all {
			lines[i] = all[i].line
		}
		filter = newLineFilter(lines, ents)
	}
	shared := map[int32]int32{}
	for k := range ix.Results {
		text := texts[k]
		lookup := !fileAll && !want[k]
		if lookup {
			r := &ix.Results[k]
			text = resultText(&ix.Session.Messages[r.Msg].Blocks[r.Block])
		}
		clear(shared)
		count := func(ln string) {
			var i int32
			if fileAll {
				i = file(text, ln)
			} else if lookup && !filter.has(ln) {
				return
			} else if j, ok := byHash[maphash.String(seed, ln)]; ok {
				i = j
			} else {
				return
			}
			if i < 0 {
				return // not a content line
			}
			e := &all[i]
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
				e.more = nil // boilerplate from now on
				return
			}
			shared[e.first]++
			for _, o := range e.more {
				shared[o]++
			}
			e.more = append(e.more, int32(k))
		}
		candidateLines(text, count)
		c, ok := ix.callOf[ix.Results[k].ID]
		if !ok {
			continue
		}
		u := ix.calls[c].unit
		for o, n := range shared {
			if want != nil && !want[o] {
				continue
			}
			if l := ev.lines[o]; l >= 3 && 2*n >= l {
				ev.fetched[o] = appendUnit(ev.fetched[o], u)
			}
		}
	}
	// A distinctive line of a result not wanted is no quote anyone asks for.
	distinctive := func(e *oracleLineEntry) bool { return e.count == 1 && (want == nil || want[e.first]) }
	distinct := 0
	for i := range all {
		if distinctive(&all[i]) {
			distinct++
		}
	}
	q := &quoteLines{m: newLineMatcher(distinct), owner: make([]int32, 0, distinct), end: make([]int32, 0, distinct)}
	for i := range all { // first-filed order, so ids are deterministic
		if e := &all[i]; distinctive(e) {
			q.m.add(e.line)
			q.owner = append(q.owner, e.first)
			q.end = append(q.end, e.end)
		}
	}
	return q
}
