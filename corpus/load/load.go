package load

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/claudecode"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/opencode"
	"github.com/calib-dev/calib/corpus/smith"
)

// Load reads every path (a file, a directory, or "-" for a log on standard
// input, recognised by content as a file is) and returns the sessions in
// argument order. A path that fails does not cost the others: Load returns
// what it could read together with an error joining one *FileError per
// failed path.
//
// Files are read in parallel (see run), but the sessions and errors come
// out in the same order whatever the parallelism: argument order, then
// lexical order inside a folder, a Claude Code session before its
// subagents.
func Load(paths []string, opts corpus.Options) ([]*corpus.Session, error) {
	return LoadEach(paths, opts, nil)
}

// LoadEach is Load that also hands the sessions of each file (of a folder
// an agent writes whole, of standard input) to each as soon as they are
// read, from the goroutine that read them, possibly several at once and
// in no fixed order: a caller can start work on a session while the
// others load (calib sweep replays it). each sees every session Load
// returns, before Load orders them; nil is Load.
func LoadEach(paths []string, opts corpus.Options, each func([]*corpus.Session)) ([]*corpus.Session, error) {
	groups := make([]group, len(paths))
	var units []unit
	for i, p := range paths {
		groups[i] = expand(p, opts)
		units = append(units, groups[i].units...)
	}
	results := run(units, each)
	var sessions []*corpus.Session
	var errs []error
	for _, g := range groups {
		ss, err := g.collect(results[:len(g.units)])
		results = results[len(g.units):]
		sessions = append(sessions, ss...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if opts.Strict {
		errs = strictWarnings(errs)
		for _, s := range sessions {
			if len(s.Warnings) > 0 {
				w := s.Warnings[0]
				errs = append(errs, &corpus.FileError{Path: w.File, Line: w.Line,
					Err: &corpus.FatalWarning{Message: w.Message, Count: len(s.Warnings)}})
			}
		}
	}
	return sessions, errors.Join(errs...)
}

// group is what one command-line path expands to: the units that load it,
// or the error that stopped it before any.
type group struct {
	path string
	// folder marks a plain folder walked for session files: finding none
	// is an error.
	folder bool
	// files are the folder's walked entries, in unit order: an error
	// finding no session names what it looked at.
	files []string
	units []unit
	err   error
}

// looked says which files a folder walk read without finding a session,
// so that a user whose logs went unrecognised sees their names.
func looked(files []string) string {
	switch len(files) {
	case 0:
		return "it holds no file to read"
	case 1:
		return "its one file, " + files[0] + ", is not a session calib reads"
	}
	const shown = 3
	names := strings.Join(files[:min(len(files), shown)], ", ")
	if len(files) > shown {
		names += fmt.Sprintf(" and %d more", len(files)-shown)
	}
	return fmt.Sprintf("none of its %d files is a session calib reads: %s", len(files), names)
}

// collect assembles the group's results, in unit order.
func (g group) collect(rs []result) ([]*corpus.Session, error) {
	if g.err != nil {
		return nil, g.err
	}
	if !g.folder {
		return rs[0].sessions, rs[0].err
	}
	var sessions []*corpus.Session
	var errs []error
	failed := false
	for _, r := range rs {
		sessions = append(sessions, r.sessions...)
		if r.err != nil {
			errs = append(errs, r.err)
			failed = failed || !onlyWarnings(r.err)
		}
	}
	if len(sessions) == 0 && !failed {
		errs = append(errs, &corpus.FileError{Path: g.path, Err: fmt.Errorf("%w (%s): expected a smith session folder (transcript.jsonl, session.json), a sessions root (index.json), a clai workspace (.clai/data.sqlite), an opencode storage folder or the session logs of Claude Code, Codex or Gemini CLI", corpus.ErrNoSessions, looked(g.files))})
		return nil, errors.Join(errs...)
	}
	return parentsFirst(sessions), errors.Join(errs...)
}

// expand turns one path into its units. Only the folder walk happens here;
// reading and sniffing files is the units' work.
func expand(p string, opts corpus.Options) group {
	one := func(u unit) group { return group{path: p, units: []unit{u}} }
	if p == "-" {
		if opts.Stdin == nil {
			return group{path: p, err: &corpus.FileError{Path: "-", Err: errors.New("standard input is not available")}}
		}
		return one(func() ([]*corpus.Session, error) { return loadStdin(opts.Stdin, opts) })
	}
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return group{path: p, err: &corpus.FileError{Path: p, Err: errors.New("no such file or directory; expected a session file, a session folder or a clai workspace")}}
		}
		return group{path: p, err: &corpus.FileError{Path: p, Err: err}}
	}
	if !fi.IsDir() {
		if err := notRegular(fi.Mode()); err != nil {
			return group{path: p, err: &corpus.FileError{Path: p, Err: err}}
		}
		return one(func() ([]*corpus.Session, error) { return loadFile(p, opts) })
	}
	// The folders each agent writes are read whole by their reader.
	switch {
	case jsonscan.Exists(filepath.Join(p, ".clai", "data.sqlite")):
		return one(func() ([]*corpus.Session, error) { return clai.Load(filepath.Join(p, ".clai", "data.sqlite"), opts) })
	case jsonscan.Exists(filepath.Join(p, "index.json")):
		return one(func() ([]*corpus.Session, error) { return smith.LoadRoot(p, opts) })
	case opencode.IsStorage(p):
		return one(func() ([]*corpus.Session, error) { return opencode.LoadStorage(p, opts) })
	case isSmithFolder(p):
		return one(func() ([]*corpus.Session, error) { return loadSmithFolder(p, opts) })
	}
	files, err := walk(p)
	if err != nil {
		return group{path: p, err: &corpus.FileError{Path: p, Err: err}}
	}
	g := group{path: p, folder: true}
	for _, f := range files {
		if !f.linkedDir {
			g.files = append(g.files, f.path)
		}
		g.units = append(g.units, func() ([]*corpus.Session, error) {
			if f.err != nil {
				return nil, &corpus.FileError{Path: f.path, Err: f.err}
			}
			if f.odd != nil {
				return nil, notALog(f.path, f.odd)
			}
			if f.linkedDir {
				return nil, &corpus.FileWarning{Path: f.path, Message: "a link to a folder, not followed (a link back up would loop); give the folder as a PATH to read it"}
			}
			if f.dir && f.opencode {
				return opencode.LoadStorage(f.path, opts)
			}
			if f.dir && f.smithRoot {
				return smith.LoadRoot(f.path, opts)
			}
			if f.dir {
				return loadSmithFolder(f.path, opts)
			}
			ff, err := sniffFile(f.path)
			if errors.Is(err, fs.ErrPermission) {
				return nil, err // it may hold a session: say it was not read
			}
			if err != nil || ff == nil {
				return nil, notALog(f.path, err)
			}
			return ff.loadChecked(f.path, opts, true)
		})
	}
	return g
}

