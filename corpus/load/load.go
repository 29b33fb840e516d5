package load

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
	"github.com/calib-dev/calib/corpus/smith"
)

// Load reads every path (a file, a directory, or "-" for a log on standard
// input, recognised by content as a file is) and returns the sessions in argument order. A path that
// fails does not cost the others: Load returns what it could read together
// with an error joining one *FileError per failed path.
func Load(paths []string, opts corpus.Options) ([]*corpus.Session, error) {
	var sessions []*corpus.Session
	var errs []error
	for _, p := range paths {
		ss, err := loadPath(p, opts)
		sessions = append(sessions, ss...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if opts.Strict {
		for _, s := range sessions {
			if len(s.Warnings) > 0 {
				w := s.Warnings[0]
				errs = append(errs, &corpus.FileError{Path: w.File, Line: w.Line,
					Err: fmt.Errorf("%s (--strict makes warnings fatal; %d warning(s) in this session)", w.Message, len(s.Warnings))})
			}
		}
	}
	return sessions, errors.Join(errs...)
}

func loadPath(p string, opts corpus.Options) ([]*corpus.Session, error) {
	if p == "-" {
		if opts.Stdin == nil {
			return nil, &corpus.FileError{Path: "-", Err: errors.New("standard input is not available")}
		}
		return loadStdin(opts.Stdin, opts)
	}
	fi, err := os.Stat(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &corpus.FileError{Path: p, Err: errors.New("no such file or directory; expected a session file, a session folder or a clai workspace")}
		}
		return nil, &corpus.FileError{Path: p, Err: err}
	}
	if fi.IsDir() {
		return loadDir(p, opts)
	}
	return loadFile(p, opts)
}

// loadFile sniffs one file's content and hands it to its reader.
func loadFile(p string, opts corpus.Options) ([]*corpus.Session, error) {
	f, err := sniffFile(p)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, &corpus.FileError{Path: p, Err: errors.New("unrecognised content; expected a smith transcript.jsonl or session.json, a clai data.sqlite, a Claude Code or Codex session log")}
	}
	return f.load(p, opts)
}

// loadDir recognises the folders each agent writes (a clai workspace, a
// smith sessions root or session folder) and otherwise loads every file in
// the tree whose content is recognised, in lexical order.
func loadDir(dir string, opts corpus.Options) ([]*corpus.Session, error) {
	if jsonscan.Exists(filepath.Join(dir, ".clai", "data.sqlite")) {
		return clai.Load(filepath.Join(dir, ".clai", "data.sqlite"), opts)
	}
	if jsonscan.Exists(filepath.Join(dir, "index.json")) {
		return smith.LoadRoot(dir, opts)
	}
	if jsonscan.Exists(filepath.Join(dir, "transcript.jsonl")) || jsonscan.Exists(filepath.Join(dir, "session.json")) {
		return smith.LoadDir(dir, opts)
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && (jsonscan.Exists(filepath.Join(p, "transcript.jsonl")) || jsonscan.Exists(filepath.Join(p, "session.json"))) {
				files = append(files, p) // a smith session folder: loaded whole
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, &corpus.FileError{Path: dir, Err: err}
	}
	sort.Strings(files)
	var sessions []*corpus.Session
	var errs []error
	for _, p := range files {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			ss, err := smith.LoadDir(p, opts)
			sessions = append(sessions, ss...)
			if err != nil {
				errs = append(errs, err)
			}
			continue
		}
		f, err := sniffFile(p)
		if err != nil || f == nil {
			continue // not a session file: folders hold other things too
		}
		ss, err := f.load(p, opts)
		sessions = append(sessions, ss...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(sessions) == 0 && len(errs) == 0 {
		return nil, &corpus.FileError{Path: dir, Err: fmt.Errorf("%w: expected a smith session folder (transcript.jsonl, session.json), a sessions root (index.json), a clai workspace (.clai/data.sqlite) or session logs", corpus.ErrNoSessions)}
	}
	return sessions, errors.Join(errs...)
}
