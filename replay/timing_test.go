package replay

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/policy"
)

// The full compactions of the real 1.0.53 logs against claude-code's
// replay: each recorded summary is matched with the policy's nearest
// compaction, 1.0.x records no preTokens (recorded_tokens null).
func TestAgreeCompactionsReal1053(t *testing.T) {
	p, err := policy.New(policy.ClaudeCodeName, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"0a725fb5-6378-432a-9e84-9f3f49d4043d.jsonl": `[{"session":"0a725fb5-6378-432a-9e84-9f3f49d4043d","line":451,"kind":"claude-code-summary","recorded_request":158,"predicted_request":158,"recorded_tokens":null,"predicted_tokens":155510}]`,
		"f67ab274-e83b-41ac-ac85-77488d6b5c28.jsonl": `[{"session":"f67ab274-e83b-41ac-ac85-77488d6b5c28","line":384,"kind":"claude-code-summary","recorded_request":140,"predicted_request":140,"recorded_tokens":null,"predicted_tokens":155902},` +
			`{"session":"f67ab274-e83b-41ac-ac85-77488d6b5c28","line":599,"kind":"claude-code-summary","recorded_request":223,"predicted_request":222,"recorded_tokens":null,"predicted_tokens":155062}]`,
		// A 2.x log with only microcompacts has no full compaction to judge.
		"b3533c53-3dba-422e-8f02-d0d42214ade0.jsonl": `null`,
	}
	for f, w := range want {
		s := realCC(t, f)
		tr, err := Run(t.Context(), s, p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(AgreeCompactions(s, p, tr))
		if string(got) != w {
			t.Errorf("%s:\n got %s\nwant %s", f, got, w)
		}
	}
}

// A Codex rollout written from the documented shapes (corpus/codex
// testdata): its two compacted lines against the codex policy with a
// limit the fixture's small token counts reach. The policy compacts
// before request 2 (the last total_tokens, 15,400, reached 15,000); the
// agent's first compaction came before request 3 and recorded the last
// token_count (15,860). The second, at the log's end, has no policy
// compaction near it.
func TestAgreeCompactionsCodex(t *testing.T) {
	path := filepath.Join("..", "corpus", "codex", "testdata", "rollout-2026-02-10T10-00-00-019c0000-aaaa-7bbb-8ccc-000000000002.jsonl")
	ss, err := load.Load([]string{path}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(policy.CodexName, map[string]string{"auto_compact_limit": "15000"})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Run(t.Context(), ss[0], p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(AgreeCompactions(ss[0], p, tr))
	want := `[{"session":"019c0000-aaaa-7bbb-8ccc-000000000002","line":21,"kind":"codex-compacted","recorded_request":3,"predicted_request":2,"recorded_tokens":15860,"predicted_tokens":15400},` +
		`{"session":"019c0000-aaaa-7bbb-8ccc-000000000002","line":28,"kind":"codex-compacted","recorded_request":4,"predicted_request":null,"recorded_tokens":15860,"predicted_tokens":null}]`
	if string(got) != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}
