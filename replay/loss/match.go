package loss

import (
	"math/bits"
	"sort"
	"strings"
)

// The index looks for many strings in every message the agent wrote. Doing
// that with one search per string would make the cost the product of the
// session's results and its messages; these two matchers make it one pass
// over each message, whatever the number of strings.

// nameMatcher finds every occurrence of a set of names (paths, patterns,
// commands, URLs) in a text in one pass: an Aho-Corasick automaton over
// bytes. Names are added first; build makes the trie from them in sorted
// order, where each name shares its path with the one before it up to
// their common prefix, so no node is ever looked up while building (a
// command can be a whole script: the trie has a node per byte of the
// names, and a map of edges made adding them the costly part).
type nameMatcher struct {
	names []string         // by id
	ids   map[string]int32 // name -> id
	// whole marks the names found only as a file name of their own (not
	// inside a longer one): the base names (basename.go).
	whole []bool
	root  [256]int32 // transitions from the root (0: stay at the root)
	// Node n's children are kids[first[n]:first[n+1]], reached by byte
	// via[child]. A node has one or a few children, so scanning them beats
	// a map lookup per byte.
	first, kids []int32
	via         []byte
	// kidVia[j] is via[kids[j]]: a node's children's bytes side by side,
	// so that finding the child for a byte reads one short run of memory.
	kidVia []byte
	fail   []int32 // longest proper suffix that is a trie node
	out    []int32 // the name ending at a node, -1 if none
	dict   []int32 // nearest node on the fail chain with a name, -1 if none
	// emits says a name ends at a node or on its fail chain: the one test
	// most bytes of a text need after stepping.
	emits []bool
	// starts has a bit for every pair of bytes some name starts with (for
	// a one-byte name, every pair starting with it): at the root, scan
	// skips the positions where no name starts without stepping.
	starts [1 << 16 / 64]uint64
	// parent, fill and queue are build's working lists, kept with the
	// rest for the next build (scratch.go).
	parent, fill, queue []int32
}

func newNameMatcher() *nameMatcher {
	m := new(nameMatcher)
	m.reset()
	return m
}

// reset empties the matcher for names to be added again, keeping its
// lists' memory (scratch.go).
func (m *nameMatcher) reset() {
	m.names, m.ids, m.whole = m.names[:0], map[string]int32{}, m.whole[:0]
	m.root, m.starts = [256]int32{}, [1 << 16 / 64]uint64{}
}

// add registers a name and returns its id; adding a name twice returns
// the first id. Names must be added before build.
func (m *nameMatcher) add(name string) int32 {
	if id, ok := m.ids[name]; ok {
		return id
	}
	id := int32(len(m.names))
	m.ids[name] = id
	m.names = append(m.names, name)
	m.whole = append(m.whole, false)
	return id
}

// addWhole registers a name found only as a file name of its own
// (wholeName): a base name inside a longer one (module-alpha.md in
// sub-module-alpha.md, or in a path of another folder) names another file.
func (m *nameMatcher) addWhole(name string) int32 {
	id := m.add(name)
	m.whole[id] = true
	return id
}

func (m *nameMatcher) step(n int32, c byte) int32 {
	for n != 0 {
		lo, hi := m.first[n], m.first[n+1]
		for j, v := range m.kidVia[lo:hi] {
			if v == c {
				return m.kids[lo+int32(j)]
			}
		}
		n = m.fail[n]
	}
	return m.root[c]
}

