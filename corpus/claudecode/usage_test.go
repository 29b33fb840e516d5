package claudecode_test

import (
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
)

// Recorded usage per API response, from the real logs (cost-findings.md
// §1.1): b3533c53 (2.1.14) sums to input 27,941 + cache write 263,914 +
// cache read 658,423 = 950,278 over its 7 real requests (its 8th, the
// synthetic "Prompt is too long" line, is not a request), the figure issue 11
// quotes; fc491683 (2.1.20) writes only 1-hour cache entries (458,108).
func TestClaudeCodeRealUsage(t *testing.T) {
	tests := []struct {
		file                      string
		requests                  int
		input, write, write1h, rd int
	}{
		{"claude-code/b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", 7, 27941, 263914, 0, 658423},
		{"claude-code/fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl", 9, 13093, 458108, 458108, 808273},
	}
	for _, tt := range tests {
		ss, err := load.Load([]string{realFile(t, tt.file)}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var main *corpus.Session
		for _, s := range ss {
			if s.Meta.Parent == "" {
				main = s
			}
		}
		var n int
		var sum corpus.Usage
		for _, u := range main.Recorded.Usage {
			if m := main.Messages[u.AtMessage]; m.Role != corpus.RoleAssistant || m.Synthetic {
				t.Errorf("%s: usage at message %d (%s, synthetic %v)", tt.file, u.AtMessage, m.Role, m.Synthetic)
			}
			n++
			sum.Add(u)
		}
		if n != tt.requests || sum.InputTokens != tt.input || sum.CacheWriteTokens != tt.write ||
			sum.CacheWrite1h != tt.write1h || sum.CacheReadTokens != tt.rd {
			t.Errorf("%s: %d requests, usage %+v; want %d requests, input %d write %d (1h %d) read %d",
				tt.file, n, sum, tt.requests, tt.input, tt.write, tt.write1h, tt.rd)
		}
	}
}
