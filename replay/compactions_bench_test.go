package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/policy"
)

// BenchmarkManyCompactions replays claude-code at its defaults over a
// Claude Code 2.1.14 log of n prompt-reply cycles, each ending in a
// recorded full compaction whose usage (170,000 tokens) fires the
// policy's own: n recorded, n-1 of the policy's (the last has no request
// after it), each summarized from the nearest recorded summary and
// matched with the nearest recorded compaction (AgreeCompactions). Both
// lookups were a pass over the recording; ns per compaction stays flat
// when they are not.
//
//	go test ./replay -run '^$' -bench BenchmarkManyCompactions -benchtime 3x
func BenchmarkManyCompactions(b *testing.B) {
	p, err := policy.New("claude-code", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{4_000, 8_000, 16_000} {
		s := manyCompactions(b, n)
		b.Run(fmt.Sprintf("compactions=%d", n), func(b *testing.B) {
			for b.Loop() {
				t, err := Run(context.Background(), s, p, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if got := len(AgreeCompactions(s, p, t)); got != n || len(t.Events) != n-1 {
					b.Fatalf("%d recorded and %d policy compactions, want %d and %d", got, len(t.Events), n, n-1)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/compaction")
		})
	}
}

// manyCompactions writes and loads the log of BenchmarkManyCompactions,
// in the shape of the 2.x fixtures (compact_2x.jsonl): user prompt,
// assistant reply with usage, compact_boundary, summary.
func manyCompactions(b *testing.B, n int) *corpus.Session {
	var sb strings.Builder
	head := `{"isSidechain":false,"userType":"external","cwd":"/tmp/p","sessionId":"11111111-2222-4333-8444-555555555556","version":"2.1.14",`
	uuid := func(k int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", k, k) }
	prev := "null"
	for i := range n {
		k := 4 * i
		fmt.Fprintf(&sb, `%s"parentUuid":%s,"type":"user","uuid":"%s","timestamp":"2026-01-28T20:00:00.000Z","message":{"role":"user","content":"task %d: %s"}}`+"\n",
			head, prev, uuid(k+1), i, strings.Repeat("x", 400))
		fmt.Fprintf(&sb, `%s"parentUuid":"%s","type":"assistant","uuid":"%s","timestamp":"2026-01-28T20:00:01.000Z","message":{"model":"claude-opus-4-5-20251101","id":"msg_%d","type":"message","role":"assistant","content":[{"type":"text","text":"done %d %s"}],"stop_reason":"end_turn","usage":{"input_tokens":2,"cache_creation_input_tokens":100,"cache_read_input_tokens":170000,"output_tokens":10}}}`+"\n",
			head, uuid(k+1), uuid(k+2), i, i, strings.Repeat("y", 400))
		fmt.Fprintf(&sb, `%s"parentUuid":null,"logicalParentUuid":"%s","type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"uuid":"%s","level":"info","timestamp":"2026-01-28T20:00:02.000Z","compactMetadata":{"trigger":"auto","preTokens":170100}}`+"\n",
			head, uuid(k+2), uuid(k+3))
		fmt.Fprintf(&sb, `%s"parentUuid":"%s","type":"user","uuid":"%s","timestamp":"2026-01-28T20:00:03.000Z","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nsummary %d"}}`+"\n",
			head, uuid(k+3), uuid(k+4), i)
		prev = `"` + uuid(k+4) + `"`
	}
	path := filepath.Join(b.TempDir(), "11111111-2222-4333-8444-555555555556.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil || len(ss) != 1 || len(ss[0].Warnings) > 0 {
		b.Fatalf("loading the log: %v (%d sessions)", err, len(ss))
	}
	return ss[0]
}
