package main

import (
	"fmt"
	"slices"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// write prints doc to standard output in the --format the user chose.
// Commands build their tables and their typed JSON result and call it once.
//
// --format github follows one rule for every command: each load warning is
// a ::warning with file= and line= (added here from the loaded corpus, so
// no command can forget it), then the command's own ::error lines, each
// with file= the session file it is about (see sessionError).
func (a *app) write(doc report.Doc) error {
	if a.Format == report.GitHub && a.corpus != nil {
		doc.Annotations = append(a.corpus.annotations(), doc.Annotations...)
	}
	return report.Write(a.IO.Out, a.Format, doc)
}

// stageColumns are the stage columns of a report on rows: the stages of
// each policy used (metrics.StageOrder), so that a column's position
// depends on the policies, never on which stages happened to reclaim
// something; a stage a policy did not declare follows (metrics.StageNames
// order) rather than being lost.
func stageColumns(policies []string, rows []metrics.SessionRow, events []metrics.EventRow) []string {
	cols := metrics.StageOrder(policies...)
	for _, s := range metrics.StageNames(rows, events) {
		if !slices.Contains(cols, s) {
			cols = append(cols, s)
		}
	}
	return cols
}

// sessionError is the ::error annotation of a failure about the session
// read from file (a gate, an invariant broken during replay).
func sessionError(file, title, message string) report.Annotation {
	return report.Annotation{Level: report.LevelError, File: file, Title: title, Message: message}
}

// plotsWanted reports whether --plot DIR was given; commands skip building
// plots otherwise.
func (a *app) plotsWanted() bool { return a.flags.plotDir != "" }

// savePlots writes each figure as DIR/NAME.png and DIR/NAME.svg for --plot
// DIR and lists the written files on stderr (unless --quiet), so that
// standard output stays a clean report; with no figure it says so rather
// than leave an empty folder unexplained. A directory or file that cannot be
// written is an output error (exit 3) naming it.
func (a *app) savePlots(figs ...report.Figure) error {
	if !a.plotsWanted() {
		return nil
	}
	if len(figs) == 0 { // said even under --quiet: the folder asked for stays empty
		fmt.Fprintf(a.IO.ErrOut, "calib: --plot %s: nothing to draw (no session has a request), no plot written\n", a.flags.plotDir)
		return nil
	}
	paths, err := report.SavePlots(a.flags.plotDir, figs...)
	if err != nil {
		return &outputError{err}
	}
	if !a.flags.quiet {
		for _, p := range paths {
			fmt.Fprintf(a.IO.ErrOut, "calib: wrote %s\n", p)
		}
	}
	return nil
}
