package replay

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// realClaudeCodeSessions are the sessions of every real Claude Code log,
// file by file.
func realClaudeCodeSessions(t *testing.T) []*corpus.Session {
	t.Helper()
	var out []*corpus.Session
	for _, f := range realClaudeCode(t) {
		ss, err := load.Load([]string{f}, corpus.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ss...)
	}
	return out
}

// mustPolicy is policy.New, failing the test on an error.
func mustPolicy(t *testing.T, name string, set map[string]string) policy.Policy {
	t.Helper()
	p, err := policy.New(name, set)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// mustRun is Run with no deadline, failing the test on an error.
func mustRun(t *testing.T, s *corpus.Session, p policy.Policy, opts Options) *Trace {
	t.Helper()
	tr, err := Run(t.Context(), s, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func costOf(t *testing.T, s *corpus.Session, pol policy.Policy) *cache.SessionCost {
	t.Helper()
	sc, _ := costAndTrace(t, s, pol)
	return sc
}

func costAndTrace(t *testing.T, s *corpus.Session, pol policy.Policy) (*cache.SessionCost, *Trace) {
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
	return sc, tr
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
	for _, s := range realClaudeCodeSessions(t) {
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
	t.Log("\n" + b.String())
}

// TestCostAnchoredPoliciesMatchRecorded: claude-code, codex and
// clear-tool-results measure their context from the previous request's
// recorded usage; their tokens sent are the history they sent, by their
// meter plus their overhead, and the cost layer prices that, not the
// trigger's figure. On every real session where a policy hides nothing, or compacts
// at the requests the agent did, its bill is the recorded policy's: equal
// when neither changes anything (both send the log as it is; within 2%
// for codex, whose meter is another); for claude-code, whose rule
// reproduces the recorded clears, within 5% on each session where the
// agent only cleared and the policy cleared as often (the largest gap is
// fc491683's -3.2%: the stub text differs), and within 1% over the
// projects/ folder (-0.6%). A summary is not compared: the policy's own
// summary and restored files are not the ones the agent wrote. Before the cost layer read the
// metered history, claude-code billed 1.1-1.7x recorded on such sessions
// (11.13 M against 8.44 M over projects/), from two faults: its figure
// lags the history by one request, and its 18,000-token overhead guess,
// left in, drove the inferred overhead below 0, where it was floored.
func TestCostAnchoredPoliciesMatchRecorded(t *testing.T) {
	recorded := mustPolicy(t, "recorded", nil)
	var projRec, projCC float64
	for _, name := range []string{"claude-code", "codex", "clear-tool-results"} {
		pol := mustPolicy(t, name, nil)
		compared := 0
		for _, s := range realClaudeCodeSessions(t) {
			rec, recTrace := costAndTrace(t, s, recorded)
			got, gotTrace := costAndTrace(t, s, pol)
			r, g := rec.Totals.Billed, got.Totals.Billed
			if alike := len(rec.Compactions) == 0 && len(got.Compactions) == 0 && len(s.Recorded.Compactions) == 0 && len(s.Recorded.Persisted) == 0; alike && name == "claude-code" {
				// Tokens sent are the history by the meter plus the
				// policy's overhead (18,000 a request), not the
				// recorded usage its trigger reads.
				if a, b := sentSum(gotTrace), sentSum(recTrace)+18000*len(recTrace.Requests); a != b {
					t.Errorf("%s %s: sent %d tokens, want the recorded policy's plus 18,000 a request, %d", name, s.ID, a, b)
				}
			}
			if name == "claude-code" && strings.Contains(s.Path, "/projects/") {
				projRec, projCC = projRec+r, projCC+g
			}
			alike := len(rec.Compactions) == 0 && len(got.Compactions) == 0 && len(s.Recorded.Compactions) == 0 && len(s.Recorded.Persisted) == 0
			switch {
			case alike && name != "codex" && g != r:
				t.Errorf("%s %s: billed %.1f, recorded %.1f: neither changes the log", name, s.ID, g, r)
			case alike && (g < 0.98*r || g > 1.02*r):
				// codex meters with bytes/4, not chars/4: the scale
				// and overhead calibrate on other figures.
				t.Errorf("%s %s: billed %.1f, recorded %.1f: neither changes the log", name, s.ID, g, r)
			case !alike && name == "claude-code" && onlyClears(s) && len(rec.Compactions) == len(got.Compactions) && (g < 0.95*r || g > 1.05*r):
				t.Errorf("%s %s: billed %.1f, recorded %.1f: %+.1f%% with the same %d clears", name, s.ID, g, r, 100*(g/r-1), len(got.Compactions))
			}
			if alike {
				compared++
			}
		}
		if compared < 10 {
			t.Errorf("%s: %d sessions alike, want at least 10 (the subagents and the -good sessions)", name, compared)
		}
	}
	if projRec == 0 || projCC < 0.99*projRec || projCC > 1.01*projRec {
		t.Errorf("projects/: claude-code bills %.0f, recorded %.0f (%+.1f%%), want within 1%%", projCC, projRec, 100*(projCC/projRec-1))
	}
}

// onlyClears reports whether every compaction the agent recorded in s
// cleared results in place (no summary).
func onlyClears(s *corpus.Session) bool {
	for i := range s.Recorded.Compactions {
		if !s.Recorded.Compactions[i].Clearing() {
			return false
		}
	}
	return true
}

func sentSum(tr *Trace) int {
	n := 0
	for _, r := range tr.Requests {
		n += r.Sent
	}
	return n
}

// TestClearsDriftFromTheRecording: clear-tool-results reads the recorded
// usage of the previous request, which counts the agent's history. On
// 504216d1, where Claude Code persisted 24 outputs at requests 15, 19 and
// 23: at the defaults the replay clears at those requests, as the agent
// did (no drift to correct); with trigger_at=180000 the recorded figure
// never reaches the trigger (the agent's own clears kept it down), but the
// replay, which has not cleared, holds more and clears once its own
// context does, at requests 17 and 24 (without the correction it never
// cleared at all); with keep_value=10000 and trigger_at=100000 it clears at
// requests 10 and 14, and from there on reads the agent's figure less what
// it cleared beyond the agent.
func TestClearsDriftFromTheRecording(t *testing.T) {
	var path string
	for _, f := range realClaudeCode(t) {
		if strings.HasSuffix(f, "/504216d1-8285-4ec4-92be-0db8dc92a18a.jsonl") {
			path = f
		}
	}
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil || len(ss) == 0 {
		t.Fatalf("%s: %v", path, err)
	}
	tests := []struct {
		set  string
		want []int // requests that cleared
	}{
		{"", []int{15, 19, 23}},
		{"trigger_at=180000", []int{17, 24}},
		{"keep_value=10000,trigger_at=100000", []int{10, 14, 20, 21}},
	}
	for _, tt := range tests {
		var kv map[string]string
		if tt.set != "" {
			if kv, err = policy.ParseSet([]string{tt.set}); err != nil {
				t.Fatal(err)
			}
		}
		p, err := policy.New("clear-tool-results", kv)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := Run(context.Background(), ss[0], p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, e := range tr.Events {
			got = append(got, e.Request)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: cleared at requests %v, want %v", tt.set, got, tt.want)
		}
	}
}

// TestClaudeCodeReportsTheTriggerCrossed: a claude-code clear reports
// microcompact's trigger (148,500), the threshold it crossed; a summary
// reports auto-compaction's (155,000 for 1.0.x). They reported 167,000 and
// the context plot drew it over clears made below it.
func TestClaudeCodeReportsTheTriggerCrossed(t *testing.T) {
	p, err := policy.New("claude-code", nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[policy.Strategy]bool{}
	for _, s := range realClaudeCodeSessions(t) {
		tr, err := Run(context.Background(), s, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.Events {
			o := e.Outcome
			want := map[policy.Strategy]int{policy.Truncated: 148500, policy.Summarized: 155000}[o.Strategy]
			if o.TriggerTokens != want || o.TargetTokens != want {
				t.Errorf("%s request %d: %s reports trigger %d, target %d, want %d", s.ID, e.Request, o.Strategy, o.TriggerTokens, o.TargetTokens, want)
			}
			seen[o.Strategy] = true
		}
	}
	if !seen[policy.Truncated] || !seen[policy.Summarized] {
		t.Errorf("strategies seen %v, want clears and summaries", seen)
	}
}

// TestCostIgnoresAGuessedOverhead: where recorded usage calibrates a
// session, a policy's overhead_tokens is its guess at the unlogged prompt
// and gives way to the calibrated overhead: the recorded policy bills the
// same with 50,000 as with 0. Before, the guess was left
// in the history, drove the inferred overhead below 0, where it is
// floored, and raised every prediction. (recorded's overhead changes
// nothing else; a preset's also moves its triggers, and its bill with it.)
func TestCostIgnoresAGuessedOverhead(t *testing.T) {
	for _, name := range []string{"recorded"} {
		plain, guessed := mustPolicy(t, name, nil), mustPolicy(t, name, map[string]string{"overhead_tokens": "50000"})
		calibrated := 0
		for _, s := range realClaudeCodeSessions(t) {
			a, b := costOf(t, s, plain), costOf(t, s, guessed)
			if !a.Calibration.Recorded {
				continue
			}
			calibrated++
			if a.Totals.Billed != b.Totals.Billed {
				t.Errorf("%s %s: billed %.1f with overhead_tokens=50000, %.1f without", name, s.ID, b.Totals.Billed, a.Totals.Billed)
			}
		}
		if calibrated < 20 {
			t.Errorf("%s: %d sessions calibrated from recorded usage, want at least 20", name, calibrated)
		}
	}
}

// TestArrivalCapsKeepTheCache: a preset's cap stage cuts tool output
// before the model sees it (policy.IsArrivalOnly), so it rewrites nothing
// an earlier request sent and must leave the prompt cache as a replay
// without it would. opencode's cap set to 2,000 characters (its own,
// 2,000 lines or 50 KiB, cuts 6 outputs of these logs) caps 270 of them:
// on every real session where its only events are such caps, each
// request's cache rule and break are those of cline on its own estimate
// (context_source=estimate, which never acts on these logs), and no cap
// is priced as a compaction.
func TestArrivalCapsKeepTheCache(t *testing.T) {
	capped, caps := 0, 0
	cap2000 := map[string]string{"cap.max": "2000", "cap.max_lines": "0", "cap.unit": policy.CapChars}
	for _, s := range realClaudeCodeSessions(t) {
		oc, tr := costAndTrace(t, s, mustPolicy(t, "opencode", cap2000))
		if len(tr.Events) == 0 {
			continue
		}
		arrival := true
		for _, e := range tr.Events {
			arrival = arrival && policy.IsArrivalOnly(e.Outcome)
		}
		if !arrival {
			continue
		}
		capped++
		caps += len(tr.Events)
		cl, ctr := costAndTrace(t, s, mustPolicy(t, "cline", map[string]string{"context_source": policy.SourceEstimate}))
		if len(ctr.Events) != 0 {
			t.Fatalf("%s: cline compacted %d times; the comparison needs a replay without events", s.ID, len(ctr.Events))
		}
		if len(oc.Compactions) != 0 {
			t.Errorf("%s: %d output caps priced as compactions (first at request %d)", s.ID, len(oc.Compactions), oc.Compactions[0].Request)
		}
		if len(oc.Requests) != len(cl.Requests) {
			t.Fatalf("%s: %d requests priced against cline's %d", s.ID, len(oc.Requests), len(cl.Requests))
		}
		for i := range oc.Requests {
			a, b := oc.Requests[i], cl.Requests[i]
			if a.Reason != b.Reason || a.Break != b.Break {
				t.Errorf("%s: request %d: cache rule %s (break %v) with the caps, %s (break %v) without", s.ID, a.Request, a.Reason, a.Break, b.Reason, b.Break)
			}
		}
		if oc.Totals.Breaks != cl.Totals.Breaks {
			t.Errorf("%s: %d cache breaks with the caps, %d without", s.ID, oc.Totals.Breaks, cl.Totals.Breaks)
		}
	}
	// Sessions and caps as the real logs hold them: a changed count means
	// the corpus or the cap stage changed, and the figures above with it.
	if capped != 26 || caps != 270 {
		t.Errorf("%d sessions with only output caps, %d caps; want 26 and 270", capped, caps)
	}
}
