package policy

import (
	"math/rand/v2"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// lastStepAndTurn, reading from the end, finds what a pass over the whole
// history finds, also when the newest turn has no reply yet, when there is
// no assistant message or no real turn.
func TestLastStepAndTurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 2000 {
		h := make([]corpus.Message, rng.IntN(12))
		for i := range h {
			switch rng.IntN(4) {
			case 0:
				h[i] = corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "ok"}}}
			case 1:
				h[i] = corpus.Message{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "do it"}}}
			case 2:
				h[i] = corpus.Message{Role: corpus.RoleUser, Synthetic: true, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "continue"}}}
			default:
				h[i] = corpus.Message{Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "c", Text: "r"}}}
			}
		}
		wantAsst, wantTurn := -1, 0
		for i := range h {
			switch m := &h[i]; {
			case m.Role == corpus.RoleAssistant:
				wantAsst = i
			case m.RealTurn():
				wantTurn = i
			}
		}
		if a, tu := lastStepAndTurn(h); a != wantAsst || tu != wantTurn {
			t.Fatalf("trial %d: lastStepAndTurn = %d, %d; the forward pass gives %d, %d", trial, a, tu, wantAsst, wantTurn)
		}
	}
}
