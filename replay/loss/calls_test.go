package loss

import (
	"fmt"
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
		if d := diffReports(rep, frep); d != "" {
			t.Errorf("%s/%s: %s (got the first, the shared index the second)", name, set, d)
		}
	}
	return sets
}

// diffReports says how two reports differ, "" if in nothing: every
// signal, its result included, and every sum.
func diffReports(got, exp Report) string {
	if len(got.Signals) != len(exp.Signals) {
		return fmt.Sprintf("%d signals, %d", len(got.Signals), len(exp.Signals))
	}
	for i := range got.Signals {
		g, e := *got.Signals[i], *exp.Signals[i]
		if gr, er := *g.Result, *e.Result; !reflect.DeepEqual(gr, er) {
			return fmt.Sprintf("result %+v, %+v", gr, er)
		}
		g.Result, e.Result = nil, nil
		if !reflect.DeepEqual(g, e) {
			return fmt.Sprintf("signal %+v, %+v", g, e)
		}
	}
	got.Signals, exp.Signals = nil, nil
	if !reflect.DeepEqual(got, exp) {
		return fmt.Sprintf("report %+v, %+v", got, exp)
	}
	return ""
}

func TestReportReadsFewerCalls(t *testing.T) { checkSynthSessions(t, checkReportReadsFewerCalls) }

func TestReportReadsFewerCallsReal(t *testing.T) { checkRealSessions(t, checkReportReadsFewerCalls) }
