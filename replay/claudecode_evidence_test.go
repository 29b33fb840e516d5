package replay

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/policy"
)

// The evidence for clear-tool-results' Claude Code defaults, on every real
// 2.x log of shared/corpus-real (cc-findings.md §1-2): replayed on its own
// at the defaults, the policy clears exactly the results Claude Code
// cleared, at the requests it cleared them.
//   - 2.1.9-2.1.20 (6 sessions): the microcompact_boundary lines name the
//     ids (6 events in 5 sessions; 03aa9bb5 never clears).
//   - 2.0.60-2.1.6 (7 sessions): no boundary line; the ids are the
//     tool-results/<id>.txt files Claude Code wrote (9 silent clears in the
//     4 -bad sessions; the 3 -good sessions have no file and must never
//     clear). The requests are those where the recorded prompt cache broke
//     mid-turn (cc-findings §2).
//
// This pins, all at once and against 15 firing and 200 quiet checkpoints:
// the keep budget (40,000: any value in [39,777, 40,146) fits with the
// other defaults), the context trigger on the previous request's usage
// (148,500: any value in (147,967, 149,081], b6240830 req 17 vs 18),
// min_reclaim (20,000: any value in (19,888, 20,659], 2caf2337 req 15-20 vs
// bf88e2ff req 13) and the compactable tools (Skill, Task, TodoWrite,
// SlashCommand results never go). TestClaudeCodeConstantsAtTheirBounds
// shows each interval's ends.
func TestClaudeCodeDefaultsOnEveryRealLog(t *testing.T) {
	root := "../../shared/corpus-real/claude-code"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	// claude-code runs the same microcompact, then auto-compaction, which
	// none of these sessions reaches.
	for _, name := range []string{"clear-tool-results", policy.ClaudeCodeName} {
		p, err := policy.New(name, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range ccEvidence {
			t.Run(name+"/"+tt.session[:8], func(t *testing.T) {
				if msg := ccReproduces(t, root, p, tt.session, tt.requests); msg != "" {
					t.Error(msg)
				}
			})
		}
	}
}

// ccEvidence are the sessions and the requests at which Claude Code
// cleared (cc-findings §1 and §2; the request is the 0-based index of the
// main thread's API requests).
var ccEvidence = []struct {
	session  string
	requests []int
}{
	{"b6240830-5041-465e-aad0-910c13cd9b6c", []int{18, 21}},
	{"2caf2337-66bf-41d1-ad27-9d2cab7bd2dc", nil},
	{"c172889a", []int{15, 18}},
	{"bf88e2ff-ac8b-4f29-8dbf-c2467325fe4e", []int{13, 15}},
	{"504216d1", []int{15, 19, 23}},
	{"0357781f-d024-4cef-8496-56501c76afb3", nil},
	{"27eaff45-a330-4a88-9213-3725c9f420d0", nil},
	{"03aa9bb5", nil},
	{"b151f674", []int{5}},
	{"b3533c53-3dba-422e-8f02-d0d42214ade0", []int{5, 7}},
	{"9a91e9d0-b627-4bcb-b8f6-4e5d7c63118f", []int{5}},
	{"d9add9a6-f2cd-42f6-8ae9-135bf8af37ec", []int{5}},
	{"fc491683-57ba-4bbf-afd0-3362025e7aa7", []int{6}},
}

// Each constant just outside the interval the data allows breaks the
// session that bounds it: the intervals in the parameter help and the
// README are the real limits, not a guess.
func TestClaudeCodeConstantsAtTheirBounds(t *testing.T) {
	root := "../../shared/corpus-real/claude-code"
	if _, err := os.Stat(root); err != nil {
		t.Skipf("real corpus not available: %v", err)
	}
	tests := []struct {
		set     string
		breaks  string // the session that no longer reproduces
		holdsAt string // the value at the other end, still inside: every session reproduces
	}{
		{"trigger_at=147967", "b6240830", "trigger_at=147968"},                           // quiet at req 17 with 147,967
		{"trigger_at=149082", "b6240830", "trigger_at=149081"},                           // fired at req 18 with 149,081 (input + cache + output)
		{"min_reclaim=19888", "2caf2337", "min_reclaim=19889"},                           // quiet at W = 19,888 (req 12-20)
		{"min_reclaim=20660", "bf88e2ff", "min_reclaim=20659"},                           // fired at W = 20,659 (req 13)
		{"keep_value=39776", "2caf2337", "keep_value=39777"},                             // a smaller budget lifts 2caf2337's reclaim to 20,000
		{"keep_value=40146", "c172889a", "keep_value=40145"},                             // kept + next = 40,146 at req 15
		{"protect_pending=true", "", "protect_pending=true"},                             // no event tells it apart (issue 13's held-out case does)
		{"compactable_tools=", "2caf2337", "compactable_tools=Read,Bash,Grep,Glob,Edit"}, // Skill/Task/TodoWrite results would go
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			for _, set := range []string{tt.set, tt.holdsAt} {
				kv, err := policy.ParseSet([]string{set})
				if err != nil {
					t.Fatal(err)
				}
				p, err := policy.New("clear-tool-results", kv)
				if err != nil {
					t.Fatal(err)
				}
				var broken []string
				for _, e := range ccEvidence {
					if ccReproduces(t, root, p, e.session, e.requests) != "" {
						broken = append(broken, e.session[:8])
					}
				}
				switch {
				case set == tt.holdsAt && len(broken) > 0:
					t.Errorf("%s: %v no longer reproduce", set, broken)
				case set == tt.set && tt.breaks != "" && !slices.Contains(broken, tt.breaks):
					t.Errorf("%s: %s still reproduces (broken: %v)", set, tt.breaks, broken)
				}
			}
		})
	}
}

