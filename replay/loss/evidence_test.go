package loss

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// hideSets are sets of hides a replay could report: one result, every
// seventh, a random fifth (three seeds), the first half, each hidden from
// the message after it arrived or from a later one.
func hideSets(ix *Index) map[string][]Hide {
	n := len(ix.Results)
	at := func(r *Result, later int) Hide {
		return Hide{CallID: r.ID, At: min(r.Msg+1+later, len(ix.Session.Messages)), Event: -1, Stage: "s"}
	}
	sets := map[string][]Hide{}
	if n == 0 {
		return sets
	}
	sets["one"] = []Hide{at(&ix.Results[n/2], 0)}
	for k := 0; k < n; k += 7 {
		sets["seventh"] = append(sets["seventh"], at(&ix.Results[k], 3*k%11))
	}
	for seed := uint64(1); seed <= 3; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		name := fmt.Sprintf("random%d", seed)
		for k := range ix.Results {
			if rng.IntN(5) == 0 {
				h := at(&ix.Results[k], rng.IntN(40))
				h.Kept = rng.IntN(400)
				sets[name] = append(sets[name], h)
			}
		}
	}
	for k := 0; k < n/2; k++ {
		sets["half"] = append(sets["half"], at(&ix.Results[k], 1))
	}
	return sets
}

// checkEvidenceAgrees compares, for every hide set, the signals read from
// evidence built for the hidden results alone with those read from the
// evidence of every result: building less must not change any signal.
func checkEvidenceAgrees(t *testing.T, name string, s *corpus.Session) (restricted int) {
	t.Helper()
	full := Build(s, Options{Shared: true})
	full.prepare()
	fev := full.fullEvidence()
	for set, hides := range hideSets(full) {
		ix := Build(s, Options{})
		ix.prepare()
		want := make([]bool, len(ix.Results))
		from := int32(len(ix.units))
		for _, h := range hides {
			want[ix.byID[h.CallID]] = true
			from = min(from, ix.unitAtOrAfter(h.At))
		}
		for _, fileAll := range []bool{false, true} {
			ev := ix.buildEvidence(new(Scratch), ix.all, want, from, fileAll)
			restricted++
			for _, h := range hides {
				got, exp := ix.signal(ev, h), full.signal(fev, h)
				if got.Result.ID != exp.Result.ID {
					t.Fatalf("%s/%s: %s: result %s, want %s", name, set, h.CallID, got.Result.ID, exp.Result.ID)
				}
				got.Result, exp.Result = nil, nil
				if !reflect.DeepEqual(got, exp) {
					t.Errorf("%s/%s/fileAll=%v: %s hidden at %d:\n got %+v\nwant %+v", name, set, fileAll, h.CallID, h.At, *got, *exp)
				}
			}
		}
		if rep, frep := ix.Report(hides), full.Report(hides); !reflect.DeepEqual(rep.Counts, frep.Counts) {
			t.Errorf("%s/%s: Report %+v, shared index %+v", name, set, rep.Counts, frep.Counts)
		}
	}
	return restricted
}

func TestEvidenceForHiddenMatchesAll(t *testing.T) { checkSynthSessions(t, checkEvidenceAgrees) }

func TestEvidenceForHiddenMatchesAllReal(t *testing.T) { checkRealSessions(t, checkEvidenceAgrees) }

// checkSynthSessions runs a check on the synthetic sessions the evidence
// tests share: a small smith session, a tool-heavy one and the loss
// scenario with and without structured results.
func checkSynthSessions(t *testing.T, check func(t *testing.T, name string, s *corpus.Session) int) {
	var p synth.Profile = synth.ToolHeavy
	p.Turns = 2
	check(t, "synth", &corpus.Session{ID: "synth", Messages: synth.Smith(p, 3)})
	check(t, "toolheavy", synth.ToolHeavySession(2000))
	for _, payload := range []bool{false, true} {
		sc := synth.Loss(synth.LossOptions{Filler: 30, FillerBytes: 2000, FileBytes: 6000, Payload: payload, Seed: 5})
		check(t, fmt.Sprintf("loss-scenario/payload=%v", payload), &corpus.Session{ID: "loss", Messages: sc.Messages})
	}
}

// checkRealSessions runs a check on every real Claude Code session and
// wants at least 100 of the checks it counts.
func checkRealSessions(t *testing.T, check func(t *testing.T, name string, s *corpus.Session) int) {
	ss := RealSessions(t)
	checked := 0
	for _, s := range ss {
		checked += check(t, s.ID, s)
	}
	if checked < 100 {
		t.Fatalf("only %d checked over %d sessions", checked, len(ss))
	}
}
