package loss

import (
	"hash/maphash"
	"unsafe"
)

// lineTable gives each distinct line of a session's results an id (its
// filing order), by open addressing on a hash verified against the line.
//
// Why not a map[uint64]int32 sized from the text: the index looks up every
// candidate line of every result (millions in a large session), and a
// session's distinct lines are often few (a tool-heavy session rereads the
// same files): a map sized for one line per 100 bytes was hundreds of
// thousands of entries of fresh memory per session for a few hundred
// lines, and its lookups missed the cache. This table starts at most
// modest and doubles, 8 bytes a slot; a line is verified against the text
// filed, so two lines with one hash stay two lines.
type lineTable struct {
	seed  maphash.Seed
	slots []lineSlot // a power of two long, at most half full
	lines []string   // the lines filed, by id
	// arena holds copies of the lines seen again (copied[id]), side by
	// side: from its second sight on, a line is verified against its
	// copy, not against the text of the result that filed it, somewhere
	// in the session. In a tool-heavy session most lines are seen many
	// times, and reading the first text back missed the cache (the
	// compare was a tenth of a smith report); a line seen once, most of
	// the real logs' lines, is never copied.
	arena  []byte
	copied []bool
}

// Arena chunks double from arenaFirst to arenaChunk bytes; a line longer
// than arenaLine keeps pointing into its result's text.
const (
	arenaFirst = 4 << 10
	arenaChunk = 64 << 10
	arenaLine  = 1 << 10
)

// lineSlot is a filed line's hash and its id plus one (0: an empty slot).
// The hash is the low half of the line's 64-bit hash, which also places
// the slot: growing needs no line hashed again.
type lineSlot struct {
	hash uint32
	id   int32
}

// newLineTable starts a table with room for n lines before it grows.
func newLineTable(n int) *lineTable {
	t := new(lineTable)
	t.reset(n)
	return t
}

// reset empties the table, with room for n lines before it grows, reusing
// its memory (scratch.go). The last arena chunk is reused too: the lines
// copied into it were an earlier report's, which nothing reads any more.
func (t *lineTable) reset(n int) {
	if t.seed == (maphash.Seed{}) {
		t.seed = maphash.MakeSeed()
	}
	size := 64
	for size < 2*n {
		size <<= 1
	}
	t.slots = zeroed(t.slots, size)
	t.lines, t.copied, t.arena = reuse(t.lines, n), reuse(t.copied, n), t.arena[:0]
}

// hash is the hash find and put take: computed once by the caller, so that
// a line missing from the table is hashed once for both.
func (t *lineTable) hash(ln string) uint32 {
	return uint32(maphash.String(t.seed, ln))
}

// find returns the id of a line with hash h, or ok false and the slot to
// put it at.
func (t *lineTable) find(ln string, h uint32) (id int32, at int, ok bool) {
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.id == 0 {
			return 0, i, false
		}
		if s.hash == h && t.lines[s.id-1] == ln {
			return s.id - 1, i, true
		}
	}
}

// put files a line find did not find, at the slot it returned, and
// returns its id.
func (t *lineTable) put(ln string, h uint32, at int) int32 {
	if 2*(len(t.lines)+1) > len(t.slots) {
		t.grow()
		_, at, _ = t.find(ln, h)
	}
	t.lines = append(t.lines, ln)
	t.copied = append(t.copied, false)
	id := int32(len(t.lines))
	t.slots[at] = lineSlot{hash: h, id: id}
	return id - 1
}

// again notes that line id was found again: the first time, the line
// is copied into the arena (unless it is long). A full chunk is left to
// the lines in it and a new one started, so that the copies never move.
func (t *lineTable) again(id int32) {
	if t.copied[id] {
		return
	}
	t.copied[id] = true
	ln := t.lines[id]
	if len(ln) == 0 || len(ln) > arenaLine {
		return
	}
	if len(t.arena)+len(ln) > cap(t.arena) {
		t.arena = make([]byte, 0, min(max(2*cap(t.arena), arenaFirst), arenaChunk))
	}
	at := len(t.arena)
	t.arena = append(t.arena, ln...)
	t.lines[id] = unsafe.String(&t.arena[at], len(ln))
}

// grow doubles the slots and places every line again.
func (t *lineTable) grow() {
	old := t.slots
	t.slots = make([]lineSlot, 2*len(old))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.id == 0 {
			continue
		}
		i := int(s.hash) & mask
		for t.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
