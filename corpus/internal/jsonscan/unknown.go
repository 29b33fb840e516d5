package jsonscan

import (
	"fmt"
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// UnknownKinds collects the line and block types a reader does not know
// (a log from a newer agent version), so that each type is skipped with one
// warning saying how often it occurred and where first, not one per line.
type UnknownKinds map[string]*tally

type tally struct {
	count     int
	firstLine int
}

func (u UnknownKinds) Add(kind string, line int) {
	if t, ok := u[kind]; ok {
		t.count++
		return
	}
	u[kind] = &tally{count: 1, firstLine: line}
}

// warnings are the collected types as warnings on file, in name order.
func (u UnknownKinds) Warnings(file, agent string) []corpus.Warning {
	kinds := make([]string, 0, len(u))
	for k := range u {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	out := make([]corpus.Warning, 0, len(kinds))
	for _, k := range kinds {
		t := u[k]
		out = append(out, corpus.Warning{File: file, Line: t.firstLine, Message: fmt.Sprintf(
			"unknown %s (%d occurrence(s), first at this line) skipped; the log may come from a newer %s", k, t.count, agent)})
	}
	return out
}
