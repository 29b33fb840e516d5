package policy_test

import (
	"context"
	"os"
	"testing"
	"unicode/utf16"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/load"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

// realCorpus is shared/corpus-real beside the checkout.
const realCorpus = "../../shared/corpus-real"

// Every preset replays the real Claude Code and Codex logs without
// breaking an invariant (tool pairs, the turn in progress, accounting, a
// compaction that grows the context), and the caps hold: in the final
// history, no tool output the model was sent is over its preset's cap.
func TestPresetsOnTheRealCorpus(t *testing.T) {
	if _, err := os.Stat(realCorpus); err != nil {
		t.Skipf("real corpus not found at %s (expected shared/corpus-real beside the checkout): %v", realCorpus, err)
	}
	sessions, err := load.Load([]string{realCorpus}, corpus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range policy.Defs() {
		if d.Agent == "" || d.Name == "smith-staged" || d.Name == "smith-legacy" || d.Name == "clai-rotation" {
			continue // the agents' own policies have their own tests
		}
		p, err := policy.New(d.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		events := 0
		for _, s := range sessions {
			if !d.Applies(s.Format) {
				continue
			}
			tr, err := replay.Run(context.Background(), s, p, replay.Options{KeepFinal: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range tr.Violations {
				t.Errorf("%s on %s, request %d: %s: %s", d.Name, s.ID, v.Request, v.Rule, v.Detail)
			}
			events += len(tr.Events)
			if limit, ok := caps[d.Name]; ok {
				checkCap(t, d.Name, s.ID, tr.Final, limit)
			}
		}
		t.Logf("%s: %d compactions over %d sessions", d.Name, events, len(sessions))
	}
}

// caps are the presets' documented output caps, in UTF-16 chars.
var caps = map[string]int{"opencode": 2000, "gemini-cli": 40000}

// checkCap fails for a tool result over limit chars that was sent: one
// before the last assistant message (later ones were never sent).
func checkCap(t *testing.T, preset, session string, h []corpus.Message, limit int) {
	t.Helper()
	last := len(h) - 1
	for last >= 0 && h[last].Role != corpus.RoleAssistant {
		last--
	}
	for i := 0; i < last; i++ {
		for _, b := range h[i].Blocks {
			if n := len(utf16.Encode([]rune(b.Text))); b.Kind == corpus.KindToolResult && n > limit {
				t.Errorf("%s on %s: result %s holds %d chars, over the cap %d", preset, session, b.ToolCallID, n, limit)
			}
		}
	}
}
