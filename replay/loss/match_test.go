package loss

import (
	"fmt"
	"strings"
	"testing"
)

// naiveNames counts every occurrence of every name in text with
// strings.Index: the oracle for nameMatcher.
func naiveNames(names []string, text string) map[string]int {
	out := map[string]int{}
	seen := map[string]bool{}
	for _, n := range names {
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		for i := 0; i+len(n) <= len(text); i++ {
			if strings.HasPrefix(text[i:], n) {
				out[n]++
			}
		}
	}
	return out
}

// FuzzNameMatcher checks the automaton against the oracle: names are the
// lines of the first input (prefixes of each other, duplicates and all),
// the text is the second.
func FuzzNameMatcher(f *testing.F) {
	f.Add("he\nshe\nhers\nhis", "ushers and his")
	f.Add("/p/src/a.go\nsrc/a.go\na.go\n/p/src/a.go", "edited /p/src/a.go, then src/a.go; a.go")
	f.Add("aaa\naa\na\naaaa", "aaaaaaa")
	f.Add("go test ./...\ngo test\ngo", "ran go test ./... and go vet")
	f.Add("abc\nbcd\ncde\nxbcdy", "xabcdex xbcdy")
	// One-byte names (every pair they start is marked), a name's first
	// byte as the text's last, and names that start where a skipped pair
	// ends.
	f.Add("x\nab\nbc", "zzxbabx")
	f.Add("go test\n/", "cd /w && go")
	f.Add("ab\nbab", "aabab")
	f.Add("x\nab", "zzzx")
	f.Fuzz(func(t *testing.T, list, text string) {
		names := strings.Split(list, "\n")
		if len(names) > 64 {
			names = names[:64]
		}
		m := newNameMatcher()
		for _, n := range names {
			m.add(n)
		}
		m.build()
		got := map[string]int{}
		m.scan(text, func(id int32) { got[m.names[id]]++ })
		want := naiveNames(names, text)
		if len(got) != len(want) {
			t.Fatalf("names %q in %q: got %v, want %v", names, text, got, want)
		}
		for n, c := range want {
			if got[n] != c {
				t.Fatalf("names %q in %q: %q found %d times, want %d", names, text, n, got[n], c)
			}
		}
	})
}

// simpleWindowHash is windowHash as one multiply chain: the oracle.
func simpleWindowHash(s string) uint64 {
	var h uint64
	for i := 0; i < lineWindow; i++ {
		h = h*hashBase + uint64(s[i])
	}
	return h
}

// FuzzWindowHash holds the four-lane windowHash to the simple loop, and to
// the hash the scan rolls along a text (which must meet it at every
// window for a line to be found anywhere).
func FuzzWindowHash(f *testing.F) {
	f.Add("the quick brown fox jumps over the lazy dog, twice over")
	f.Add(strings.Repeat("\xff", lineWindow+3))
	f.Add(strings.Repeat("\x00", lineWindow))
	f.Add("     12→func (m *lineMatcher) scan(text string, fn func(id int32)) {")
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) < lineWindow {
			return
		}
		for i := 0; i+lineWindow <= len(s) && i < 16; i++ {
			if got, want := windowHash(s[i:]), simpleWindowHash(s[i:]); got != want {
				t.Fatalf("windowHash(%q) = %#x, want %#x", s[i:i+lineWindow], got, want)
			}
		}
	})
}

// FuzzLineMatcher checks the Rabin-Karp matcher against strings.Index:
// the lines are those of the first input long enough to register (the
// same 40-byte window shared, duplicates and all; enough of them to grow
// the slots), the text is the second.
func FuzzLineMatcher(f *testing.F) {
	window := "the quick brown fox jumps over the lazy "
	f.Add(window+"dog\n"+window+"cat\n"+window+"dog", "x "+window+"cat and "+window+"dog")
	var many, text strings.Builder
	for i := range 40 {
		line := fmt.Sprintf("%02d: a line long enough to be registered here", i)
		many.WriteString(line + "\n")
		if i%3 == 0 {
			text.WriteString(line[1:] + " / " + line + " ")
		}
	}
	f.Add(many.String(), text.String())
	f.Add(strings.Repeat("a", 45)+"\n"+strings.Repeat("a", 41), strings.Repeat("a", 90))
	f.Fuzz(func(t *testing.T, list, text string) {
		m := newLineMatcher(0)
		var lines []string
		for _, ln := range strings.Split(list, "\n") {
			if len(ln) >= lineWindow && len(lines) < 200 {
				m.add(ln)
				lines = append(lines, ln)
			}
		}
		got := make([]int, len(lines))
		m.scan(text, func(id int32) { got[id]++ })
		for id, ln := range lines {
			want := 0
			for i := 0; i+len(ln) <= len(text); i++ {
				if strings.HasPrefix(text[i:], ln) {
					want++
				}
			}
			if got[id] != want {
				t.Fatalf("line %d %q in %q: found %d times, want %d", id, ln, text, got[id], want)
			}
		}
	})
}
