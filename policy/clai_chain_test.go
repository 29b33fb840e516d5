package policy

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
)

// claiSlope is the least-squares slope of ys against 1..n.
func claiSlope(ys []int) float64 {
	n := float64(len(ys))
	mx, my := (n+1)/2, 0.0
	for _, y := range ys {
		my += float64(y)
	}
	my /= n
	var sxy, sxx float64
	for i, y := range ys {
		dx := float64(i+1) - mx
		sxy += dx * (float64(y) - my)
		sxx += dx * dx
	}
	return sxy / sxx
}

func claiDigestSizes(outs []Outcome) []int {
	s := make([]int, len(outs))
	for i, o := range outs {
		s[i] = len(o.Digest.Text)
	}
	return s
}

// The growth mechanism of specs §2.7: with UUID ids every legacy rotation
// copies its predecessor whole, wrapped in fresh P1 and P2 and a 54-byte
// "[system message <uuid>]\n" header: +1 057 bytes of nested boilerplate,
// plus the 2-byte separator and the rest of the window.
func TestClaiLegacyGrowthFormula(t *testing.T) {
	outs := claiRun(t, claiPolicy(t, nil), claiTurns(120), 5)
	if len(outs) != 5 {
		t.Fatalf("%d rotations, want 5", len(outs))
	}
	for k := 1; k < len(outs); k++ {
		prev, cur := outs[k-1], outs[k]
		id := prev.History[0].ID
		if len(id) != 36 || prev.History[0].Role != corpus.RoleSystem || !prev.History[0].Summary || prev.History[0].Source != claiCompactionSource {
			t.Fatalf("rotation %d: summary message %+v is not a UUID-identified system summary", k, prev.History[0].ID)
		}
		wrapped := clai.SummaryPreamble + "\n\n" + clai.DigestPreamble + "\n\n[system message " + id + "]\n" + prev.Digest.Text + "\n\n"
		if !strings.HasPrefix(cur.Digest.Text, wrapped) {
			t.Fatalf("rotation %d does not start with its predecessor whole under fresh preambles", k+1)
		}
		rest := len(cur.Digest.Text) - len(wrapped)
		boilerplate := len(cur.Digest.Text) - len(prev.Digest.Text) - 2 - rest
		if boilerplate != 1057 {
			t.Errorf("rotation %d: %d bytes of nested boilerplate, want 1 057", k+1, boilerplate)
		}
		if cur.Digest.Msg0Bytes != 54+len(prev.Digest.Text) {
			t.Errorf("rotation %d: message 0 is %d bytes, want 54 + %d", k+1, cur.Digest.Msg0Bytes, len(prev.Digest.Text))
		}
	}
}

// With 7-character ids the nested boilerplate is 1 028 bytes per rotation
// (specs §2.7): the header shrinks from 54 to 25 bytes.
func TestClaiLegacyGrowthWithShortIDs(t *testing.T) {
	prev := ""
	for k := range 4 {
		var w []corpus.Message
		if prev != "" {
			w = append(w, corpus.Message{ID: "abc123" + string(rune('0'+k)), Role: corpus.RoleSystem, Source: claiCompactionSource, Blocks: claiText(prev)})
		}
		rest := claiMsg("u00000"+string(rune('0'+k)), corpus.RoleUser, claiText("next goal")...)
		w = append(w, rest)
		cur, _ := ClaiDigestText(w, claiLegacyDigest())
		if prev != "" {
			restLen := claiRenderParts(&rest, 200, 400, false).len()
			if got := len(cur) - len(prev) - 2 - restLen; got != 1028 {
				t.Errorf("rotation %d: %d bytes of boilerplate, want 1 028", k+1, got)
			}
		}
		prev = cur
	}
}

