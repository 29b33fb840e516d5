package policy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// randomSplitHistory is a history of n messages of every kind charsSplit
// tells apart: prompts, synthetic prompts, answers, calls, results (as
// tool messages and as user messages), of random sizes, some with
// characters outside the BMP.
func randomSplitHistory(r *rand.Rand, n int) []corpus.Message {
	h := make([]corpus.Message, n)
	for i := range h {
		text := strings.Repeat("x", r.IntN(40)) + strings.Repeat("😀", r.IntN(3))
		m := &h[i]
		switch r.IntN(6) {
		case 0, 1:
			m.Role, m.Synthetic = corpus.RoleUser, r.IntN(5) == 0
			m.Blocks = []corpus.Block{{Kind: corpus.KindText, Text: text}}
		case 2:
			m.Role = corpus.RoleAssistant
			m.Blocks = []corpus.Block{{Kind: corpus.KindText, Text: text}}
		case 3:
			m.Role = corpus.RoleAssistant
			m.Blocks = []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: "c", ToolName: "read_file", Args: []byte(`{"p":"` + text + `"}`)}}
		case 4:
			m.Role = corpus.RoleTool
			m.Blocks = []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "c", Text: text}}
		case 5:
			m.Role = corpus.RoleUser
			m.Blocks = []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "c", Text: text}}
		}
	}
	return h
}

// TestCharsSplitBeforeMatchesClamp: the split counted only as far as it
// must is the whole-history split clamped to every possible turn start,
// for fractions from none to more than all of the characters.
func TestCharsSplitBeforeMatchesClamp(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 19))
	for trial := range 3000 {
		h := randomSplitHistory(r, r.IntN(14))
		for _, f := range []float64{-1, 0, 0.1, 0.3, 0.5, 0.7, 0.9, 1, 1.5} {
			whole := charsSplit(h, f)
			for ts := 0; ts <= len(h)+1; ts++ {
				if got, want := charsSplitBefore(h, f, ts), min(whole, ts); got != want {
					t.Fatalf("trial %d, fraction %v, turn start %d of %s: %d, want %d", trial, f, ts, describeSplit(h), got, want)
				}
			}
		}
	}
}

func describeSplit(h []corpus.Message) string {
	var b strings.Builder
	for i := range h {
		fmt.Fprintf(&b, "%s/%d/%d ", h[i].Role, splitChars(&h[i]), map[bool]int{true: 1}[splitCandidate(&h[i])])
	}
	return b.String()
}
