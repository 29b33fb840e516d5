package replay

import (
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// BenchmarkPromptModel replays goose, whose triggers read the prompt model
// (context_source=calibrated), and goose on its estimate over one-turn
// sessions of n tool calls whose every request records usage (20,000 +
// 1.2 × the chars/4 history, so the fit is exact), with a window no
// request reaches: the difference is the model's fit (a pass over the
// recording that measures each message, which the walk then reads
// instead of measuring again, and the calibration), paid only where a
// session records usage. ns/msg stays flat in n: the fit is linear.
//
//	go test ./replay -run '^$' -bench BenchmarkPromptModel -benchtime 40x -count 5 -cpu 1
func BenchmarkPromptModel(b *testing.B) {
	for _, n := range []int{1_000, 4_000, 16_000} {
		s := withUsage(oneTurn(n), 20_000, 1.2)
		for _, source := range []string{policy.SourceCalibrated, policy.SourceEstimate} {
			p, err := policy.New("goose", map[string]string{"window_tokens": "1000000000", "context_source": source})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("calls=%d/%s", n, source), func(b *testing.B) {
				for b.Loop() {
					if t, err := Run(b.Context(), s, p, Options{}); err != nil || len(t.Events) != 0 {
						b.Fatalf("%v, %d compactions", err, len(t.Events))
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
