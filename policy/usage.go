package policy

import (
	"sort"

	"github.com/calib-dev/calib/corpus"
)

// recordedUsage is the usage session s recorded for the request that
// wrote m, an assistant message of a history replaying s (a copy of one of
// s.Messages, found by its line), or nil when it recorded none. Both
// searches are binary: Messages grow by line, Recorded.Usage by message.
func recordedUsage(s *corpus.Session, m *corpus.Message) *corpus.Usage {
	u, _ := recordedUsageAt(s, m)
	return u
}

// recordedUsageAt is recordedUsage and m's index in s.Messages.
func recordedUsageAt(s *corpus.Session, m *corpus.Message) (*corpus.Usage, int) {
	if s == nil || len(s.Recorded.Usage) == 0 || m.Line <= 0 {
		return nil, -1
	}
	msgs := s.Messages
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].Line >= m.Line })
	if i == len(msgs) || msgs[i].Line != m.Line {
		return nil, -1
	}
	us := s.Recorded.Usage
	k := sort.Search(len(us), func(k int) bool { return us[k].AtMessage >= i })
	if k == len(us) || us[k].AtMessage != i {
		return nil, -1
	}
	return &us[k], i
}

// recordedClears is what the agent's own clears had taken out of its
// history by the request that wrote message at, in m's tokens: each
// microcompact boundary's recorded tokens saved (Claude Code's own chars/4
// count), and for each persisted output no boundary lists (Claude Code
// before 2.1.9 records no figure) its text less its marker, from their
// lengths (chars/4 of the UTF-16 length; bytes/4 for the bytes4 meter).
func recordedClears(s *corpus.Session, at int, m *Meter) int {
	n := 0
	for i := range s.Recorded.Compactions {
		if c := &s.Recorded.Compactions[i]; c.Clearing() && c.AtMessage >= 0 && c.AtMessage <= at {
			n += c.TokensSaved
		}
	}
	for i := range s.Recorded.Persisted {
		p := &s.Recorded.Persisted[i]
		if p.Boundary >= 0 || p.AtMessage < 0 || p.AtMessage > at {
			continue
		}
		if m.Name() == MeterBytes4 {
			n += int((p.Bytes - int64(len(p.Marker))) / 4)
		} else {
			n += (p.Chars+2)/4 - (len(p.Marker)+2)/4 // the marker is ASCII
		}
	}
	return n
}

// drift is how much less the replay's history holds than the agent's did
// when it wrote message k (recorded usage is of the agent's history): what
// the replay's own clears took out (at.Cleared) less what the agent's had
// (recordedClears), in m's tokens; 0 when unknown or under driftMin.
func drift(at Checkpoint, s *corpus.Session, k int, m *Meter) int {
	if at.Cleared < 0 || s == nil {
		return 0
	}
	d := m.Tokens(at.Cleared) - recordedClears(s, k, m)
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