// build makes the trie and computes the fail and dictionary links,
// breadth first.
func (m *nameMatcher) build() {
	order := make([]int32, len(m.names))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(i, j int) bool { return m.names[order[i]] < m.names[order[j]] })
	// Each name adds a node per byte past its common prefix with the one
	// before it: counted first, the trie's lists are sized once and never
	// grow (growing them was a third of building).
	nodes, prev := 1, ""
	for _, id := range order {
		nodes += len(m.names[id]) - commonPrefix(prev, m.names[id])
		prev = m.names[id]
	}
	parent := append(reuse(m.parent, nodes), -1)
	m.via, m.out = append(reuse(m.via, nodes), 0), append(reuse(m.out, nodes), -1)
	path := []int32{0} // path[d]: the node at depth d of the previous name
	prev = ""
	for _, id := range order {
		name := m.names[id]
		l := commonPrefix(prev, name)
		path = path[:l+1]
		n := path[l]
		for i := l; i < len(name); i++ {
			child := int32(len(parent))
			parent = append(parent, n)
			m.via = append(m.via, name[i])
			m.out = append(m.out, -1)
			if n == 0 {
				m.root[name[i]] = child
			}
			path = append(path, child)
			n = child
		}
		m.out[n] = id
		prev = name
		switch {
		case len(name) >= 2:
			m.markStart(uint(name[0])<<8 | uint(name[1]))
		case len(name) == 1:
			for c := range uint(256) {
				m.markStart(uint(name[0])<<8 | c)
			}
		}
	}
	// Children of each node, flat, so that the trie's nodes cost no
	// allocation each. Their order within a node does not matter: a
	// child's fail link depends only on shallower nodes, which the
	// breadth-first queue has all done.
	nodes = len(parent)
	first := zeroed(m.first, nodes+1)
	for _, p := range parent[1:] {
		first[p+1]++
	}
	for n := 1; n <= nodes; n++ {
		first[n] += first[n-1]
	}
	kids, kidVia := zeroed(m.kids, nodes-1), zeroed(m.kidVia, nodes-1)
	fill := append(reuse(m.fill, nodes), first[:nodes]...)
	for child := 1; child < nodes; child++ {
		p := parent[child]
		kids[fill[p]], kidVia[fill[p]] = int32(child), m.via[child]
		fill[p]++
	}
	m.first, m.kids, m.kidVia = first, kids, kidVia
	m.fail, m.dict = zeroed(m.fail, nodes), zeroed(m.dict, nodes)
	m.dict[0] = -1
	queue := reuse(m.queue, nodes)
	for c := 0; c < 256; c++ {
		if n := m.root[c]; n != 0 {
			m.dict[n] = -1 // fail = root
			queue = append(queue, n)
		}
	}
	// The queue's array holds every node but the root once, so it never
	// grows: it is kept from here for the next build.
	m.parent, m.fill, m.queue = parent, fill, queue
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, child := range kids[first[n]:first[n+1]] {
			f := m.step(m.fail[n], m.via[child])
			m.fail[child] = f
			if m.out[f] >= 0 {
				m.dict[child] = f
			} else {
				m.dict[child] = m.dict[f]
			}
			queue = append(queue, child)
		}
	}
	m.emits = zeroed(m.emits, nodes)
	for n := range m.emits {
		m.emits[n] = m.out[n] >= 0 || m.dict[n] > 0
	}
}

func (m *nameMatcher) markStart(pair uint) {
	m.starts[pair/64] |= 1 << (pair % 64)
}

// scan calls fn with the id of every name occurring in text, once per
// occurrence (the caller dedupes per message).
//
// At the root, the positions where no name starts (most of prose and of
// JSON: the names are paths, commands and URLs) are skipped in a loop of
// their own, without stepping, by the pair of bytes there: a byte alone
// starts a name at most letters of a text (a relative path, a command),
// a pair far fewer. Skipping position i is what stepping would do: with
// no name starting with text[i]text[i+1], the state after text[i+1] is
// root's child by text[i+1], as from the root at i+1; a one-byte name
// marks every pair it starts. The last byte has no pair and steps.
func (m *nameMatcher) scan(text string, fn func(id int32)) {
	m.scanAt(text, func(id int32, _ int) { fn(id) })
}

// scanAt is scan with the offset just past each name found in text.
func (m *nameMatcher) scanAt(text string, fn func(id int32, end int)) {
	n := int32(0)
	for i := 0; i < len(text); i++ {
		if n == 0 {
			for ; i+1 < len(text); i++ {
				if pair := uint(text[i])<<8 | uint(text[i+1]); m.starts[pair/64]&(1<<(pair%64)) != 0 {
					break
				}
			}
			if n = m.root[text[i]]; n == 0 {
				continue // the last byte, starting no name
			}
		} else {
			n = m.step(n, text[i])
		}
		if !m.emits[n] {
			continue
		}
		for o := n; o > 0; o = m.dict[o] {
			if m.out[o] >= 0 {
				fn(m.out[o], i+1)
			}
		}
	}
}

// lineMatcher finds every occurrence of a set of long lines in a text in
// one pass (Rabin-Karp): lines are keyed by a hash of their first
// lineWindow bytes, and a rolling hash of the text's windows looks them up.
// Every content line has at least minLineRunes characters, so at least
// that many bytes.
type lineMatcher struct {
	lines []string
	// slots place each window hash (open addressing, a power of two long,
	// at most half full) with the first and last line having it; next
	// chains the others in id order: no allocation per line, and none per
	// distinct hash as a map's growth made.
	slots  []windowSlot
	next   []int32
	filter [1 << 16 / 64]uint64 // bits of the window hashes, to skip most lookups
}