// ccReproduces replays one session at p and says how it differs from what
// Claude Code did ("" when it does not).
func ccReproduces(t *testing.T, root string, p policy.Policy, session string, requests []int) string {
	t.Helper()
	path, files := realCCSession(t, root, session)
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	tr, err := Run(t.Context(), s, p, Options{KeepFinal: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Violations) > 0 {
		return fmt.Sprintf("violations: %+v", tr.Violations)
	}
	var at []int
	for _, e := range tr.Events {
		at = append(at, e.Request)
	}
	var cleared []string
	for _, m := range tr.Final {
		for _, b := range m.Blocks {
			// Every session here is 2.0.60 or later: the persisted-output marker.
			if b.Kind == corpus.KindToolResult && strings.HasPrefix(b.Text, "<persisted-output>") {
				cleared = append(cleared, b.ToolCallID)
			}
		}
	}
	for _, e := range tr.Events {
		if e.Outcome.Strategy != policy.Truncated {
			return fmt.Sprintf("request %d: %s, Claude Code only cleared results in this session", e.Request, e.Outcome.Strategy)
		}
	}
	sort.Strings(cleared)
	want := files
	if len(s.Recorded.Compactions) > 0 {
		want = nil
		for _, c := range s.Recorded.Compactions {
			want = append(want, c.ClearedIDs...)
		}
		sort.Strings(want)
		if !slices.Equal(want, files) {
			return fmt.Sprintf("boundary ids %v differ from the tool-results files %v", want, files)
		}
	}
	if !slices.Equal(at, requests) {
		return fmt.Sprintf("cleared at requests %v, Claude Code at %v", at, requests)
	}
	if !slices.Equal(cleared, want) {
		return fmt.Sprintf("cleared %d ids, Claude Code %d:\n got %v\nwant %v", len(cleared), len(want), cleared, want)
	}
	return ""
}

// realCCSession finds a session's main log (top level or under projects/)
// by id prefix, and lists its tool-results files as ids, sorted.
func realCCSession(t *testing.T, root, prefix string) (string, []string) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(root, prefix+"*.jsonl"))
	more, _ := filepath.Glob(filepath.Join(root, "projects", prefix+"*", prefix+"*.jsonl"))
	matches = append(matches, more...)
	if len(matches) == 0 {
		t.Fatalf("no log for session %s under %s", prefix, root)
	}
	path := matches[0]
	txt, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "tool-results", "*.txt"))
	var ids []string
	for _, f := range txt {
		ids = append(ids, strings.TrimSuffix(filepath.Base(f), ".txt"))
	}
	sort.Strings(ids)
	return path, ids
}
