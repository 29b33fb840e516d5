package loss

import (
	"maps"
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
		with(msgs[4], "     1→line 1 of b_go, long enough to be a content line here\n[... truncated]"), msgs[7], msgs[8]}
	stages := []policy.StageReport{{Name: "thinking", BlocksTouched: 3}, {Name: "duplicates", BlocksTouched: 1},
		{Name: "truncate", BlocksTouched: 1}, {Name: "summary", BlocksTouched: 2}}
	tr.Changed(4, at1, 0, h1, 0, stages, policy.Summarized)
	// Event 1: everything whole that is left, r5 (arrived since) dropped,
	// r1 dropped again (already hidden: not re-hidden).
	h2 := []corpus.Message{msgs[7], msgs[8]}
	tr.Changed(6, at2, 1, h2, 0, []policy.StageReport{{Name: "rotation", BlocksTouched: 4}}, policy.Rotated)
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
	tr.Changed(1, at, 0, nil, 0, nil, policy.Dropped)
	if h := tr.Hides(); len(h) != 1 || h[0].Stage != "dropped" {
		t.Errorf("hides = %+v", h)
	}
}

// A stage that reports no blocks touched still names what it hid, not the
// strategy: codex's compact stage reported none, and its results went
// under "rotated", a stage codex does not have.
func TestTrackerStageWithoutBlocks(t *testing.T) {
	var b sessionBuilder
	b.call("r1", "bash", `{"command":"make all"}`, "built")
	at := b.say("x")
	tr := Build(&b.s, Options{}).NewTracker()
	tr.Changed(1, at, 0, nil, 0, []policy.StageReport{{Name: "compact"}}, policy.Rotated)
	if h := tr.Hides(); len(h) != 1 || h[0].Stage != "compact" {
		t.Errorf("hides = %+v; want one, by compact", h)
	}
}

// Stages that list the ids they hid (the recorded policy's) name the stage
// of each: at one request a microcompact boundary and persisted outputs
// both put a marker where a result was, so how the text changed cannot
// tell them apart. A result two stages list is the first one's; a result
// no stage lists falls back to the inference.
func TestTrackerListedStages(t *testing.T) {
	var b sessionBuilder
	b.user("go")
	b.call("r1", "read_file", `{"path":"a.go"}`, fileText("a.go", 3))
	b.call("r2", "read_file", `{"path":"b.go"}`, fileText("b.go", 3))
	b.call("r3", "bash", `{"command":"make all"}`, "built")
	b.call("r4", "bash", `{"command":"make test"}`, "passed")
	at := b.say("after the compaction")
	msgs := b.s.Messages
	marker := func(m corpus.Message) corpus.Message {
		m.Blocks = slices.Clone(m.Blocks)
		m.Blocks[0].Text = "<persisted-output>Tool result saved to: x\n\nUse Read to view</persisted-output>"
		return m
	}
	// r1 and r2 become markers, r3 and r4 leave the history.
	h := []corpus.Message{msgs[0], msgs[1], marker(msgs[2]), msgs[3], marker(msgs[4])}
	run := func(stages []policy.StageReport) map[string]string {
		tr := Build(&b.s, Options{}).NewTracker()
		tr.Changed(1, at, 0, h, 0, stages, policy.Summarized)
		got := map[string]string{}
		for _, hd := range tr.Hides() {
			got[hd.CallID] = hd.Stage
		}
		return got
	}
	listed := []policy.StageReport{
		{Name: "microcompact", BlocksTouched: 1, Hid: []string{"r1"}},
		{Name: "persisted", BlocksTouched: 1, Hid: []string{"r2"}},
		{Name: "compact", BlocksTouched: 6, Hid: []string{"r3", "r1"}},
	}
	want := map[string]string{"r1": "microcompact", "r2": "persisted", "r3": "compact", "r4": "compact"}
	if got := run(listed); !maps.Equal(got, want) {
		t.Errorf("with ids: %v, want %v", got, want)
	}
	// Without the ids, both markers go to the first text stage.
	for i := range listed {
		listed[i].Hid = nil
	}
	want["r2"] = "microcompact"
	if got := run(listed); !maps.Equal(got, want) {
		t.Errorf("inferred: %v, want %v", got, want)
	}
}

