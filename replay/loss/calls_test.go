package loss

import (
	"reflect"
	"testing"

	"github.com/calib-dev/calib/corpus"
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

func TestReportReadsFewerCalls(t *testing.T) { checkSynthSessions(t, checkReportReadsFewerCalls) }

func TestReportReadsFewerCallsReal(t *testing.T) { checkRealSessions(t, checkReportReadsFewerCalls) }
