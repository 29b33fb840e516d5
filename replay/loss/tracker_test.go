package loss

import (
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

func TestTracker(t *testing.T) {
	var b sessionBuilder
	b.user("go")
	b.call("r1", "read_file", `{"path":"a.go"}`, fileText("a.go", 3))
	b.call("r2", "read_file", `{"path":"b.go"}`, fileText("b.go", 3))
	b.call("r3", "bash", `{"command":"make all"}`, "built")
	b.call("r4", "bash", `{"command":"make test"}`, "passed")
	at1 := b.say("first compaction happens before this message")
	b.call("r5", "bash", `{"command":"make lint"}`, "clean")
	at2 := b.say("second")
	ix := Build(&b.s, Options{})
	tr := ix.NewTracker()
	msgs := b.s.Messages
	with := func(m corpus.Message, text string) corpus.Message {
		m.Blocks = slices.Clone(m.Blocks)
		m.Blocks[0].Text = text
		return m
	}
	// Event 0: r1 stubbed, r2 cut to its head, r3's messages dropped, r4
	// kept whole (the same text, shared).
	h1 := []corpus.Message{msgs[0], msgs[1], with(msgs[2], "[read_file: superseded]"), msgs[3],
		with(msgs[4], "     1→line 1 of b.go, long enough to be a content line here\n[... truncated]"), msgs[7], msgs[8]}
	stages := []policy.StageReport{{Name: "thinking", BlocksTouched: 3}, {Name: "duplicates", BlocksTouched: 1},
		{Name: "truncate", BlocksTouched: 1}, {Name: "summary", BlocksTouched: 2}}
	tr.Changed(4, at1, 0, h1, stages, policy.Summarized)
	// Event 1: everything whole that is left, r5 (arrived since) dropped,
	// r1 dropped again (already hidden: not re-hidden).
	h2 := []corpus.Message{msgs[7], msgs[8]}
	tr.Changed(6, at2, 1, h2, []policy.StageReport{{Name: "rotation", BlocksTouched: 4}}, policy.Rotated)
	got := tr.Hides()
	want := []Hide{
		{CallID: "r1", Request: 4, At: at1, Stage: "duplicates", Event: 0},
		{CallID: "r2", Request: 4, At: at1, Stage: "truncate", Event: 0, Kept: 63}, // its first line and newline
		{CallID: "r3", Request: 4, At: at1, Stage: "summary", Event: 0},
		{CallID: "r5", Request: 6, At: at2, Stage: "rotation", Event: 1},
	}
	if !slices.Equal(got, want) {
		t.Errorf("hides =\n%+v\nwant\n%+v", got, want)
	}
	rep := tr.Report()
	if rep.Hidden != 4 || rep.ByStage["truncate"].Hidden != 1 || rep.ByEvent[0].Hidden != 3 || rep.ByEvent[1].Hidden != 1 {
		t.Errorf("report = %+v", rep)
	}
	// r5 was hidden at the first request after it arrived.
	if rep.Unseen != 1 || !rep.Signals[3].Unseen {
		t.Errorf("unseen = %d, want 1 (r5)", rep.Unseen)
	}
}

// With no stage reports (a policy that records none), the strategy names
// the stage.
func TestTrackerStrategyAsStage(t *testing.T) {
	var b sessionBuilder
	b.call("r1", "bash", `{"command":"make all"}`, "built")
	at := b.say("x")
	tr := Build(&b.s, Options{}).NewTracker()
	tr.Changed(1, at, 0, nil, nil, policy.Dropped)
	if h := tr.Hides(); len(h) != 1 || h[0].Stage != "dropped" {
		t.Errorf("hides = %+v", h)
	}
}
