package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// oracleResultLoss is resultLoss as it was before it kept one map sized
// once (a map of texts grown entry by entry and a map of ids seen): the
// oracle of TestResultLossMatchesOracle.
func oracleResultLoss(raw, final []corpus.Message) (mangled, dropped int) {
	orig := map[string]string{}
	main := false
	for i := range raw {
		main = main || !raw[i].Sidechain
	}
	for i := range raw {
		if raw[i].Sidechain && main {
			continue
		}
		for _, b := range raw[i].Blocks {
			if b.Kind == corpus.KindToolResult {
				orig[b.ToolCallID] = b.Text
			}
		}
	}
	seen := make(map[string]bool, len(orig))
	for i := range final {
		for _, b := range final[i].Blocks {
			if b.Kind != corpus.KindToolResult {
				continue
			}
			if t, ok := orig[b.ToolCallID]; ok && !seen[b.ToolCallID] {
				seen[b.ToolCallID] = true
				if t != b.Text {
					mangled++
				}
			}
		}
	}
	return mangled, len(orig) - len(seen)
}

// TestResultLossMatchesOracle compares resultLoss with the oracle on
// synthetic sessions and random "final" histories made from them: messages
// dropped, result texts changed, ids repeated (in the raw session and in
// the final one), sidechain messages, and all-sidechain sessions.
func TestResultLossMatchesOracle(t *testing.T) {
	var p synth.Profile = synth.ToolHeavy
	p.Turns = 2
	bases := map[string][]corpus.Message{
		"smith":     synth.Smith(p, 3),
		"toolheavy": synth.ToolHeavySession(300).Messages,
		"empty":     nil,
	}
	rng := rand.New(rand.NewPCG(11, 4))
	for name, base := range bases {
		for trial := range 40 {
			raw := clone(base)
			allSide := trial%10 == 9
			for i := range raw {
				raw[i].Sidechain = allSide || rng.IntN(8) == 0
				for j := range raw[i].Blocks {
					b := &raw[i].Blocks[j]
					if b.Kind == corpus.KindToolResult && rng.IntN(12) == 0 && i > 0 {
						b.ToolCallID = fmt.Sprint("dup", rng.IntN(3)) // ids repeated
					}
				}
			}
			var final []corpus.Message
			for _, m := range clone(raw) {
				if rng.IntN(4) == 0 {
					continue // dropped
				}
				for j := range m.Blocks {
					if b := &m.Blocks[j]; b.Kind == corpus.KindToolResult && rng.IntN(3) == 0 {
						b.Text = "[cleared]"
					}
				}
				final = append(final, m)
				if rng.IntN(10) == 0 {
					final = append(final, m) // a result twice
				}
			}
			gm, gd := resultLoss(raw, final)
			em, ed := oracleResultLoss(raw, final)
			if gm != em || gd != ed {
				t.Errorf("%s/%d: resultLoss = %d mangled, %d dropped; oracle %d, %d", name, trial, gm, gd, em, ed)
			}
		}
	}
}

func clone(ms []corpus.Message) []corpus.Message {
	out := slices.Clone(ms)
	for i := range out {
		out[i].Blocks = slices.Clone(out[i].Blocks)
	}
	return out
}
