package loss

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// checkEvidenceMatchesOracle builds the evidence of every hide set (and of
// every result) both ways, filing all lines and not, and wants the same
// evidence from the current code as from the oracle (evidence_oracle_test.go).
func checkEvidenceMatchesOracle(t *testing.T, name string, s *corpus.Session) (checked int) {
	t.Helper()
	ix := Build(s, Options{})
	ix.prepare()
	sets := hideSets(ix)
	sets["all"] = nil
	for set, hides := range sets {
		var want []bool
		from := int32(0)
		if set != "all" {
			want = make([]bool, len(ix.Results))
			from = int32(len(ix.units))
			for _, h := range hides {
				want[ix.byID[h.CallID]] = true
				from = min(from, ix.unitAtOrAfter(h.At))
			}
		}
		for _, fileAll := range []bool{false, true} {
			if want == nil && !fileAll {
				continue
			}
			got, exp := ix.buildEvidence(new(Scratch), ix.all, want, from, fileAll), ix.oracleEvidence(want, from, fileAll)
			checked++
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("%s/%s/fileAll=%v: evidence differs from the oracle's", name, set, fileAll)
			}
		}
	}
	return checked
}

func TestEvidenceMatchesOracle(t *testing.T) { checkSynthSessions(t, checkEvidenceMatchesOracle) }

func TestEvidenceMatchesOracleReal(t *testing.T) { checkRealSessions(t, checkEvidenceMatchesOracle) }

// TestLineTable files random lines in a lineTable and in a map, with the
// real hash and with one that collides on purpose (every line one of three
// hashes, so that lookups walk long chains and must tell lines apart by
// their text), and wants the same ids, each line's filing order, and each
// line's text intact at the end (a line found again is copied into an
// arena chunk; the copies never move).
func TestLineTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		hash func(tab *lineTable, ln string) uint32
	}{
		{"maphash", func(tab *lineTable, ln string) uint32 { return tab.hash(ln) }},
		{"colliding", func(_ *lineTable, ln string) uint32 { return uint32(len(ln) % 3) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 9))
			for _, start := range []int{0, 5, 300} {
				tab := newLineTable(start)
				oracle := map[string]int32{}
				for range 3000 {
					n := 1 + rng.IntN(4)
					if rng.IntN(8) == 0 { // long enough to fill arena chunks, or to stay out of them
						n += rng.IntN(2 * arenaLine)
					}
					ln := strings.Repeat(string(rune('a'+rng.IntN(26))), n) + fmt.Sprint(rng.IntN(900))
					h := tc.hash(tab, ln)
					id, at, ok := tab.find(ln, h)
					exp, expOK := oracle[ln]
					if ok != expOK || ok && id != exp {
						t.Fatalf("start %d: find(%q) = %d, %v; want %d, %v", start, ln, id, ok, exp, expOK)
					}
					if ok {
						tab.again(id)
					}
					if !ok {
						if id := tab.put(ln, h, at); id != int32(len(oracle)) {
							t.Fatalf("start %d: put(%q) = %d, want %d", start, ln, id, len(oracle))
						}
						oracle[ln] = int32(len(oracle))
					}
				}
				if len(tab.lines) != len(oracle) {
					t.Fatalf("start %d: %d lines filed, want %d", start, len(tab.lines), len(oracle))
				}
				for id := range tab.lines { // every line seen again: copied, filling chunks
					tab.again(int32(id))
				}
				for ln, exp := range oracle {
					if id, _, ok := tab.find(ln, tc.hash(tab, ln)); !ok || id != exp || tab.lines[id] != ln {
						t.Fatalf("start %d: %q = %d, %v at the end; want %d", start, ln, id, ok, exp)
					}
				}
			}
		})
	}
}
