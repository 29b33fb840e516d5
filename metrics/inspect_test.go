package metrics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	"github.com/calib-dev/calib/corpus/opencode"
)

func text(role corpus.Role, s string) corpus.Message {
	return corpus.Message{Role: role, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: s}}}
}

func TestInspect(t *testing.T) {
	use := func(id, name, args string) corpus.Block {
		return corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: name, Args: []byte(args)}
	}
	result := func(id, s string) corpus.Block {
		return corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Text: s}
	}
	cont := text(corpus.RoleUser, "continue")
	cont.Synthetic = true
	side := text(corpus.RoleUser, "subagent prompt")
	side.Sidechain = true
	sum := text(corpus.RoleUser, "Summary of the earlier conversation: x")
	sum.Summary = true
	s := &corpus.Session{
		ID: "s1", Format: corpus.FormatSmithTranscript, Path: "demo/s1/transcript.jsonl",
		Meta: corpus.Meta{AgentVersion: "0.9.1", Model: "m"},
		Messages: []corpus.Message{
			sum,                                    // 38 bytes, not a turn
			text(corpus.RoleUser, "fix the build"), // 13 bytes, turn 1
			{Role: corpus.RoleAssistant, Blocks: []corpus.Block{
				{Kind: corpus.KindThinking, Text: "hmm", Signature: "sig-not-counted"},
				use("t1", "read_file", `{"path":"a.go"}`), // 15 bytes
				use("t2", "bash", `{"cmd":"make"}`),       // 14 bytes
			}},
			{Role: corpus.RoleTool, Blocks: []corpus.Block{result("t1", strings.Repeat("a", 100))}},
			// Anthropic style: tool results in a user message are not a turn.
			{Role: corpus.RoleUser, Blocks: []corpus.Block{result("t2", strings.Repeat("b", 250))}},
			cont, // 8 bytes
			{Role: corpus.RoleAssistant, Blocks: []corpus.Block{use("t3", "read_file", `{}`)}},
			{Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "t3", Payload: []byte(`{"ok":true}`)}}},
			side,                                   // 15 bytes
			text(corpus.RoleUser, "now the tests"), // 13 bytes, turn 2
			text(corpus.RoleAssistant, "done"),     // 4 bytes
		},
		Warnings: []corpus.Warning{{File: "demo/s1/transcript.jsonl", Line: 7, Message: "skipped"}},
	}
	got := Inspect(s)
	want := InspectRow{
		ID: "s1", Format: "smith-transcript", Path: "demo/s1/transcript.jsonl", AgentVersion: "0.9.1", Model: "m", AutoPolicy: "smith-staged",
		Messages:          11,
		MessagesByRole:    map[string]int{"user": 6, "assistant": 3, "tool": 2},
		Turns:             2,
		Synthetic:         1,
		Summaries:         1,
		ToolCalls:         3,
		ToolCallsByName:   map[string]int{"read_file": 2, "bash": 1},
		Bytes:             38 + 13 + 3 + 15 + 14 + 100 + 250 + 8 + 2 + 11 + 15 + 13 + 4,
		BytesByRole:       map[string]int64{"user": 38 + 13 + 250 + 8 + 15 + 13, "assistant": 3 + 15 + 14 + 2 + 4, "tool": 111},
		Tokens:            (38 + 13 + 3 + 15 + 14 + 100 + 250 + 8 + 2 + 11 + 15 + 13 + 4) / 4,
		LargestToolResult: 250,
		Recorded:          []InspectCompaction{},
		Warnings:          s.Warnings,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Inspect =\n%+v\nwant\n%+v", got, want)
	}
}

