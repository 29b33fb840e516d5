package replay

import (
	"context"
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Extender returns a copy of a session with turns synthetic turns of the
// session's own profile appended (corpus/synth.Extend). It must be
// deterministic: the same session and count give the same messages.
type Extender func(s *corpus.Session, turns int) *corpus.Session

// maxExtraTurns bounds how far a chain is extended before giving up: a
// policy that never rotates would otherwise extend forever. clai rotates
// every 20–40 turns at its defaults, so this allows several hundred
// rotations.
const maxExtraTurns = 20_000

// Chain replays a session until the policy has rotated n times, extending
// the session with synthetic turns when the recording is too short, so that
// a CI job can test 50 rotations from a small fixture. The trace is cut
// right after the n-th rotation. n <= 0 replays the session as recorded.
func Chain(ctx context.Context, s *corpus.Session, p policy.Policy, n int, extend Extender, opts Options) (*Trace, error) {
	cur, added := s, 0
	for {
		t, err := Run(ctx, cur, p, opts)
		if err != nil {
			return t, err
		}
		r := rotations(t)
		if n <= 0 || r >= n {
			cutAfterRotation(t, n)
			t.Session = s
			return t, nil
		}
		if extend == nil {
			return t, fmt.Errorf("session %s: %d rotation(s) recorded, %d asked for, and no extender to lengthen it", s.ID, r, n)
		}
		if added >= maxExtraTurns {
			return t, fmt.Errorf("session %s: only %d of %d rotations after adding %d synthetic turns; does the policy ever trigger on this session? (check its trigger parameters)", s.ID, r, n, added)
		}
		turns := realTurns(cur)
		more := max(32, turns) // no rotation yet: double the session
		if r > 0 {
			more = max(8, (n-r)*turns/r*5/4+1)
		}
		added = min(added+more, maxExtraTurns)
		cur = extend(s, added)
	}
}

func rotations(t *Trace) int {
	n := 0
	for _, e := range t.Events {
		if e.Outcome.Digest != nil {
			n++
		}
	}
	return n
}

func realTurns(s *corpus.Session) int {
	n := 0
	for i := range s.Messages {
		if m := &s.Messages[i]; m.Role == corpus.RoleUser && !m.Synthetic && !m.Sidechain {
			n++
		}
	}
	return max(n, 1)
}

// cutAfterRotation drops everything after the n-th rotation's request.
func cutAfterRotation(t *Trace, n int) {
	if n <= 0 {
		return
	}
	seen := 0
	for i, e := range t.Events {
		if e.Outcome.Digest == nil {
			continue
		}
		seen++
		if seen == n {
			t.Events = t.Events[:i+1]
			t.Requests = t.Requests[:e.Request+1]
			t.Messages = e.Raw
			kept := t.Violations[:0]
			for _, v := range t.Violations {
				if v.Request <= e.Request {
					kept = append(kept, v)
				}
			}
			t.Violations = kept
			t.Final = nil
			return
		}
	}
}
