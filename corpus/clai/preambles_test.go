package clai

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// The preamble texts and their byte lengths are clai's (specs/clai.md §2.6).
func TestClaiPreambles(t *testing.T) {
	if len(SummaryPreamble) != 470 || len(DigestPreamble) != 529 {
		t.Errorf("P1 %d bytes, P2 %d bytes; want 470 and 529", len(SummaryPreamble), len(DigestPreamble))
	}
	p1, p2, p1old, p2old := SummaryPreamble, DigestPreamble, SummaryPreambleOld, DigestPreambleOld
	digest := func(body string) string { return p1 + "\n\n" + p2 + "\n\n" + body }
	for _, tc := range []struct {
		name     string
		text     string
		kind     corpus.DigestKind
		np1, np2 int
	}{
		{"empty", "", "", 0, 0},
		{"model summary", p1 + "\n\n## Goal\nfix it", corpus.DigestModel, 1, 0},
		{"digest", digest("[user message m1]\nhello"), corpus.DigestDeterministic, 1, 1},
		{"chained digest, 3 rotations", digest("[system message s2]\n" + digest("[system message s1]\n"+digest("x"))), corpus.DigestDeterministic, 3, 3},
		{"old digest", p1old + "\n\n" + p2old + "\n\n[user message m1]\nhello", corpus.DigestOld, 1, 1},
		{"new digest wrapping an old one", digest("[system message s1]\n" + p1old + "\n\n" + p2old + "\n\nx"), corpus.DigestDeterministic, 2, 2},
		{"old summary, model", p1old + "\n\nthe user wants a fix", corpus.DigestModel, 1, 0},
		{"no preamble", "just text", corpus.DigestModel, 0, 0},
	} {
		n1, n2 := PreambleCounts(tc.text)
		if k := ClassifySummary(tc.text); k != tc.kind || n1 != tc.np1 || n2 != tc.np2 {
			t.Errorf("%s: %q p1 %d p2 %d; want %q %d %d", tc.name, k, n1, n2, tc.kind, tc.np1, tc.np2)
		}
	}
}