// uncompressedName is a file name without the suffix of an archiver
// (gzip, zstd, xz): how logs are archived, x.jsonl.gz.
func uncompressedName(p string) string {
	for _, ext := range []string{".gz", ".zst", ".xz"} {
		if n, ok := strings.CutSuffix(p, ext); ok {
			return n
		}
	}
	return p
}

// notALog is what a folder walk says of a file it found that holds no
// session calib reads (sniffErr is why, nil for content no format
// recognised). Folders hold other things too, so most are skipped in
// silence; but a .jsonl file is named as a log (every JSONL format calib
// reads uses the extension), and one skipped in silence, a compressed or
// damaged log, was missing from the report with nothing said.
//
// history.jsonl is passed over too: Codex (~/.codex/history.jsonl) and
// Claude Code (~/.claude/history.jsonl) keep the user's prompts there, no
// conversation, and a user pointing calib at the agent's folder would get
// a warning, fatal under --strict, for a file that was never a session.
//
// A compressed log (x.jsonl.gz, .zst, .xz: how logs are archived) is named
// too, with how to read it.
func notALog(p string, sniffErr error) error {
	name := uncompressedName(p)
	jsonl := strings.EqualFold(filepath.Ext(name), ".jsonl") && filepath.Base(name) != "history.jsonl"
	if !jsonl && !geminiChatName(filepath.Base(name)) {
		return nil
	}
	why := "unrecognised content; expected a session log (a smith transcript, or a Claude Code, Codex or Gemini CLI log)"
	if sniffErr != nil {
		var fe *corpus.FileError
		if errors.As(sniffErr, &fe) {
			sniffErr = fe.Err
		}
		why = sniffErr.Error()
	}
	return &corpus.FileWarning{Path: p, Message: why + "; file skipped"}
}

