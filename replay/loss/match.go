package loss

import (
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
	root  [256]int32       // transitions from the root (0: stay at the root)
	// Node n's children are kids[first[n]:first[n+1]], reached by byte
	// via[child]. A node has one or a few children, so scanning them beats
	// a map lookup per byte.
	first, kids []int32
	via         []byte
	fail        []int32 // longest proper suffix that is a trie node
	out         []int32 // the name ending at a node, -1 if none
	dict        []int32 // nearest node on the fail chain with a name, -1 if none
}

func newNameMatcher() *nameMatcher {
	return &nameMatcher{ids: map[string]int32{}}
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
	return id
}

func (m *nameMatcher) step(n int32, c byte) int32 {
	for n != 0 {
		for _, k := range m.kids[m.first[n]:m.first[n+1]] {
			if m.via[k] == c {
				return k
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
	parent := []int32{-1}
	m.via, m.out = []byte{0}, []int32{-1}
	path := []int32{0} // path[d]: the node at depth d of the previous name
	prev := ""
	for _, id := range order {
		name := m.names[id]
		l := 0
		for l < len(prev) && l < len(name) && prev[l] == name[l] {
			l++
		}
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
	}
	// Children of each node, flat, so that the trie's nodes cost no
	// allocation each. Their order within a node does not matter: a
	// child's fail link depends only on shallower nodes, which the
	// breadth-first queue has all done.
	nodes := len(parent)
	first := make([]int32, nodes+1)
	for _, p := range parent[1:] {
		first[p+1]++
	}
	for n := 1; n <= nodes; n++ {
		first[n] += first[n-1]
	}
	kids := make([]int32, nodes-1)
	fill := append([]int32(nil), first[:nodes]...)
	for child := 1; child < nodes; child++ {
		p := parent[child]
		kids[fill[p]] = int32(child)
		fill[p]++
	}
	m.first, m.kids = first, kids
	m.fail, m.dict = make([]int32, nodes), make([]int32, nodes)
	m.dict[0] = -1
	queue := make([]int32, 0, nodes)
	for c := 0; c < 256; c++ {
		if n := m.root[c]; n != 0 {
			m.dict[n] = -1 // fail = root
			queue = append(queue, n)
		}
	}
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
}

// scan calls fn with the id of every name occurring in text, once per
// occurrence (the caller dedupes per message).
func (m *nameMatcher) scan(text string, fn func(id int32)) {
	n := int32(0)
	for i := 0; i < len(text); i++ {
		n = m.step(n, text[i])
		for o := n; o > 0; o = m.dict[o] {
			if m.out[o] >= 0 {
				fn(m.out[o])
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
	// starts maps a window hash to the first and last line with it, and
	// next chains the others in id order: no allocation per line.
	starts map[uint64][2]int32
	next   []int32
	filter [1 << 16 / 64]uint64 // bits of the window hashes, to skip most map lookups
}

const (
	lineWindow = minLineRunes
	hashBase   = 1099511628211 // the FNV prime; any odd multiplier works mod 2^64
)

// newLineMatcher sizes the matcher for n lines.
func newLineMatcher(n int) *lineMatcher {
	return &lineMatcher{lines: make([]string, 0, n), next: make([]int32, 0, n), starts: make(map[uint64][2]int32, n)}
}

func windowHash(s string) uint64 {
	var h uint64
	for i := 0; i < lineWindow; i++ {
		h = h*hashBase + uint64(s[i])
	}
	return h
}

// add registers a line (of at least lineWindow bytes) under id = its index.
func (m *lineMatcher) add(line string) int32 {
	id := int32(len(m.lines))
	m.lines = append(m.lines, line)
	m.next = append(m.next, -1)
	h := windowHash(line)
	if se, ok := m.starts[h]; ok {
		m.next[se[1]] = id
		m.starts[h] = [2]int32{se[0], id}
	} else {
		m.starts[h] = [2]int32{id, id}
	}
	m.filter[(h&0xffff)>>6] |= 1 << (h & 63)
	return id
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
			if se, ok := m.starts[h]; ok {
				for id := se[0]; id >= 0; id = m.next[id] {
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
