package jsonscan

import (
	"fmt"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// Times parses a log's timestamps, RFC 3339 as the agents write them
// ("2026-01-05T09:00:00.123Z"), and tallies the malformed ones, so that a
// reader warns once per file, with how many and where first, not once
// per line (a log written by another tool may use another form on every
// line).
type Times struct {
	bad, firstLine int
	first          string
}

// Parse parses s; a malformed one gives the zero time, which the model
// reads as "not recorded", and is tallied at line. An empty s is no
// timestamp, not a malformed one.
func (t *Times) Parse(s string, line int) time.Time {
	if s == "" {
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if t.bad == 0 {
			t.firstLine, t.first = line, s
		}
		t.bad++
	}
	return ts
}

// Warnings is the warning about the malformed timestamps on file, if any:
// the cache model times expiry by them, and a request without a time is
// taken as within the cache's lifetime.
func (t *Times) Warnings(file string) []corpus.Warning {
	if t.bad == 0 {
		return nil
	}
	first := Excerpt(t.first)
	return []corpus.Warning{{File: file, Line: t.firstLine, Message: fmt.Sprintf(
		"timestamp %q is not an RFC 3339 time like 2026-01-28T20:56:10.594Z (%d malformed, first at this line); those records are read without a time, and the cache model takes no expiry across them", first, t.bad)}}
}