// Acceptance: 20 legacy rotations grow linearly, one more copy of each
// preamble per rotation; 20 fixed rotations stay within budget + the
// documented overhead, each preamble once, slope about zero.
func TestClaiChain20(t *testing.T) {
	msgs := claiTurns(500)
	legacy := claiRun(t, claiPolicy(t, nil), msgs, 20)
	fixed := claiRun(t, claiPolicy(t, map[string]string{"variant": "fixed"}), msgs, 20)
	if len(legacy) != 20 || len(fixed) != 20 {
		t.Fatalf("%d legacy and %d fixed rotations, want 20 each", len(legacy), len(fixed))
	}
	for k, o := range legacy {
		d := o.Digest
		if d.P1 != k+1 || d.P2 != k+1 {
			t.Errorf("legacy rotation %d: P1=%d P2=%d, want %d each", k+1, d.P1, d.P2, k+1)
		}
		if k > 0 && len(d.Text) <= len(legacy[k-1].Digest.Text) {
			t.Errorf("legacy rotation %d did not grow", k+1)
		}
	}
	ls := claiDigestSizes(legacy)
	slope := claiSlope(ls)
	// Linear: every rotation adds within 10% of the mean growth.
	meanGrowth := float64(ls[19]-ls[0]) / 19
	for k := 1; k < 20; k++ {
		if g := float64(ls[k] - ls[k-1]); math.Abs(g-meanGrowth) > 0.1*meanGrowth {
			t.Errorf("legacy rotation %d grew %.0f bytes, mean %.0f: not linear", k+1, g, meanGrowth)
		}
	}
	if slope < 40_000 || !legacy[19].Digest.OverBudget {
		t.Errorf("legacy slope %.0f bytes/rotation, last over budget %v: the bug is not reproduced", slope, legacy[19].Digest.OverBudget)
	}
	if ls[19] < 900_000 {
		t.Errorf("legacy digest after 20 rotations is %d bytes; the seed's profile reaches ~1 MB", ls[19])
	}

	for k, o := range fixed {
		d := o.Digest
		if len(d.Text) > 96_000+claiDigestOverhead || d.OverBudget {
			t.Errorf("fixed rotation %d: %d bytes, over 96 000 + %d", k+1, len(d.Text), claiDigestOverhead)
		}
		if d.P1 != 1 || d.P2 != 1 {
			t.Errorf("fixed rotation %d: P1=%d P2=%d, want 1 each", k+1, d.P1, d.P2)
		}
		if d.CLIHeadPreambleBytes != 470+529 {
			t.Errorf("fixed rotation %d: %d preamble bytes in the CLI head, want 999", k+1, d.CLIHeadPreambleBytes)
		}
	}
	fs := claiDigestSizes(fixed)
	if s := claiSlope(fs[1:]); math.Abs(s) > 500 {
		t.Errorf("fixed slope over rotations 2-20 is %.0f bytes/rotation, want about 0 (sizes %v)", s, fs)
	}
	t.Logf("legacy slope %.0f B/rotation, last %d B; fixed slope %.1f B/rotation, sizes %v", slope, ls[19], claiSlope(fs[1:]), fs)
}

// chained_digests_do_not_stack_preambles (PR #154): 6 rotations, one copy
// of each preamble, and the summary header does not stack either.
func TestClaiChainedDigestsDoNotStackPreambles(t *testing.T) {
	outs := claiRun(t, claiPolicy(t, map[string]string{"variant": "fixed"}), claiTurns(200), 6)
	if len(outs) != 6 {
		t.Fatalf("%d rotations, want 6", len(outs))
	}
	for k, o := range outs {
		p1, p2 := clai.PreambleCounts(o.Digest.Text)
		if p1 != 1 || p2 != 1 {
			t.Errorf("rotation %d: P1=%d P2=%d", k+1, p1, p2)
		}
		if n := strings.Count(o.Digest.Text, "[system message "); n > 1 {
			t.Errorf("rotation %d: %d summary headers", k+1, n)
		}
	}
}

