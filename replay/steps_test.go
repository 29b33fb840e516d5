package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// stepsSession is an opencode-shaped session built in memory: one prompt,
// then one assistant message answered in five steps, each its own request
// with its own recorded usage, all on the message's row (line 2), as the
// database reader gives them (corpus/opencode's TestDatabaseStepLines).
// The k-th step's request carried 85,000 + 5,000k tokens; the first four
// each read a file of 4,000 characters.
func stepsSession() *corpus.Session {
	s := &corpus.Session{ID: "ses_steps", Format: corpus.FormatOpencode}
	s.Messages = append(s.Messages, corpus.Message{ID: "msg_1", Role: corpus.RoleUser, Line: 1, Blocks: text("read the four files")})
	for k := 1; k <= 5; k++ {
		id := "msg_2"
		if k > 1 {
			id = fmt.Sprintf("msg_2/step%d", k)
		}
		a := corpus.Message{ID: id, Role: corpus.RoleAssistant, Line: 2, Blocks: text("done")}
		call := fmt.Sprintf("call_%d", k)
		if k < 5 {
			a.Blocks = []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: call, ToolName: "read", Args: []byte(fmt.Sprintf(`{"filePath":"/w/f%d.go"}`, k))}}
		}
		s.Recorded.Usage = append(s.Recorded.Usage, corpus.Usage{AtMessage: len(s.Messages), Requests: 1, InputTokens: 85000 + 5000*k})
		s.Messages = append(s.Messages, a)
		if k < 5 {
			s.Messages = append(s.Messages, corpus.Message{ID: id + "/results", Role: corpus.RoleTool, Line: 2,
				Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: call, Text: strings.Repeat("x", 4000)}}})
		}
	}
	return s
}

// TestRecordedTriggerReadsEachStep: a trigger on the previous request's
// recorded context fires at the request after the first step that reached
// it. Each step reading the first step's figure (90,000), as before
// 6076e74, it never fired.
func TestRecordedTriggerReadsEachStep(t *testing.T) {
	p, err := policy.New("clear-tool-results", map[string]string{"trigger_at": "100000", "keep": "results",
		"keep_value": "0", "min_reclaim": "0", "compactable_tools": ""})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Run(context.Background(), stepsSession(), p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range tr.Events {
		got = append(got, fmt.Sprintf("request %d: %d -> %d tokens", e.Request, e.Outcome.BeforeTokens, e.Outcome.AfterTokens))
	}
	// Request 3 (the fourth step) follows the third step's 100,000 tokens
	// and clears the three results before it, 1,000 tokens each, for
	// stubs of 33. Request 4 follows the fourth step's 105,000, less the
	// 2,901 the replay cleared and the recording did not (the drift), and
	// clears the fourth result.
	want := []string{"request 3: 100000 -> 97099 tokens", "request 4: 102099 -> 101132 tokens"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("compactions:\n got %q\nwant %q", got, want)
	}
}