// TestTrackerReadsTheChangedSuffix follows one replay twice, the tracker
// told which compactions were made in place (Changed's same: it then
// reads only from there and what was appended) and not: the hides must
// be the same. The in-place ones stub a result appended since the last
// call and one in the part read then, a result arrives whole, and one
// arrives but is not in the history (absent).
func TestTrackerReadsTheChangedSuffix(t *testing.T) {
	var b sessionBuilder
	b.user("go")
	b.call("r1", "bash", `{"command":"ls"}`, "a b c")
	b.call("r2", "bash", `{"command":"make"}`, "built")
	b.call("r3", "bash", `{"command":"make test"}`, "passed")
	at1 := b.say("one")
	b.call("r4", "bash", `{"command":"make lint"}`, "clean")
	b.call("r5", "bash", `{"command":"make vet"}`, "vetted")
	at2 := b.say("two")
	b.call("r6", "bash", `{"command":"git diff"}`, "no diff")
	at3 := b.say("three")
	ix := Build(&b.s, Options{})
	msgs := b.s.Messages
	stub := func(m corpus.Message) corpus.Message {
		m.Blocks = slices.Clone(m.Blocks)
		m.Blocks[0].Text = "[cleared]"
		return m
	}
	h1 := slices.Clone(msgs[:at1])
	h1[2] = stub(h1[2])                      // r1
	h2 := slices.Concat(h1, msgs[at1:at2-1]) // r5's result not in it
	h2[at1+2] = stub(h2[at1+2])              // r4, appended since
	h3 := slices.Concat(h2, msgs[at2:at3])
	h3[4] = stub(h3[4]) // r2, read at the first call
	clear := []policy.StageReport{{Name: "clear", BlocksTouched: 1}}
	var hides [2][]Hide
	for k, inPlace := range []bool{false, true} {
		tr := ix.NewTracker()
		same := func(i int) int {
			if inPlace {
				return i
			}
			return 0
		}
		tr.Changed(1, at1, 0, h1, 0, clear, policy.Truncated)
		tr.Changed(2, at2, 1, h2, same(at1+2), clear, policy.Truncated)
		tr.Changed(3, at3, 2, h3, same(4), clear, policy.Truncated)
		hides[k] = tr.Hides()
	}
	want := []Hide{
		{CallID: "r1", Request: 1, At: at1, Stage: "clear", Event: 0},
		{CallID: "r4", Request: 2, At: at2, Stage: "clear", Event: 1},
		{CallID: "r5", Request: 2, At: at2, Stage: "clear", Event: 1},
		{CallID: "r2", Request: 3, At: at3, Stage: "clear", Event: 2},
	}
	if !slices.Equal(hides[0], want) || !slices.Equal(hides[1], want) {
		t.Errorf("hides reading everything\n%+v\nreading the changed suffix\n%+v\nwant\n%+v", hides[0], hides[1], want)
	}
}

// A replay that hid nothing reads no call's subject: its report returns
// before the index prepares anything.
func TestReportWithoutHidesPreparesNothing(t *testing.T) {
	var b sessionBuilder
	b.user("go")
	b.call("r1", "read_file", `{"path":"a.go"}`, fileText("a.go", 3))
	b.say("done")
	ix := Build(&b.s, Options{})
	rep := ix.NewTracker().Report()
	if rep.Hidden != 0 || len(rep.Signals) != 0 {
		t.Fatalf("report of no hides: %+v", rep.Counts)
	}
	if ix.all != nil || ix.Results[0].Tool != "" {
		t.Errorf("a report with no hides prepared the index")
	}
}
