package policy

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
)

func claiText(s string) []corpus.Block { return []corpus.Block{{Kind: corpus.KindText, Text: s}} }

func claiMsg(id string, role corpus.Role, blocks ...corpus.Block) corpus.Message {
	return corpus.Message{ID: id, Role: role, Blocks: blocks}
}

// The omission marker as clai writes it, spelled out once here so the tests
// below compare against clai's text, not against our own function.
const marker17 = "[... 17 middle messages omitted during compaction; recover the full verbatim history with the read-only `history_query` tool (`.clai/data.sqlite`) ...]"

func TestClaiPreambleLengths(t *testing.T) {
	// specs §2.6: measured by compiling HEAD's functions.
	if n := len(clai.SummaryPreamble); n != 470 {
		t.Errorf("P1 is %d bytes, want 470", n)
	}
	if n := len(clai.DigestPreamble); n != 529 {
		t.Errorf("P2 is %d bytes, want 529", n)
	}
	if claiDigestOverhead != 470+529+4+len(claiOmissionMarker(999_999_999)) || claiDigestOverhead != 1161 {
		t.Errorf("claiDigestOverhead = %d, want 1161 (P1+P2+2 separators+a 9-digit marker)", claiDigestOverhead)
	}
}

// compaction.rs test 1: select_head_and_tail_keeps_everything_within_budget.
func TestClaiSelectHeadAndTailKeepsEverythingWithinBudget(t *testing.T) {
	got := claiSelectHeadAndTail([]string{"a", "b", "c"}, 10_000)
	if got != "a\n\nb\n\nc" {
		t.Fatalf("got %q, want %q", got, "a\n\nb\n\nc")
	}
}

// compaction.rs test 2: select_head_and_tail_preserves_head_and_tail_drops_middle.
func TestClaiSelectHeadAndTailPreservesHeadAndTail(t *testing.T) {
	var rendered []string
	for i := range 20 {
		rendered = append(rendered, fmt.Sprintf("MESSAGE-%02d-xxxxxxxxxxxxxxxxx", i))
	}
	if len(rendered[0]) != 28 {
		t.Fatalf("fixture message is %d bytes, want 28", len(rendered[0]))
	}
	got := claiSelectHeadAndTail(rendered, 120)
	want := "MESSAGE-00-xxxxxxxxxxxxxxxxx\n\n" + marker17 + "\n\nMESSAGE-18-xxxxxxxxxxxxxxxxx\n\nMESSAGE-19-xxxxxxxxxxxxxxxxx"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	if len(got) != 241 {
		t.Errorf("len = %d, want 241", len(got))
	}
	for _, s := range []string{"MESSAGE-00", "MESSAGE-19", "omitted during compaction", ".clai/data.sqlite"} {
		if !strings.Contains(got, s) {
			t.Errorf("output lacks %q", s)
		}
	}
}

// compaction.rs test 3: fallback_summary_truncates_tool_payloads. The
// spec's lengths (1 032, and 1 504 with P1) imply message ids of 4 bytes in
// total; ours are "u1" and "t1".
func TestClaiFallbackSummaryTruncatesToolPayloads(t *testing.T) {
	payload := `{"stdout":"` + strings.Repeat("X", 50_000) + `"}`
	window := []corpus.Message{
		claiMsg("u1", corpus.RoleUser, claiText("Original goal: fix the routing bug")...),
		claiMsg("t1", corpus.RoleTool, corpus.Block{Kind: corpus.KindToolResult, ToolCallID: "c1", Payload: []byte(payload)}),
	}
	got := claiFallbackSummary(window, claiLegacyDigest())
	want := clai.DigestPreamble + "\n\n[user message u1]\nOriginal goal: fix the routing bug\n\n[tool message t1]\n[tool result: " +
		payload[:400] + "...[truncated]]"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if len(got) != 1032 {
		t.Errorf("len = %d, want 1032", len(got))
	}
	if !strings.Contains(got, "Original goal: fix the routing bug") || !strings.Contains(got, "[truncated]") || len(got) >= 5000 {
		t.Errorf("digest lacks the goal or the truncation, or is not < 5000 bytes")
	}
	if n := len(claiSummaryMessageText(got)); n != 1504 {
		t.Errorf("stored with P1: %d bytes, want 1504", n)
	}
	stored, _ := ClaiDigestText(window, claiLegacyDigest())
	if stored != claiSummaryMessageText(got) {
		t.Errorf("ClaiDigestText differs from summary_message_text(fallback_summary(...))")
	}
}

