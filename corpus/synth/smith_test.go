package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

func TestSmithIsDeterministic(t *testing.T) {
	for _, p := range Profiles() {
		if p.BigBytes > 1<<20 && testing.Short() {
			continue
		}
		a := appendAll(Smith(p, 7))
		b := appendAll(Smith(p, 7))
		c := appendAll(Smith(p, 8))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with seed 7 differ", p.Name)
		}
		if bytes.Equal(a, c) {
			t.Errorf("%s: seeds 7 and 8 gave the same session", p.Name)
		}
	}
}

// appendAll serialises a whole transcript (test helper).
func appendAll(msgs []corpus.Message) []byte {
	var out []byte
	for _, m := range msgs {
		out = AppendSmithMessage(out, m, false)
		out = append(out, '\n')
	}
	return out
}

func TestProfilesCoverWhatTheSeedsTalkAbout(t *testing.T) {
	count := func(p Profile, f func(corpus.Message, corpus.Block) bool) int {
		n := 0
		for _, m := range Smith(p, 1) {
			for _, b := range m.Blocks {
				if f(m, b) {
					n++
				}
			}
		}
		return n
	}
	rereads := func(p Profile) int {
		seen := map[string]int{}
		for _, m := range Smith(p, 1) {
			for _, b := range m.Blocks {
				if b.Kind == corpus.KindToolUse && b.ToolName == "read_file" {
					seen[string(b.Args)]++
				}
			}
		}
		most := 0
		for _, n := range seen {
			most = max(most, n)
		}
		return most
	}
	if n := rereads(Rereads); n < 3 {
		t.Errorf("rereads: the most-read file is read %d times, want >= 3 with identical args", n)
	}
	if n := count(Thinking, func(_ corpus.Message, b corpus.Block) bool {
		return b.Kind == corpus.KindThinking && b.Signature != ""
	}); n < 5 {
		t.Errorf("thinking: %d signed thinking blocks, want >= 5", n)
	}
	if n := count(Continuations, func(m corpus.Message, b corpus.Block) bool {
		return m.Synthetic && (b.Text == SmithContinueText || b.Text == SmithRetrySmaller)
	}); n < 2 {
		t.Errorf("continuations: %d synthetic continuations, want >= 2", n)
	}
	if n := count(BashRuns, func(_ corpus.Message, b corpus.Block) bool {
		return b.Kind == corpus.KindToolUse && b.ToolName == "bash"
	}); n < 20 {
		t.Errorf("bash: %d bash calls, want >= 20", n)
	}
	if !testing.Short() {
		if n := count(BigResults, func(_ corpus.Message, b corpus.Block) bool {
			return b.Kind == corpus.KindToolResult && len(b.Text) >= 4<<20
		}); n < 1 {
			t.Errorf("big-results: no result of 4 MB")
		}
	}
}

