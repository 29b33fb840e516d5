package loss_test

import (
	"context"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
	"github.com/calib-dev/calib/replay/loss"
)

// resultTokenClearing sets clear-tool-results to clear at 60,000 tokens of
// uncleared results, keeping the newest keep results, any tool, with the
// step being sent protected or not: a rule this scenario (smith tool names,
// well under Claude Code's 148,500-token context trigger) sets off.
func resultTokenClearing(keep, protect string) map[string]string {
	return map[string]string{"trigger": "result_tokens", "trigger_at": "60000", "keep": "results", "keep_value": keep,
		"compactable_tools": "", "protect_pending": protect}
}

// replayLoss replays s through a policy with the loss tracker.
func replayLoss(t testing.TB, s *corpus.Session, name string, set map[string]string) (*replay.Trace, *loss.Index, loss.Report) {
	t.Helper()
	p, err := policy.New(name, set)
	if err != nil {
		t.Fatal(err)
	}
	ix := loss.Build(s, loss.Options{})
	trace, err := replay.Run(context.Background(), s, p, replay.Options{Loss: ix})
	if err != nil {
		t.Fatal(err)
	}
	return trace, ix, *trace.Loss
}

// The loss scenario through each agent's policy. The designed results have
// one known fate each: the file named again is needed by name and lost; the
// file never mentioned is hidden at no cost; the file read again right
// before the message that names it is needed and refetched, not lost; the
// quoted output line is needed by quote and lost, when the policy hides it
// (smith's truncation reaches its target before that 2 KB result). No
// filler is ever needed. Where the step being sent is protected nothing is
// unseen; clear-tool-results without that protection (Claude Code's own
// setting) clears, at its first event, the result that has just arrived:
// one unseen.
//
// Hidden counts are each policy's own rules: smith truncates 9 results
// largest first in its one compaction; clear-tool-results clears all but
// the newest 4 (0) results at each of its events; clai-rotation rotates
// out 8, 6 and 6 results at its 3 rotations. For the first two the count
// is checked against the blocks the policy reports it touched.
func TestSyntheticScenario(t *testing.T) {
	cases := []struct {
		name, policy string
		set          map[string]string
		payload      bool
		quotedHidden bool
		want         loss.Counts // RefetchTokens is the refetched file's size
	}{
		{"smith-staged", "smith-staged", nil, false, false, loss.Counts{Hidden: 9, Needed: 2, Refetched: 1, Lost: 1}},
		{"clear-tool-results", "clear-tool-results", resultTokenClearing("4", "true"), false, true, loss.Counts{Hidden: 22, Needed: 3, Refetched: 1, Lost: 2}},
		{"clear-tool-results-keep0", "clear-tool-results", resultTokenClearing("0", "true"), false, true, loss.Counts{Hidden: 28, Needed: 3, Refetched: 1, Lost: 2}},
		{"clear-tool-results-unprotected", "clear-tool-results", resultTokenClearing("0", "false"), false, true, loss.Counts{Hidden: 15, Unseen: 1, Needed: 3, Refetched: 1, Lost: 2}},
		{"clai-rotation", "clai-rotation", map[string]string{"trigger_chars": "20000"}, true, true, loss.Counts{Hidden: 20, Needed: 3, Refetched: 1, Lost: 2}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := synth.Loss(synth.LossOptions{Filler: 24, FillerBytes: 16000, FileBytes: 24000, Payload: tc.payload, Seed: 7})
			s := &corpus.Session{ID: "loss-" + tc.name, Format: corpus.FormatSmithTranscript, Messages: sc.Messages}
			if tc.payload {
				s.Format = corpus.FormatClai
			}
			trace, ix, rep := replayLoss(t, s, tc.policy, tc.set)
			byID := map[string]*loss.Signal{}
			for _, g := range rep.Signals {
				byID[g.Result.ID] = g
			}
			last := len(sc.Messages) - 1 // the message naming the files and quoting the line
			if g := byID[sc.Used]; g == nil || !g.Lost || g.NeededMsg != last || g.NeededBy != "name" || g.FetchedMsg >= 0 {
				t.Errorf("used file: %+v, want needed by name at %d, lost", g, last)
			} else if g.NeededRequest != len(trace.Requests)-1 || g.NeededRequest <= g.Hide.Request {
				t.Errorf("used file needed at request %d, want the last (%d), after it was hidden (%d)", g.NeededRequest, len(trace.Requests)-1, g.Hide.Request)
			}
			if g := byID[sc.Unused]; g == nil || g.Needed() || g.Lost {
				t.Errorf("unused file: %+v, want hidden, not needed", g)
			}
			if g := byID[sc.Refetched]; g == nil || g.Lost || !g.Refetched || g.FetchedMsg != last-2 || g.NeededMsg != last {
				t.Errorf("refetched file: %+v, want fetched at %d, needed at %d, not lost", g, last-2, last)
			}
			if g := byID[sc.Quoted]; (g != nil) != tc.quotedHidden || (g != nil && (!g.Lost || g.NeededBy != "quote")) {
				t.Errorf("quoted output: %+v, want hidden=%v and then lost by quote", g, tc.quotedHidden)
			}
			for _, id := range sc.Fillers {
				if g := byID[id]; g != nil && (g.Needed() || g.FetchedMsg >= 0) {
					t.Errorf("filler %s: %+v, want never needed nor fetched", id, g)
				}
			}
			want := tc.want
			want.RefetchTokens = ix.Tokens(byID[sc.Refetched].Result)
			if tc.payload {
				// A structured result is measured as its payload's JSON,
				// as the meters measure it (it weighed the strings joined).
				r := byID[sc.Refetched].Result
				b := &s.Messages[r.Msg].Blocks[r.Block]
				chars4, _ := policy.NewMeter(policy.MeterChars4, policy.MeterOptions{})
				if b.Text != "" || want.RefetchTokens != int(chars4.Block(&corpus.Block{Kind: corpus.KindText, Text: string(b.Payload)})) {
					t.Errorf("refetched result: %d tokens, want the chars4 size of its %d-byte payload", want.RefetchTokens, len(b.Payload))
				}
			}
			if rep.Counts != want {
				t.Errorf("counts = %+v, want %+v", rep.Counts, want)
			}
			if tc.policy != "clai-rotation" {
				touched := 0
				for _, e := range trace.Events {
					for _, st := range e.Outcome.Stages {
						touched += st.BlocksTouched
					}
				}
				if touched != rep.Hidden {
					t.Errorf("policy touched %d blocks, tracker hid %d results", touched, rep.Hidden)
				}
			}
		})
	}
}