// windowSlot is one window hash and its lines: the first line's id, and
// the last line's id plus one, 0 in an empty slot (fresh slots need no
// filling: marking a few thousand empty slots, allocated per report, was
// half of making the matcher).
type windowSlot struct {
	hash        uint64
	first, last int32
}

const (
	lineWindow = minLineRunes
	hashBase   = 1099511628211 // the FNV prime; any odd multiplier works mod 2^64
)

// newLineMatcher sizes the matcher for n lines.
func newLineMatcher(n int) *lineMatcher {
	m := new(lineMatcher)
	m.reset(n)
	return m
}

// reset empties the matcher and sizes it for n lines, reusing its memory
// (scratch.go).
func (m *lineMatcher) reset(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	m.lines, m.next, m.slots = reuse(m.lines, n), reuse(m.next, n), zeroed(m.slots, size)
	clear(m.filter[:])
}

// windowHash is the polynomial hash of s's first lineWindow bytes,
// sum of s[i]*hashBase^(lineWindow-1-i) (what the scan rolls), computed in
// four lanes: lane r sums the bytes at i = 4q+r in powers of hashBase^4,
// and the lanes are joined at the end. One multiply chain of forty steps
// was the cost of adding every distinctive line (its latency, not its
// work); four chains of ten run side by side. FuzzWindowHash holds it to
// the simple loop.
func windowHash(s string) uint64 {
	const ( // hashBase^2, ^3 and ^4 mod 2^64
		b2 = 0x366000002e329
		b3 = 0x8a97b0004e7feab
		b4 = 0x9ffaac085635bc91
	)
	s = s[:lineWindow]
	var h0, h1, h2, h3 uint64
	for i := 0; i < lineWindow; i += 4 {
		h0 = h0*b4 + uint64(s[i])
		h1 = h1*b4 + uint64(s[i+1])
		h2 = h2*b4 + uint64(s[i+2])
		h3 = h3*b4 + uint64(s[i+3])
	}
	return h0*b3 + h1*b2 + h2*hashBase + h3
}

// slot is where hash h is or goes. A polynomial hash's low bits depend on
// the bytes' low bits alone, so the slot is taken from the high bits of a
// multiplied hash.
func (m *lineMatcher) slot(h uint64) *windowSlot {
	shift := 64 - bits.Len(uint(len(m.slots)-1))
	mask := len(m.slots) - 1
	for i := int((h * 0x9e3779b97f4a7c15) >> shift); ; i = (i + 1) & mask {
		if s := &m.slots[i]; s.last == 0 || s.hash == h {
			return s
		}
	}
}

// add registers a line (of at least lineWindow bytes) under id = its index.
func (m *lineMatcher) add(line string) int32 {
	id := int32(len(m.lines))
	m.lines = append(m.lines, line)
	m.next = append(m.next, -1)
	if 2*len(m.lines) > len(m.slots) {
		m.grow()
	}
	h := windowHash(line)
	if s := m.slot(h); s.last > 0 {
		m.next[s.last-1] = id
		s.last = id + 1
	} else {
		*s = windowSlot{hash: h, first: id, last: id + 1}
	}
	m.filter[(h&0xffff)>>6] |= 1 << (h & 63)
	return id
}

// grow doubles the slots and places every hash again.
func (m *lineMatcher) grow() {
	old := m.slots
	m.slots = make([]windowSlot, 2*len(old))
	for _, s := range old {
		if s.last > 0 {
			*m.slot(s.hash) = s
		}
	}
}

// scan calls fn with the id of every registered line occurring in text.
func (m *lineMatcher) scan(text string, fn func(id int32)) {
	if len(text) < lineWindow || len(m.lines) == 0 {
		return
	}
	var top uint64 = 1 // hashBase^(lineWindow-1)
	for i := 1; i < lineWindow; i++ {
		top *= hashBase
	}
	h := windowHash(text)
	for i := 0; ; i++ {
		if m.filter[(h&0xffff)>>6]&(1<<(h&63)) != 0 {
			if s := m.slot(h); s.last > 0 {
				for id := s.first; id >= 0; id = m.next[id] {
					if strings.HasPrefix(text[i:], m.lines[id]) {
						fn(id)
					}
				}
			}
		}
		if i+lineWindow >= len(text) {
			return
		}
		h = (h-uint64(text[i])*top)*hashBase + uint64(text[i+lineWindow])
	}
}
