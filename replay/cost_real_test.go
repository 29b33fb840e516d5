package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/corpus/realcorpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

func realClaudeCode(t *testing.T) []string {
	t.Helper()
	root := realcorpus.Dir(t, "claude-code")
	var out []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func costOf(t *testing.T, s *corpus.Session, pol policy.Policy) *cache.SessionCost {
	t.Helper()
	tr, err := Run(context.Background(), s, pol, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The agent's own compactions are not invariant violations, even the
	// 1.0.53 ones that compact in the middle of a turn.
	for _, v := range tr.Violations {
		t.Errorf("%s: request %d: %s: %s", s.ID, v.Request, v.Rule, v.Detail)
	}
	p, err := cache.Resolve(cache.PresetFor(s), nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Cost(tr, cache.DefaultOptions(p))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// knownMisses are the real sessions where replay --policy recorded misses
// the recorded billed input by more than 5%, and why (README, "Cost").
var knownMisses = map[string]string{
	// 1.0.53: 6 requests read only the tools prefix (10,491) at new user
	// prompts, 6 others read everything; nothing in the log separates them.
	"f67ab274-e83b-41ac-ac85-77488d6b5c28": "1.0.53 tools-only breaks",
	// 2.0.60–2.1.6 clear results without a boundary line; the reader
	// places those clears (Recorded.Persisted, at mid-turn cache breaks)
	// and the recorded policy applies them, which brings these four
	// sessions within 1% (they were 5% and more off before).
}

func TestCostRecordedRealLogs(t *testing.T) {
	pol, err := policy.New("recorded", nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range realClaudeCode(t) {
		ss, err := load.Load([]string{f}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range ss {
			sc := costOf(t, s, pol)
			if sc.Agreement == nil {
				continue
			}
			a := sc.Agreement
			miss, known := knownMisses[s.ID]
			if e := a.BilledError; (e > 0.05 || e < -0.05) != known {
				t.Errorf("%s: billed error %+.1f%%; known miss: %q", s.ID, 100*e, miss)
			}
			fmt.Fprintf(&b, "%-70s %-8s req %3d rec %10.0f pred %10.0f err %+6.1f%% s=%.3f O=%d steady=%d\n", s.ID, s.Meta.AgentVersion, a.Requests,
				a.Recorded.BilledTokens, a.Predicted.BilledTokens, 100*a.BilledError, sc.Calibration.Scale, sc.Calibration.Overhead, sc.Calibration.Steady)
		}
	}
	t.Log("\n" + b.String())
}