// chained_digests_do_not_grow_without_bound (PR #154): 12 successive
// rotations, each digest fed back as message 0 of the next window, stay
// within budget and do not creep upward. The same loop with the legacy
// digest shows the bug.
func TestClaiChainedDigestsDoNotGrowWithoutBound(t *testing.T) {
	run := func(o ClaiDigestOptions) []int {
		var sizes []int
		prev := ""
		for k := range 12 {
			var window []corpus.Message
			if prev != "" {
				window = append(window, corpus.Message{ID: claiID(7, k), Role: corpus.RoleSystem, Summary: true,
					Source: claiCompactionSource, Blocks: claiText(prev)})
			}
			for i := range 24 {
				window = append(window, claiMsg(claiID(k, i), corpus.RoleAssistant, claiText(claiFill(5000, i))...))
			}
			prev, _ = ClaiDigestText(window, o)
			sizes = append(sizes, len(prev))
		}
		return sizes
	}
	fixed := claiLegacyDigest()
	fixed.Clamp, fixed.Strip = true, true
	fs := run(fixed)
	for k, n := range fs {
		if n > 96_000+claiDigestOverhead {
			t.Errorf("fixed rotation %d: %d bytes, over budget", k+1, n)
		}
		if k >= 2 && n > fs[k-1] {
			t.Errorf("fixed rotation %d: %d bytes, creeping up from %d", k+1, n, fs[k-1])
		}
	}
	ls := run(claiLegacyDigest())
	if ls[11] <= 96_000+claiDigestOverhead || ls[11] <= ls[10] {
		t.Errorf("legacy loop did not grow past the budget: %v", ls)
	}
}

// Each half of the fix alone: strip stops the nesting but not the growth,
// clamp stops the growth but not the nesting inside the head.
func TestClaiClampAndStripSeparately(t *testing.T) {
	msgs := claiTurns(250)
	tests := []struct {
		set         map[string]string
		wantNesting int // at rotation 8
		bounded     bool
	}{
		{map[string]string{"variant": "legacy"}, 8, false},
		{map[string]string{"variant": "legacy", "strip": "on"}, 1, false},
		{map[string]string{"variant": "legacy", "clamp": "on"}, 8, true},
		{map[string]string{"variant": "fixed"}, 1, true},
		{map[string]string{"variant": "fixed", "strip": "off"}, 8, true},
	}
	for _, tt := range tests {
		pol := claiPolicy(t, tt.set)
		outs := claiRun(t, pol, msgs, 8)
		if len(outs) != 8 {
			t.Fatalf("%v: %d rotations", tt.set, len(outs))
		}
		d := outs[7].Digest
		if d.P1 != tt.wantNesting || d.P2 != tt.wantNesting {
			t.Errorf("%s: nesting P1=%d P2=%d at rotation 8, want %d", pol.Params(), d.P1, d.P2, tt.wantNesting)
		}
		if bounded := len(d.Text) <= 96_000+claiDigestOverhead; bounded != tt.bounded {
			t.Errorf("%s: digest %d bytes, bounded %v, want %v", pol.Params(), len(d.Text), bounded, tt.bounded)
		}
	}
}

// Compact's bookkeeping: the new history is [summary] ++ the retained
// tail, and Units/Count agree with a fresh measure.
func TestClaiCompactOutcome(t *testing.T) {
	pol := claiPolicy(t, map[string]string{"variant": "fixed"})
	msgs := claiTurns(40)
	outs := claiRun(t, pol, msgs, 2)
	if len(outs) != 2 {
		t.Fatalf("%d rotations", len(outs))
	}
	for _, o := range outs {
		var units int64
		var counted int64
		for i := range o.History {
			u, c, _ := pol.Measure(&o.History[i])
			units += u
			counted += c
		}
		if units != o.Units || counted != o.Count {
			t.Errorf("outcome says %d units over %d, a fresh measure %d over %d", o.Units, o.Count, units, counted)
		}
		if got := len(o.History) - 1; got != 16 {
			t.Errorf("retained %d messages after the summary, want the 16-message tail", got)
		}
		if o.History[0].Blocks[0].Text != o.Digest.Text || o.Strategy != Rotated {
			t.Errorf("the summary message does not hold the digest")
		}
		if o.Digest.WindowMessages < 24 {
			t.Errorf("window of %d messages", o.Digest.WindowMessages)
		}
	}
}