// compaction.rs tests 4 and 5.
func TestClaiDigestPointsAtRecoverySources(t *testing.T) {
	got := claiFallbackSummary([]corpus.Message{claiMsg("m1", corpus.RoleUser, claiText("hello")...)}, claiLegacyDigest())
	if len(got) != 554 {
		t.Errorf("fallback_summary(hello) is %d bytes, want 554", len(got))
	}
	body := claiSummaryMessageText("  the body \n")
	if body != clai.SummaryPreamble+"\n\nthe body" {
		t.Errorf("summary_message_text = %q", body)
	}
	for _, s := range []string{".clai/memory/", ".clai/data.sqlite", "history_query"} {
		if !strings.Contains(got, s) {
			t.Errorf("fallback_summary lacks %q", s)
		}
		if !strings.Contains(body, s) {
			t.Errorf("summary_message_text lacks %q", s)
		}
	}
}

func claiSizes(ns ...int) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strings.Repeat(string(rune('a'+i)), n)
	}
	return out
}

// The two direct checks of the holes (specs §2.7), and what the clamp makes
// of them.
func TestClaiSelectHeadAndTailHoles(t *testing.T) {
	tests := []struct {
		name       string
		rendered   []string
		clamp      bool
		wantLen    int
		wantMarker string
	}{
		{"legacy marker present but over budget", claiSizes(50_000, 10, 10, 70_000), false, 120_154, "[... 2 middle messages omitted"},
		{"legacy early return keeps all", claiSizes(200_000, 1000), false, 201_002, ""},
		// 32 000-byte head slice minus its separator, 64 000-byte tail
		// slice minus its separator, plus the marker.
		{"fixed marker path", claiSizes(50_000, 10, 10, 70_000), true, 31_998 + 63_998 + 4 + len(claiOmissionMarker(2)), "[... 2 middle messages omitted"},
		{"fixed meet path", claiSizes(200_000, 1000), true, 31_998 + 2 + 1000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claiSelect(claiBodies(tt.rendered), 96_000, 32_000, tt.clamp).String()
			// A clamp note is sized for the digits of the message's
			// length, so a clamped slice may come out a byte short.
			if len(got) > tt.wantLen || (!tt.clamp && len(got) != tt.wantLen) || len(got) < tt.wantLen-2 {
				t.Errorf("len = %d, want %d", len(got), tt.wantLen)
			}
			if tt.wantMarker == "" && strings.Contains(got, "middle message") {
				t.Errorf("unexpected omission marker")
			}
			if tt.wantMarker != "" && !strings.Contains(got, tt.wantMarker) {
				t.Errorf("no %q marker", tt.wantMarker)
			}
			if tt.clamp && len(got) > 96_000+len(claiOmissionMarker(2)) {
				t.Errorf("fixed output %d exceeds budget + marker", len(got))
			}
		})
	}
}

// PR #154: select_head_and_tail_never_exceeds_budget_on_one_huge_message
// (two 500 KB messages, 4 KB budget) and scenario (b): the head keeps the
// start of message 0, the tail the end of the newest, each with a note.
func TestClaiClampKeepsHeadStartAndTailEnd(t *testing.T) {
	m0 := "[user message u0]\nORIGINAL GOAL " + strings.Repeat("h", 500_000)
	m1 := "[assistant message a1]\n" + strings.Repeat("t", 500_000) + " MOST RECENT"
	got := claiSelect(claiBodies([]string{m0, m1}), 4000, 4000/3, true).String()
	if len(got) > 4000 {
		t.Fatalf("clamped output is %d bytes, over the 4000-byte budget", len(got))
	}
	head, tail, ok := strings.Cut(got, "\n\n[assistant message a1]\n")
	if !ok {
		t.Fatalf("the newest message's header did not survive: %q", got[:200])
	}
	if !strings.HasPrefix(head, "[user message u0]\nORIGINAL GOAL hhh") || !strings.HasSuffix(tail, "ttt MOST RECENT") {
		t.Errorf("head does not keep the start or tail does not keep the end")
	}
	if len(head) > 4000/3-2 || len(tail)+len("[assistant message a1]\n") > 4000-4000/3-2 {
		t.Errorf("a slice overflows: head %d, tail %d", len(head), len(tail))
	}
	wantHeadNote := fmt.Sprintf("\n[... %d more bytes of this message clipped during compaction; recover them with the read-only `history_query` tool (`.clai/data.sqlite`) ...]",
		len(m0)-strings.Index(head, "\n[... "))
	if !strings.HasSuffix(head, wantHeadNote) {
		t.Errorf("head note: got %q", head[strings.Index(head, "\n[... "):])
	}
	if !strings.HasPrefix(tail, "[... ") || !strings.Contains(tail, "earlier bytes of this message clipped during compaction; recover them with the read-only `history_query` tool") {
		t.Errorf("tail note missing: %q", tail[:160])
	}
	if claiCountOmissions(got) != 2 {
		t.Errorf("claiCountOmissions = %d, want 2 clamp notes", claiCountOmissions(got))
	}
}

