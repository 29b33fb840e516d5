package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/report"
)

// loaded is the corpus a command works on.
type loaded struct {
	Sessions []*corpus.Session
	// failed counts inputs that could not be read; their errors are
	// already printed.
	failed int
	// warnings are the load warnings about files that gave no session (a
	// file a folder walk skipped), already printed.
	warnings []corpus.Warning
}

// Err is the error a command returns after writing its report: nil when
// every input loaded, else an *inputError (exit 2, nothing more printed).
// Returning it last keeps the rule "a damaged file never costs the rest of
// the corpus": the sessions that did load are still reported.
func (l *loaded) Err() error {
	if l.failed == 0 {
		return nil
	}
	return &inputError{failed: l.failed}
}

// verdict is a command's error once it has reported: its failed gate (nil
// when none failed) and the inputs that could not be read. Both together
// exit 2, not 1, with the gate's message: a verdict reached on part of
// the corpus is no regression a CI step should take for one (a failed
// gate used to hide an unreadable input and --strict).
func (l *loaded) verdict(gate error) error { return errors.Join(gate, l.Err()) }

// loadSessions reads the corpus named by args (PATH..., "-" for standard
// input) or, with --demo, the demo corpus, honouring --strict. It prints
// every load warning (unless --quiet) and every per-file error to stderr as
//
//	calib: FILE:LINE: warning: MESSAGE
//	calib: FILE:LINE: MESSAGE
//
// It returns an error only when nothing at all could be loaded (the command
// should return it at once); otherwise the command reports l.Sessions and
// returns l.Err() at the end. Typical use:
//
//	l, err := a.loadSessions(cmd.Context(), args)
//	if err != nil {
//		return err
//	}
//	... compute and write the report ...
//	return l.Err()
//
// A cancelled ctx (Ctrl-C) makes it return ctx.Err() (exit 130).
func (a *app) loadSessions(ctx context.Context, args []string) (*loaded, error) {
	return a.loadSessionsEach(ctx, args, nil)
}

// loadSessionsEach is loadSessions that also hands each session to each
// as soon as it is read (load.LoadEach), for a command that starts work
// on it while the rest load. each sees the session as reported (its path
// and its warnings' already relative to the demo folder) and may see a
// session of a file given twice, which l.Sessions then lacks.
func (a *app) loadSessionsEach(ctx context.Context, args []string, each func([]*corpus.Session)) (*loaded, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	paths, rel := args, func(p string) string { return p }
	if a.flags.demo {
		tmp, demoPaths, demoRel, err := writeDemo()
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		paths, rel = demoPaths, demoRel
	}
	paths = a.readEachOnce(paths, rel)
	var handOver func([]*corpus.Session)
	size := sizeOf
	if each != nil {
		// each may release a session once its job is done (release), so
		// readOnce's measure of it is taken first.
		var mu sync.Mutex
		sizes := map[*corpus.Session]contentSize{}
		size = func(s *corpus.Session) contentSize {
			mu.Lock()
			defer mu.Unlock()
			return sizes[s]
		}
		// Paths are made relative before each sees the sessions, so
		// that nothing writes a session another goroutine may read.
		handOver = func(ss []*corpus.Session) {
			for _, s := range ss {
				relSession(s, rel)
				n := sizeOf(s)
				mu.Lock()
				sizes[s] = n
				mu.Unlock()
			}
			each(ss)
		}
	}
	sessions, err := load.LoadEach(paths, corpus.Options{Strict: a.flags.strict, Stdin: a.IO.In}, handOver)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	sessions, dups := readOnce(sessions, size)
	if !a.flags.quiet {
		a.sayDuplicates(dups, rel)
	}
	l := &loaded{Sessions: sessions}
	a.corpus = l
	for _, s := range sessions {
		relSession(s, rel)
		if !a.flags.quiet {
			a.sayWarnings(s)
		}
	}
	// Warnings about files that gave no session are capped like a
	// session's: a folder of 20,000 empty logs printed 20,000 lines.
	fileWarnings := 0
	for _, e := range splitErrors(err) {
		if w, ok := e.(*corpus.FileWarning); ok {
			w.Path = rel(w.Path)
			l.warnings = append(l.warnings, corpus.Warning{File: w.Path, Line: w.Line, Message: w.Message})
			if fileWarnings++; !a.flags.quiet && fileWarnings <= maxWarningsShown {
				a.sayf("%s: warning: %s", location(w.Path, w.Line), w.Message)
			}
			continue
		}
		l.failed++
		var fe *corpus.FileError
		if errors.As(e, &fe) {
			a.sayf("%s: %s", location(rel(fe.Path), fe.Line), fileErrorText(fe.Err))
			continue
		}
		a.sayf("%s", e.Error())
	}
	if more := fileWarnings - maxWarningsShown; more > 0 && !a.flags.quiet {
		a.sayf("warning: %d more warning(s) about files not shown (%d in all)", more, fileWarnings)
	}
	if len(sessions) == 0 && l.failed > 0 {
		return nil, l.Err()
	}
	return l, nil
}

