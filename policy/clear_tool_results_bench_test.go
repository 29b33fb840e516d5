package policy

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// BenchmarkClearToolResultsWalk walks clear-tool-results (Claude Code's
// defaults, but firing at 10,000 estimated tokens) over long sessions that
// stay above the trigger while it clears nothing: plain text turns after
// 7 results of one Bash-like tool it does not compact ("bash": its names
// are case-sensitive), and after 5 Read results of 9,000 tokens (45,000:
// the newest 40,000 are kept, and the 9,000 before them fall short of
// min_reclaim 20,000). The tool names are on the calls only, as the corpus
// readers leave them. Each checkpoint that fired planned over the whole
// history (and built a map of its tool names) until the result marks
// (Checkpoint.Results) settled them: ns/msg should be flat between the
// two sizes (README, Speed).
func BenchmarkClearToolResultsWalk(b *testing.B) {
	for _, n := range []int{4000, 16000} {
		for _, kind := range []string{"uncompactable", "under-min-reclaim"} {
			h := unclearedHistory(n, kind)
			b.Run(fmt.Sprintf("%s/msgs=%d", kind, n), func(b *testing.B) {
				p, err := New("clear-tool-results", map[string]string{"trigger_at": "10000", "context_source": SourceEstimate})
				if err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					walkFast(p, h)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(h)), "ns/msg")
			})
		}
	}
}

// unclearedHistory is plainHistory(n, "plain") with tool steps after the
// first turn (BenchmarkClearToolResultsWalk): kind "uncompactable", 7
// results of 2,000 tokens from tool "bash"; "under-min-reclaim", 5 of
// 9,000 tokens from "Read".
func unclearedHistory(n int, kind string) []corpus.Message {
	tool, results, text := "bash", 7, strings.Repeat("abcd", 2000)
	if kind == "under-min-reclaim" {
		tool, results, text = "Read", 5, strings.Repeat("abcd", 9000)
	}
	plain := plainHistory(n, "plain")
	h := append(make([]corpus.Message, 0, n+2*results), plain[:2]...)
	for k := range results {
		cid := "c" + strconv.Itoa(k)
		h = append(h,
			corpus.Message{ID: "a" + cid, Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: cid, ToolName: tool, Args: []byte(`{"file_path":"a.go"}`)}}},
			corpus.Message{ID: "t" + cid, Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: cid, Text: text}}})
	}
	return append(h, plain[2:n-len(h)+2]...)
}
