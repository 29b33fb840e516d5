package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// TestCalibratedContextReadsThePromptModel: a preset with
// context_source=calibrated (goose) compares the prompt its session's
// model predicts, overhead + scale × metered history, with its threshold,
// and reports it as the context; with no model (a log without usage) or
// context_source=estimate it reads the meter plus overhead_tokens.
func TestCalibratedContextReadsThePromptModel(t *testing.T) {
	h := []corpus.Message{puser("u0", chars4Text(50_000)), passt("a0", chars4Text(50_000)), puser("u1", "x")}
	goose := presetPolicy(t, "goose", nil)
	estimate := presetPolicy(t, "goose", map[string]string{"context_source": SourceEstimate})
	for _, c := range []struct {
		name   string
		p      Policy
		prompt *PromptModel
		before int
		fires  bool
	}{
		{"no model: the estimate", goose, nil, 100_000, false},
		// Goose compacts above 0.8 × 200,000, not at it.
		{"40,000 + 1.2 × 100,000", goose, &PromptModel{Overhead: 40_000, Scale: 1.2}, 160_000, false},
		{"40,001 + 1.2 × 100,000", goose, &PromptModel{Overhead: 40_001, Scale: 1.2}, 160_001, true},
		{"context_source=estimate", estimate, &PromptModel{Overhead: 40_001, Scale: 1.2}, 100_000, false},
	} {
		at := sums(c.p, h)
		at.Prompt = c.prompt
		o := c.p.Compact(h, at)
		if o.BeforeTokens != c.before || (o.Strategy == Summarized) != c.fires {
			t.Errorf("%s: context %d, %s; want %d, summarized %v", c.name, o.BeforeTokens, o.Strategy, c.before, c.fires)
		}
	}
}

// TestPromptModelRounds: the prediction rounds the scaled history half
// away from zero, as the cost model's does (cache.Calibration.Prompt).
func TestPromptModelRounds(t *testing.T) {
	m := &PromptModel{Overhead: 18_400, Scale: 1.19}
	for _, c := range []struct{ history, want int }{{0, 18_400}, {50, 18_460}, {10, 18_412}, {1_000, 19_590}} {
		// 1.19 × 50 = 59.5 rounds to 60; × 10 = 11.9 to 12.
		if got := m.Tokens(c.history); got != c.want {
			t.Errorf("Tokens(%d) = %d, want %d", c.history, got, c.want)
		}
	}
}

// TestLastResponseLeavesTheStepOut: opencode's overflow reads the last
// response's tokens (context_at=last_response), which hold neither the
// tool output being sent nor its cap: at 179,999 read it does not
// compact, at 180,000 it summarizes the first turn, the same 60,000-token
// output pending and capped (to 50 KiB) at both: the cap takes its cut off
// the pending units too (or the read would drop by it).
func TestLastResponseLeavesTheStepOut(t *testing.T) {
	p := presetPolicy(t, "opencode", nil)
	build := func(n int) []corpus.Message {
		h := []corpus.Message{puser("u0", chars4Text(n)), passt("a0", chars4Text(90_000)), puser("u1", "x")}
		return append(h, step("c1", "Bash", chars4Text(60_000))...)
	}
	lastResponse := func(h []corpus.Message) int {
		at := sums(p, h)
		m, _ := p.(Metered).Metering()
		return m.Tokens(at.Units - at.Pending)
	}
	base := lastResponse(build(0)) // a0, the call and u0's own rounding
	for _, c := range []struct {
		read   int
		stages string
	}{{179_999, "cap"}, {180_000, "cap,compact"}} {
		h := build(c.read - base)
		if got := lastResponse(h); got != c.read {
			t.Fatalf("built a last response of %d tokens, want %d", got, c.read)
		}
		o := p.Compact(h, sums(p, h))
		var names []string
		for _, s := range o.Stages {
			names = append(names, s.Name)
		}
		// The request holds the output whole: 60,001 tokens with its tool name.
		if got := strings.Join(names, ","); got != c.stages || o.BeforeTokens != c.read+60_001 {
			t.Errorf("last response %d: stages %s, context %d; want %s, %d", c.read, got, o.BeforeTokens, c.stages, c.read+60_001)
		}
	}
}

// TestLastResponseReadsNothingFirst: at a session's first request no
// response precedes it, so an agent reading its last response's usage
// reads nothing, whatever the unlogged prompt: goose with a fitted
// overhead of 170,000 (past its 160,000) does not compact there, though
// the log opens with two user messages it could summarize one of (a
// resumed session's), and does at the next user message, when it has a
// response to read.
func TestLastResponseReadsNothingFirst(t *testing.T) {
	p := presetPolicy(t, "goose", nil)
	model := &PromptModel{Overhead: 170_000, Scale: 1}
	h := []corpus.Message{puser("u0", chars4Text(1_000)), puser("u1", "x")}
	at := sums(p, h)
	at.Prompt = model
	if o := p.Compact(h, at); o.Strategy != None || o.BeforeTokens != 171_000 || at.Request != 0 {
		t.Fatalf("first request: %s at %d tokens (request %d); want nothing", o.Strategy, o.BeforeTokens, at.Request)
	}
	h = append(h, passt("a0", chars4Text(1_000)), puser("u2", "x"))
	at = sums(p, h)
	at.Prompt = model
	if o := p.Compact(h, at); o.Strategy != Summarized || at.Request != 1 {
		t.Fatalf("second request: %s (request %d); want goose's summary of 172,000 read", o.Strategy, at.Request)
	}
}

// TestLastPromptLeavesTheResponseOut: context_at=last_prompt reads what
// the previous request sent, without its response (one assistant message
// or a run of them, as Claude Code writes one per block) and without the
// step since; last_response reads the response too; both read nothing at
// the first request. Goose's summary, its trigger at 160,000 above,
// measured each way on the same history.
func TestLastPromptLeavesTheResponseOut(t *testing.T) {
	h := []corpus.Message{puser("u0", chars4Text(50_000)), passt("a0", chars4Text(15_000)),
		passt("a0b", chars4Text(15_000)), puser("u1", chars4Text(25_000))}
	for _, c := range []struct {
		at   string
		read int // what the trigger reads
	}{{AtRequest, 105_000}, {AtLastResponse, 80_000}, {AtLastPrompt, 50_000}} {
		for _, th := range []int{c.read - 1, c.read} {
			p := presetPolicy(t, "goose", map[string]string{"compact.context_at": c.at, "compact.trigger": OnTokens,
				"compact.trigger_at": fmt.Sprint(th)})
			o := p.Compact(h, sums(p, h))
			if want := th < c.read; (o.Strategy == Summarized) != want || o.BeforeTokens != 105_000 {
				t.Errorf("%s, threshold %d: %s (request %d tokens); want a summary %v, reading %d", c.at, th, o.Strategy, o.BeforeTokens, want, c.read)
			}
		}
	}
	p := presetPolicy(t, "goose", map[string]string{"compact.context_at": AtLastPrompt, "compact.trigger": OnTokens, "compact.trigger_at": "0"})
	first := h[:1]
	if o := p.Compact(first, sums(p, first)); o.Strategy != None {
		t.Errorf("first request: %s; want nothing read before any response", o.Strategy)
	}
}
