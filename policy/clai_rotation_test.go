package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// claiID is a UUID-shaped id, as clai's are (36 bytes).
func claiID(kind, n int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", kind, n) }

// claiFill is n bytes of prose-like ASCII, varied by k.
func claiFill(n, k int) string {
	const words = "the router drops a frame when the queue is full so we retry later and log it "
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(words[k%17:])
	}
	return b.String()[:n]
}

// claiTurns is a clai HTTP-engine-like session: per turn a user message,
// an assistant message with a tool call, its tool result and a final
// assistant answer, sized so that a rotation comes every ~18 turns and a
// legacy digest grows by ~58 KB per rotation (the seed's profile: 56 KB
// first digest, ~45 KB more per rotation).
func claiTurns(n int) []corpus.Message {
	var out []corpus.Message
	for t := range n {
		k := 4 * t
		call := fmt.Sprintf("call_%d", t)
		out = append(out,
			claiMsg(claiID(1, k), corpus.RoleUser, claiText(claiFill(200+(t*37)%100, t))...),
			claiMsg(claiID(2, k+1), corpus.RoleAssistant,
				corpus.Block{Kind: corpus.KindText, Text: claiFill(1500+(t*53)%400, t+1)},
				corpus.Block{Kind: corpus.KindToolUse, ToolCallID: call, ToolName: "bash",
					Args: []byte(`{"command":"` + claiFill(150, t) + `"}`)}),
			claiMsg(claiID(3, k+2), corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: call,
				Payload: []byte(`{"stdout":"` + claiFill(3000+(t*71)%2000, t+2) + `"}`)}),
			claiMsg(claiID(4, k+3), corpus.RoleAssistant, claiText(claiFill(800, t+3))...),
		)
	}
	return out
}

// claiRun drives a policy over msgs exactly as the replay engine's contract
// says (policy.go): checkpoint, compact before appending, running sums of
// Measure. It returns the rotations' outcomes.
func claiRun(t testing.TB, p Policy, msgs []corpus.Message, maxRotations int) []Outcome {
	t.Helper()
	var working []corpus.Message
	var units int64
	var counted int64
	var prev *corpus.Message
	var rotations []Outcome
	for i := range msgs {
		m := &msgs[i]
		if p.Checkpoint("", prev, m) {
			out := p.Compact(working, Checkpoint{Units: units, Count: counted})
			if out.Strategy != None {
				rotations = append(rotations, out)
				working, units, counted = out.History, out.Units, out.Count
				if len(rotations) == maxRotations {
					return rotations
				}
			} else if len(out.History) != len(working) {
				t.Fatalf("strategy none changed the history")
			}
		}
		working = append(working, *m)
		u, c, _ := p.Measure(m)
		units += u
		counted += c
		prev = m
	}
	return rotations
}

func claiPolicy(t testing.TB, set map[string]string) *claiRotation {
	t.Helper()
	p, err := New(ClaiRotationName, set)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*claiRotation)
}

// The later upstream tests of should_auto_compact (specs §4).
func TestClaiShouldAutoCompact(t *testing.T) {
	filler := func(n int, big bool) []corpus.Message {
		var v []corpus.Message
		for i := range n {
			s := "filler"
			if big && i == n/2 {
				s = strings.Repeat("x", 120_000)
			}
			v = append(v, claiMsg(claiID(9, i), []corpus.Role{corpus.RoleUser, corpus.RoleAssistant}[i%2], claiText(s)...))
		}
		return v
	}
	tests := []struct {
		name string
		view []corpus.Message
		want bool
	}{
		{"requires the minimum message count: 39 with one of 120 000 bytes", filler(39, true), false},
		{"requires the estimated size: 40 filler messages", filler(40, false), false},
		{"40 with one of 120 000 bytes", filler(40, true), true},
		{"a huge digest does not count", append([]corpus.Message{{ID: "s", Role: corpus.RoleSystem, Source: claiCompactionSource,
			Blocks: claiText(strings.Repeat("d", 960_000))}}, filler(40, false)...), false},
	}
	pol := claiPolicy(t, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClaiShouldAutoCompact(tt.view, 24, 16, 120_000); got != tt.want {
				t.Errorf("ClaiShouldAutoCompact = %v, want %v", got, tt.want)
			}
			var units int64
			var counted int64
			for i := range tt.view {
				u, c, _ := pol.Measure(&tt.view[i])
				units += u
				counted += c
			}
			out := pol.Compact(tt.view, Checkpoint{Units: units, Count: counted})
			if (out.Strategy == Rotated) != tt.want {
				t.Errorf("policy strategy %s, want rotation %v", out.Strategy, tt.want)
			}
		})
	}
}

// select_compaction_window (specs §2.4 and the later upstream test
// forced_compaction_accepts_manual_minimum_history).
func TestClaiSelectCompactionWindow(t *testing.T) {
	view := func(n int) []corpus.Message {
		v := []corpus.Message{{ID: "sys", Role: corpus.RoleSystem, Blocks: claiText("not compactable")}}
		for i := range n {
			v = append(v, claiMsg(fmt.Sprintf("m%d", i), corpus.RoleUser, claiText("x")...))
		}
		return v
	}
	tests := []struct {
		n      int
		force  bool
		want   int // window length, 0 for None
		lastID string
	}{
		{41, false, 25, "m24"},
		{39, false, 0, ""},
		{40, false, 24, "m23"},
		{2, false, 0, ""},
		{2, true, 2, "m1"},
		{10, true, 2, "m1"},
		{1, true, 0, ""},
		{30, true, 14, "m13"},
	}
	for _, tt := range tests {
		w, ok := ClaiSelectCompactionWindow(view(tt.n), tt.force, 24, 16)
		if ok != (tt.want > 0) || len(w) != tt.want {
			t.Errorf("%d messages, force %v: window %d (ok %v), want %d", tt.n, tt.force, len(w), ok, tt.want)
			continue
		}
		if ok && (w[0].ID != "m0" || w[len(w)-1].ID != tt.lastID) {
			t.Errorf("%d messages, force %v: window %s..%s, want m0..%s", tt.n, tt.force, w[0].ID, w[len(w)-1].ID, tt.lastID)
		}
	}
	// The prior digest stays compactable (compaction.rs:280).
	v := append([]corpus.Message{{ID: "d", Role: corpus.RoleSystem, Source: claiCompactionSource, Blocks: claiText("digest")}}, view(40)...)
	if w, ok := ClaiSelectCompactionWindow(v, false, 24, 16); !ok || w[0].ID != "d" || len(w) != 25 {
		t.Errorf("a prior digest must be window message 0 of a 25-message window")
	}
}

func TestClaiCheckpointAndMeasure(t *testing.T) {
	pol := claiPolicy(t, nil)
	u := claiMsg("u", corpus.RoleUser, claiText("hi")...)
	a := claiMsg("a", corpus.RoleAssistant, claiText("hello")...)
	if pol.Checkpoint("", nil, &u) || !pol.Checkpoint("", &u, &a) || pol.Checkpoint("", &a, &u) {
		t.Errorf("clai checks right after a user message is stored (the run start), and only then")
	}
	if n, c, _ := pol.Measure(&a); n != 5+16 || c != 1 {
		t.Errorf("Measure(assistant hello) = %d, %d; want 21, 1", n, c)
	}
	s := corpus.Message{Role: corpus.RoleSystem, Source: claiCompactionSource, Blocks: claiText("digest")}
	if n, c, _ := pol.Measure(&s); n != 0 || c != 0 {
		t.Errorf("a summary must weigh nothing and not count")
	}
}
