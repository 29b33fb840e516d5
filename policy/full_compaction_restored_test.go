package policy

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// restoredOracle is restored as it was before it walked back lazily: every
// result read into a map first, the last non-error one of an id winning
// (the blocks are built as restored builds them: restoreList).
func (f *fullCompaction) restoredOracle(h []corpus.Message) *corpus.Message {
	if f.restoreFiles <= 0 {
		return nil
	}
	results := map[string]string{}
	for i := range h {
		for j := range h[i].Blocks {
			if b := &h[i].Blocks[j]; b.Kind == corpus.KindToolResult && !b.IsError {
				results[b.ToolCallID] = b.Content()
			}
		}
	}
	seen := map[string]bool{}
	r := f.newRestoreList()
	for i := len(h) - 1; i >= 0 && len(r.blocks) < f.restoreFiles; i-- {
		m := &h[i]
		if m.Role != corpus.RoleAssistant {
			continue
		}
		for j := len(m.Blocks) - 1; j >= 0 && len(r.blocks) < f.restoreFiles; j-- {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolUse || b.ToolName != "Read" {
				continue
			}
			path := argString(b.Args, "file_path")
			text, ok := results[b.ToolCallID]
			if path == "" || !ok || seen[path] {
				continue
			}
			seen[path] = true
			r.add(path, text)
		}
	}
	return r.message()
}

// restored reads back only as far as the files it restores, and gives
// what reading every result first gave: on histories with error results,
// ids reused, results logged before their calls or missing, results inside
// assistant messages, paths read twice, structured results and a budget
// that turns large files away.
func TestRestoredMatchesOracle(t *testing.T) {
	m, _ := NewMeter(MeterChars4, MeterOptions{})
	rng := rand.New(rand.NewPCG(3, 4))
	restoring, several := 0, 0
	for trial := range 400 {
		n := 2 + rng.IntN(40)
		ids := 1 + rng.IntN(n)
		paths := 1 + rng.IntN(6)
		var h []corpus.Message
		result := func() corpus.Block {
			b := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: fmt.Sprintf("c%d", rng.IntN(ids)),
				Text: fmt.Sprintf("content %d %s", rng.IntN(1000), strings.Repeat("x", rng.IntN(3000)))}
			switch rng.IntN(8) {
			case 0:
				b.IsError = true
			case 1:
				b.Text, b.Payload = "", []byte(fmt.Sprintf(`{"stdout":"%d"}`, rng.IntN(100)))
			}
			return b
		}
		for range n {
			switch rng.IntN(4) {
			case 0, 1:
				var bs []corpus.Block
				for range 1 + rng.IntN(3) {
					tool := "Read"
					if rng.IntN(5) == 0 {
						tool = "Grep"
					}
					args := fmt.Sprintf(`{"file_path":"/p/f%d.go"}`, rng.IntN(paths))
					if rng.IntN(10) == 0 {
						args = `{"pattern":"x"}`
					}
					bs = append(bs, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: fmt.Sprintf("c%d", rng.IntN(ids)), ToolName: tool, Args: []byte(args)})
				}
				if rng.IntN(10) == 0 {
					bs = append(bs, result())
				}
				h = append(h, corpus.Message{Role: corpus.RoleAssistant, Blocks: bs})
			case 2:
				h = append(h, corpus.Message{Role: corpus.RoleTool, Blocks: []corpus.Block{result(), result()}})
			default:
				h = append(h, corpus.Message{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "go on"}}})
			}
		}
		f := fullCompaction{restoreFiles: 1 + rng.IntN(5), restoreFileTokens: 50 + rng.IntN(500), restoreBudget: 200 + rng.IntN(2000), meter: m}
		got, want := f.restored(h), f.restoredOracle(h)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: restored %+v, want %+v", trial, got, want)
		}
		if got != nil {
			restoring++
			if len(got.Blocks) > 1 {
				several++
			}
		}
	}
	// The histories must restore something often, several files at times,
	// or the comparison proves little.
	if restoring < 200 || several < 50 {
		t.Errorf("%d of 400 histories restored files, %d several: too few to compare", restoring, several)
	}
}
