package cache

import (
	"fmt"
	"testing"
)

// BenchmarkStep prices n requests of one session (a steady stream with a
// rewrite every 50 requests, a side stream every 20) and reports ns per
// request: the model is O(1) per request, so the figure stays flat with n.
// Compare with replay's BenchmarkReplay ns/msg for the share the cache
// layer adds to a replay.
//
//	go test ./replay/cache -run '^$' -bench BenchmarkStep -benchtime 3x
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		reqs := make([]Request, n)
		prompt := 20000
		for i := range reqs {
			prompt += 500
			r := Request{Model: "m", Prompt: prompt, Send: at(float64(10 * i)), Done: at(float64(10*i + 5)), Tail: i % 7 * 100}
			if i%50 == 49 {
				prompt /= 2
				r.Prompt, r.Cause = prompt, Rewrite
			}
			if i%20 == 19 {
				r.Stream = "side"
			}
			reqs[i] = r
		}
		b.Run(fmt.Sprintf("requests=%d", n), func(b *testing.B) {
			var billed float64
			for b.Loop() {
				m := New(Default(), Session{FirstRead: 15000, Head: 18400})
				billed = 0
				for _, r := range reqs {
					billed += m.Step(r).Billed
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/request")
			if billed <= 0 {
				b.Fatal("nothing billed")
			}
		})
	}
}
