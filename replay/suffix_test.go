package replay

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/loss"
)

// TestLossSuffixReadMatchesWholeRead replays tool-heavy sessions through
// policies that clear or cap results at many requests (copied outcomes
// that keep every message: the loss tracker then reads only from the
// first changed message, keepsEveryResult) and through ones that
// summarize or drop (it reads everything), and requires the same loss
// report and trace as a replay whose tracker reads the whole history at
// every compaction.
func TestLossSuffixReadMatchesWholeRead(t *testing.T) {
	s := synth.ToolHeavySession(1500)
	ix := loss.Build(s, loss.Options{})
	for _, c := range []struct {
		name string
		set  map[string]string
	}{
		{"swe-agent", nil},
		{"opencode", map[string]string{"prune.keep_value": "4000", "prune.min_reclaim": "1000"}},
		{"gemini-cli", nil},
		{"anthropic-context-editing", map[string]string{"clear-tool-uses.trigger_at": "20000"}},
		{"smith-staged", nil},
		{"clear-tool-results", map[string]string{"trigger_at": "30000", "keep_value": "10000", "min_reclaim": "2000",
			"compactable_tools": "read_file,bash,grep,glob"}},
		{"claude-code", nil},
		{"aider", nil},
		{"cline", map[string]string{"truncate.trigger_at": "190000"}}, // drops a middle after the first pair
	} {
		t.Run(c.name, func(t *testing.T) {
			var got [2]*Trace
			for k, readAll := range []bool{false, true} {
				p, err := policy.New(c.name, c.set)
				if err != nil {
					t.Fatal(err)
				}
				r := newRun(s, p, Options{Loss: ix})
				r.readAll = readAll
				if err := r.feed(context.Background(), s.Messages, 0); err != nil {
					t.Fatal(err)
				}
				rep := r.loss.Report()
				r.t.Loss = &rep
				got[k] = r.t
			}
			if len(got[1].Events) == 0 || got[1].Loss.Hidden == 0 {
				t.Fatalf("%d compactions, %d results hidden: the case tests nothing", len(got[1].Events), got[1].Loss.Hidden)
			}
			if !reflect.DeepEqual(got[0].Loss, got[1].Loss) {
				t.Errorf("loss read from the changed suffix:\n%+v\nread whole:\n%+v", got[0].Loss, got[1].Loss)
			}
			if !reflect.DeepEqual(got[0].Events, got[1].Events) || len(got[0].Violations) != 0 {
				t.Errorf("traces differ, or violations: %v", got[0].Violations)
			}
		})
	}
	// A compaction that takes a result block out of a message and keeps
	// the message (no policy does today) must be read whole too.
	t.Run("result block removed", func(t *testing.T) {
		var got [2]*loss.Report
		for k, readAll := range []bool{false, true} {
			p, err := policy.New("swe-agent", nil)
			if err != nil {
				t.Fatal(err)
			}
			r := newRun(s, &dropsResult{Policy: p}, Options{Loss: ix})
			r.readAll = readAll
			if err := r.feed(context.Background(), s.Messages, 0); err != nil {
				t.Fatal(err)
			}
			rep := r.loss.Report()
			got[k] = &rep
		}
		if got[1].Hidden == 0 || !reflect.DeepEqual(got[0], got[1]) {
			t.Errorf("loss read from the changed suffix:\n%+v\nread whole:\n%+v", got[0], got[1])
		}
	})
}

// dropsResult is a policy whose every compaction also takes the last tool
// result block out of the message holding it, leaving the message.
type dropsResult struct{ policy.Policy }

func (d *dropsResult) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	at.Owned = false
	o := d.Policy.Compact(h, at)
	if o.Strategy == policy.None {
		return o
	}
	hist := slices.Clone(o.History)
	for i := len(hist) - 2; i >= 0; i-- { // not the step about to be sent
		m := &hist[i]
		for j := len(m.Blocks) - 1; j >= 0; j-- {
			if m.Blocks[j].Kind == corpus.KindToolResult && len(m.Blocks) > 1 {
				m.Blocks = slices.Delete(slices.Clone(m.Blocks), j, j+1)
				o.History = hist
				return o
			}
		}
	}
	return o
}
