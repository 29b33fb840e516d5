package policy

import (
	"strconv"
	"strings"
	"testing"
)

// hasSmithMarkerRef is the test oracle: shorten's marker test as smith
// writes it, two substring searches.
func hasSmithMarkerRef(text string) bool {
	return strings.Contains(text, smithTruncationMarker) || strings.Contains(text, smithSupersededMarker)
}

// The anchors must be where the anchor byte first occurs in each marker.
func TestMarkerAnchors(t *testing.T) {
	for _, c := range []struct {
		marker string
		anchor int
	}{{smithTruncationMarker, truncationAnchor}, {smithSupersededMarker, supersededAnchor}} {
		if got := strings.IndexByte(c.marker, markerAnchor); got != c.anchor {
			t.Errorf("%q: anchor %d, the first %q is at %d", c.marker, c.anchor, markerAnchor, got)
		}
	}
}

// markerCases are texts around the edges of a marker: at the start and
// the end, cut by one byte at either side, next to other anchor bytes,
// and the texts smith's own stages write.
func markerCases() []string {
	tm, sm := smithTruncationMarker, smithSupersededMarker
	head := strings.Repeat("x", 600)
	cs := []string{
		"", "y", "yy", "by", tm, sm, tm[1:], tm[:len(tm)-1], sm[1:], sm[:len(sm)-1],
		"y" + tm, tm + "y", "yyyy" + sm + "yyyy", strings.Repeat("y", 200),
		"truncated by smith to stay within the context windo",
		"superseded by a later identical cal",
		"truncated bysmith", "superseded by a later identical call!", "[" + tm + "]",
		head + tm, head + sm, head + tm[:30] + sm[:20], tm[:11] + sm,
		truncatedHead(head, 512), truncatedHead(head+tm, 300), shortenResult(head, 512),
		"[3 KiB " + tm + "]", smithSupersededStub("read_file", &resultMsg("c", head, false).Blocks[0]),
		strings.Repeat("by the way, ", 100) + sm, strings.Repeat("stay ", 100),
		"é" + tm + "é", "\x00y\xff" + sm,
	}
	return cs
}

func TestHasSmithMarkerMatchesOracle(t *testing.T) {
	for _, text := range markerCases() {
		if got, want := hasSmithMarker(text), hasSmithMarkerRef(text); got != want {
			t.Errorf("hasSmithMarker(%.80q) = %v, strings.Contains says %v", text, got, want)
		}
	}
}

// shortenResultRef is shortenResult as it was before hasSmithMarker: the
// oracle for the whole of shorten.
func shortenResultRef(text string, keep int) string {
	if hasSmithMarkerRef(text) {
		return "[" + strconv.Itoa(len(text)/1024) + " KiB " + smithTruncationMarker + "]"
	}
	if len(text) <= keep {
		return text
	}
	return truncatedHead(text, keep)
}

func TestShortenResultMatchesOracle(t *testing.T) {
	for _, text := range markerCases() {
		for _, keep := range []int{0, 10, 512, 2000} {
			want := shortenResultRef(text, keep)
			if len(want) >= len(text) {
				want = "" // no shorter: shortenResult says so
			}
			if got := shortenResult(text, keep); got != want {
				t.Errorf("shortenResult(%.60q, %d) = %.80q, want %.80q", text, keep, got, want)
			}
		}
	}
}

// FuzzHasSmithMarker checks the one-pass scan against the oracle on
// arbitrary texts, seeded with pieces of both markers.
func FuzzHasSmithMarker(f *testing.F) {
	for _, text := range markerCases() {
		f.Add(text)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := hasSmithMarker(text), hasSmithMarkerRef(text); got != want {
			t.Fatalf("hasSmithMarker(%q) = %v, strings.Contains says %v", text, got, want)
		}
	})
}
