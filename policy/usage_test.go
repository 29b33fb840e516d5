package policy

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// walkBack is lastRequestUsage without its memo: the walk over the whole
// history, as clear-tool-results' trigger did it at every request.
func walkBack(h []corpus.Message, s *corpus.Session) (*corpus.Usage, int) {
	for i := len(h) - 1; i >= 0; i-- {
		m := &h[i]
		if m.Role != corpus.RoleAssistant {
			continue
		}
		u, k := recordedUsageAt(s, nil, m)
		if u == nil && m.Synthetic {
			continue
		}
		if u != nil {
			return u, k
		}
		break
	}
	return nil, -1
}

// randomRetries is a session of n messages, one per line, mixing user
// prompts, requests with recorded usage, replies without usage and long
// runs of synthetic "Prompt is too long" replies.
func randomRetries(r *rand.Rand, n int) *corpus.Session {
	s := &corpus.Session{}
	for i := range n {
		m := corpus.Message{Role: corpus.RoleUser, Line: i + 1}
		switch x := r.IntN(10); {
		case i%2 == 0:
		case x < 6:
			m.Role, m.Synthetic = corpus.RoleAssistant, true
		case x < 9:
			m.Role = corpus.RoleAssistant
			s.Recorded.Usage = append(s.Recorded.Usage, corpus.Usage{AtMessage: i, InputTokens: 1000 + i})
		default:
			m.Role = corpus.RoleAssistant // a request the log kept no usage for
		}
		s.Messages = append(s.Messages, m)
	}
	return s
}

// TestLastRequestUsageMatchesWalk: with the memo, the previous request is
// the one the whole walk back finds, at every request, whether the history
// grows in place, moves to a new array, or has messages moved under it
// (a summary or drop, which the replay marks with Cleared -1; with
// Cleared still known the memo must notice the move itself).
func TestLastRequestUsageMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for trial := range 200 {
		s := randomRetries(r, 2+r.IntN(300))
		x := NewRecordedIndex(s)
		h := make([]corpus.Message, 0, len(s.Messages))
		for i := range s.Messages {
			h = append(h, s.Messages[i])
			cleared := int64(0)
			switch r.IntN(20) {
			case 0: // moved to a new array (the walker's spare)
				h = append([]corpus.Message(nil), h...)
			case 1: // a message moved out in place: a drop the replay reports
				if len(h) > 2 {
					k := r.IntN(len(h) - 1)
					h = append(h[:k], h[k+1:]...)
					cleared = -1
				}
			case 2: // the same, with Cleared left known: the memo's own checks
				if len(h) > 2 {
					k := r.IntN(len(h) - 1)
					h = append(h[:k], h[k+1:]...)
				}
			}
			at := Checkpoint{Session: s, Recorded: x, Cleared: cleared}
			gu, gk := lastRequestUsage(h, at)
			wu, wk := walkBack(h, s)
			if gu != wu || gk != wk {
				t.Fatalf("trial %d, request %d: got usage %v at %d, the walk finds %v at %d", trial, i, gu, gk, wu, wk)
			}
		}
	}
}

// TestLastRequestUsageRetries: after a request with usage, thousands of
// synthetic replies still read that request's usage, and a request the log
// has no usage for ends the walk.
func TestLastRequestUsageRetries(t *testing.T) {
	s := &corpus.Session{}
	add := func(role corpus.Role, synthetic bool) {
		s.Messages = append(s.Messages, corpus.Message{Role: role, Synthetic: synthetic, Line: len(s.Messages) + 1})
	}
	add(corpus.RoleUser, false)
	add(corpus.RoleAssistant, false)
	s.Recorded.Usage = []corpus.Usage{{AtMessage: 1, InputTokens: 4242}}
	for range 5000 {
		add(corpus.RoleUser, false)
		add(corpus.RoleAssistant, true)
	}
	x := NewRecordedIndex(s)
	for n := 2; n <= len(s.Messages); n += 1111 {
		u, k := lastRequestUsage(s.Messages[:n], Checkpoint{Session: s, Recorded: x})
		if u == nil || u.InputTokens != 4242 || k != 1 {
			t.Fatalf("after %d messages: usage %v at %d, want 4242 at 1", n, u, k)
		}
	}
	add(corpus.RoleAssistant, false) // no usage recorded for it
	if u, k := lastRequestUsage(s.Messages, Checkpoint{Session: s, Recorded: x}); u != nil || k != -1 {
		t.Errorf("after a request without usage: %v at %d, want none", u, k)
	}
}

