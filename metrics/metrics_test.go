package metrics

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay"
)

func TestSlope(t *testing.T) {
	tests := []struct {
		ys   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{5}, 0},
		{[]float64{100, 100, 100}, 0},
		{[]float64{1000, 2057, 3114, 4171}, 1057},
		{[]float64{1, 3, 2, 4}, 0.8},
	}
	for _, tt := range tests {
		if got := slope(tt.ys); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("slope(%v) = %v, want %v", tt.ys, got, tt.want)
		}
	}
}

func chain(sizes []int, nest func(i int) int) *replay.Trace {
	tr := &replay.Trace{Session: &corpus.Session{ID: "s1", Path: "db.sqlite"}}
	for i, n := range sizes {
		text := make([]byte, n)
		tr.Events = append(tr.Events, replay.Event{Index: i, Request: i * 3, Outcome: policy.Outcome{
			Strategy: policy.Rotated, Digest: &policy.Digest{Text: string(text), Bytes: n, SHA256: sha256.Sum256(text), P1: nest(i), P2: nest(i), WindowMessages: 25}}})
	}
	return tr
}

func TestGrowthAndGates(t *testing.T) {
	legacy := Growth(chain([]int{56000, 57057, 58114, 59171}, func(i int) int { return i + 1 }))
	if legacy.MaxNesting != 4 || legacy.MaxDigestBytes != 59171 || math.Abs(legacy.Slope-1057) > 1e-9 {
		t.Fatalf("legacy row = %+v", legacy)
	}
	if legacy.Rotations[1].Growth != 1057 || legacy.Rotations[0].Growth != 56000 || legacy.Rotations[3].Rotation != 4 {
		t.Fatalf("rotation rows = %+v", legacy.Rotations)
	}
	fixed := Growth(chain([]int{56000, 56010, 55990, 56005}, func(int) int { return 1 }))

	g := Gates{MaxNesting: 1}
	if fs := g.Apply(&legacy); len(fs) != 1 || fs[0].Gate != "max-nesting" || legacy.Verdict != "fail" {
		t.Fatalf("legacy with --max-nesting 1: %+v verdict %s", fs, legacy.Verdict)
	}
	if fs := g.Apply(&fixed); len(fs) != 0 || fixed.Verdict != "ok" {
		t.Fatalf("fixed with --max-nesting 1: %+v", fs)
	}
	g = Gates{MaxDigestBytes: 58000, MaxGrowthBytes: 500}
	fs := g.Apply(&legacy)
	if len(fs) != 2 || fs[0].Gate != "max-digest-bytes" || fs[1].Gate != "max-growth-bytes" {
		t.Fatalf("failures = %+v", fs)
	}
	if fs[0].Message != "session s1: largest digest is 59171 bytes, over the limit of 58000" {
		t.Errorf("message = %q", fs[0].Message)
	}

	// Baseline: the fixed chain as baseline; the legacy chain regresses on
	// every metric, a slightly noisier fixed chain does not.
	b := Gates{Baseline: map[string]GrowthRow{"s1": fixed}, Tolerance: 0.05}
	if fs := b.Apply(&legacy); len(fs) != 3 {
		t.Fatalf("baseline failures = %+v", fs)
	}
	noisy := Growth(chain([]int{56000, 56040, 56080, 56100}, func(int) int { return 1 }))
	if fs := b.Apply(&noisy); len(fs) != 0 {
		t.Fatalf("noise within tolerance failed: %+v", fs)
	}
}

