package main

import (
	"maps"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/loss"
)

// recordedStageLoss is what `calib replay -p recorded` reports for each
// session of corpus-real/claude-code that hid something: the stage of the
// recorded events that hid its results (each of these sessions records one
// kind) and its loss counts. The counts are those of the replay before the
// recorded policy named its stages (they were filed under the strategies
// "summarized" and "truncated" then): naming the stages moves no result.
// Every other session hides nothing.
var recordedStageLoss = []struct {
	id    string
	stage string
	want  loss.Counts
}{
	// Claude Code 1.0.53: compact summaries (isCompactSummary). A call
	// that failed fetches nothing back (3, 3 and 4 such refetches before:
	// failed Edits, MultiEdits that changed nothing), and a failed Write
	// or Read holds nothing to need (one in 9034225e).
	{"0a725fb5-6378-432a-9e84-9f3f49d4043d", "compact", counts(153, 1, 30, 22, 8, 8320)},
	{"9034225e-c367-4ab6-b1eb-1f478a7ae27a", "compact", counts(129, 1, 13, 18, 6, 12672)},
	{"f67ab274-e83b-41ac-ac85-77488d6b5c28", "compact", counts(218, 2, 26, 20, 24, 20650)},
	// Claude Code 2.1.9+: microcompact_boundary lines (every id they list
	// has a persisted file; the boundary recorded the event).
	{"b3533c53-3dba-422e-8f02-d0d42214ade0", "microcompact", counts(11, 0, 0, 5, 0, 40450)},
	{"fc491683-57ba-4bbf-afd0-3362025e7aa7", "microcompact", counts(6, 0, 5, 1, 4, 7093)},
	{"9a91e9d0-b627-4bcb-b8f6-4e5d7c63118f", "microcompact", counts(6, 0, 5, 1, 4, 7093)},
	{"b151f674-388c-48f0-9b04-0384f5a0bfb1", "microcompact", counts(6, 0, 0, 0, 0, 0)},
	{"d9add9a6-f2cd-42f6-8ae9-135bf8af37ec", "microcompact", counts(6, 0, 5, 1, 4, 7093)},
	// Claude Code 2.0.60–2.1.6: persisted outputs no boundary recorded,
	// placed at cache breaks (the -bad sessions of the phantom-reads
	// investigation).
	{"504216d1-8285-4ec4-92be-0db8dc92a18a", "persisted", counts(24, 0, 9, 5, 8, 6530)},
	{"b6240830-5041-465e-aad0-910c13cd9b6c", "persisted", counts(13, 0, 6, 3, 5, 22665)},
	{"bf88e2ff-ac8b-4f29-8dbf-c2467325fe4e", "persisted", counts(14, 0, 10, 2, 10, 7021)},
	{"c172889a-aa67-452b-b5c9-81f1e500de7d", "persisted", counts(17, 0, 8, 6, 5, 5118)},
}

// counts is a loss.Counts in its field order: hidden, unseen, needed,
// refetched, lost, refetch tokens.
func counts(hidden, unseen, needed, refetched, lost, refetchTokens int) loss.Counts {
	return loss.Counts{Hidden: hidden, Unseen: unseen, Needed: needed, Refetched: refetched, Lost: lost, RefetchTokens: refetchTokens}
}

// `calib replay -p recorded` files every hidden result under the recorded
// event that hid it: by_stage, the losses list and the compactions' stages
// name only the recorded policy's stages, never an outcome strategy, and
// the loss totals are those of the replay before the stages were named.
func TestRealCorpusRecordedStages(t *testing.T) {
	dir := realcorpus.Dir(t, "claude-code")
	var rep struct {
		Sessions []struct {
			ID        string         `json:"id"`
			Reclaimed map[string]int `json:"reclaimed_by_stage"`
			Loss      struct {
				loss.Counts
				ByStage map[string]loss.Counts `json:"by_stage"`
			} `json:"loss"`
		} `json:"sessions"`
		Events []struct {
			Session string `json:"session"`
			Stages  []struct {
				Name      string       `json:"name"`
				Reclaimed int          `json:"reclaimed_tokens"`
				Touched   int          `json:"blocks_touched"`
				Loss      *loss.Counts `json:"loss"`
			} `json:"stages"`
		} `json:"events"`
		Losses []struct {
			Session string `json:"session"`
			Stage   string `json:"stage"`
		} `json:"losses"`
	}
	runJSON(t, &rep, "replay", "-p", "recorded", dir)
	def, err := policy.Lookup("recorded")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for i, tc := range recordedStageLoss {
		want[tc.id] = i
	}
	fromEvents := map[string]map[string]loss.Counts{}
	for _, e := range rep.Events {
		for _, st := range e.Stages {
			if !slices.Contains(def.Stages, st.Name) {
				t.Errorf("%s: compaction stage %q is not a declared stage of recorded %v", e.Session, st.Name, def.Stages)
			}
			if st.Touched == 0 || st.Reclaimed <= 0 || st.Loss == nil {
				t.Errorf("%s: stage %s touched %d blocks, reclaimed %d tokens, loss %v: want a stage that did something, with its loss", e.Session, st.Name, st.Touched, st.Reclaimed, st.Loss)
				continue
			}
			if fromEvents[e.Session] == nil {
				fromEvents[e.Session] = map[string]loss.Counts{}
			}
			fromEvents[e.Session][st.Name] = fromEvents[e.Session][st.Name].Plus(*st.Loss)
		}
	}
	seen := 0
	for _, s := range rep.Sessions {
		i, ok := want[s.ID]
		if !ok {
			if s.Loss.Counts != (loss.Counts{}) || len(s.Loss.ByStage) != 0 {
				t.Errorf("%s: loss %+v by stage %v, want nothing hidden", s.ID, s.Loss.Counts, s.Loss.ByStage)
			}
			continue
		}
		seen++
		tc := recordedStageLoss[i]
		if s.Loss.Counts != tc.want {
			t.Errorf("%s: loss %+v, want %+v", s.ID, s.Loss.Counts, tc.want)
		}
		if len(s.Loss.ByStage) != 1 || s.Loss.ByStage[tc.stage] != tc.want {
			t.Errorf("%s: by_stage %v, want {%s: %+v}", s.ID, s.Loss.ByStage, tc.stage, tc.want)
		}
		if len(fromEvents[s.ID]) != 1 || fromEvents[s.ID][tc.stage] != tc.want {
			t.Errorf("%s: the compactions' stage loss sums to %v, want {%s: %+v}", s.ID, fromEvents[s.ID], tc.stage, tc.want)
		}
		if len(s.Reclaimed) != 1 || s.Reclaimed[tc.stage] <= 0 {
			t.Errorf("%s: reclaimed_by_stage %v, want only %s, > 0", s.ID, s.Reclaimed, tc.stage)
		}
	}
	if seen != len(recordedStageLoss) {
		t.Errorf("%d of the %d sessions that hide results were reported", seen, len(recordedStageLoss))
	}
	byStage := map[string]int{}
	for _, l := range rep.Losses {
		byStage[l.Stage]++
	}
	// The losses list (lost or refetched results) per stage, measured.
	if w := map[string]int{"compact": 98, "microcompact": 20, "persisted": 44}; !maps.Equal(byStage, w) {
		t.Errorf("losses per stage %v, want %v", byStage, w)
	}
}
