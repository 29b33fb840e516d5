package replay

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// A recorded clear stubs every result with a named id, also where a log
// reuses an id: the index of held results then knows one holder only, and
// the clear reads the history instead.
func TestClearFindsEveryHolder(t *testing.T) {
	res := func(id, text string) corpus.Message {
		return corpus.Message{Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: id, Text: text}}}
	}
	s := &corpus.Session{ID: "s", Messages: []corpus.Message{res("a", "first a"), res("b", "only b"), res("a", "second a")}}
	p, err := policy.New("claude-code", nil)
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(s, p, followRecording)
	for i := range s.Messages {
		w.add(&s.Messages[i])
	}
	if !w.held.dup {
		t.Fatal("an id held twice is not noted")
	}
	w.clear([]string{"a"}, "[cleared]")
	var got []string
	for i := range w.h {
		got = append(got, w.h[i].Blocks[0].Text)
	}
	if want := []string{"[cleared]", "only b", "[cleared]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after clearing a: %q, want %q", got, want)
	}
	if s.Messages[0].Blocks[0].Text != "first a" || s.Messages[2].Blocks[0].Text != "second a" {
		t.Error("the clear wrote to the session")
	}
	w.reset()
	w.add(&s.Messages[1])
	if w.held.dup || !w.held.has("b") || w.held.has("a") {
		t.Errorf("after a reset and b: held = %+v", w.held)
	}
}

// Clearing through the index of held results gives the walker the same
// history, sums, result marks and first changed message as reading the
// whole history (a walker without the index), clear after clear, across
// resets, with ids held and not held, one or several at a time.
func TestClearByHeldMatchesScan(t *testing.T) {
	s := manyClears(900)
	for _, name := range []string{"claude-code", "clear-tool-results"} {
		p, err := policy.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast := newWalker(s, p, followRecording)
		slow := newWalker(s, p, followRecording)
		slow.held = nil
		rng := rand.New(rand.NewPCG(1, 2))
		var ids, gone []string // held now; held before the reset
		clears := 0
		for i := range s.Messages {
			if i == 400 {
				fast.reset()
				slow.reset()
				ids, gone = nil, ids
			}
			m := &s.Messages[i]
			fast.add(m)
			slow.add(m)
			for _, b := range m.Blocks {
				if b.Kind == corpus.KindToolResult {
					ids = append(ids, b.ToolCallID)
				}
			}
			if i%7 != 6 || len(ids) == 0 {
				continue
			}
			var clear []string
			for range 1 + rng.IntN(3) {
				clear = append(clear, ids[rng.IntN(len(ids))])
			}
			clear = append(clear, "never-held")
			if len(gone) > 0 {
				clear = append(clear, gone[rng.IntN(len(gone))])
			}
			for _, id := range clear {
				if fast.held.has(id) != holds(slow.h, id) {
					t.Fatalf("%s, message %d: held.has(%q) = %v, the history says otherwise", name, i, id, fast.held.has(id))
				}
			}
			fast.clear(clear, "[cleared]")
			slow.clear(clear, "[cleared]")
			clears++
			if !reflect.DeepEqual(fast.h, slow.h) || fast.sum != slow.sum || !reflect.DeepEqual(fast.results, slow.results) || fast.dirty != slow.dirty {
				t.Fatalf("%s, message %d, clearing %q: the walker with the index differs from the one reading the history", name, i, clear)
			}
		}
		if fast.held.dup || clears < 100 {
			t.Fatalf("%s: %d clears, dup %v: the test did not exercise the index", name, clears, fast.held.dup)
		}
	}
}

// holds reports whether h has a tool result with this id.
func holds(h []corpus.Message, id string) bool {
	for i := range h {
		for _, b := range h[i].Blocks {
			if b.Kind == corpus.KindToolResult && b.ToolCallID == id {
				return true
			}
		}
	}
	return false
}
