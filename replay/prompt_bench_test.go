package replay

import (
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// BenchmarkPromptModel replays goose over one-turn sessions of n tool
// calls, once where every request records usage (20,000 + 1.2 × the
// chars/4 history, so the fit is exact) and once where none does, with a
// window no request reaches: the difference is the fit (fitPrompt: a
// pass over the recording that measures each message, which the walk then
// reads instead of measuring again, and the calibration), which every
// replay of a metering policy pays on a session with usage. ns/msg stays
// flat in n: the fit is linear.
//
//	go test ./replay -run '^$' -bench BenchmarkPromptModel -benchtime 40x -count 5 -cpu 1
func BenchmarkPromptModel(b *testing.B) {
	p, err := policy.New("goose", map[string]string{"window_tokens": "1000000000"})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1_000, 4_000, 16_000} {
		for _, usage := range []bool{true, false} {
			s := oneTurn(n)
			if usage {
				s = withUsage(s, 20_000, 1.2)
			}
			b.Run(fmt.Sprintf("calls=%d/usage=%v", n, usage), func(b *testing.B) {
				for b.Loop() {
					t, err := Run(b.Context(), s, p, Options{})
					if err != nil || len(t.Events) != 0 || (t.Fit != nil) != usage {
						b.Fatalf("%v, %d compactions, fit %v", err, len(t.Events), t.Fit)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.Messages)), "ns/msg")
			})
		}
	}
}

// withUsage gives every assistant message of s the usage of one request
// whose prompt is overhead + scale × the chars/4 tokens before it.
func withUsage(s *corpus.Session, overhead int, scale float64) *corpus.Session {
	m, err := policy.NewMeter(policy.MeterChars4, policy.MeterOptions{})
	if err != nil {
		panic(err)
	}
	var units int64
	for i := range s.Messages {
		msg := &s.Messages[i]
		if msg.Role == corpus.RoleAssistant {
			s.Recorded.Usage = append(s.Recorded.Usage, corpus.Usage{AtMessage: i, Requests: 1,
				InputTokens: overhead + int(scale*float64(m.Tokens(units)))})
		}
		units += m.Message(msg)
	}
	return s
}