func TestClaiParams(t *testing.T) {
	p := claiPolicy(t, nil)
	// legacy is clai as released: no CLI-boundary clamp either.
	want := "variant=legacy,clamp=off,strip=off,budget=96000,head_share=1/3,tool_call_cap=200,tool_result_cap=400,tail_messages=16,min_messages=24,trigger_chars=120000,cli_clamp_bytes=0,cli_head_share=2/3,force=false"
	if got := p.Params().String(); got != want {
		t.Errorf("defaults:\n got %s\nwant %s", got, want)
	}
	if got := claiPolicy(t, map[string]string{"variant": "fixed", "head_share": "0.5"}).Params().String(); !strings.Contains(got, "clamp=on,strip=on") || !strings.Contains(got, "head_share=5/10") || !strings.Contains(got, "cli_clamp_bytes=64000") {
		t.Errorf("fixed: %s", got)
	}
	bad := []struct{ set, wantErr string }{
		{"variant=new", "variant"},
		{"budget=10", "budget"},
		{"head_share=3/2", "head_share"},
		{"head_share=1", "head_share"},
		{"cli_clamp_bytes=500", "cli_clamp_bytes"},
		{"cli_clamp_bytes=-1", "cli_clamp_bytes"},
		{"cli_clamp_bytes=lots", "cli_clamp_bytes"},
		{"variant=fixed,budget=1000", "slices"},
		{"clamp=maybe", "clamp"},
		{"min_messages=1", "min_messages"},
	}
	for _, b := range bad {
		set, err := ParseSet([]string{b.set})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(ClaiRotationName, set); err == nil || !strings.Contains(err.Error(), b.wantErr) {
			t.Errorf("%s: error %v, want one naming %s", b.set, err, b.wantErr)
		}
	}
}

func TestClaiForceRotatesAtEveryCheckpoint(t *testing.T) {
	pol := claiPolicy(t, map[string]string{"force": "true"})
	outs := claiRun(t, pol, claiTurns(3), 0)
	// Checks after each of the 3 user messages: 1, 5 and 9 messages in the
	// history (or fewer after a rotation); a window needs 2.
	if len(outs) != 2 {
		t.Fatalf("%d forced rotations, want 2", len(outs))
	}
	if outs[0].Digest.WindowMessages != 2 {
		t.Errorf("first forced window has %d messages, want 2", outs[0].Digest.WindowMessages)
	}
}

// TestClaiRotationStageReport: the rotation stage reports the blocks the
// new history lacks and their bytes net of the digest (it reported the
// window's message count as blocks, and 0 bytes: bytes_removed was 0 for
// every clai run). The bytes are counted here from the blocks' fields.
func TestClaiRotationStageReport(t *testing.T) {
	msgs := claiTurns(120)
	outs := claiRun(t, claiPolicy(t, nil), msgs, 1)
	if len(outs) != 1 {
		t.Fatalf("%d rotations", len(outs))
	}
	o := outs[0]
	last := o.History[len(o.History)-1].ID
	k := slices.IndexFunc(msgs, func(m corpus.Message) bool { return m.ID == last }) + 1
	removed := msgs[:k-(len(o.History)-1)]
	blocks, bytes := 0, 0
	for _, m := range removed {
		for _, b := range m.Blocks {
			blocks++
			bytes += len(b.Text) + len(b.Payload) + len(b.Args) + len(b.ToolName) + len(b.Signature)
		}
	}
	st := o.Stages
	if len(removed) != 61 || blocks != 76 {
		t.Fatalf("removed %d messages, %d blocks; want the 61 messages (76 blocks) before the 16-message tail", len(removed), blocks)
	}
	if len(st) != 1 || st[0].Name != "rotation" || st[0].BlocksTouched != blocks || st[0].BytesRemoved != int64(bytes-len(o.Digest.Text)) {
		t.Errorf("stages %+v; want rotation, %d blocks, %d bytes (%d removed less the %d-byte digest)", st, blocks, bytes-len(o.Digest.Text), bytes, len(o.Digest.Text))
	}
}
