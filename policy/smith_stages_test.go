package policy

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// Stage examples of smith's context_spec.cr @43ec9511 (specs/smith.md §4.2)
// and attachments_spec.cr @e533ff42 (§4.3).

// thinkingHistory is 6 turns of user + assistant with 20 000 bytes of
// thinking signed "sig-i" and a bash call, + a result "small".
func thinkingHistory() []corpus.Message {
	var h []corpus.Message
	for i := range 6 {
		id := fmt.Sprintf("t%d", i)
		h = append(h, userMsg(fmt.Sprintf("turn %d", i)),
			corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{
				{Kind: corpus.KindThinking, Text: strings.Repeat("z", 20000), Signature: fmt.Sprintf("sig-%d", i)},
				{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: "bash", Args: []byte(`{"command":"ls"}`)},
			}},
			resultMsg(id, "small", false))
	}
	return ids(h)
}

func TestStageThinkingAlone(t *testing.T) {
	h := thinkingHistory()
	o := compact(t, staged(t, "max_tokens=20000"), h)
	if !slices.Equal(stageNames(o), []string{"thinking"}) || !o.ReachedTarget {
		t.Fatalf("stages %v reached %v", stageNames(o), o.ReachedTarget)
	}
	for i, r := range results(o.History) {
		if r != "small" {
			t.Fatalf("result %d changed: %q", i, r)
		}
	}
	// the current turn's thinking survives byte for byte, signature included
	cur := o.History[len(o.History)-2]
	if !reflectEqualBlocks(cur.Blocks, h[len(h)-2].Blocks) || cur.Blocks[0].Signature != "sig-5" || len(cur.Blocks[0].Text) != 20000 {
		t.Fatalf("current turn's thinking changed: %+v", cur.Blocks[0].Signature)
	}
}

func reflectEqualBlocks(a, b []corpus.Block) bool {
	return slices.EqualFunc(a, b, func(x, y corpus.Block) bool {
		return x.Kind == y.Kind && x.Text == y.Text && x.Signature == y.Signature && x.ToolCallID == y.ToolCallID
	})
}

func TestStageThinkingKeepsThinkingOnlyMessage(t *testing.T) {
	h := thinkingHistory()
	only := corpus.Message{ID: "only", Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindRedactedThinking, Text: strings.Repeat("e", 20000)}}}
	h = slices.Insert(h, 1, only)
	// compact asserts that no message is left empty; the thinking-only
	// message cannot shrink, so the history is summarized past it here.
	o := compact(t, staged(t, "max_tokens=20000"), h)
	for _, m := range o.History {
		if m.ID == "only" && len(m.Blocks) != 1 {
			t.Fatalf("thinking-only message changed: %+v", m)
		}
	}
	// At a budget the thinking stage reaches, it stays as it was.
	o = compact(t, staged(t, "max_tokens=30000"), h)
	if o.History[1].ID != "only" || len(o.History[1].Blocks) != 1 || !slices.Equal(stageNames(o), []string{"thinking"}) {
		t.Fatalf("stages %v, message 1 %+v", stageNames(o), o.History[1].ID)
	}
}

func TestStageDuplicates(t *testing.T) {
	h := withQuietTail(repeated(8, "read_file", 20000))
	h[2].Blocks[0].IsError = true
	o := compact(t, staged(t, "max_tokens=45000"), h)
	r := results(o.History)
	if !slices.Equal(stageNames(o), []string{"duplicates"}) {
		t.Fatalf("stages %v", stageNames(o))
	}
	if r[0] != "[read_file: superseded by a later identical call, 19 KiB omitted by smith]" || len(r[7]) != 20000 {
		t.Fatalf("first %q, 8th %d bytes", r[0], len(r[7]))
	}
	if b := o.History[2].Blocks[0]; b.ToolCallID != "c0" || !b.IsError {
		t.Fatalf("stub lost id or is_error: %+v", b)
	}
}

func TestStageDuplicatesNeverBash(t *testing.T) {
	o := compact(t, staged(t, "max_tokens=45000"), withQuietTail(repeated(8, "bash", 20000)))
	if slices.Contains(stageNames(o), "duplicates") || strings.Contains(strings.Join(results(o.History), ""), smithSupersededMarker) {
		t.Fatalf("bash calls were superseded: %v", stageNames(o))
	}
}

func TestStageDuplicatesRespectsWindow(t *testing.T) {
	o := compact(t, staged(t, "max_tokens=35000"), repeated(3, "read_file", 40000))
	if slices.Contains(stageNames(o), "duplicates") {
		t.Fatalf("duplicates inside the window: %v", stageNames(o))
	}
}