// geminiChatName reports whether name is how Gemini CLI names a chat
// (session-<YYYY-MM-DDTHH-MM>-<id>.json, the legacy document): a .json file
// is skipped in silence (folders hold every kind), but one with that name
// holds a chat, and one cut mid-write was missing from the report with
// nothing said.
func geminiChatName(name string) bool {
	rest, ok := strings.CutPrefix(name, "session-")
	if !ok || !strings.HasSuffix(rest, ".json") || len(rest) < len("2006-01-02T15-04-x.json") {
		return false
	}
	for i, c := range rest[:16] {
		switch i {
		case 4, 7, 13:
			ok = ok && c == '-'
		case 10:
			ok = ok && c == 'T'
		default:
			ok = ok && c >= '0' && c <= '9'
		}
	}
	return ok && rest[16] == '-'
}

// loadFile sniffs one file's content and hands it to its reader.
func loadFile(p string, opts corpus.Options) ([]*corpus.Session, error) {
	f, err := sniffFile(p)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, &corpus.FileError{Path: p, Err: errors.New("unrecognised content; expected a smith transcript.jsonl or session.json, a clai data.sqlite, a Claude Code or Codex session log, a Gemini CLI chat, an opencode.db or opencode storage session file")}
	}
	return f.loadChecked(p, opts, false)
}

// notRegular refuses a path that is neither a regular file nor a folder.
// A file is opened twice (sniffed, then read), which a named pipe cannot
// serve: the second open would wait for a writer forever. Devices and
// sockets hold no session either.
func notRegular(m os.FileMode) error {
	switch {
	case m.IsRegular():
		return nil
	case m&os.ModeNamedPipe != 0:
		return errors.New("a named pipe, not a file or folder; to read a pipe, redirect it to standard input and give - as the path")
	}
	return fmt.Errorf("%s; expected a session file, a session folder or a clai workspace", corpus.SpecialKind(m))
}

// walked is one entry of a folder walk: a regular file (or a link to one), or a smith session
// folder or an opencode storage folder (loaded whole).
type walked struct {
	path      string
	dir       bool
	opencode  bool
	smithRoot bool // smith's sessions folder: its index.json and session folders
	// err is why a folder of the tree could not be listed.
	err error
	// odd is why an entry that is no regular file was not read (a named
	// pipe, a socket, a link to nothing): a folder walk names it when it
	// looks like a log (notALog).
	odd error
	// linkedDir marks a link to a folder, which is not followed (a link
	// back up would loop) and always named.
	linkedDir bool
}

// walk lists the files of a plain folder tree in lexical order of their
// paths (a Claude Code <id>.jsonl sorts before its <id>/subagents/).
func walk(dir string) ([]walked, error) {
	var files []walked
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil && p != dir {
			// A folder inside that cannot be listed costs only itself,
			// named as itself (it failed the whole walk, named as dir).
			files = append(files, walked{path: p, err: err})
			return filepath.SkipDir
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && isSmithFolder(p) {
				files = append(files, walked{path: p, dir: true})
				return filepath.SkipDir
			}
			if p != dir && opencode.IsStorage(p) {
				files = append(files, walked{path: p, dir: true, opencode: true})
				return filepath.SkipDir
			}
			if p != dir && isSmithRoot(p) {
				files = append(files, walked{path: p, dir: true, smithRoot: true})
				return filepath.SkipDir
			}
			if claudecode.IsPersistedDir(p) {
				return filepath.SkipDir // read with the log beside it
			}
			return nil
		}
		switch t := d.Type(); {
		case t.IsRegular():
			files = append(files, walked{path: p})
		case t&os.ModeSymlink != 0:
			// A link to a file is read as the file (a corpus gathered as
			// links); a link to a folder is not followed, so a link back
			// up cannot loop.
			fi, err := os.Stat(p)
			switch {
			case err != nil:
				files = append(files, walked{path: p, odd: errors.New("a link to nothing (its target is gone)")})
			case fi.Mode().IsRegular():
				files = append(files, walked{path: p})
			case fi.IsDir():
				// Said, not skipped in silence: a corpus gathered as links
				// to project folders read as empty with nothing said.
				files = append(files, walked{path: p, linkedDir: true})
			default:
				files = append(files, walked{path: p, odd: notRegular(fi.Mode())})
			}
		default:
			files = append(files, walked{path: p, odd: notRegular(t)})
		}
		return nil
	})
	sort.Slice(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files, err
}