// writeDemo writes the demo corpus to a new temporary folder tmp (the
// caller removes it) and returns its paths, and rel, which names them
// demo/... so that output does not depend on the temporary folder and is
// byte-identical across runs.
func writeDemo() (tmp string, paths []string, rel func(string) string, err error) {
	tmp, err = os.MkdirTemp("", "calib-demo-")
	if err != nil {
		return "", nil, nil, fmt.Errorf("writing the demo corpus: %w", err)
	}
	paths, err = synth.WriteDemo(filepath.Join(tmp, "demo"), synth.DemoOptions{Compact: demoCompact})
	if err != nil {
		os.RemoveAll(tmp)
		return "", nil, nil, fmt.Errorf("writing the demo corpus: %w", err)
	}
	prefix := tmp + string(filepath.Separator)
	rel = func(p string) string {
		if r, ok := strings.CutPrefix(p, prefix); ok {
			return filepath.ToSlash(r)
		}
		return p
	}
	return tmp, paths, rel, nil
}

// readEachOnce is paths with standard input and every path given more
// than once (or reaching the same file) kept once, saying so unless quiet.
func (a *app) readEachOnce(paths []string, rel func(string) string) []string {
	paths, stdinRepeats := readStdinOnce(paths)
	if stdinRepeats > 0 && !a.flags.quiet {
		a.sayf("-: warning: standard input is given %d times; it is read once", stdinRepeats+1)
	}
	paths, repeats := givenOnce(paths)
	if a.flags.quiet {
		return paths
	}
	said := map[string]bool{}
	for _, r := range repeats {
		if r.path == r.first {
			if !said[r.path] {
				a.sayf("%s: warning: given more than once; read once", rel(r.path))
			}
			said[r.path] = true
			continue
		}
		a.sayf("%s: warning: the same %s as %s, read once", rel(r.path), r.kind, rel(r.first))
	}
	return paths
}

// sayDuplicates warns of each session read twice: a copy of another file's
// session, or one file reached by two paths.
func (a *app) sayDuplicates(dups []duplicate, rel func(string) string) {
	for _, d := range dups {
		if d.copied {
			a.sayf("%s: warning: session %s is a copy of the one in %s (the same messages and size): every total counts it twice; leave one copy out", rel(d.path), d.id, rel(d.first))
			continue
		}
		if rel(d.path) == rel(d.first) {
			a.sayf("%s: warning: reached by two of the PATHs given; read once", rel(d.path))
			continue
		}
		a.sayf("%s: warning: the same file as %s, read once", rel(d.path), rel(d.first))
	}
}

// sayWarnings prints a session's first maxWarningsShown warnings and a
// line counting the rest.
func (a *app) sayWarnings(s *corpus.Session) {
	shown, more := shownWarnings(s.Warnings)
	for _, w := range shown {
		a.sayf("%s: warning: %s", location(w.File, w.Line), w.Message)
	}
	if more > 0 {
		a.sayf("%s: warning: %s", s.Path, moreWarnings(s, more))
	}
}

