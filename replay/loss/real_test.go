package loss_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/replay/loss"
)

// realCorpus is shared/corpus-real beside the checkout; tests skip when it
// is absent.
const realCorpus = "../../../shared/corpus-real/claude-code"

func loadReal(t testing.TB, rel string) *corpus.Session {
	t.Helper()
	p := filepath.Join(realCorpus, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("real corpus not found at %s: %v", p, err)
	}
	ss, err := load.Load([]string{p}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if !s.Messages[0].Sidechain {
			return s
		}
	}
	t.Fatalf("%s: no main thread", p)
	return nil
}

// boundaryHides are the hides the agent itself recorded in its
// microcompact_boundary lines (Claude Code 2.1.9+): each listed id is
// hidden from the request right after the boundary on.
func boundaryHides(s *corpus.Session) []loss.Hide {
	var out []loss.Hide
	seen := map[string]bool{}
	for _, c := range s.Recorded.Compactions {
		if c.Strategy != "microcompact" {
			continue
		}
		for _, id := range c.ClearedIDs {
			if !seen[id] {
				seen[id] = true
				out = append(out, loss.Hide{CallID: id, At: c.AtMessage, Stage: "microcompact"})
			}
		}
	}
	return out
}

func countHides(ix *loss.Index, hides []loss.Hide) (loss.Counts, []*loss.Signal) {
	var c loss.Counts
	var sigs []*loss.Signal
	for _, h := range hides {
		if s := ix.Signal(h); s != nil {
			c.Add(s)
			sigs = append(sigs, s)
		}
	}
	return c, sigs
}

// The 2.1.9+ sessions record their clears; the expected counts are the
// analyst's prototype (cc-findings §4, loss_default.txt), reproduced here
// independently.
func TestRealBoundarySessions(t *testing.T) {
	cases := []struct {
		rel  string
		want loss.Counts
	}{
		{"projects/9a91e9d0-b627-4bcb-b8f6-4e5d7c63118f/9a91e9d0-b627-4bcb-b8f6-4e5d7c63118f.jsonl", loss.Counts{6, 0, 5, 1, 4, 7093}},
		{"projects/d9add9a6-f2cd-42f6-8ae9-135bf8af37ec/d9add9a6-f2cd-42f6-8ae9-135bf8af37ec.jsonl", loss.Counts{6, 0, 5, 1, 4, 7093}},
		{"projects/b151f674-388c-48f0-9b04-0384f5a0bfb1/b151f674-388c-48f0-9b04-0384f5a0bfb1.jsonl", loss.Counts{6, 0, 0, 0, 0, 0}},
		{"b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl", loss.Counts{11, 0, 0, 5, 0, 40450}},
		{"fc491683-57ba-4bbf-afd0-3362025e7aa7.jsonl", loss.Counts{6, 0, 1, 1, 0, 7093}},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.rel)[:8], func(t *testing.T) {
			s := loadReal(t, tc.rel)
			ix := loss.Build(s, loss.Options{})
			got, sigs := countHides(ix, boundaryHides(s))
			if got != tc.want {
				for _, g := range sigs {
					t.Logf("%s %s %q need=%d(%s) fetch=%d lost=%v", g.Result.ID, g.Result.Tool, g.Result.Subject.Display, g.NeededLine, g.NeededBy, g.FetchedLine, g.Lost)
				}
				t.Errorf("counts = %+v, want %+v", got, tc.want)
			}
		})
	}
}
