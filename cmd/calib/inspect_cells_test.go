package main

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/metrics"
)

// TestRecordedCells: a recorded compaction's table cells hold what its
// recording holds and are blank for the rest, not 0: clai's window,
// preamble counts, kind and chain only for clai; a digest size only with
// a summary; token figures, cleared ids and line only when recorded.
func TestRecordedCells(t *testing.T) {
	tests := []struct {
		name, format string
		c            metrics.InspectCompaction
		want         string // the cells as text, | between
	}{
		{"clai rotation", "clai", metrics.InspectCompaction{Index: 1, Strategy: "session_rotation_summary", Trigger: "manual", Status: "completed",
			Window: 25, DigestBytes: 55563, P1: 2, P2: 2, Kind: "digest", Chained: true, Line: 2},
			"1|session_rotation_summary|manual|completed|25|55,563|2|2|digest|yes|2|||"},
		{"clai, summary message missing", "clai", metrics.InspectCompaction{Strategy: "local_summary", Window: 44, SummaryMissing: true, Line: 6},
			"0|local_summary|||44||0|0|(missing)|no|6|||"},
		{"Claude Code compact (1.0.x: the summary alone)", "claude-code", metrics.InspectCompaction{Strategy: "compact", DigestBytes: 9010, Line: 451},
			"0|compact||||9,010|||||451|||"},
		{"Claude Code microcompact", "claude-code", metrics.InspectCompaction{Strategy: "microcompact", Trigger: "auto", Line: 39,
			TokensBefore: 71221, TokensSaved: 40455, Cleared: 6},
			"0|microcompact|auto||||||||39|71,221|40,455|6"},
	}
	for _, tt := range tests {
		var got []string
		for _, c := range recordedCells(tt.format, tt.c) {
			got = append(got, c.Format(true))
		}
		if g := strings.Join(got, "|"); g != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, g, tt.want)
		}
	}
}
