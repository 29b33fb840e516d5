package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/calib-dev/calib/metrics"
	"github.com/calib-dev/calib/report"
)

// write prints doc to standard output in the --format the user chose.
// Commands build their tables and their typed JSON result and call it once.
// A write that fails (a full disk behind a redirection) is an output error,
// exit 3, not 1, which CI would read as a failed gate.
//
// --format github follows one rule for every command: each load warning is
// a ::warning with file= and line= (added here from the loaded corpus, so
// no command can forget it), then the command's own ::error lines, each
// with file= the session file it is about (see sessionError).
func (a *app) write(doc report.Doc) error {
	if a.Format == report.GitHub && a.corpus != nil {
		doc.Annotations = append(a.corpus.annotations(), doc.Annotations...)
	}
	if err := report.Write(a.IO.Out, a.Format, doc); err != nil {
		// The OS error names /dev/stdout; say standard output once.
		return &outputError{fmt.Errorf("%w: %w; the report is incomplete", errStdout, osErrOnly(err))}
	}
	return nil
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

// writeWithPlots writes doc and then, with --plot, the figures that
// figures draws: called only then, since drawing costs.
func (a *app) writeWithPlots(doc report.Doc, figures func() ([]report.Figure, error)) error {
	if err := a.write(doc); err != nil {
		return err
	}
	if !a.plotsWanted() {
		return nil
	}
	figs, err := figures()
	if err != nil {
		return err
	}
	return a.savePlots(figs...)
}

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
		a.sayf("--plot %s: nothing to draw (no session has a request), no plot written", a.flags.plotDir)
		return nil
	}
	// A plot file's name comes from a session's id, known only now: one
	// that is an input (calib knows a log by its content, whatever its
	// name) or a link to one is refused before any plot is written.
	for _, p := range report.PlotPaths(a.flags.plotDir, figs...) {
		if err := refuseOverlap("--plot", p, a.inputs); err != nil {
			return err
		}
	}
	paths, err := report.SavePlots(a.flags.plotDir, figs...)
	if err != nil {
		return &outputError{err}
	}
	if !a.flags.quiet {
		for _, p := range paths {
			a.sayf("wrote %s", p)
		}
	}
	return nil
}

// checkPlotFolder refuses, before any work, a --plot DIR that a file is in
// the way of (DIR itself, or the nearest part of it that exists): the
// figures are drawn last, so the report used to be printed and the error
// (exit 3) come only after the whole run. A folder that does not exist yet
// is fine; it is created when the plots are written. Exit 3, as for an
// --out whose folder is missing: an output that cannot be written.
func checkPlotFolder(dir string) error {
	p := filepath.Clean(dir)
	for {
		if fi, err := os.Stat(p); err == nil {
			if fi.IsDir() {
				return nil
			}
			return &outputError{fmt.Errorf("--plot %s: %s is a file, not a folder; give a folder path (it is created if missing)", dir, p)}
		}
		if filepath.Dir(p) == p {
			return nil // nothing of it exists: created when written
		}
		p = filepath.Dir(p)
	}
}