// relSession reports s's path and its warnings' files as rel gives them,
// writing only what changes: a session handed over early is read by
// other goroutines, and rel gives it back unchanged the second time.
func relSession(s *corpus.Session, rel func(string) string) {
	if p := rel(s.Path); p != s.Path {
		s.Path = p
	}
	for i := range s.Warnings {
		if f := rel(s.Warnings[i].File); f != s.Warnings[i].File {
			s.Warnings[i].File = f
		}
	}
}

// readStdinOnce keeps the first "-" of paths and drops the others,
// returning how many it dropped. Standard input can be read only once:
// two readers would each get part of it, and the parts would load as two
// damaged logs, a different split every run.
func readStdinOnce(paths []string) ([]string, int) {
	out := make([]string, 0, len(paths))
	seen, dropped := false, 0
	for _, p := range paths {
		if p == "-" {
			if seen {
				dropped++
				continue
			}
			seen = true
		}
		out = append(out, p)
	}
	return out, dropped
}

// repeat is a PATH argument naming what an earlier one named (first).
type repeat struct {
	path, first string
	kind        string // "file" or "folder"
}

// givenOnce drops each PATH that names the file or folder of an earlier
// one: the same spelling, a link to it, or another spelling (./c/../c).
// readOnce would find them after reading, but only file by file, after
// reading a folder given twice twice over and holding both in memory. A
// path that cannot be resolved is kept, for the loader to name.
func givenOnce(paths []string) ([]string, []repeat) {
	out := make([]string, 0, len(paths))
	var repeats []repeat
	firsts := map[string]string{} // resolved path -> the PATH that named it first
	for _, p := range paths {
		if p == "-" {
			out = append(out, p)
			continue
		}
		abs, err := filepath.Abs(p)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			out = append(out, p)
			continue
		}
		if first, ok := firsts[abs]; ok {
			kind := "file"
			if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
				kind = "folder"
			}
			repeats = append(repeats, repeat{path: p, first: first, kind: kind})
			continue
		}
		firsts[abs] = p
		out = append(out, p)
	}
	return out, repeats
}

// duplicate is a session read a second time: path is the later file,
// first the earlier. copied marks another file holding the same session
// (a log and its backup), which is kept, not the same file given twice.
type duplicate struct {
	path, first string
	copied      bool
	id          string // the first session found copied
}

// readOnce drops the sessions read a second time, keeping the first: the
// same session counted twice would double every total. A file is the same
// when the operating system says so (os.SameFile: a symbolic link, ./ and
// ../ spellings, a hard link); a session of it is the same when its id is
// too (one Claude Code log holds several sessions, one clai database
// several workspaces' sessions). Each repeated file is named once.
//
// A session of another file with the same format, id, message count and
// content size (size) is a copy (a log and its backup under the folders
// given): it is kept, since two files were given and the tables tell them
// apart by path, but named, since every total counts it twice. One that
// shares only its id (a raw and a recorded clai database; a log the agent
// went on writing elsewhere) is another session.
func readOnce(sessions []*corpus.Session, size func(*corpus.Session) contentSize) ([]*corpus.Session, []duplicate) {
	type seen struct {
		info os.FileInfo
		s    *corpus.Session
	}
	byID := map[string][]seen{}
	named := map[string]bool{}
	var dups []duplicate
	out := sessions[:0:0]
	for _, s := range sessions {
		fi, err := os.Stat(s.Path)
		if s.Path == "-" || err != nil {
			out = append(out, s)
			continue
		}
		var d *duplicate
		for _, e := range byID[s.ID] {
			if os.SameFile(e.info, fi) {
				d = &duplicate{path: s.Path, first: e.s.Path}
				break
			}
			if d == nil && e.s.Format == s.Format && size(e.s) == size(s) {
				d = &duplicate{path: s.Path, first: e.s.Path, copied: true, id: s.ID}
			}
		}
		if d != nil && !named[s.Path] {
			named[s.Path] = true
			dups = append(dups, *d)
		}
		if d == nil || d.copied {
			byID[s.ID] = append(byID[s.ID], seen{fi, s})
			out = append(out, s)
		}
	}
	return out, dups
}