// isSmithRoot reports whether a folder a walk meets is smith's sessions
// folder: its index.json is smith's index, by content. It is read whole,
// as when it is given: walked file by file, its index loaded every session
// it lists and then each session folder loaded them again ("the same file
// as", of the file itself, for every session of `calib demo`'s folder).
// Another tool's index.json is not smith's and hides nothing beside it.
func isSmithRoot(p string) bool {
	f, err := sniffFile(filepath.Join(p, "index.json"))
	return err == nil && f != nil && f.name == "smith-index"
}

// isSmithFolder says whether p is a smith session folder, by the content
// of its transcript.jsonl or session.json, as every input is known: by
// name alone, another tool's session.json ({"theme":"dark"}) made a folder
// of Claude Code logs one smith session of 0 messages, and hid the logs.
func isSmithFolder(p string) bool {
	if f, err := sniffFile(filepath.Join(p, "transcript.jsonl")); err == nil && f != nil && f.name == "smith-transcript" {
		return true
	}
	f, err := sniffFile(filepath.Join(p, "session.json"))
	return err == nil && f != nil && f.name == "smith-session"
}

// loadSmithFolder reads a smith session folder (smith.LoadDir) and names
// the logs beside its two files, which that does not read: a Claude Code
// log copied into one was left out with nothing said.
func loadSmithFolder(dir string, opts corpus.Options) ([]*corpus.Session, error) {
	ss, err := smith.LoadDir(dir, opts)
	if err != nil || len(ss) == 0 {
		return ss, err
	}
	if extra := logsBeside(dir); len(extra) > 0 {
		names := extra
		if len(names) > 5 {
			names = append(names[:5:5], fmt.Sprintf("and %d more", len(extra)-5))
		}
		ss[0].Warnings = append(ss[0].Warnings, corpus.Warning{File: dir, Message: fmt.Sprintf(
			"read as a smith session folder (its transcript.jsonl and session.json); %d other file(s) in it that may hold logs are not read: %s; give them as PATHs, or move them out of the folder",
			len(extra), strings.Join(names, ", "))})
	}
	return ss, nil
}

// logsBeside lists the files of a smith session folder, besides its own
// two, whose names say they may hold logs (JSONL, JSON, SQLite,
// compressed or not); smith's own subfolders (checkpoints, bash, media) are
// not looked into.
func logsBeside(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || n == "transcript.jsonl" || n == "session.json" {
			continue
		}
		switch filepath.Ext(uncompressedName(n)) {
		case ".jsonl", ".json", ".sqlite", ".db":
			out = append(out, n)
		}
	}
	return out
}

// parentsFirst moves each Claude Code subagent session that a folder's
// lexical order put before its parent (2.0.x writes agent-<id>.jsonl
// beside the main file, and "agent-" may sort first) to just after the
// parent, keeping every other session where it is.
func parentsFirst(ss []*corpus.Session) []*corpus.Session {
	ids := map[string]bool{}
	for _, s := range ss {
		if s.Format == corpus.FormatClaudeCode {
			ids[s.ID] = true
		}
	}
	waiting := map[string][]*corpus.Session{}
	out := make([]*corpus.Session, 0, len(ss))
	seen := map[string]bool{}
	var emit func(s *corpus.Session)
	emit = func(s *corpus.Session) {
		out = append(out, s)
		if s.Format != corpus.FormatClaudeCode {
			return
		}
		seen[s.ID] = true
		kids := waiting[s.ID]
		delete(waiting, s.ID)
		for _, k := range kids {
			emit(k)
		}
	}
	for _, s := range ss {
		if p := s.Meta.Parent; s.Format == corpus.FormatClaudeCode && p != "" && p != s.ID && ids[p] && !seen[p] {
			waiting[p] = append(waiting[p], s)
			continue
		}
		emit(s)
	}
	return out
}
