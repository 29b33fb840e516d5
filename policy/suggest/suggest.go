// Package suggest finds the name a user probably meant when a flag names
// no policy, parameter or metric: "did you mean smith-staged?" says more
// than a list of fifteen names that the typo is somewhere in.
package suggest

import "strings"

// Closest returns the one known name nearest to name, or "" when none is
// near enough or two are equally near (a guess between two would mislead).
// Near is an edit distance of at most a third of the name's length (at
// least 1, so one typo in a short name counts), a name that starts with
// name (claude for claude-code), or a dotted name whose last part is name
// (keep_value for prune.keep_value).
func Closest(name string, known []string) string {
	best, bestD, tie := "", len(name)/3+1, false
	if bestD < 2 {
		bestD = 2
	}
	for _, k := range known {
		d := distance(strings.ToLower(name), strings.ToLower(k))
		if i := strings.LastIndexByte(k, '.'); i >= 0 && k[i+1:] == name {
			d = 1
		}
		if len(name) >= 3 && strings.HasPrefix(k, name) {
			d = min(d, 1)
		}
		switch {
		case k == name:
			return ""
		case d < bestD:
			best, bestD, tie = k, d, false
		case d == bestD && best != "":
			tie = true
		}
	}
	if tie {
		return ""
	}
	return best
}

// Hint is Closest as a clause to add to an error: "; did you mean X?", or
// "" when there is no suggestion.
func Hint(name string, known []string) string {
	if c := Closest(name, known); c != "" {
		return "; did you mean " + c + "?"
	}
	return ""
}

// distance is the Levenshtein distance between a and b in bytes (names
// are ASCII).
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
