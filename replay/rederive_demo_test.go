package replay

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
)

// TestRederiveClaiIndependentDigests re-derives digests that calib's
// policy code did not write: the demo's clai database stores five chained
// legacy digests rendered by synth's own copy of clai's algorithm
// (corpus/synth/clai_demo.go, written separately from policy's from
// specs/clai.md §2). Their bytes are pinned by length and SHA-256, so a
// change to either implementation shows here, and policy's re-derivation
// must reproduce them byte for byte.
func TestRederiveClaiIndependentDigests(t *testing.T) {
	dir := t.TempDir()
	if _, err := synth.WriteDemo(dir, synth.DemoOptions{}); err != nil {
		t.Fatal(err)
	}
	ss, err := load.Load([]string{filepath.Join(dir, "clai")}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var s *corpus.Session
	for _, x := range ss {
		if x.ID == "3c93f0c4-cb2d-4a23-a564-a59e91adc860" {
			s = x
		}
	}
	if s == nil {
		t.Fatal("the demo's CLI session 3c93f0c4-... is missing")
	}
	// Stored digest k (1-based) nests k copies of each preamble.
	want := []struct {
		bytes  int
		sha256 string
	}{
		{13544, "ff55e70d29d3d6f70a25d41cfa0189717e52d7cb21fb51d2edb6f3313b420b53"},
		{55563, "7530bfb990ce8b911200991fa44ed4a15f63b09e5a5fccb68a198f358e8d9d69"},
		{94546, "51b56aff81049c4f10abd2d6a9184e140281dac8a70ca9ffd179186d88d28cab"},
		{136481, "dc6846bf2e126b74ceec8cfe6d2108ac39603948fa0b1fa48018c6acfa085c1f"},
		{174076, "aca68004160e76ded2a9cdc2f7e8b0ba9d9db73d4dc07b4913683e41e6deffd7"},
	}
	if len(s.Recorded.Compactions) != len(want) {
		t.Fatalf("%d recorded compactions, want %d", len(s.Recorded.Compactions), len(want))
	}
	for i, c := range s.Recorded.Compactions {
		sum := sha256.Sum256([]byte(c.Summary))
		got := fmt.Sprintf("%d %s", len(c.Summary), hex.EncodeToString(sum[:]))
		if w := fmt.Sprintf("%d %s", want[i].bytes, want[i].sha256); got != w {
			t.Errorf("stored digest %d: %s, want %s", i, got, w)
		}
		if c.P1 != i+1 || c.P2 != i+1 {
			t.Errorf("stored digest %d nests P1=%d P2=%d, want %d", i, c.P1, c.P2, i+1)
		}
	}
	for _, r := range RederiveClai(s, policy.ClaiDefaults(policy.ClaiLegacy)) {
		if r.Verdict != RederiveMatch || r.FirstDiff != -1 || r.Text != s.Recorded.Compactions[r.Index].Summary {
			t.Errorf("compaction %d: verdict %s, first diff %d, notes %v", r.Index, r.Verdict, r.FirstDiff, r.Notes)
		}
	}
}