func TestStageTruncate(t *testing.T) {
	o := compact(t, staged(t, "max_tokens=60000"), withQuietTail(conversation(10, 20000)))
	r := results(o.History)
	if len(r[0]) >= 2000 {
		t.Fatalf("first result %d bytes", len(r[0]))
	}
	if !slices.Equal(r[len(r)-3:], []string{"ok", "ok", "ok"}) {
		t.Fatalf("window results changed: %q", r[len(r)-3:])
	}
}

func TestStageTruncateCollapsesMarked(t *testing.T) {
	cut := strings.Repeat("x", 2000) + "\n\n[... 40 KiB truncated by smith to stay within the context window ...]"
	var h []corpus.Message
	for i := range 20 {
		id := fmt.Sprintf("old-%d", i)
		h = append(h, userMsg(fmt.Sprintf("q %d", i)), callMsg(id, "bash", `{"command":"cat log"}`), resultMsg(id, cut, false))
	}
	o := compact(t, staged(t, "max_tokens=12000"), withQuietTail(h))
	n := 0
	for _, r := range results(o.History) {
		if len(r) < 200 && strings.Contains(r, smithTruncationMarker) {
			if r != "[2 KiB truncated by smith to stay within the context window]" {
				t.Fatalf("stub %q", r)
			}
			n++
		}
	}
	if n == 0 {
		t.Fatal("no marked result collapsed to a stub")
	}
}

func TestStageTruncateLargestFirst(t *testing.T) {
	var h []corpus.Message
	for i := range 11 {
		id := fmt.Sprintf("r%d", i)
		size := 4000
		if i == 5 {
			size = 200000
		}
		h = append(h, userMsg(fmt.Sprintf("q %d", i)), callMsg(id, "bash", `{"command":"ls"}`), resultMsg(id, strings.Repeat("x", size), false))
	}
	h = ids(append(h, userMsg("a"), userMsg("b"), userMsg("c")))
	o := compact(t, staged(t, "max_tokens=30000"), h)
	mangled := 0
	for i, r := range results(o.History) {
		if strings.Contains(r, smithTruncationMarker) {
			mangled++
			if i != 5 {
				t.Fatalf("result %d mangled", i)
			}
		}
	}
	if mangled != 1 || o.Stages[0].BlocksTouched != 1 {
		t.Fatalf("%d results mangled", mangled)
	}
}

func TestStageTruncateTiesStayInOrder(t *testing.T) {
	// Equal sizes: the oldest is cut first (a stable sort).
	o := compact(t, staged(t, "max_tokens=7000"), withQuietTail(conversation(4, 6000)))
	r := results(o.History)
	if !strings.Contains(r[0], smithTruncationMarker) || !strings.Contains(r[1], smithTruncationMarker) || len(r[2]) != 6000 || len(r[3]) != 6000 {
		t.Fatalf("tie order: %v", []int{len(r[0]), len(r[1]), len(r[2]), len(r[3])})
	}
}

func TestStageTruncateLastResort(t *testing.T) {
	o := compact(t, staged(t, "max_tokens=1000"), conversation(1, 400000))
	if !strings.Contains(results(o.History)[0], smithTruncationMarker) {
		t.Fatal("the window was not given up")
	}
}

func TestSyntheticContinuationsDoNotTakeTheWindow(t *testing.T) {
	var h []corpus.Message
	add := func(u corpus.Message, id string, bytes int) {
		h = append(h, u, callMsg(id, "bash", `{"command":"make"}`), resultMsg(id, strings.Repeat("x", bytes), false))
	}
	for i := range 2 {
		add(userMsg(fmt.Sprintf("big %d", i)), fmt.Sprintf("b%d", i), 100000)
	}
	for i := range 3 {
		add(userMsg(fmt.Sprintf("real %d", i)), fmt.Sprintf("r%d", i), 20000)
	}
	for i := range 3 {
		add(syntheticMsg("Your previous response was cut off at the output token limit. Continue exactly where you left off. Do not repeat what you already wrote and do not start over."), fmt.Sprintf("s%d", i), 5000)
	}
	o := compact(t, staged(t, "max_tokens=80000"), ids(h))
	r := results(o.History)
	for _, i := range []int{2, 3, 4} {
		if len(r[i]) != 20000 {
			t.Fatalf("real turn result %d is %d bytes", i, len(r[i]))
		}
	}
}

func TestSafeCutNeverSynthetic(t *testing.T) {
	var h []corpus.Message
	for i := range 10 {
		id := fmt.Sprintf("c%d", i)
		h = append(h, userMsg(fmt.Sprintf("go %d", i)), syntheticMsg("A stop hook asked you to keep going."), callMsg(id, "bash", `{}`), resultMsg(id, strings.Repeat("x", 60000), false))
	}
	m, _ := NewMeter(MeterBytes4, MeterOptions{})
	cut := newWorking(ids(h), m).safeCutIndex(1000, true)
	if cut <= 0 || h[cut].Synthetic {
		t.Fatalf("cut %d synthetic=%v", cut, cut > 0 && h[cut].Synthetic)
	}
	o := compact(t, staged(t, "max_tokens=1000"), h)
	if o.History[1].Synthetic {
		t.Fatal("the summary is followed by a synthetic message")
	}
}

