package main

import (
	"fmt"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/report"
)

// sessionNames is the rule that tells sessions apart in file names (a raw
// and a recorded clai database, two copies of one log, "a b" and "a+b"): a
// session whose id is alone in its file-name form is named by its id;
// sessions that share one are named id-1, id-2, ... in load order. Plot
// file names use it, so no plot overwrites another; tables show a path
// column instead (idsRepeat).
func sessionNames(ss []*corpus.Session) []string {
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	return uniqueNames(ids)
}

// uniqueNames is sessionNames' rule on bare ids (report rows that no
// longer hold their session). Ids are compared by fileKey, the form a
// plot's file name takes, so that two ids SanitizeName makes one ("a b",
// "a+b"), or that differ only in case (one file on macOS and Windows), get
// numbers too; and a number is skipped when it would make the name of
// another session ("a", "a" and "a-1").
func uniqueNames(ids []string) []string {
	count := map[string]int{}
	for _, id := range ids {
		count[fileKey(id)]++
	}
	taken := map[string]bool{} // file keys of the names given or reserved
	for _, id := range ids {
		if count[fileKey(id)] == 1 {
			taken[fileKey(id)] = true
		}
	}
	next := map[string]int{}
	names := make([]string, len(ids))
	for i, id := range ids {
		k := fileKey(id)
		if count[k] == 1 {
			names[i] = id
			continue
		}
		for {
			next[k]++
			name := fmt.Sprintf("%s-%d", id, next[k])
			if nk := fileKey(name); !taken[nk] {
				taken[nk] = true
				names[i] = name
				break
			}
		}
	}
	return names
}

// fileKey is the file-name form of an id: what report.SanitizeName makes
// of it, in lower case (it keeps ASCII letters only).
func fileKey(id string) string { return strings.ToLower(report.SanitizeName(id)) }

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
