package policy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestClineDedupeMatchesWholeHistory: Cline's duplicate-read step, which
// reads nothing when no result precedes the turn in progress and measures
// only what it changes, replaces the reads and gives the units that
// smith's step over a working history measured whole gives, on random
// histories whose calls repeat (across turns, and from the turn in
// progress back).
func TestClineDedupeMatchesWholeHistory(t *testing.T) {
	p := presetPolicy(t, "cline", map[string]string{"truncate.trigger": OnTokens, "truncate.trigger_at": "1",
		"truncate.save_enough": "0", "truncate.read_tools": "read_file,grep"})
	tools := map[string]bool{"read_file": true, "grep": true}
	r := rand.New(rand.NewPCG(23, 29))
	deduped := 0
	for trial := range 2000 {
		h := randomCalls(r, 1+r.IntN(6))
		w := newWorking(h, p.(*Composed).g.meter)
		n, _ := w.supersedeDuplicates(currentTurnStart(h), -1, tools, func(string, *corpus.Block) string { return ClineDuplicateReadNotice })
		o := p.Compact(h, sums(p, h))
		if n == 0 {
			if o.Strategy == Truncated {
				t.Fatalf("trial %d: deduped with nothing to replace", trial)
			}
			continue
		}
		deduped++
		if o.Strategy != Truncated || !slices.Equal(presults(o.History), presults(w.msgs)) || o.Units != w.total {
			t.Fatalf("trial %d: %s, units %d, results %.20q; want the whole-history step's units %d, results %.20q",
				trial, o.Strategy, o.Units, presults(o.History), w.total, presults(w.msgs))
		}
	}
	if deduped < 200 {
		t.Errorf("only %d of 2000 histories had a read to replace: the check says little", deduped)
	}
}
