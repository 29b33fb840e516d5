package policy

import (
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// recordedUsage is the usage session s recorded for the request that
// wrote m, an assistant message of a history replaying s (a copy of one of
// s.Messages, found by position), or nil when it recorded none. x is the
// walk's index (nil: a message without a line is not found).
func recordedUsage(s *corpus.Session, x *RecordedIndex, m *corpus.Message) *corpus.Usage {
	u, _ := recordedUsageAt(s, x, m)
	return u
}

// recordedUsageAt is recordedUsage and m's index in s.Messages. Both
// searches are binary: Messages grow by line, Recorded.Usage by message.
func recordedUsageAt(s *corpus.Session, x *RecordedIndex, m *corpus.Message) (*corpus.Usage, int) {
	if s == nil || len(s.Recorded.Usage) == 0 {
		return nil, -1
	}
	i := position(s, x, m)
	if i < 0 {
		return nil, -1
	}
	us := s.Recorded.Usage
	k := sort.Search(len(us), func(k int) bool { return us[k].AtMessage >= i })
	if k == len(us) || us[k].AtMessage != i {
		return nil, -1
	}
	return &us[k], i
}

// position is the index in s.Messages of m, a copy of one of them, or -1:
// found by its line and its id, or, when it has no line (opencode's
// storage files: each message is a file of its own), by its id alone
// through x. Several messages can share a line: opencode's steps of one
// message (one request each, each with its usage) and Gemini CLI's tool
// results beside their call; taking the first with m's line read the
// first step's usage for every later step.
func position(s *corpus.Session, x *RecordedIndex, m *corpus.Message) int {
	if m.Line <= 0 {
		if x == nil {
			return -1
		}
		return x.unlinedAt(s, m.ID)
	}
	msgs := s.Messages
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].Line >= m.Line })
	if i == len(msgs) || msgs[i].Line != m.Line {
		return -1
	}
	for j := i; j < len(msgs) && msgs[j].Line == m.Line; j++ {
		if msgs[j].ID == m.ID {
			return j
		}
	}
	return i
}

// drift is how much less the replay's history holds than the agent's did
// when it wrote message k (recorded usage is of the agent's history): what
// the replay's own clears took out (at.Cleared) less what the agent's had
// (RecordedIndex.clears), in m's tokens; 0 when unknown or under driftMin.
func drift(at Checkpoint, s *corpus.Session, k int, m *Meter) int {
	if at.Cleared < 0 || s == nil {
		return 0
	}
	d := m.Tokens(at.Cleared) - at.recorded().clears(k, m)
	if d < driftMin && d > -driftMin {
		return 0
	}
	return d
}

// driftMin is the least difference between what a replay's clears and
// the agent's took out that a trigger reading recorded usage corrects
// for: below it the two cleared alike, up to their stubs' lengths.
const driftMin = 2000

// usageContext is a request's size as the agents compare it with their
// triggers: the prompt plus the response (Codex's total_tokens; Claude
// Code's microcompact reads the same sum).
func usageContext(u *corpus.Usage) int { return u.Prompt() + u.OutputTokens }

// lastRequestUsage is the recorded usage of the request before checkpoint
// at, and its message's index in the session: that of h's last assistant
// message, passing over synthetic replies without usage ("Prompt is too
// long": no request was made); nil when that message has none.
//
// A session can hold thousands of such replies in a row, and walking back
// over all of them at every request made it quadratic (20,000 retries:
// 9.0 s). So the walk's answer is kept per walk (RecordedIndex.prev), and
// the next request walks back only over what was appended since: while
// at.Cleared is known, h has only grown and had results cleared in place
// since the last request (no summary, drop or rotation moved a message),
// and the memo is used only if h is still the same array holding the
// same messages where it ended and where it found the request.
func lastRequestUsage(h []corpus.Message, at Checkpoint) (*corpus.Usage, int) {
	s := at.Session
	var memo *requestMemo
	lo := 0
	if at.Recorded != nil && at.Cleared >= 0 {
		memo = &at.Recorded.prev
		if memo.holds(h, s) {
			lo = memo.n
		}
	}
	found, u, k := -1, (*corpus.Usage)(nil), -1
	decided := false
	for i := len(h) - 1; i >= lo; i-- {
		m := &h[i]
		if m.Role != corpus.RoleAssistant {
			continue
		}
		if u, k = recordedUsageAt(s, at.Recorded, m); u == nil && m.Synthetic {
			continue
		}
		decided = true
		if u != nil {
			found = i
		}
		break
	}
	if !decided && lo > 0 && memo.found >= 0 {
		found = memo.found
		u, k = recordedUsageAt(s, at.Recorded, &h[found])
	}
	if memo != nil {
		memo.keep(h, s, found)
	}
	if found < 0 {
		return nil, -1
	}
	return u, k
}

// requestMemo is lastRequestUsage's last answer: for h[:n] of session s,
// the position of the message of the previous request (-1: none).
type requestMemo struct {
	s     *corpus.Session
	first *corpus.Message // &h[0]
	last  *corpus.Message // &h[n-1]
	n     int
	found int
	// The lines and ids of h[n-1] and h[found], which must still be there.
	lastLine, foundLine int
	lastID, foundID     string
}

// holds reports whether h is h[:n] of the memo's answer, grown.
func (r *requestMemo) holds(h []corpus.Message, s *corpus.Session) bool {
	return r.s == s && r.n > 0 && len(h) >= r.n && &h[0] == r.first && &h[r.n-1] == r.last &&
		h[r.n-1].Line == r.lastLine && h[r.n-1].ID == r.lastID &&
		(r.found < 0 || h[r.found].Line == r.foundLine && h[r.found].ID == r.foundID)
}

func (r *requestMemo) keep(h []corpus.Message, s *corpus.Session, found int) {
	if len(h) == 0 {
		*r = requestMemo{}
		return
	}
	*r = requestMemo{s: s, first: &h[0], last: &h[len(h)-1], n: len(h), found: found,
		lastLine: h[len(h)-1].Line, lastID: h[len(h)-1].ID}
	if found >= 0 {
		r.foundLine, r.foundID = h[found].Line, h[found].ID
	}
}
