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
	seen := map[string]int{}
	for _, s := range ss {
		seen[s.ID]++
	}
	k := map[string]int{}
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.ID
		if seen[s.ID] > 1 {
			k[s.ID]++
			names[i] = fmt.Sprintf("%s-%d", s.ID, k[s.ID])
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
