package policy

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// A tool result that has only a structured payload (clai's, a Codex or
// Gemini CLI output that is not a string) weighs its JSON, as the model
// was sent it: measured by Text alone it weighed nothing, and every
// policy but clai's own replayed a clai session as if its results were
// empty.
func TestStructuredResultsWeighTheirPayload(t *testing.T) {
	payload := `{"stdout":"` + strings.Repeat("é ok ", 80) + `","exit_code":0}`
	structured := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "c1", Payload: []byte(payload)}
	asText := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "c1", Text: payload}
	for _, name := range []string{MeterBytes4, MeterChars4, MeterO200k} {
		mt, err := NewMeter(name, MeterOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, want := mt.Block(&structured), mt.Block(&asText)
		if got != want || got == 0 {
			t.Errorf("%s: the payload-only result measures %d, the same JSON as text %d", name, got, want)
		}
	}
	// A result's Text wins when it has some; a block of an unknown type
	// is its raw JSON (its Text only names the type: it weighed 4 tokens).
	withText := corpus.Block{Kind: corpus.KindToolResult, Text: "shown", Payload: []byte(payload)}
	raw := `{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"calib"}}`
	unknown := corpus.Block{Kind: corpus.KindUnknown, Text: "server_tool_use", Payload: []byte(raw)}
	if withText.Content() != "shown" || unknown.Content() != raw || structured.Content() != payload {
		t.Errorf("Content: %q, %q, %q", withText.Content(), unknown.Content(), structured.Content())
	}
	chars4, _ := NewMeter(MeterChars4, MeterOptions{})
	if got := chars4.Block(&unknown); got != int64((len(raw)+2)/4) {
		t.Errorf("chars4 of the unknown block = %d, want %d (its JSON)", got, (len(raw)+2)/4)
	}

	// A stage that cuts results cuts a structured one as its JSON text:
	// Gemini CLI's 40,000-character cap, on a 90,000-byte payload.
	long := `{"output":"` + strings.Repeat(`é line of output\n`, 5000) + `"}`
	p := presetPolicy(t, "gemini-cli", nil)
	msgs := append([]corpus.Message{puser("u", "go")}, step("1", "bash", "")...)
	msgs[2].Blocks[0].Payload = []byte(long)
	msgs = append(msgs, passt("e", "ok"))
	h, outs := walk(p, msgs)
	if len(outs) != 1 {
		t.Fatalf("outcomes %+v, want one cap", outs)
	}
	r := h[2].Blocks[0]
	if r.Payload != nil || utf16Len(r.Text) > 40000 || utf16Len(r.Text) < 39800 || !strings.HasPrefix(r.Text, long[:100]) {
		t.Errorf("capped to %d chars of text (payload %d bytes), want the JSON's head cut near 40,000", utf16Len(r.Text), len(r.Payload))
	}
}

// smith's stages cut a structured result as text too (smith's own
// results never have a payload, so smith is reproduced as before), and
// the bytes a stage removes count the payload: clearing one used to count
// the stub as bytes added.
func TestSmithStagesCutStructuredResults(t *testing.T) {
	payload := `{"stdout":"` + strings.Repeat("x", 5000) + `"}`
	h := []corpus.Message{
		{Role: corpus.RoleUser, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "go"}}},
		{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: "c1", ToolName: "bash", Args: []byte(`{}`)}}},
		{Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "c1", Payload: []byte(payload)}}},
	}
	if n := smithBytes(&h[2].Blocks[0]); n != int64(len(payload)) {
		t.Errorf("smithBytes = %d, want the payload's %d", n, len(payload))
	}
	m, _ := NewMeter(MeterBytes4, MeterOptions{})
	w := newWorking(h, m)
	touched, removed := w.truncateLargestFirst(3, 0, 2048)
	r := w.msgs[2].Blocks[0]
	if touched != 1 || r.Payload != nil || !strings.HasPrefix(r.Text, payload[:2048]) || removed != int64(len(payload)-len(r.Text)) {
		t.Errorf("truncate: touched %d, removed %d, text %d bytes (payload %d); want the payload cut to its first 2,048 bytes and a marker",
			touched, removed, len(r.Text), len(r.Payload))
	}
}

// The two other readers of a result's text: the {lines} of a clearing
// stub (SWE-agent's "(N lines omitted)") and the files Claude Code's full
// compaction restores read a structured result as its JSON too.
func TestStubLinesAndRestoredFilesReadStructuredResults(t *testing.T) {
	payload := "{\n\"stdout\": \"a\",\n\"exit_code\": 0\n}"
	b := corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "c1", Payload: []byte(payload)}
	if got := (&clearStage{stub: "({lines} lines omitted, {id})"}).render(&b, false); got != "(4 lines omitted, c1)" {
		t.Errorf("stub %q, want the payload's 4 lines", got)
	}
	m, _ := NewMeter(MeterChars4, MeterOptions{})
	f := fullCompaction{restoreFiles: 2, restoreFileTokens: 1000, restoreBudget: 10000, meter: m}
	h := []corpus.Message{
		{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: "c1", ToolName: "Read", Args: []byte(`{"file_path":"/p/a.json"}`)}}},
		{Role: corpus.RoleTool, Blocks: []corpus.Block{b}},
	}
	r := f.restored(h)
	want := "Called the Read tool with the following input: /p/a.json\n" + payload
	if r == nil || len(r.Blocks) != 1 || r.Blocks[0].Text != want {
		t.Errorf("restored %+v, want one block %q", r, want)
	}
}
