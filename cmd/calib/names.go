package main

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// sessionNames is the rule that tells sessions with the same id apart (a
// raw and a recorded clai database, two copies of one log): a session
// whose id is unique is named by its id; sessions that share one are
// named id-1, id-2, ... in load order. Plot file names use it, so no plot
// overwrites another; tables show a path column instead (idsRepeat).
func sessionNames(ss []*corpus.Session) []string {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return uniqueNames(ids)
}

// uniqueNames is sessionNames' rule on bare ids (report rows that no
// longer hold their session).
func uniqueNames(ids []string) []string {
	seen := map[string]int{}
	for _, id := range ids {
		seen[id]++
	}
	k := map[string]int{}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = id
		if seen[id] > 1 {
			k[id]++
			names[i] = fmt.Sprintf("%s-%d", id, k[id])
		}
	}
	return names
}

// idsRepeat reports whether two of ids are the same: tables then add a
// path column so their rows can be told apart.
func idsRepeat(ids []string) bool {
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return true
		}
		seen[id] = true
	}
	return false
}
