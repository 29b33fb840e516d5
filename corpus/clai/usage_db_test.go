package clai_test

import (
	"strings"
	"testing"
)

// A generated database whose runs get usage_json values by surgery: good
// rows become per-run usage of their session, a bad row is a warning that
// names the table and row and costs nothing else.
func TestClaiRunUsageFromDatabase(t *testing.T) {
	path, hs := writeClai(t, claiSmall, 41)
	claiExec(t, path, false,
		`UPDATE assistant_runs SET usage_json = '{"input_tokens":10,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000,"output_tokens":50}'`,
		`UPDATE assistant_runs SET usage_json = '{"input_tokens":-1,"output_tokens":5}' WHERE rowid = (SELECT max(rowid) FROM assistant_runs)`)
	ss := Load(t, path)
	runs, bad := 0, 0
	for i, s := range ss {
		if len(s.Messages) != len(hs[i].Messages) {
			t.Errorf("session %d: %d messages, want %d", i, len(s.Messages), len(hs[i].Messages))
		}
		for _, u := range s.Recorded.Usage {
			runs++
			if u.InputTokens != 10 || u.CacheWriteTokens != 200 || u.CacheReadTokens != 3000 || u.OutputTokens != 50 || u.AtMessage != -1 || u.Line <= 0 {
				t.Errorf("run usage %+v", u)
			}
		}
		for _, w := range s.Warnings {
			if strings.Contains(w.Message, "assistant_runs row") && strings.Contains(w.Message, "input_tokens (or prompt_tokens) is -1") {
				bad++
			}
		}
	}
	if runs == 0 || bad != 1 {
		t.Fatalf("%d runs with usage, %d warnings for the bad row (want ≥ 1 and 1)", runs, bad)
	}
}