func TestAppendSmithMessageMatchesSpecExamples(t *testing.T) {
	tests := []struct {
		m    corpus.Message
		want string
	}{
		{corpus.Message{ID: "3f9a0c51d2e87b46", Role: corpus.RoleUser, Blocks: []corpus.Block{
			{Kind: corpus.KindText, Text: "Run the specs and fix whatever fails"}}},
			`{"role":"user","content":[{"type":"text","text":"Run the specs and fix whatever fails"}],"synthetic":false,"id":"3f9a0c51d2e87b46"}`},
		{corpus.Message{ID: "a1b2c3d4e5f60718", Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindThinking, Text: "Run the suite first.", Signature: "ErUBCkYIARgCIkDx3s+Signature/Bytes=="},
			{Kind: corpus.KindText, Text: "Running the specs."},
			{Kind: corpus.KindToolUse, ToolCallID: "toolu_01XyZ", ToolName: "bash", Args: []byte(`{"command":"crystal spec"}`)}}},
			`{"role":"assistant","content":[{"type":"thinking","text":"Run the suite first.","signature":"ErUBCkYIARgCIkDx3s+Signature/Bytes=="},{"type":"text","text":"Running the specs."},{"type":"tool_use","tool_call_id":"toolu_01XyZ","tool_name":"bash","tool_args":{"command":"crystal spec"}}],"synthetic":false,"id":"a1b2c3d4e5f60718"}`},
		{corpus.Message{ID: "0badc0ffee123456", Role: corpus.RoleTool, Blocks: []corpus.Block{
			{Kind: corpus.KindToolResult, Text: "312 examples, 1 failures\n…", ToolCallID: "toolu_01XyZ"}}},
			`{"role":"tool","content":[{"type":"tool_result","text":"312 examples, 1 failures\n…","tool_call_id":"toolu_01XyZ","is_error":false}],"synthetic":false,"id":"0badc0ffee123456"}`},
		{corpus.Message{ID: "77e1d0c2b9a84f10", Role: corpus.RoleAssistant, Blocks: []corpus.Block{
			{Kind: corpus.KindRedactedThinking, Text: "EncryptedPayload=="}, {Kind: corpus.KindText, Text: "Fixed."}}},
			`{"role":"assistant","content":[{"type":"redacted_thinking","text":"EncryptedPayload=="},{"type":"text","text":"Fixed."}],"synthetic":false,"id":"77e1d0c2b9a84f10"}`},
		{corpus.Message{ID: "5c0e9b1a2d3f4e6a", Role: corpus.RoleUser, Synthetic: true, Blocks: []corpus.Block{
			{Kind: corpus.KindText, Text: SmithContinueText}}},
			`{"role":"user","content":[{"type":"text","text":"Your previous response was cut off at the output token limit. Continue exactly where you left off. Do not repeat what you already wrote and do not start over."}],"synthetic":true,"id":"5c0e9b1a2d3f4e6a"}`},
		{corpus.Message{ID: "x", Role: corpus.RoleTool, Blocks: []corpus.Block{
			{Kind: corpus.KindToolResult, Text: "Attached 'shot.png' as image/png (3 B).", ToolCallID: "p1"},
			{Kind: corpus.KindImage, ToolCallID: "p1", MediaType: "image/png", Source: "shot.png"}}},
			`{"role":"tool","content":[{"type":"tool_result","text":"Attached 'shot.png' as image/png (3 B).","tool_call_id":"p1","is_error":false},{"type":"image","tool_call_id":"p1","media_type":"image/png","source":"shot.png"}],"synthetic":false,"id":"x"}`},
	}
	for _, tt := range tests {
		if got := string(AppendSmithMessage(nil, tt.m, false)); got != tt.want {
			t.Errorf("got  %s\nwant %s", got, tt.want)
		}
	}
	legacy := string(AppendSmithMessage(nil, tests[0].m, true))
	if want := `{"role":"user","content":[{"type":"text","text":"Run the specs and fix whatever fails"}]}`; legacy != want {
		t.Errorf("legacy: got %s, want %s", legacy, want)
	}
}

func TestAppendJSONStringIsValidJSON(t *testing.T) {
	for _, s := range append(textPool, "\x00\x01\x1f\x7f", `"\`, "\u2028") {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil || got != s {
			t.Errorf("%q: round trip gave %q, %v", s, got, err)
		}
	}
	if got := string(appendJSONString(nil, "a\x01\x7f")); got != `"a\u0001\u007f"` {
		t.Errorf("control escapes: got %s", got)
	}
}

func TestWriteDemoIsDeterministicAndLoadable(t *testing.T) {
	hash := func(dir string) map[string][32]byte {
		out := map[string][32]byte{}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				rel, _ := filepath.Rel(dir, p)
				out[rel] = sha256.Sum256(b)
			}
			return nil
		})
		return out
	}
	a, b := t.TempDir(), t.TempDir()
	pa, err := WriteDemo(a, DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDemo(b, DemoOptions{}); err != nil {
		t.Fatal(err)
	}
	ha, hb := hash(a), hash(b)
	if len(ha) < 6 || len(ha) != len(hb) {
		t.Fatalf("demo files: %d and %d, want the same 6+", len(ha), len(hb))
	}
	for k, v := range ha {
		if hb[k] != v {
			t.Errorf("%s differs between two runs", k)
		}
	}
	if len(pa) == 0 || !strings.HasPrefix(pa[0], a) {
		t.Fatalf("paths %v", pa)
	}
	// Every file is valid JSON / JSONL.
	for rel := range ha {
		if strings.HasSuffix(rel, ".sqlite") {
			continue // the clai demo database (checked in clai_test.go)
		}
		data, _ := os.ReadFile(filepath.Join(a, rel))
		for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			if !json.Valid(line) {
				t.Errorf("%s:%d is not valid JSON", rel, i+1)
			}
		}
	}
}

func TestSmithFirstPromptAndName(t *testing.T) {
	long := strings.Repeat("abcdefghij", 7)
	msgs := []corpus.Message{{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "  " + long + " "}}}}
	if got, want := SmithFirstPrompt(msgs), long[:58]+"..."; got != want {
		t.Errorf("first prompt %q, want %q", got, want)
	}
	if got := SmithFirstPrompt(nil); got != "(empty session)" {
		t.Errorf("empty: %q", got)
	}
	if got, want := SmithName("Refactor the agent loop, then run it"), "refactor-the-agent-loop-then"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
}
