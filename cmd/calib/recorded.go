package main

import (
	"fmt"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/replay"
)

// recordedNote is the `recorded` cell of replay --compare-recorded for a
// session with no recorded history to diff (smith's session.json) and no
// clai digests re-derived: what the agent recorded, by kind, and how the
// replay compares with it. It is "" when the agent recorded nothing, so
// the cell is blank rather than a claim.
//
//	3 microcompact: 3 reproduced exactly, 0 fired elsewhere; replay 3 compactions
//	5 session_rotation_summary (digests re-derived under clai-rotation only); replay 0 compactions
func recordedNote(s *corpus.Session, replayed int, ag *replay.Agreement, policyName string) string {
	cs := s.Recorded.Compactions
	if len(cs) == 0 {
		return ""
	}
	var kinds []string
	count := map[string]int{}
	for _, c := range cs {
		k := c.Strategy
		if k == "" {
			k = "compaction"
		}
		if count[k] == 0 {
			kinds = append(kinds, k)
		}
		count[k]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", count[k], k)
	}
	note := strings.Join(parts, ", ")
	switch {
	case ag != nil && len(ag.Events) > 0:
		exact := 0
		for _, e := range ag.Events {
			if e.Exact {
				exact++
			}
		}
		note += fmt.Sprintf(": %d of %d clearing events reproduced exactly", exact, len(ag.Events))
	case s.Format == corpus.FormatClai && policyName != "clai-rotation":
		note += " (digests are re-derived under clai-rotation only)"
	}
	plural := "s"
	if replayed == 1 {
		plural = ""
	}
	return fmt.Sprintf("%s; replay: %d compaction%s", note, replayed, plural)
}