// refuseWritingInputs enforces "calib never writes to what it reads"
// before any work: an output path (--out FILE, --plot DIR) that is one of
// the inputs (PATH arguments, or a file an input flag names), or lies
// inside an input folder, is a usage error naming both. Paths are compared
// after symbolic links are resolved, so a link or a ../ spelling does not
// get around it. Without this, `sweep sessions/ --out sessions/x.jsonl`
// overwrote a session file.
func refuseWritingInputs(cmd *cobra.Command, paths []string) ([]string, error) {
	// The flags that name a file calib reads besides the PATH arguments,
	// and those that name a path it writes; a command has only some of
	// them (Lookup says which).
	inputs := append([]string(nil), paths...)
	for _, name := range []string{"grid-file", "prices", "baseline"} {
		if f := cmd.Flags().Lookup(name); f != nil && f.Value.String() != "" {
			inputs = append(inputs, f.Value.String())
		}
	}
	for _, name := range []string{"out", "plot"} {
		f := cmd.Flags().Lookup(name)
		if f == nil || f.Value.String() == "" {
			continue
		}
		if err := refuseOverlap("--"+name, f.Value.String(), inputs); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// refuseOverlap is refuseWritingInputs for one output path. An input that
// does not exist is skipped: loading reports it.
func refuseOverlap(flag, out string, inputs []string) error {
	rout := resolvePath(out)
	outInfo, outErr := os.Stat(out)
	holders := existingHolders(out)
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		abs, err := filepath.Abs(in)
		if err != nil {
			continue
		}
		rin, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue
		}
		inInfo, err := os.Stat(rin)
		if err != nil {
			continue
		}
		// The same file under another name (a hard link) counts too.
		if rout == rin || outErr == nil && os.SameFile(outInfo, inInfo) {
			return usageErrorf("%s %s is the input %s: calib never writes to what it reads; give a path outside the inputs", flag, out, in)
		}
		if side := sqliteSideFile(rin, inInfo, rout); side != "" {
			return usageErrorf("%s %s is the %s of the input database %s: calib never writes to what it reads; give a path outside the inputs", flag, out, side, in)
		}
		if insideFolder(rout, holders, rin, inInfo) {
			return usageErrorf("%s %s is inside the input folder %s: calib never writes to what it reads; give a path outside the inputs", flag, out, in)
		}
	}
	if outErr == nil {
		if in, folder := linkedInput(outInfo, inputs); in != "" {
			return usageErrorf("%s %s is the input %s of the folder %s under another name (a hard link): calib never writes to what it reads; give a path outside the inputs", flag, out, in, folder)
		}
	}
	return nil
}

// sqliteSideFile names what out is to the input file in when in is a
// SQLite database and out one of the files SQLite keeps beside it (its
// write-ahead log, shared memory or rollback journal), else "". Those
// files are part of the database: clai or opencode may hold committed
// rows in the -wal that the database file does not have yet, and a JSON
// report written over it would lose them.
//
// A side file named in another case in the database's own folder is
// refused too: SQLite on a file system that ignores case would take it for
// the real one (on one that does not, refusing such a name costs nothing).
func sqliteSideFile(in string, inInfo os.FileInfo, out string) string {
	if !inInfo.Mode().IsRegular() {
		return ""
	}
	sameFolder := false
	if dir, err := os.Stat(filepath.Dir(in)); err == nil {
		if odir, err := os.Stat(filepath.Dir(out)); err == nil {
			sameFolder = os.SameFile(odir, dir)
		}
	}
	var side string
	for suffix, what := range map[string]string{"-wal": "write-ahead log", "-shm": "shared-memory file", "-journal": "rollback journal"} {
		if out == in+suffix || sameFolder && strings.EqualFold(filepath.Base(out), filepath.Base(in)+suffix) {
			side = what
		}
	}
	if side == "" {
		return ""
	}
	f, err := os.Open(in)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 16)
	if _, err := io.ReadFull(f, head); err != nil || string(head) != "SQLite format 3\x00" {
		return ""
	}
	return side
}

// insideFolder reports whether an output lies inside the input folder rin
// (inInfo its os.Stat): by the output's resolved path rout, or by one of
// its existing folders, holders (existingHolders), being rin itself.
func insideFolder(rout string, holders []os.FileInfo, rin string, inInfo os.FileInfo) bool {
	if !inInfo.IsDir() {
		return false
	}
	sep := string(filepath.Separator)
	return strings.HasPrefix(rout, strings.TrimSuffix(rin, sep)+sep) ||
		slices.ContainsFunc(holders, func(h os.FileInfo) bool { return os.SameFile(h, inInfo) })
}

// existingHolders are the folders that hold path p, nearest first, as far
// up as they exist: os.Stat's view of them, compared with the inputs by
// identity (os.SameFile), not by name. Why: on a file system that ignores
// case (macOS's and Windows' defaults), SESSIONS/rows.jsonl is inside the
// input folder sessions although no comparison of the two strings says so.
func existingHolders(p string) []os.FileInfo {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil
	}
	var out []os.FileInfo
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if fi, err := os.Stat(dir); err == nil {
			out = append(out, fi)
		}
		if filepath.Dir(dir) == dir {
			return out
		}
	}
}

// resolvePath is p made absolute with the symbolic links of its longest
// existing prefix resolved: an output path usually does not exist yet.
func resolvePath(p string) string {
	cur, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Join(cur, rest)
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