// contentSize is what tells a copy of a session from another session of
// its id: its message count and content size (corpus.Message.Bytes).
type contentSize struct{ messages, bytes int }

func sizeOf(s *corpus.Session) contentSize {
	n := contentSize{messages: len(s.Messages)}
	for i := range s.Messages {
		n.bytes += s.Messages[i].Bytes()
	}
	return n
}

// annotations turns the load warnings into GitHub annotations, for
// commands that offer --format github: each warning is shown on the line
// of the session file it is about.
func (l *loaded) annotations() []report.Annotation {
	var out []report.Annotation
	add := func(ws []corpus.Warning) {
		for _, w := range ws {
			out = append(out, report.Annotation{Level: report.LevelWarning, File: w.File, Line: w.Line, Title: "calib", Message: w.Message})
		}
	}
	for _, s := range l.Sessions {
		shown, more := shownWarnings(s.Warnings)
		add(shown)
		if more > 0 {
			out = append(out, report.Annotation{Level: report.LevelWarning, File: s.Path, Title: "calib", Message: moreWarnings(s, more)})
		}
	}
	add(l.warnings)
	return out
}

// maxWarningsShown is how many load warnings of one session are printed
// (or annotated); the rest are counted on one line. A damaged or foreign
// log, every line a warning, buried the report under thousands of lines
// of the same complaint. inspect's JSON lists every one, and --strict
// fails on the first.
const maxWarningsShown = 20

// shownWarnings are the warnings of ws that are printed, and how many more
// there are.
func shownWarnings(ws []corpus.Warning) ([]corpus.Warning, int) {
	if len(ws) <= maxWarningsShown {
		return ws, 0
	}
	return ws[:maxWarningsShown], len(ws) - maxWarningsShown
}

// moreWarnings is the line that stands for the warnings of s not shown.
func moreWarnings(s *corpus.Session, more int) string {
	return fmt.Sprintf("%d more warning(s) about session %s not shown (%d in all; calib inspect --format json lists every one)",
		more, report.EscapeControls(s.ID), more+maxWarningsShown)
}

// demoCompact is what smith leaves in a demo session's session.json: the
// working history after replaying its transcript through smith-staged at
// its defaults, so that `replay --demo --compare-recorded` reproduces the
// recording and any other parameter shows where it diverges.
func demoCompact(s *corpus.Session) []corpus.Message {
	p, err := policy.New("smith-staged", nil)
	if err != nil {
		panic(err) // the defaults are valid: a test checks every policy's
	}
	t, err := replay.Run(context.Background(), s, p, replay.Options{KeepFinal: true})
	if err != nil {
		panic(err) // only a cancelled context fails, and this one is not
	}
	return t.Final
}

// location is "file:line", or "file" when the line is unknown (0).
func location(file string, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", file, line)
	}
	return file
}

// splitErrors undoes errors.Join, recursively, so each failed input is
// printed on its own line.
func splitErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitErrors(e)...)
		}
		return out
	}
	return []error{err}
}

// sayf prints one line on standard error: "calib: " and the formatted
// text, its control characters escaped. A path, a session id or a message
// quoted from a log may hold a newline, and a raw one there would start a
// line of its own: a file named "x\n::error::y.jsonl" printed a line GitHub
// Actions reads as a workflow command.
// warnf is sayf for a warning the report already holds, unless --quiet
// or there is none (msg empty).
func (a *app) warnf(msg string) {
	if msg != "" && !a.flags.quiet {
		a.sayf("%s", msg)
	}
}

func (a *app) sayf(format string, args ...any) {
	fmt.Fprintf(a.IO.ErrOut, "calib: %s\n", report.EscapeControls(fmt.Sprintf(format, args...)))
}