// BenchmarkLastRequestUsageRetries: requests after a run of synthetic
// retries cost the same whatever the run's length.
func BenchmarkLastRequestUsageRetries(b *testing.B) {
	for _, n := range []int{5000, 10000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s := &corpus.Session{Messages: []corpus.Message{{Role: corpus.RoleUser, Line: 1}, {Role: corpus.RoleAssistant, Line: 2}}}
			s.Recorded.Usage = []corpus.Usage{{AtMessage: 1, InputTokens: 4242}}
			for i := range n {
				s.Messages = append(s.Messages, corpus.Message{Role: corpus.RoleUser, Line: 3 + 2*i},
					corpus.Message{Role: corpus.RoleAssistant, Synthetic: true, Line: 4 + 2*i})
			}
			for b.Loop() {
				x := NewRecordedIndex(s)
				for k := 2; k <= len(s.Messages); k += 2 {
					if u, _ := lastRequestUsage(s.Messages[:k], Checkpoint{Session: s, Recorded: x}); u == nil {
						b.Fatal("no usage")
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/request")
		})
	}
}

// TestRecordedUsageOfEachStep: opencode writes one message per assistant
// turn and calib one request per step, each step on its message's row in
// the database (corpus/opencode's TestDatabaseStepLines pins that) and on
// no line in the storage files: each step's copy reads its own step's
// usage, not the first step's, in both layouts. The storage fixture is
// given the database's lines for the first, message msg_000N on row N.
func TestRecordedUsageOfEachStep(t *testing.T) {
	want := []string{
		"msg_0002@1: usage@1 in=1200",
		"msg_0002/step2@3: usage@3 in=150",
		"msg_0002/step3@5: usage@5 in=100",
		"msg_0004@7: usage@7 in=11000",
		"msg_0007@9: usage@9 in=900",
	}
	for _, layout := range []string{"database", "storage"} {
		ss, err := load.Load([]string{"../corpus/opencode/testdata/storage"}, corpus.Options{Strict: true})
		if err != nil || len(ss) != 1 {
			t.Fatalf("load: %v, %d sessions", err, len(ss))
		}
		s := ss[0]
		for i := range s.Messages {
			m := &s.Messages[i]
			if m.Line != 0 {
				t.Fatalf("%s: storage message on line %d, want none", m.ID, m.Line)
			}
			if _, err := fmt.Sscanf(m.ID, "msg_%d", &m.Line); layout == "database" && err != nil {
				t.Fatalf("message id %q: %v", m.ID, err)
			}
			if layout == "storage" {
				m.Line = 0
			}
		}
		x := NewRecordedIndex(s)
		var got []string
		for i := range s.Messages {
			m := s.Messages[i] // a copy, as a replay's history holds
			if u, k := recordedUsageAt(s, x, &m); u != nil {
				got = append(got, fmt.Sprintf("%s@%d: usage@%d in=%d", m.ID, k, u.AtMessage, u.InputTokens))
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: usage read back:\n got %q\nwant %q", layout, got, want)
		}
		// Before the third step's request, clear-tool-results' recorded
		// trigger reads the second step's context (150 in + 10,300 read +
		// 40 out), not the first's (1,200 + 9,000 read + 300 written + 80
		// out).
		p, err := New("clear-tool-results", map[string]string{"context_source": "recorded"})
		if err != nil {
			t.Fatal(err)
		}
		h := slices.Clone(s.Messages[:5])
		if ctx, recorded := p.(*ClearToolResults).contextTokens(h, Checkpoint{Session: s, Recorded: x, Cleared: -1}); ctx != 10490 || !recorded {
			t.Errorf("%s: context before the third step: %d (recorded %v), want 10490 recorded", layout, ctx, recorded)
		}
	}
}

// TestRecordedUsageWithoutLines: a message without a line is found by its
// id through the walk's index, and not at all when two messages have that
// id or no index is at hand.
func TestRecordedUsageWithoutLines(t *testing.T) {
	s := &corpus.Session{Messages: []corpus.Message{
		{ID: "u1", Role: corpus.RoleUser}, {ID: "a1", Role: corpus.RoleAssistant},
		{ID: "u2", Role: corpus.RoleUser}, {ID: "twice", Role: corpus.RoleAssistant},
		{ID: "u3", Role: corpus.RoleUser}, {ID: "twice", Role: corpus.RoleAssistant},
	}}
	s.Recorded.Usage = []corpus.Usage{{AtMessage: 1, InputTokens: 11}, {AtMessage: 3, InputTokens: 33}, {AtMessage: 5, InputTokens: 55}}
	x := NewRecordedIndex(s)
	for _, tt := range []struct {
		id   string
		x    *RecordedIndex
		want int // input tokens, -1: none found
	}{
		{"a1", x, 11}, {"twice", x, -1}, {"gone", x, -1}, {"a1", nil, -1},
	} {
		m := corpus.Message{ID: tt.id, Role: corpus.RoleAssistant}
		got := -1
		if u := recordedUsage(s, tt.x, &m); u != nil {
			got = u.InputTokens
		}
		if got != tt.want {
			t.Errorf("%s (index %v): usage %d, want %d", tt.id, tt.x != nil, got, tt.want)
		}
	}
}
