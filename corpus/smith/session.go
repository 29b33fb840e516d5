package smith

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// smithSessionFile is what a session.json (or a legacy <id>.json) holds.
type smithSessionFile struct {
	id       string
	meta     corpus.Meta
	messages []corpus.Message
	warnings []corpus.Warning
	usage    *corpus.Usage // the cumulative usage, nil when absent or bad
}

// session is the session of a session.json read at path with no
// transcript beside it; id names it when the file records none.
func (sf *smithSessionFile) session(path, id string) *corpus.Session {
	s := &corpus.Session{ID: sf.id, Format: corpus.FormatSmithSession, Path: path, Meta: sf.meta,
		Messages: sf.messages, Warnings: sf.warnings}
	s.Recorded.UsageTotal = sf.usage
	if s.ID == "" {
		s.ID = id
	}
	return s
}

// readSmithSessionFile reads session.json: metadata (id, created_at,
// updated_at, cwd, model, provider, name, parent_id, context_ratio) and
// messages, the working history after compaction (smith.md §1.5). A
// metadata field of the wrong type costs only itself (a warning); a
// damaged message costs only itself. The file is one line, so every
// warning points at line 1 and names the message.
func readSmithSessionFile(p string) (*smithSessionFile, error) {
	buf, err := jsonscan.ReadWhole(p)
	if err != nil {
		return nil, &corpus.FileError{Path: p, Err: err}
	}
	return parseSmithSessionFile(p, buf)
}

// parseSmithSessionFile decodes a session.json read from p.
func parseSmithSessionFile(p string, buf []byte) (*smithSessionFile, error) {
	if jsonscan.AllSpace(buf) {
		return nil, &corpus.FileError{Path: p, Err: errors.New("empty file; expected smith's session.json object")}
	}
	var f struct {
		ID           json.RawMessage   `json:"id"`
		CreatedAt    json.RawMessage   `json:"created_at"`
		UpdatedAt    json.RawMessage   `json:"updated_at"`
		Cwd          json.RawMessage   `json:"cwd"`
		Model        json.RawMessage   `json:"model"`
		Provider     json.RawMessage   `json:"provider"`
		Name         json.RawMessage   `json:"name"`
		ParentID     json.RawMessage   `json:"parent_id"`
		ContextRatio json.RawMessage   `json:"context_ratio"`
		Usage        json.RawMessage   `json:"usage"`
		Messages     []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(buf, &f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "messages" {
			return nil, &corpus.FileError{Path: p, Line: 1, Err: fmt.Errorf(`expected "messages" to be an array of messages, found %s`, te.Value)}
		}
		if errors.As(err, &te) && te.Field == "" {
			return nil, &corpus.FileError{Path: p, Line: 1, Err: fmt.Errorf("expected smith's session.json object, found %s", te.Value)}
		}
		return nil, &corpus.FileError{Path: p, Line: 1, Err: describeJSONError(err, "", "smith's session.json object")}
	}
	out := &smithSessionFile{}
	r := lineReader{file: p}
	str := func(raw json.RawMessage, name string) string {
		if raw == nil {
			return ""
		}
		var s *string
		if err := json.Unmarshal(raw, &s); err != nil {
			r.warn(1, "expected %q to be a string, found %s; ignored", name, raw)
			return ""
		}
		if s == nil {
			return ""
		}
		return *s
	}
	tm := func(raw json.RawMessage, name string) time.Time {
		s := str(raw, name)
		if s == "" {
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			r.warn(1, "expected %q to be an RFC 3339 time like 2026-08-08T15:06:02+02:00, found %q; ignored", name, s)
		}
		return t
	}
	out.id = str(f.ID, "id")
	out.meta = corpus.Meta{
		CreatedAt: tm(f.CreatedAt, "created_at"),
		UpdatedAt: tm(f.UpdatedAt, "updated_at"),
		Cwd:       str(f.Cwd, "cwd"),
		Model:     str(f.Model, "model"),
		Provider:  str(f.Provider, "provider"),
		Title:     str(f.Name, "name"),
		Parent:    str(f.ParentID, "parent_id"),
	}
	if f.ContextRatio != nil && string(f.ContextRatio) != "null" {
		if err := json.Unmarshal(f.ContextRatio, &out.meta.ContextRatio); err != nil {
			r.warn(1, `expected "context_ratio" to be a number, found %s; ignored`, f.ContextRatio)
		}
	}
	if u, msg := smithUsage(f.Usage); msg != "" {
		r.warn(1, "session.json %s", msg)
	} else {
		out.usage = u
	}
	for i, raw := range f.Messages {
		// raw is encoding/json's own copy, so decoding it in place is safe.
		what := "messages[" + strconv.Itoa(i) + "]"
		if m, ok := r.decode(raw, 1, "M"+strconv.Itoa(i+1), what, false); ok {
			out.messages = append(out.messages, m)
		}
	}
	r.checkPairing(out.messages)
	out.warnings = r.warnings
	return out, nil
}

// smithIndexEntry is one index.json entry; only what calib uses.
type smithIndexEntry struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	ParentID string          `json:"parent_id"`
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Usage    json.RawMessage `json:"usage"`
}

