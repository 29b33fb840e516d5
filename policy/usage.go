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
	if s == nil || len(s.Recorded.Usage) == 0 || m.Line <= 0 {
		return nil
	}
	msgs := s.Messages
	i := sort.Search(len(msgs), func(i int) bool { return msgs[i].Line >= m.Line })
	if i == len(msgs) || msgs[i].Line != m.Line {
		return nil
	}
	us := s.Recorded.Usage
	k := sort.Search(len(us), func(k int) bool { return us[k].AtMessage >= i })
	if k == len(us) || us[k].AtMessage != i {
		return nil
	}
	return &us[k]
}

// usageContext is a request's size as the agents compare it with their
// triggers: the prompt plus the response (Codex's total_tokens; Claude
// Code's microcompact reads the same sum).
func usageContext(u *corpus.Usage) int { return u.Prompt() + u.OutputTokens }