func TestSessionRowCountsLoss(t *testing.T) {
	raw := []corpus.Message{
		{ID: "u", Role: corpus.RoleUser},
		{ID: "a", Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindToolUse, ToolCallID: "1"}, {Kind: corpus.KindToolUse, ToolCallID: "2"}, {Kind: corpus.KindToolUse, ToolCallID: "3"}}},
		{ID: "t", Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "1", Text: "aaaa"}, {Kind: corpus.KindToolResult, ToolCallID: "2", Text: "bbbb"}, {Kind: corpus.KindToolResult, ToolCallID: "3", Text: "cccc"}}},
	}
	final := []corpus.Message{
		{ID: "t", Role: corpus.RoleTool, Blocks: []corpus.Block{{Kind: corpus.KindToolResult, ToolCallID: "2", Text: "b"}, {Kind: corpus.KindToolResult, ToolCallID: "3", Text: "cccc"}}},
	}
	tr := &replay.Trace{Session: &corpus.Session{ID: "x", Messages: raw}, Final: final, Messages: 3,
		Requests: []replay.Request{{Tokens: 10, Sent: 10}, {Tokens: 30, Sent: 12}},
		Events: []replay.Event{{Outcome: policy.Outcome{Strategy: policy.Truncated, BeforeTokens: 30, AfterTokens: 12,
			Stages: []policy.StageReport{{Name: "truncate", BeforeTokens: 30, AfterTokens: 12, BlocksTouched: 1}}}}}}
	r := Session(tr)
	if r.ResultsMangled != 1 || r.ResultsDropped != 1 {
		t.Errorf("mangled %d dropped %d, want 1 and 1", r.ResultsMangled, r.ResultsDropped)
	}
	if r.TokensSent != 22 || r.PeakTokens != 12 || r.PeakBefore != 30 || r.Reclaimed["truncate"] != 18 || r.TargetMisses != 1 {
		t.Errorf("row = %+v", r)
	}
}

// TestRowMetricsUsesTheRow checks that RowMetrics takes the row's figures
// as given rather than summing the trace up again (the row reads the whole
// final history), and that from Session(t) it equals SessionMetrics.
func TestRowMetricsUsesTheRow(t *testing.T) {
	tr := &replay.Trace{Session: &corpus.Session{ID: "x"}, Final: []corpus.Message{}, Messages: 3,
		Requests: []replay.Request{{Tokens: 30, Sent: 12}}}
	row := Session(tr)
	want := SessionMetrics(tr, nil, nil, nil)
	if got := RowMetrics(row, tr, nil, nil, nil); !maps.Equal(got, want) {
		t.Errorf("RowMetrics(Session(t)) = %v, SessionMetrics = %v", got, want)
	}
	row.ResultsMangled, row.TokensSent = 7, 99
	if got := RowMetrics(row, tr, nil, nil, nil); got["results_mangled"] != 7 || got["tokens_sent"] != 99 {
		t.Errorf("RowMetrics gave results_mangled %v and tokens_sent %v, want the row's 7 and 99", got["results_mangled"], got["tokens_sent"])
	}
}

// TestBaselineNestingHasNoTolerance: against a baseline of 20 copies, 21
// fails (a 5% tolerance let it pass and reported the limit as 20), 20
// passes; the digest size keeps its tolerance.
func TestBaselineNestingHasNoTolerance(t *testing.T) {
	base := GrowthRow{ID: "s", MaxNesting: 20, MaxDigestBytes: 100_000}
	g := Gates{Baseline: map[string]GrowthRow{"s": base}, Tolerance: 0.05}
	for _, c := range []struct {
		nesting, bytes int
		want           []string
	}{
		{20, 105_000, nil},
		{21, 100_000, []string{"baseline-nesting 21 > 20"}},
		{20, 105_001, []string{"baseline-max-digest-bytes 105001 > 105000"}},
	} {
		r := GrowthRow{ID: "s", MaxNesting: c.nesting, MaxDigestBytes: c.bytes}
		var got []string
		for _, f := range g.Apply(&r) {
			got = append(got, fmt.Sprintf("%s %g > %g", f.Gate, f.Value, f.Limit))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("nesting %d, %d bytes: %v; want %v", c.nesting, c.bytes, got, c.want)
		}
	}
}