// TestInspectClaiCompactions checks the preamble counts and kind come from
// the stored summary text: a digest that nests one earlier digest has two
// copies of each preamble.
func TestInspectClaiCompactions(t *testing.T) {
	inner := clai.SummaryPreamble + "\n\n" + clai.DigestPreamble + "\n\nuser: goal"
	nested := clai.SummaryPreamble + "\n\n" + clai.DigestPreamble + "\n\nuser: " + inner + "\nassistant: ok"
	model := clai.SummaryPreamble + "\n\nThe user wants the routing bug fixed."
	s := &corpus.Session{ID: "c1", Format: corpus.FormatClai, Recorded: corpus.Recorded{Compactions: []corpus.Compaction{
		{Index: 0, Strategy: "session_rotation_summary", Trigger: "automatic", Status: "completed", InputMessages: 40, Summary: inner},
		{Index: 1, Strategy: "session_rotation_summary", Trigger: "automatic", Status: "completed", InputMessages: 12, Summary: nested, Chained: true},
		{Index: 2, Strategy: "local_summary", Trigger: "manual", Status: "completed", InputMessages: 7, Summary: model},
		{Index: 3, Strategy: "local_summary", Trigger: "automatic", Status: "failed", SummaryMissing: true},
	}}}
	got := Inspect(s).Recorded
	want := []InspectCompaction{
		{Index: 0, Strategy: "session_rotation_summary", Trigger: "automatic", Status: "completed", Window: 40, DigestBytes: len(inner), P1: 1, P2: 1, Kind: "digest"},
		{Index: 1, Strategy: "session_rotation_summary", Trigger: "automatic", Status: "completed", Window: 12, DigestBytes: len(nested), P1: 2, P2: 2, Kind: "digest", Chained: true},
		{Index: 2, Strategy: "local_summary", Trigger: "manual", Status: "completed", Window: 7, DigestBytes: len(model), P1: 1, P2: 0, Kind: "model"},
		{Index: 3, Strategy: "local_summary", Trigger: "automatic", Status: "failed", SummaryMissing: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Recorded =\n%+v\nwant\n%+v", got, want)
	}
}

func TestInspectEmptySessionHasNonNilCollections(t *testing.T) {
	r := Inspect(&corpus.Session{ID: "e"})
	if r.MessagesByRole == nil || r.ToolCallsByName == nil || r.BytesByRole == nil || r.Recorded == nil || r.Warnings == nil {
		t.Errorf("nil collections would marshal as null: %+v", r)
	}
}

// BenchmarkInspect measures inspect's cost per content byte on a
// tool-heavy session (one pass over the blocks, no copies).
func BenchmarkInspect(b *testing.B) {
	result := strings.Repeat("x", 4000)
	var msgs []corpus.Message
	for i := 0; i < 10000; i++ {
		msgs = append(msgs,
			text(corpus.RoleUser, "do the next thing"),
			corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolName: "read_file", Args: []byte(`{"path":"a.go"}`)}}},
			corpus.Message{Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, Text: result}}})
	}
	s := &corpus.Session{ID: "bench", Messages: msgs}
	b.SetBytes(Inspect(s).Bytes)
	b.ReportAllocs()
	for b.Loop() {
		Inspect(s)
	}
}

// Persisted outputs are listed with the log line of the message their
// request produced; a placement past the end (never sent) has line 0.
func TestInspectPersisted(t *testing.T) {
	s := &corpus.Session{ID: "s", Format: corpus.FormatClaudeCode,
		Messages: []corpus.Message{{Role: corpus.RoleUser, Line: 3}, {Role: corpus.RoleAssistant, Line: 7}},
		Recorded: corpus.Recorded{Persisted: []corpus.Persisted{
			{ToolCallID: "a", File: "s/tool-results/a.txt", Bytes: 10, Boundary: -1, AtMessage: 1, Placed: corpus.PlacedCacheBreak},
			{ToolCallID: "b", File: "s/tool-results/b.txt", Bytes: 4, Boundary: 0, AtMessage: 2, Placed: corpus.PlacedArrival},
		}}}
	got := Inspect(s).Persisted
	want := []InspectPersisted{
		{ToolCallID: "a", File: "s/tool-results/a.txt", Bytes: 10, Boundary: -1, AtMessage: 1, AtLine: 7, Placed: "cache-break"},
		{ToolCallID: "b", File: "s/tool-results/b.txt", Bytes: 4, Boundary: 0, AtMessage: 2, AtLine: 0, Placed: "arrival"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("persisted = %+v, want %+v", got, want)
	}
}

// TestInspectOpencodeWrites: inspect counts opencode's recorded cache
// writes (steps 1 and 4 of the hand-written storage fixture record 300 and
// 11,000), which it read as 0: the reader records no TTL split, and inspect
// read the split alone.
func TestInspectOpencodeWrites(t *testing.T) {
	ss, err := opencode.LoadStorage("../corpus/opencode/testdata/storage", corpus.Options{})
	if err != nil || len(ss) != 1 {
		t.Fatalf("%d sessions, %v", len(ss), err)
	}
	u := Inspect(ss[0]).Usage
	if u == nil || *u != (InspectUsage{Requests: 5, InputTokens: 13350, CacheWrite5m: 11300, CacheReadTokens: 31000, OutputTokens: 235}) {
		t.Errorf("recorded usage %+v; want 5 requests, 11,300 5-minute writes", u)
	}
}
