package loss

import (
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
