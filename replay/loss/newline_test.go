package loss

import (
	"strings"
	"testing"
)

// oldSplitLines calls fn with each line of text, found with
// strings.IndexByte one line at a time: how the old versions below split,
// and so the oracle the newline masks are held to.
func oldSplitLines(text string, fn func(ln string)) {
	for len(text) > 0 {
		ln := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			ln, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		fn(ln)
	}
}

// oldCandidateLines is candidateLines as it was before the newline masks:
// strings.IndexByte per line. The oracle of FuzzCandidateLines.
func oldCandidateLines(text string, fn func(line string)) {
	oldSplitLines(text, func(ln string) {
		if len(ln) < minLineRunes {
			return
		}
		if ln = strings.TrimSpace(stripLineNumber(ln)); len(ln) >= minLineRunes {
			fn(ln)
		}
	})
}

// newlineMask is the newline mask of s[:64] a byte at a time.
func newlineMask(s string) uint64 {
	var m uint64
	for k := range 64 {
		if s[k] == '\n' {
			m |= 1 << k
		}
	}
	return m
}

// FuzzNewlines64 holds newlines64 (assembly on amd64) and newlines64Go to
// a byte-at-a-time mask at every offset of the input, and newlinesTail on
// its last bytes.
func FuzzNewlines64(f *testing.F) {
	f.Add(strings.Repeat("ab\n", 30))
	f.Add(strings.Repeat("\n", 70))
	f.Add(strings.Repeat("\x0b\x09\x8a\x0a\xff", 20))
	f.Add(strings.Repeat("\xff\n\xf5\n", 20)) // a carry out of a high byte must not hide the newline after it
	f.Fuzz(func(t *testing.T, s string) {
		for len(s) < 64 {
			s += s + "\n"
		}
		for i := 0; i+64 <= len(s); i++ {
			want := newlineMask(s[i:])
			if got := newlines64(s[i:]); got != want {
				t.Fatalf("newlines64(%q) = %064b, want %064b", s[i:i+64], got, want)
			}
			if got := newlines64Go(s[i:]); got != want {
				t.Fatalf("newlines64Go(%q) = %064b, want %064b", s[i:i+64], got, want)
			}
			if got := newlinesTail(s[i : i+63]); got != want&^(1<<63) {
				t.Fatalf("newlinesTail(%q) = %064b, want %064b", s[i:i+63], got, want&^(1<<63))
			}
		}
	})
}

// FuzzCandidateLines holds candidateLines to the IndexByte version: the
// same lines in the same order, and each the same substring of the text
// (offsetIn relies on it), the input also wrapped so that its lines fall
// across 64-byte blocks.
func FuzzCandidateLines(f *testing.F) {
	for _, s := range contentLineSeeds {
		f.Add(s)
	}
	f.Add(benchLines())
	f.Add(strings.Repeat("x", 63) + "\n" + strings.Repeat("y", 40) + "\n" + strings.Repeat("z", 41))
	f.Add(strings.Repeat("q", 39) + "\n" + strings.Repeat("w", 40))
	f.Fuzz(func(t *testing.T, s string) {
		for _, text := range []string{s, s + "\n" + s, "\n" + s + strings.Repeat("r", 50), strings.ReplaceAll(s, " ", "\n")} {
			var got, want []string
			candidateLines(text, func(l string) { got = append(got, l) })
			oldCandidateLines(text, func(l string) { want = append(want, l) })
			if len(got) != len(want) {
				t.Fatalf("candidateLines(%q): %d lines, want %d", text, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] || offsetIn(text, got[i]) != offsetIn(text, want[i]) {
					t.Fatalf("candidateLines(%q): line %d is %q at %d, want %q at %d", text, i,
						got[i], offsetIn(text, got[i]), want[i], offsetIn(text, want[i]))
				}
			}
		}
	})
}
