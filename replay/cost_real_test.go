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
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

const realCorpus = "../../shared/corpus-real"

func realClaudeCode(t *testing.T) []string {
	t.Helper()
	root := filepath.Join(realCorpus, "claude-code")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real corpus not found at %s: %v", root, err)
	}
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
			fmt.Fprintf(&b, "%-70s %-8s req %3d rec %10.0f pred %10.0f err %+6.1f%% s=%.3f O=%d steady=%d\n", s.ID, s.Meta.AgentVersion, a.Requests,
				a.Recorded.BilledTokens, a.Predicted.BilledTokens, 100*a.BilledError, sc.Calibration.Scale, sc.Calibration.Overhead, sc.Calibration.Steady)
		}
	}
	t.Log("\n" + b.String())
}