func TestStagedLongHistory(t *testing.T) {
	o := compact(t, staged(t, "max_tokens=50000"), conversation(400, 2000))
	if o.Strategy == None {
		t.Fatal("400 results did not compact")
	}
}

// attachments_spec @e533ff42

func imageBlock(source string) corpus.Block {
	return corpus.Block{Kind: corpus.KindImage, MediaType: "image/png", Source: source, MediaRef: "9c56"}
}

func TestMediaEstimate(t *testing.T) {
	p := staged(t, "")
	bare := userMsg("what is wrong here?")
	img := deepCopy([]corpus.Message{bare})[0]
	img.Blocks = append(img.Blocks, imageBlock("shot.png"))
	doc := deepCopy([]corpus.Message{bare})[0]
	doc.Blocks = append(doc.Blocks, corpus.Block{Kind: corpus.KindDocument, MediaType: "application/pdf", Source: "spec.pdf"})
	m := p.(*SmithStaged).meter
	tok := func(x corpus.Message) int { return m.Tokens(units(p, []corpus.Message{x})) }
	if tok(img) != tok(bare)+1600 || tok(doc) <= tok(img) {
		t.Fatalf("bare %d image %d document %d", tok(bare), tok(img), tok(doc))
	}
}

func sixTurns() []corpus.Message {
	var h []corpus.Message
	for i := range 6 {
		h = append(h, userMsg(fmt.Sprintf("turn %d", i)), corpus.Message{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: "done"}}})
	}
	return ids(h)
}

func TestMediaOldUserAttachment(t *testing.T) {
	h := sixTurns()
	h[0].Blocks = append(h[0].Blocks, imageBlock("old.png"))
	o := compact(t, staged(t, "max_tokens=2000"), h)
	first := o.History[0]
	if hasKind(&first, corpus.KindImage, corpus.KindDocument) || !slices.Contains(stageNames(o), "attachments") {
		t.Fatalf("stages %v, first %+v", stageNames(o), first.Blocks)
	}
	if got := first.Blocks[1].Text; got != "[old.png \u2014 removed to stay within the context window; mention it again to re-attach it]" {
		t.Fatalf("note %q", got)
	}
}

func TestMediaCurrentTurnKept(t *testing.T) {
	h := ids([]corpus.Message{userMsg("look")})
	h[0].Blocks = append(h[0].Blocks, imageBlock("now.png"))
	o := compact(t, staged(t, "max_tokens=2000"), h)
	if !hasKind(&o.History[0], corpus.KindImage) {
		t.Fatal("the current turn's image was removed")
	}
}

func TestMediaToolProduced(t *testing.T) {
	h := sixTurns()
	tool := corpus.Message{Role: corpus.RoleTool, Blocks: []corpus.Block{
		{Kind: corpus.KindToolResult, ToolCallID: "t1", Text: "Attached 'old.png' as image/png (3 B)."},
		{Kind: corpus.KindImage, ToolCallID: "t1", MediaType: "image/png", Source: "old.png"},
	}}
	h = ids(slices.Insert(h, 1, callMsg("t1", "attach", `{"path":"old.png"}`), tool))
	o := compact(t, staged(t, "max_tokens=2000"), h)
	b := o.History[2].Blocks
	want := "Attached 'old.png' as image/png (3 B).\n\n[old.png \u2014 " + smithMediaMarker + "]"
	if len(b) != 1 || b[0].Kind != corpus.KindToolResult || b[0].ToolCallID != "t1" || b[0].Text != want {
		t.Fatalf("tool message %+v", b)
	}
	if !slices.Contains(stageNames(o), "attachments") {
		t.Fatalf("stages %v", stageNames(o))
	}
}

func TestStageSwitches(t *testing.T) {
	h := thinkingHistory()
	o := compact(t, staged(t, "max_tokens=20000,stage_thinking=false"), h)
	if slices.Contains(stageNames(o), "thinking") {
		t.Fatalf("stage_thinking=false ran thinking: %v", stageNames(o))
	}
	o = compact(t, staged(t, "max_tokens=60000,stage_truncate=false,stage_summarize=false"), withQuietTail(conversation(10, 20000)))
	if o.Strategy != None || len(o.Stages) != 0 {
		t.Fatalf("all useful stages off: %s %v", o.Strategy, stageNames(o))
	}
}
