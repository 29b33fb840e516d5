package loss

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// checkReportReadsFewerCalls reports every hide set with a fresh index for
// one replay, which reads only the calls from the first hide on and the
// hidden results' own (readCallsFor), and with a shared index, which reads
// every call (prepare): every signal, its result's subject and tool
// included, and every sum must be the same.
func checkReportReadsFewerCalls(t *testing.T, name string, s *corpus.Session) (sets int) {
	t.Helper()
	full := Build(s, Options{Shared: true})
	for set, hides := range hideSets(full) {
		ix := Build(s, Options{})
		rep, frep := ix.Report(hides), full.Report(hides)
		if ix.all != nil {
			t.Fatalf("%s/%s: a report for one replay read every call", name, set)
		}
		sets++
		if len(rep.Signals) != len(frep.Signals) {
			t.Fatalf("%s/%s: %d signals, shared index %d", name, set, len(rep.Signals), len(frep.Signals))
		}
		for i := range rep.Signals {
			got, exp := *rep.Signals[i], *frep.Signals[i]
			gr, er := *got.Result, *exp.Result
			if !reflect.DeepEqual(gr, er) {
				t.Errorf("%s/%s: result %+v, shared index %+v", name, set, gr, er)
			}
			got.Result, exp.Result = nil, nil
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("%s/%s: %s:\n got %+v\nwant %+v", name, set, gr.ID, got, exp)
			}
		}
		rep.Signals, frep.Signals = nil, nil
		if !reflect.DeepEqual(rep, frep) {
			t.Errorf("%s/%s: report %+v, shared index %+v", name, set, rep, frep)
		}
	}
	return sets
}

func TestReportReadsFewerCalls(t *testing.T) {
	var p synth.Profile = synth.ToolHeavy
	p.Turns = 2
	checkReportReadsFewerCalls(t, "synth", &corpus.Session{ID: "synth", Messages: synth.Smith(p, 3)})
	checkReportReadsFewerCalls(t, "toolheavy", synth.ToolHeavySession(2000))
	for _, payload := range []bool{false, true} {
		sc := synth.Loss(synth.LossOptions{Filler: 30, FillerBytes: 2000, FileBytes: 6000, Payload: payload, Seed: 5})
		checkReportReadsFewerCalls(t, fmt.Sprintf("loss-scenario/payload=%v", payload), &corpus.Session{ID: "loss", Messages: sc.Messages})
	}
}

func TestReportReadsFewerCallsReal(t *testing.T) {
	ss, err := load.Load([]string{realcorpus.Dir(t, "claude-code")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sets := 0
	for _, s := range ss {
		sets += checkReportReadsFewerCalls(t, s.ID, s)
	}
	if sets < 100 {
		t.Fatalf("only %d hide sets checked over %d sessions", sets, len(ss))
	}
}