func TestClaiClampMessageFitsAnySize(t *testing.T) {
	s := "[tool message t]\n" + strings.Repeat("é", 3000) // 2-byte runes: cuts must back off
	for _, max := range []int{0, 1, 13, 100, 150, 300, 1000, 5999, 6017, 7000} {
		for _, start := range []bool{true, false} {
			got := claiClampMessage(s, max, start)
			if len(got) > max && len(s) > max {
				t.Errorf("max %d start %v: %d bytes", max, start, len(got))
			}
			if !utf8.ValidString(got) {
				t.Errorf("max %d start %v: invalid UTF-8 after the cut", max, start)
			}
		}
	}
	if got := claiClampMessage(s, len(s), true); got != s {
		t.Errorf("a message that fits was changed")
	}
}

func TestClaiStripCompactionPreambles(t *testing.T) {
	p1, p2 := clai.SummaryPreamble, clai.DigestPreamble
	tests := []struct{ name, in, want string }{
		// strip_compaction_preambles_leaves_ordinary_text_alone
		{"plain", "hello\n\nworld", "hello\n\nworld"},
		{"empty", "", ""},
		{"preamble later in the text", "Note: " + p1 + "\n\nx", "Note: " + p1 + "\n\nx"},
		{"a header with no preamble", "[system message abc]\nbody", "[system message abc]\nbody"},
		{"leading blank lines kept", "\n\nhello", "\n\nhello"},
		// what it strips
		{"deterministic digest", p1 + "\n\n" + p2 + "\n\n[user message u]\ngoal", "[user message u]\ngoal"},
		{"model summary", p1 + "\n\nThe user asked for X.", "The user asked for X."},
		{"old preambles", clai.SummaryPreambleOld + "\n\n" + clai.DigestPreambleOld + "\n\nbody", "body"},
		{"nested legacy layers", p1 + "\n\n" + p2 + "\n\n[system message 1111]\n" + p1 + "\n\n" + p2 + "\n\n[user message u]\ngoal\n\n[user message v]\nlater",
			"[user message u]\ngoal\n\n[user message v]\nlater"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := claiStripCompactionPreambles(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClaiRenderContentParts(t *testing.T) {
	long := `{"path":"` + strings.Repeat("日", 100) + `"}` // 3-byte runes straddle the cap
	tests := []struct {
		name   string
		blocks []corpus.Block
		want   string
	}{
		{"text verbatim, never capped", claiText(strings.Repeat("x", 9000)), strings.Repeat("x", 9000)},
		{"empty text still joins", []corpus.Block{{Kind: corpus.KindText}, {Kind: corpus.KindText, Text: "b"}}, "\nb"},
		{"thinking dropped, not joined", []corpus.Block{{Kind: corpus.KindThinking, Text: "hmm"}, {Kind: corpus.KindText, Text: "a"}}, "a"},
		{"tool call", []corpus.Block{{Kind: corpus.KindText, Text: "ok"}, {Kind: corpus.KindToolUse, ToolName: "bash", Args: []byte(`{"command":"ls"}`)}},
			"ok\n[tool call: bash {\"command\":\"ls\"}]"},
		{"null arguments", []corpus.Block{{Kind: corpus.KindToolUse, ToolName: "now"}}, "[tool call: now null]"},
		{"tool call cut at a rune boundary", []corpus.Block{{Kind: corpus.KindToolUse, ToolName: "read", Args: []byte(long)}},
			"[tool call: read " + long[:9+3*63] + "...[truncated]]"},
		{"tool result", []corpus.Block{{Kind: corpus.KindToolResult, Payload: []byte(`{"ok":true}`)}}, `[tool result: {"ok":true}]`},
		{"text-only result as a JSON string", []corpus.Block{{Kind: corpus.KindToolResult, Text: "a\"b\n<c>"}}, `[tool result: "a\"b\n<c>"]`},
		{"image", []corpus.Block{{Kind: corpus.KindImage}}, "[image]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := claiRenderContentParts(tt.blocks, 200, 400)
			if got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
			if n := claiContentLen(tt.blocks, 200, 400); n != len(got) {
				t.Errorf("claiContentLen = %d, rendered %d", n, len(got))
			}
		})
	}
}

// scenario (d): the CLI clamp of a 960 KB digest.
func TestClaiCLIClamp(t *testing.T) {
	digest := strings.Repeat("0123456789", 96_000)
	got := claiTruncateCLIContextHeadTail(digest, 64_000, 2, 3)
	if len(got) != 64_000+len(claiCLIClampMarker) {
		t.Errorf("len = %d, want 64 000 + %d", len(got), len(claiCLIClampMarker))
	}
	head, tail, ok := strings.Cut(got, claiCLIClampMarker)
	if !ok || len(head) != 42_666 || len(tail) != 21_334 || head != digest[:42_666] || tail != digest[len(digest)-21_334:] {
		t.Errorf("head %d bytes, tail %d bytes, want 42 666 and 21 334 from the ends", len(head), len(tail))
	}
	if got := claiTruncateCLIContextHeadTail(digest[:64_000], 64_000, 2, 3); got != digest[:64_000] {
		t.Errorf("a digest that fits was changed")
	}
	if got := claiTruncateCLIContextHeadTail(digest, 0, 2, 3); got != digest {
		t.Errorf("cli_clamp_bytes=0 must not clamp")
	}
}

func TestClaiPreambleBytes(t *testing.T) {
	p1, p2 := clai.SummaryPreamble, clai.DigestPreamble
	nested := p1 + "\n\n" + p2 + "\n\n[system message x]\n" + p1 + "\n\n" + p2 + "\n\nbody " + clai.SummaryPreambleOld
	full := 2*(470+529) + len(clai.SummaryPreambleOld)
	tests := []struct{ limit, want int }{
		{len(nested), full},
		{470, 470},
		{471, 470},
		{470 + 2 + 100, 570},
		{0, 0},
	}
	for _, tt := range tests {
		if got := claiPreambleBytes(nested, tt.limit); got != tt.want {
			t.Errorf("limit %d: %d preamble bytes, want %d", tt.limit, got, tt.want)
		}
	}
}

// ClaiWrittenVariant tells the variant from the stored text and window:
// nesting is legacy's, a clamp note or an unnested earlier summary is the
// fix's, and anything else (which both write alike) is legacy, clai as
// released.
func TestClaiWrittenVariant(t *testing.T) {
	p := clai.SummaryPreamble + "\n\n" + clai.DigestPreamble + "\n\n"
	summary := claiMsg("s1", corpus.RoleAssistant, claiText(p+"[user message m1]\ngoal")...)
	summary.Summary = true
	plain := []corpus.Message{claiMsg("m1", corpus.RoleUser, claiText("goal")...)}
	chained := []corpus.Message{summary, claiMsg("m2", corpus.RoleUser, claiText("more")...)}
	for _, tt := range []struct {
		name, stored string
		window       []corpus.Message
		want         string
	}{
		{"first digest, no clamp", p + "[user message m1]\ngoal", plain, ClaiLegacy},
		{"nested preambles", p + "[assistant message s1]\n" + p + "goal", chained, ClaiLegacy},
		{"earlier summary stripped", p + "[assistant message s1]\n[user message m1]\ngoal", chained, ClaiFixed},
		{"head clamp note", p + "[user message m1]\ngoal" + claiHeadNoteA + "9" + claiHeadNoteB, plain, ClaiFixed},
		{"tail clamp note", p + claiTailNoteA + "9" + claiTailNoteB + "goal", plain, ClaiFixed},
	} {
		if got := ClaiWrittenVariant(tt.stored, tt.window); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}
