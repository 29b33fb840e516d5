package loss

// Scratch is room for the tables a report builds and drops: the line
// table, its entries and the ids and holders filed in them, the matchers
// of distinctive lines and of names, and the buffer tool inputs are
// decoded into. A report for one replay built them afresh
// for every session, and allocating and collecting them was about a
// seventh of the report; whoever reports sessions one after another (the
// replay command's workers) can keep one Scratch each and pass it in
// Options, so that each report reuses what the one before grew.
//
// A Scratch is not safe for concurrent use: it serves one report at a
// time, so each goroutine reporting needs its own. A shared index
// (Options.Shared) ignores it, since its reports run concurrently and
// its evidence is kept. Nothing a report returns points into a Scratch,
// and a report clears what it filed (lines of its session's texts) when
// it is done, so a Scratch keeps no session's text alive.
type Scratch struct {
	tab     lineTable
	quotes  lineMatcher
	names   nameMatcher
	entries []lineEntry
	ids     []int32 // fileIDs of indexLines
	holders []int32
	// unescaped holds the escaped strings of tool inputs scanUnits decodes,
	// one at a time: grown afresh for every session, it was a tenth of
	// what a report allocated once the tables were kept.
	unescaped []byte
}

// release drops the report's references into its session's texts (the
// lines filed and matched), keeping the memory for the next report.
func (sc *Scratch) release() {
	clear(sc.tab.lines)
	clear(sc.quotes.lines)
	clear(sc.names.names)
	sc.names.names, sc.names.ids = sc.names.names[:0], nil
	sc.tab.lines, sc.quotes.lines = sc.tab.lines[:0], sc.quotes.lines[:0]
}

// reuse returns buf emptied, with room for n elements: its own array
// when that is large enough.
func reuse[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, 0, n)
	}
	return buf[:0]
}

// zeroed returns buf resliced to n zero elements, reusing its array when
// large enough.
func zeroed[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}
