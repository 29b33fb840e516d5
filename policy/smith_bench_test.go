package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// benchHistory is n messages of a realistic agent shape: turns of a prompt,
// a thinking + call, and a 2-8 KB result; every 7th call repeats a read.
// Strings are shared, as in a loaded corpus.
func benchHistory(n int) []corpus.Message {
	body := strings.Repeat("0123456789abcdef", 512) // 8 KB
	think := strings.Repeat("t", 1500)
	h := make([]corpus.Message, 0, n)
	for i := 0; len(h) < n; i++ {
		id := fmt.Sprintf("b%d", i)
		tool, args := "bash", `{"command":"make test"}`
		if i%7 == 0 {
			tool, args = "read_file", `{"path":"src/agent.cr"}`
		}
		h = append(h,
			corpus.Message{ID: "u" + id, Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "next step"}}},
			corpus.Message{ID: "a" + id, Role: corpus.RoleAssistant, Blocks: []corpus.Block{
				{Kind: corpus.KindThinking, Text: think, Signature: "sig"},
				{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(args)}}},
			corpus.Message{ID: "t" + id, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id, Text: body[:2048+(i%4)*2048]}}})
	}
	return h[:n-n%3]
}

// BenchmarkSmithCompact measures one compaction of a large history (every
// stage runs, then a summary). Its cost should be linear: compare the
// ns/msg metric across sizes.
func BenchmarkSmithCompact(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		h := benchHistory(n)
		for _, pc := range []struct{ name, set string }{
			{"smith-staged", "max_tokens=120000"},
			{"smith-legacy", "max_tokens=120000"},
		} {
			b.Run(fmt.Sprintf("%s/msgs=%d", pc.name, n), func(b *testing.B) {
				p := newPolicy(b, pc.name, pc.set)
				at := Checkpoint{Units: units(p, h), Count: int64(len(h))}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if o := p.Compact(h, at); o.Strategy == None {
						b.Fatal("no compaction")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(h)), "ns/msg")
			})
		}
	}
}

// BenchmarkSmithReplay drives a whole session through smith-staged the way
// the replay does (a checkpoint before every request, compaction only when
// triggered), so it shows that a checkpoint that does not trigger is O(1);
// with -benchmem, what the compactions allocate (one policy replays every
// round, as one replays a session, so its workPool is warm).
func BenchmarkSmithReplay(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		h := benchHistory(n)
		b.Run(fmt.Sprintf("msgs=%d", n), func(b *testing.B) {
			p := newPolicy(b, "smith-staged", "")
			b.ReportAllocs()
			for b.Loop() {
				var work []corpus.Message
				var u int64
				for i := range h {
					var prev *corpus.Message
					if i > 0 {
						prev = &h[i-1]
					}
					if p.Checkpoint(corpus.FormatSmithTranscript, prev, &h[i]) {
						o := p.Compact(work, Checkpoint{Request: i, Units: u, Count: int64(len(work))})
						work, u = o.History, o.Units
					}
					work = append(work, h[i])
					m, _, _ := p.Measure(&h[i])
					u += m
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(h)), "ns/msg")
		})
	}
}
