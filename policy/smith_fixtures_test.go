package policy

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// Builders for smith histories, named as smith's own specs name them
// (specs/smith.md §4).

func userMsg(text string) corpus.Message {
	return corpus.Message{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}}
}

func syntheticMsg(text string) corpus.Message {
	m := userMsg(text)
	m.Synthetic = true
	return m
}

func callMsg(id, tool, args string) corpus.Message {
	return corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: tool, Args: []byte(args)}}}
}

func resultMsg(id, text string, isErr bool) corpus.Message {
	return corpus.Message{Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id, Text: text, IsError: isErr}}}
}

// conversation is smith's conversation(n, result_bytes): n turns of
// user "request number i" → bash call "call-i" → a result of "x"×bytes.
func conversation(n, bytes int) []corpus.Message {
	var h []corpus.Message
	for i := range n {
		id := fmt.Sprintf("call-%d", i)
		h = append(h, userMsg(fmt.Sprintf("request number %d", i)), callMsg(id, "bash", `{"command":"ls"}`), resultMsg(id, strings.Repeat("x", bytes), false))
	}
	return ids(h)
}

// repeated is smith's repeated(n, tool, bytes): the same call every turn.
func repeated(n int, tool string, bytes int) []corpus.Message {
	var h []corpus.Message
	for i := range n {
		id := fmt.Sprintf("c%d", i)
		h = append(h, userMsg(fmt.Sprintf("look again %d", i)), callMsg(id, tool, `{"path":"src/agent.cr"}`), resultMsg(id, strings.Repeat("r", bytes), false))
	}
	return ids(h)
}

// withQuietTail adds 3 small bash turns, so the recency window holds
// little and each example is about the stage it names.
func withQuietTail(h []corpus.Message) []corpus.Message {
	for i := range 3 {
		id := fmt.Sprintf("tail-%d", i)
		h = append(h, userMsg(fmt.Sprintf("small step %d", i)), callMsg(id, "bash", `{"command":"true"}`), resultMsg(id, "ok", false))
	}
	return ids(h)
}

// ids gives every message a deterministic id (m<index>).
func ids(h []corpus.Message) []corpus.Message {
	for i := range h {
		h[i].ID = fmt.Sprintf("m%d", i)
	}
	return h
}

func newPolicy(t testing.TB, name, set string) Policy {
	t.Helper()
	kv := map[string]string{}
	if set != "" {
		var err error
		if kv, err = ParseSet([]string{set}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(name, kv)
	if err != nil {
		t.Fatalf("New(%s, %s): %v", name, set, err)
	}
	return p
}

func staged(t testing.TB, set string) Policy { return newPolicy(t, "smith-staged", set) }
func legacy(t testing.TB, set string) Policy { return newPolicy(t, "smith-legacy", set) }

func units(p Policy, h []corpus.Message) int64 {
	var n int64
	for i := range h {
		u, _, _ := p.Measure(&h[i])
		n += u
	}
	return n
}

// compact runs one checkpoint the way the replay does (units kept by the
// caller) and checks what every outcome must satisfy: tool pairing, no
// empty message, the input untouched, Units = Σ Measure over the result,
// None means the very same slice.
func compact(t *testing.T, p Policy, h []corpus.Message) Outcome {
	t.Helper()
	snapshot := deepCopy(h)
	o := p.Compact(h, Checkpoint{Units: units(p, h), Count: int64(len(h))})
	if !reflect.DeepEqual(h, snapshot) {
		t.Fatal("Compact modified its input history")
	}
	assertToolPairing(t, o.History)
	for i, m := range o.History {
		if len(m.Blocks) == 0 {
			t.Fatalf("message %d (%s) left with no blocks", i, m.Role)
		}
	}
	if got := units(p, o.History); got != o.Units || o.Count != int64(len(o.History)) {
		t.Fatalf("Outcome.Units=%d Count=%d, but the history measures %d units in %d messages", o.Units, o.Count, got, len(o.History))
	}
	if o.Strategy == None && !sameSlice(o.History, h) {
		t.Fatal("strategy None but a different history was returned")
	}
	if o.Strategy != None && o.AfterTokens > o.BeforeTokens {
		t.Fatalf("%s grew the history: %d -> %d", o.Strategy, o.BeforeTokens, o.AfterTokens)
	}
	return o
}

func deepCopy(h []corpus.Message) []corpus.Message {
	out := slices.Clone(h)
	for i := range out {
		out[i].Blocks = slices.Clone(out[i].Blocks)
	}
	return out
}

// assertToolPairing is smith's assert_tool_pairing: the sorted tool_use ids
// equal the sorted tool_result ids, and ids are unique.
func assertToolPairing(t testing.TB, h []corpus.Message) {
	t.Helper()
	if err := toolPairing(h); err != nil {
		t.Fatal(err)
	}
}

func toolPairing(h []corpus.Message) error {
	var uses, results []string
	for _, m := range h {
		for _, b := range m.Blocks {
			switch b.Kind {
			case corpus.KindToolUse:
				uses = append(uses, b.ToolCallID)
			case corpus.KindToolResult:
				results = append(results, b.ToolCallID)
			}
		}
	}
	sort.Strings(uses)
	sort.Strings(results)
	if !slices.Equal(uses, results) {
		return fmt.Errorf("tool pairing broken: tool_use ids %v, tool_result ids %v", uses, results)
	}
	if len(slices.Compact(slices.Clone(uses))) != len(uses) {
		return fmt.Errorf("duplicate tool_use ids: %v", uses)
	}
	return nil
}

// results returns the texts of every tool_result, in order.
func results(h []corpus.Message) []string {
	var out []string
	for _, m := range h {
		for _, b := range m.Blocks {
			if b.Kind == corpus.KindToolResult {
				out = append(out, b.Text)
			}
		}
	}
	return out
}

func stageNames(o Outcome) []string {
	var out []string
	for _, s := range o.Stages {
		out = append(out, s.Name)
	}
	return out
}
