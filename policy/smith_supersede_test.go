package policy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
)

// supersedeDuplicatesRef is supersedeDuplicates as it was before it counted
// the calls to size its maps: the test oracle.
func (w *working) supersedeDuplicatesRef(end, target int, tools map[string]bool, stub func(name string, b *corpus.Block) string) (touched int, removed int64) {
	if w.fits(target) {
		return 0, 0
	}
	type key struct{ name, args string }
	calls := make(map[string]key, len(w.msgs))
	newest := make(map[key]string, len(w.msgs))
	for i := range w.msgs {
		for _, b := range w.msgs[i].Blocks {
			if b.Kind == corpus.KindToolUse && tools[b.ToolName] {
				k := key{b.ToolName, unsafe.String(unsafe.SliceData(b.Args), len(b.Args))}
				calls[b.ToolCallID] = k
				newest[k] = b.ToolCallID
			}
		}
	}
	for i, j := range w.resultsUntilFit(end, target) {
		b := &w.msgs[i].Blocks[j]
		c, ok := calls[b.ToolCallID]
		if !ok || newest[c] == b.ToolCallID {
			continue
		}
		text := stub(c.name, b)
		if text == "" || len(text) >= len(b.Text) { // "": the stub would be no shorter
			continue
		}
		removed += w.setBlock(i, j, resultBlock(b, text))
		touched++
	}
	return touched, removed
}

// randomCalls is a history of n turns of calls drawn from few tools and
// arguments, so that calls repeat; ids repeat now and then (smith never
// writes that, a corrupt log might), a call may have no result or a result
// no call, and a tool message may hold two results.
func randomCalls(r *rand.Rand, n int) []corpus.Message {
	tools := []string{"read_file", "grep", "glob", "bash"}
	var h []corpus.Message
	for i := range n {
		h = append(h, userMsg(fmt.Sprintf("turn %d", i)))
		calls := 1 + r.IntN(2)
		var uses, res []corpus.Block
		for range calls {
			id := fmt.Sprintf("c%d", r.IntN(3*n+1))
			uses = append(uses, corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tools[r.IntN(len(tools))], Args: []byte(fmt.Sprintf(`{"path":"f%d"}`, r.IntN(4)))})
			if r.IntN(10) > 0 {
				res = append(res, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: strings.Repeat("r", r.IntN(3000)), IsError: r.IntN(5) == 0})
			}
		}
		h = append(h, corpus.Message{Role: corpus.RoleAssistant, Blocks: uses})
		if len(res) > 0 {
			h = append(h, corpus.Message{Role: corpus.RoleTool, Blocks: res})
		}
	}
	return ids(h)
}

// TestSupersedeDuplicatesMatchesOracle runs both versions on the same
// random histories, at targets from "never fits" to "fits at once", with
// every window end, and compares what they report and write.
func TestSupersedeDuplicatesMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 7))
	m, err := NewMeter(MeterBytes4, MeterOptions{Signatures: true})
	if err != nil {
		t.Fatal(err)
	}
	stubbed := 0 // rounds that stubbed something: the test must reach the rewrites
	toolSets := []map[string]bool{{"read_file": true, "grep": true, "glob": true}, {"bash": true}, {}, {"read_file": true}}
	for round := range 400 {
		h := randomCalls(r, r.IntN(12))
		tools := toolSets[round%len(toolSets)]
		total := newWorking(h, m).tokens()
		for _, target := range []int{-1, total / 2, total - 300, total} {
			end := r.IntN(len(h) + 1)
			got, want := newWorking(h, m), newWorking(h, m)
			gn, gb := got.supersedeDuplicates(end, target, tools, smithSupersededStub)
			wn, wb := want.supersedeDuplicatesRef(end, target, tools, smithSupersededStub)
			if gn != wn || gb != wb || got.total != want.total || !reflect.DeepEqual(got.msgs, want.msgs) {
				t.Fatalf("round %d, end %d, target %d: touched %d, removed %d, total %d; the oracle: %d, %d, %d",
					round, end, target, gn, gb, got.total, wn, wb, want.total)
			}
			stubbed += min(gn, 1)
		}
	}
	if stubbed < 100 {
		t.Fatalf("only %d compactions stubbed a result", stubbed)
	}
}

// TestSmithSupersededStub holds the stub to the text smith writes, built
// whatever its length, and checks that it says "" exactly when that text
// would be no shorter than the result, at the lengths where the KiB count
// gains a digit.
func TestSmithSupersededStub(t *testing.T) {
	ref := func(name string, b *corpus.Block) string {
		return "[" + name + ": " + smithSupersededMarker + ", " + strconv.Itoa(len(b.Text)/1024) + " KiB omitted by smith]"
	}
	short, long := 0, 0
	for _, name := range []string{"", "grep", "read_file"} {
		for _, n := range []int{0, 1, 60, 75, 76, 77, 78, 80, 90, 1023, 1024, 10239, 10240, 102400, 1 << 20} {
			for d := -2; d <= 2; d++ {
				b := &corpus.Block{Kind: corpus.KindToolResult, Text: strings.Repeat("r", max(0, n+d))}
				want := ref(name, b)
				if len(want) >= len(b.Text) {
					want, long = "", long+1
				} else {
					short++
				}
				if got := smithSupersededStub(name, b); got != want {
					t.Errorf("stub of %q for %d bytes = %q, want %q", name, len(b.Text), got, want)
				}
			}
		}
	}
	if short == 0 || long == 0 {
		t.Fatalf("cases: %d shorter, %d not: both kinds are needed", short, long)
	}
}

func TestDecimalLen(t *testing.T) {
	for _, n := range []int{0, 1, 9, 10, 11, 99, 100, 999, 1000, 123456789, math.MaxInt32, math.MaxInt} {
		if got, want := decimalLen(n), len(strconv.Itoa(n)); got != want {
			t.Errorf("decimalLen(%d) = %d, want %d", n, got, want)
		}
	}
}
