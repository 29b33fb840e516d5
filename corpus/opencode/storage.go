package opencode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// The storage folder of older builds (~/.local/share/opencode/storage),
// written by storage/storage.ts with JSON.stringify(value, null, 2):
//
//	session/<projectID>/<sessionID>.json   Session.Info
//	message/<sessionID>/<messageID>.json   MessageV2.Info
//	part/<messageID>/<partID>.json         MessageV2.Part
//
// opencode lists a folder sorted by name; message and part ids ascend with
// time, so that is the order of a session's messages and a message's parts.

// LoadStorage reads every session of a storage folder, ordered by creation
// time then id. A session whose file cannot be read fails alone.
func LoadStorage(root string, opts corpus.Options) ([]*corpus.Session, error) {
	files, err := filepath.Glob(filepath.Join(root, "session", "*", "*.json"))
	if err != nil {
		return nil, &corpus.FileError{Path: root, Err: err}
	}
	sort.Strings(files)
	var ss []*corpus.Session
	var errs []error
	ids := map[string]bool{}
	for _, f := range files {
		ids[strings.TrimSuffix(filepath.Base(f), ".json")] = true
		s, err := loadStorageSession(root, f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ids[s.ID] = true
		ss = append(ss, s)
	}
	errs = append(errs, orphanMessages(root, ids)...)
	if len(ss) == 0 && len(errs) == 0 {
		return nil, &corpus.FileError{Path: root, Err: fmt.Errorf("%w: the opencode storage folder has no session/<project>/<id>.json files", corpus.ErrNoSessions)}
	}
	sort.SliceStable(ss, func(i, j int) bool {
		if !ss[i].Meta.CreatedAt.Equal(ss[j].Meta.CreatedAt) {
			return ss[i].Meta.CreatedAt.Before(ss[j].Meta.CreatedAt)
		}
		return ss[i].ID < ss[j].ID
	})
	return ss, errors.Join(errs...)
}

// LoadSessionFile reads the one session whose storage file is p
// (storage/session/<project>/<id>.json), with the messages and parts the
// storage folder holds for it.
func LoadSessionFile(p string, _ corpus.Options) ([]*corpus.Session, error) {
	if filepath.Base(filepath.Dir(filepath.Dir(p))) != "session" {
		return nil, &corpus.FileError{Path: p, Err: errors.New("an opencode session file outside its storage folder; expected storage/session/<project>/<id>.json with the message/ and part/ folders beside session/")}
	}
	s, err := loadStorageSession(filepath.Dir(filepath.Dir(filepath.Dir(p))), p)
	if err != nil {
		return nil, err
	}
	return []*corpus.Session{s}, nil
}

func loadStorageSession(root, file string) (*corpus.Session, error) {
	data, err := jsonscan.ReadFile(file)
	if err != nil {
		return nil, &corpus.FileError{Path: file, Err: err}
	}
	var in sessionInfo
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, &corpus.FileError{Path: file, Line: syntaxLine(data, err), Err: fmt.Errorf("expected an opencode session (a JSON object with id, projectID, directory, title): %w", err)}
	}
	if in.ID == "" {
		in.ID = strings.TrimSuffix(filepath.Base(file), ".json")
	}
	s := newSession(&in, file)
	var warns []corpus.Warning
	msgs := listRows(filepath.Join(root, "message", in.ID), &warns)
	out := make([]message, len(msgs))
	for i, r := range msgs {
		out[i] = message{row: r, parts: listRows(filepath.Join(root, "part", r.id), &warns)}
	}
	build(s, out)
	s.Warnings = append(warns, s.Warnings...)
	return s, nil
}

// orphanMessages warns of each message/<id>/ folder whose session has no
// session file (ids holds those that have one, read or not): opencode
// wrote those messages, and a session that lost its file would otherwise
// leave the report with nothing said.
func orphanMessages(root string, ids map[string]bool) []error {
	entries, _ := os.ReadDir(filepath.Join(root, "message"))
	var warns []error
	for _, e := range entries {
		if e.IsDir() && !ids[e.Name()] {
			warns = append(warns, &corpus.FileWarning{Path: filepath.Join(root, "message", e.Name()),
				Message: "messages of session " + e.Name() + ", which has no session/<project>/" + e.Name() + ".json file; skipped"})
		}
	}
	return warns
}

// listRows reads every .json file of dir, sorted by name (an absent
// folder is empty: a message may have no parts).
func listRows(dir string, warns *[]corpus.Warning) []row {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			*warns = append(*warns, corpus.Warning{File: dir, Message: fmt.Sprintf("cannot list the folder (%v); its files are skipped", err)})
		}
		return nil
	}
	var rows []row
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") {
			continue
		}
		if e.IsDir() {
			*warns = append(*warns, corpus.Warning{File: filepath.Join(dir, name), Message: "a folder where a message or part file was expected; skipped"})
			continue
		}
		p := filepath.Join(dir, name)
		data, err := jsonscan.ReadFile(p)
		if err != nil {
			*warns = append(*warns, corpus.Warning{File: p, Message: fmt.Sprintf("cannot read the file (%v); skipped", err)})
			continue
		}
		rows = append(rows, row{id: strings.TrimSuffix(name, ".json"), data: data, file: p})
	}
	return rows
}

// offsetLine is the 1-based line of data that byte offset off is on.
func offsetLine(data []byte, off int64) int {
	return 1 + bytes.Count(data[:min(int(off), len(data))], []byte{'\n'})
}

// syntaxLine is the 1-based line of a JSON syntax error in data (for a
// file that ends too soon, its last line), or 0.
func syntaxLine(data []byte, err error) int {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return 0
	}
	if int(se.Offset) >= len(data) {
		return offsetLine(data, int64(len(bytes.TrimRight(data, " \t\r\n"))))
	}
	return offsetLine(data, se.Offset)
}
