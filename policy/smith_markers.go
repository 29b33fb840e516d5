package policy

import "strings"

// hasSmithMarker reports whether text contains smith's truncation or
// superseded marker: what decides, in shorten, between collapsing a result
// to a stub and cutting its head. It answers exactly as
// strings.Contains(text, smithTruncationMarker) ||
// strings.Contains(text, smithSupersededMarker) (the test oracle), in one
// pass instead of two, and cheaper per byte: strings.Index hops between
// occurrences of a marker's first byte ('t', 's'), which tool output is full
// of (one byte in 16 of the synthetic corpus), while both markers hold a
// 'y' ("by"), rarer by ten. The truncate stage scans every candidate it
// reaches, most of them recorded results seen for the first time, so this
// scan was a fifth of a smith-staged sweep.
func hasSmithMarker(text string) bool {
	// A text smith's shorten wrote ends with the marker: found in O(1).
	if strings.HasSuffix(text, smithTruncationMarker+" ...]") || strings.HasSuffix(text, smithTruncationMarker+"]") {
		return true
	}
	for i := 0; ; {
		k := strings.IndexByte(text[i:], markerAnchor)
		if k < 0 {
			return false
		}
		i += k
		if markerAt(text, i-truncationAnchor, smithTruncationMarker) || markerAt(text, i-supersededAnchor, smithSupersededMarker) {
			return true
		}
		i++
	}
}

// markerAnchor is the byte the scan looks for, and the anchors are its
// first offset in each marker: a marker at s has markerAnchor at
// s+anchor, so checking every anchor byte at that distance finds it.
const (
	markerAnchor     = 'y'
	truncationAnchor = len("truncated b")
	supersededAnchor = len("superseded b")
)

// markerAt reports whether text holds marker at index at.
func markerAt(text string, at int, marker string) bool {
	return at >= 0 && at+len(marker) <= len(text) && text[at:at+len(marker)] == marker
}
