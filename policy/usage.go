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