// LoadRoot loads a sessions root: one session per index.json entry,
// in index order, then any session folder or legacy <id>.json the index
// does not list, in name order. Entries are parsed one at a time, as smith
// does, so a damaged entry or a missing folder costs only itself.
func LoadRoot(dir string, opts corpus.Options) ([]*corpus.Session, error) {
	ip := filepath.Join(dir, "index.json")
	var sessions []*corpus.Session
	var errs []error
	loaded := map[string]bool{}
	load := func(ss []*corpus.Session, err error) {
		sessions = append(sessions, ss...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	var entries []json.RawMessage
	buf, err := jsonscan.ReadWhole(ip)
	if err == nil {
		if err = json.Unmarshal(buf, &entries); err != nil {
			err = fmt.Errorf("%v (loading the session folders found beside it instead)", describeJSONError(err, "", "a JSON array of session entries"))
		}
	}
	if err != nil {
		errs = append(errs, &corpus.FileError{Path: ip, Line: 1, Err: err})
	}
	for i, raw := range entries {
		var e smithIndexEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			errs = append(errs, &corpus.FileError{Path: ip, Line: 1, Err: fmt.Errorf("%v; skipped", describeJSONError(err, fmt.Sprintf("entry %d: ", i+1), `an object {"id":…,"created_at":…,…}`))})
			continue
		}
		if e.ID == "" || e.ID == "." || e.ID == ".." || strings.ContainsAny(e.ID, `/\`) {
			errs = append(errs, &corpus.FileError{Path: ip, Line: 1, Err: fmt.Errorf("entry %d: id %q is not a session folder name; expected an id like session-1786201234-a1b2c3; skipped", i+1, e.ID)})
			continue
		}
		if loaded[e.ID] {
			continue
		}
		loaded[e.ID] = true
		sdir := filepath.Join(dir, e.ID)
		var ss []*corpus.Session
		var err error
		switch {
		case jsonscan.IsDir(sdir):
			ss, err = LoadDir(sdir, opts)
		case jsonscan.Exists(sdir + ".json"):
			ss, err = LoadSessionFile(sdir+".json", opts)
		default:
			err = &corpus.FileError{Path: sdir, Err: fmt.Errorf("listed in index.json (entry %d) but missing; expected a session folder or a legacy %s.json", i+1, e.ID)}
		}
		for _, s := range ss {
			fillFromIndex(s, e)
			if s.Recorded.UsageTotal == nil {
				if u, msg := smithUsage(e.Usage); msg != "" {
					s.Warnings = append(s.Warnings, corpus.Warning{File: ip, Line: 1, Message: fmt.Sprintf("entry %d: %s", i+1, msg)})
				} else {
					s.Recorded.UsageTotal = u
				}
			}
		}
		load(ss, err)
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		errs = append(errs, &corpus.FileError{Path: dir, Err: err})
	}
	for _, d := range names {
		name := d.Name()
		p := filepath.Join(dir, name)
		switch {
		case d.IsDir() && !loaded[name] && (jsonscan.Exists(filepath.Join(p, "transcript.jsonl")) || jsonscan.Exists(filepath.Join(p, "session.json"))):
			loaded[name] = true
			load(LoadDir(p, opts))
		case !d.IsDir() && name != "index.json" && strings.HasSuffix(name, ".json") && !loaded[strings.TrimSuffix(name, ".json")]:
			if isSmithSessionFile(p) {
				loaded[strings.TrimSuffix(name, ".json")] = true
				load(LoadSessionFile(p, opts))
			}
		}
	}
	if len(sessions) == 0 && len(errs) == 0 {
		return nil, &corpus.FileError{Path: dir, Err: fmt.Errorf("%w: index.json lists no sessions and the folder holds none", corpus.ErrNoSessions)}
	}
	return sessions, errors.Join(errs...)
}

// fillFromIndex completes metadata session.json did not record.
func fillFromIndex(s *corpus.Session, e smithIndexEntry) {
	if s.Meta.Title == "" {
		s.Meta.Title = e.Name
	}
	if s.Meta.Parent == "" {
		s.Meta.Parent = e.ParentID
	}
	if s.Meta.Provider == "" {
		s.Meta.Provider = e.Provider
	}
	if s.Meta.Model == "" {
		s.Meta.Model = e.Model
	}
}
