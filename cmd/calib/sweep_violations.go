package main

import (
	"fmt"
	"strings"

	"github.com/calib-dev/calib/replay/sweep"
	"github.com/calib-dev/calib/report"
)

// maxViolationNotes is how many (set, session) rows that broke an
// invariant a sweep annotates one by one, as load warnings are capped; a grid over a policy that
// always breaks one would otherwise print a line per row.
const maxViolationNotes = 20

// sweepViolations says which of a sweep's (or a merge's) rows broke an
// invariant: a ::warning per (set, session) row that did, for --format
// github, and one line for standard error (empty when none did). A sweep
// explores: a set that breaks one is a finding in its violations column
// (sortable), not a failure of the run, so the exit status stays 0, but it
// is said, where before it sat unmarked among 30 columns (replay and
// compare, which judge one configuration, exit 1). It reads every session
// row, not the sets a --top kept. files maps a session id to the file it
// was read from (nil for merge, which has the rows only); the annotation
// and the command that shows the violations name it.
func sweepViolations(rep *sweep.Report, files map[string]string) ([]report.Annotation, string) {
	var notes []report.Annotation
	total, rows, first := 0, 0, ""
	sets := map[int]bool{}
	for _, r := range rep.Rows {
		v := int(r.Metrics["violations"])
		if v <= 0 {
			continue
		}
		total += v
		rows++
		sets[r.Set] = true
		cmd := replayCommand(rep, r, files[r.Session])
		if first == "" {
			first = fmt.Sprintf("set %d on session %s; %s shows them", r.Set, r.Session, cmd)
		}
		if len(notes) < maxViolationNotes {
			notes = append(notes, report.Annotation{Level: report.LevelWarning, File: files[r.Session], Title: "invariant violations",
				Message: fmt.Sprintf("set %d (%s) broke %d invariant(s) on session %s; %s shows them", r.Set, paramText(r), v, r.Session, cmd)})
		}
	}
	if total == 0 {
		return nil, ""
	}
	if rows > len(notes) {
		notes = append(notes, report.Annotation{Level: report.LevelWarning, Title: "invariant violations",
			Message: fmt.Sprintf("%d more (set, session) row(s) broke invariants (%d in all; the violations column of --per-session lists every one)", rows-len(notes), rows)})
	}
	return notes, fmt.Sprintf("warning: %d invariant violation(s) in %d of %d set(s) (the violations column); first: %s", total, len(sets), len(rep.Sets), first)
}

// paramText is a row's swept parameters as name=value pairs.
func paramText(r sweep.Row) string {
	parts := make([]string, len(r.Params))
	for i, p := range r.Params {
		parts[i] = p.Name + "=" + p.Value
	}
	return strings.Join(parts, ", ")
}

// replayCommand is the command that shows a row's violations: calib
// replay, or digest-growth for a sweep that chained rotations, with the
// sweep's fixed parameters and the row's swept ones, on its session's
// file (FILE when unknown). An argument that is not plain is single-quoted
// for a POSIX shell.
func replayCommand(rep *sweep.Report, r sweep.Row, file string) string {
	var set []string
	for _, p := range rep.Fixed {
		set = append(set, p.Name+"="+p.Value)
	}
	for _, p := range r.Params {
		set = append(set, p.Name+"="+p.Value)
	}
	args := []string{"calib", "replay", "--policy", rep.Policy}
	if n := rep.Setup.Get("rotations"); n != "" {
		args = []string{"calib", "digest-growth", "--policy", rep.Policy, "--rotations", n, "--seed", rep.Setup.Get("seed")}
	}
	if len(set) > 0 {
		args = append(args, "--set", shellWord(strings.Join(set, ",")))
	}
	if file == "" {
		file = "FILE"
	} else {
		file = shellWord(file)
	}
	return strings.Join(append(args, file), " ")
}

// shellWord quotes s for a POSIX shell unless every byte is plain.
func shellWord(s string) string {
	plain := s != ""
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_-.,=:/+@%", c) >= 0
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
