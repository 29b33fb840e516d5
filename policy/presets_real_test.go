package policy_test

import (
	"context"
	"os"
	"strings"
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
			if within, ok := caps[d.Name]; ok {
				checkCap(t, d.Name, s.ID, tr.Final, within)
			}
		}
		t.Logf("%s: %d compactions over %d sessions", d.Name, events, len(sessions))
	}
}

// caps are the presets' documented output caps: whether a result of tool
// the model was sent is within its preset's.
var caps = map[string]func(tool, text string) bool{
	// opencode: every tool's output, 2,000 lines and 51,200 bytes before
	// the marker, which is not counted.
	"opencode": func(_, text string) bool {
		if i := strings.Index(text, " truncated...\n\nThe tool call succeeded"); i >= 0 {
			text = text[:strings.LastIndex(text[:i], "\n\n...")]
		}
		return len(text) <= 51200 && strings.Count(text, "\n") < 2000
	},
	// Gemini CLI: shell output only (Bash here), 40,000 UTF-16 chars,
	// marker included.
	"gemini-cli": func(tool, text string) bool {
		return tool != "Bash" || len(utf16.Encode([]rune(text))) <= 40000
	},
}

// checkCap fails for a tool result over its preset's cap that was sent:
// one before the last assistant message (later ones were never sent).
func checkCap(t *testing.T, preset, session string, h []corpus.Message, within func(tool, text string) bool) {
	t.Helper()
	last := len(h) - 1
	for last >= 0 && h[last].Role != corpus.RoleAssistant {
		last--
	}
	tools := map[string]string{}
	for i := 0; i < last; i++ {
		for _, b := range h[i].Blocks {
			switch {
			case b.Kind == corpus.KindToolUse:
				tools[b.ToolCallID] = b.ToolName
			case b.Kind == corpus.KindToolResult && !within(tools[b.ToolCallID], b.Text):
				t.Errorf("%s on %s: %s result %s (%d bytes) is over the cap", preset, session, tools[b.ToolCallID], b.ToolCallID, len(b.Text))
			}
		}
	}
}
