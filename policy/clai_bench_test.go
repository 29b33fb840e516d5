package policy

import (
	"fmt"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
)

// claiLongSession is a small fixture (30 turns of claiTurns, the seed's
// profile) extended with synth.Extend to turns turns: what a CI job does to
// chain 50 rotations from a small recording.
func claiLongSession(turns int) []corpus.Message {
	s := &corpus.Session{ID: "fixture", Format: corpus.FormatClai, Messages: claiTurns(30)}
	return synth.Extend(s, turns-30, 1).Messages
}

// 50 rotations from a 30-turn fixture: legacy nests one preamble per
// rotation all the way; fixed stays bounded with one copy of each.
func TestClaiFiftyRotationsFromSmallFixture(t *testing.T) {
	msgs := claiLongSession(1100)
	legacy := claiRun(t, claiPolicy(t, nil), msgs, 50)
	fixed := claiRun(t, claiPolicy(t, map[string]string{"variant": "fixed"}), msgs, 50)
	if len(legacy) != 50 || len(fixed) != 50 {
		t.Fatalf("%d legacy and %d fixed rotations, want 50", len(legacy), len(fixed))
	}
	if d := legacy[49].Digest; d.P1 != 50 || d.P2 != 50 {
		t.Errorf("legacy rotation 50 nests P1=%d P2=%d", d.P1, d.P2)
	}
	for k, o := range fixed {
		if d := o.Digest; d.P1 != 1 || d.P2 != 1 || len(d.Text) > 96_000+claiDigestOverhead {
			t.Errorf("fixed rotation %d: P1=%d P2=%d, %d bytes", k+1, d.P1, d.P2, len(d.Text))
		}
	}
	if s := claiSlope(claiDigestSizes(fixed[1:])); s > 100 || s < -100 {
		t.Errorf("fixed slope %.1f bytes/rotation", s)
	}
}

// BenchmarkClaiLegacyChain replays the seed's profile through 10, 50 and
// 100 legacy rotations. Each rotation renders its predecessor whole, so the
// bytes rendered grow with the square of the rotations; ns/rendered-B
// staying flat shows the time is proportional to them.
func BenchmarkClaiLegacyChain(b *testing.B) {
	msgs := claiLongSession(2100)
	for _, n := range []int{10, 50, 100} {
		for _, variant := range []string{ClaiLegacy, ClaiFixed} {
			if variant == ClaiFixed && n != 50 {
				continue
			}
			b.Run(fmt.Sprintf("%s/rotations=%d", variant, n), func(b *testing.B) {
				pol := claiPolicy(b, map[string]string{"variant": variant})
				var rendered int64
				for b.Loop() {
					outs := claiRun(b, pol, msgs, n)
					if len(outs) != n {
						b.Fatalf("%d rotations", len(outs))
					}
					rendered = 0
					for _, o := range outs {
						rendered += int64(len(o.Digest.Text))
					}
				}
				b.ReportMetric(float64(rendered), "rendered-B/op")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rendered), "ns/rendered-B")
			})
		}
	}
}
