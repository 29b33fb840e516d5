package load

import (
	"errors"
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// loadChecked reads file p as format f and refuses what would be reported
// as a session but holds none. In a folder walk (walked), a file of a
// format's kind with no sessions of any agent (a SQLite database of
// another program) is skipped with a warning: folders hold other things
// too. A log of lines every one of which was damaged gives no session
// rather than an empty one (see noMessages).
func (f *format) loadChecked(p string, opts corpus.Options, walked bool) ([]*corpus.Session, error) {
	ss, err := f.load(p, opts)
	var nf *corpus.NotSessionFile
	if walked && errors.As(err, &nf) {
		return nil, &corpus.FileWarning{Path: p, Message: nf.Error() + "; file skipped"}
	}
	if err != nil || f.record == nil || f.whole {
		return ss, err
	}
	return noMessages(p, ss)
}

// noMessages turns the sessions of a line-based log in which no line gave
// a message, and some line was damaged, into an error naming the file: it
// used to be reported as a session of 0 messages, exit 0. The skipped
// lines stay reported, as warnings.
func noMessages(p string, ss []*corpus.Session) ([]*corpus.Session, error) {
	var lines []corpus.Warning
	for _, s := range ss {
		if len(s.Messages) > 0 {
			return ss, nil
		}
		for _, w := range s.Warnings {
			if w.Line > 0 {
				lines = append(lines, w)
			}
		}
	}
	if len(lines) == 0 {
		return ss, nil
	}
	errs := make([]error, 0, len(lines)+1)
	for _, w := range lines {
		errs = append(errs, &corpus.FileWarning{Path: w.File, Line: w.Line, Message: w.Message})
	}
	errs = append(errs, &corpus.FileError{Path: p, Err: fmt.Errorf("no session: no line gave a message (%d damaged line(s) skipped); expected at least one complete message line", len(lines))})
	return nil, errors.Join(errs...)
}

// onlyWarnings reports whether err (a join of a unit's errors) holds
// nothing but *corpus.FileWarning.
func onlyWarnings(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !onlyWarnings(e) {
				return false
			}
		}
		return true
	}
	_, ok := err.(*corpus.FileWarning)
	return ok
}

// strictWarnings makes each *corpus.FileWarning in errs a *corpus.FileError
// holding a *corpus.FatalWarning, for Options.Strict.
func strictWarnings(errs []error) []error {
	out := make([]error, len(errs))
	for i, err := range errs {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			out[i] = errors.Join(strictWarnings(j.Unwrap())...)
			continue
		}
		if w, ok := err.(*corpus.FileWarning); ok {
			err = &corpus.FileError{Path: w.Path, Line: w.Line, Err: &corpus.FatalWarning{Message: w.Message}}
		}
		out[i] = err
	}
	return out
}
