package cache

import (
	"testing"
	"time"
)

func TestStepRules(t *testing.T) {
	openai, err := Resolve("openai", nil)
	if err != nil {
		t.Fatal(err)
	}
	none, _ := Resolve("none", nil)
	prefix, _ := Resolve("anthropic", nil)
	type req struct {
		Request
		want Tokens
		why  Reason
		brk  bool
	}
	cases := []struct {
		name string
		p    Params
		s    Session
		reqs []req
	}{
		{"append-only reads the previous prompt", Default(), Session{FirstRead: 10000, Head: 18000}, []req{
			{Request{Model: "m", Prompt: 50000}, Tokens{Write5m: 40000, Read: 10000}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 52000}, Tokens{Write5m: 2000, Read: 50000}, ReasonKept, false},
		}},
		{"the tail is uncached now and written next time", Default(), Session{Head: 18000}, []req{
			{Request{Model: "m", Prompt: 50000}, Tokens{Write5m: 50000}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 60000, Tail: 7000}, Tokens{Uncached: 7000, Write5m: 3000, Read: 50000}, ReasonKept, false},
			{Request{Model: "m", Prompt: 61000}, Tokens{Write5m: 8000, Read: 53000}, ReasonKept, false},
		}},
		{"last-message placement has no tail", func() Params { p := Default(); p.Breakpoint = LastMessage; return p }(), Session{}, []req{
			{Request{Model: "m", Prompt: 50000}, Tokens{Write5m: 50000}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 60000, Tail: 7000}, Tokens{Write5m: 10000, Read: 50000}, ReasonKept, false},
		}},
		{"a rewrite breaks to the head, a summary too", Default(), Session{Head: 18000}, []req{
			{Request{Model: "m", Prompt: 100000}, Tokens{Write5m: 100000}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 80000, Cause: Rewrite, Tail: 5000}, Tokens{Write5m: 62000, Read: 18000}, ReasonBreak, true},
			{Request{Model: "m", Prompt: 30000, Cause: Summary}, Tokens{Write5m: 12000, Read: 18000}, ReasonSummary, true},
		}},
		// A subagent caches less than the main thread's head: the rule
		// reads the head all the same, and the request is a break.
		{"a rewrite is a break where the head exceeds the stream's cache", Default(), Session{Head: 20500}, []req{
			{Request{Model: "m", Prompt: 19758}, Tokens{Write5m: 19758}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 30000, Cause: Rewrite}, Tokens{Write5m: 9500, Read: 20500}, ReasonBreak, true},
		}},
		{"prefix rule keeps the unchanged prefix", prefix, Session{Head: 18000}, []req{
			{Request{Model: "m", Prompt: 100000}, Tokens{Write5m: 100000}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 80000, Cause: Rewrite, Kept: 70000}, Tokens{Write5m: 10000, Read: 70000}, ReasonPrefix, true},
			{Request{Model: "m", Prompt: 90000, Cause: TurnEnd}, Tokens{Write5m: 10000, Read: 80000}, ReasonKept, false},
		}},
		{"streams and models are separate entries", Default(), Session{FirstRead: 0, Head: 14000}, []req{
			{Request{Model: "opus", Prompt: 40000}, Tokens{Write5m: 40000}, ReasonFirst, false},
			{Request{Stream: "side", Model: "opus", Prompt: 11000}, Tokens{Write5m: 11000}, ReasonNewStream, false},
			{Request{Stream: "side", Model: "opus", Prompt: 12000}, Tokens{Write5m: 1000, Read: 11000}, ReasonKept, false},
			{Request{Model: "opus", Prompt: 42000}, Tokens{Write5m: 2000, Read: 40000}, ReasonKept, false},
			// A switch of model reads nothing of the 42,000 cached: a break
			// (it was counted only when switching back).
			{Request{Model: "sonnet", Prompt: 43000}, Tokens{Write5m: 43000}, ReasonNewStream, true},
			// A subagent's first request is no break of the main stream.
			{Request{Stream: "side2", Model: "sonnet", Prompt: 9000}, Tokens{Write5m: 9000}, ReasonNewStream, false},
		}},
		{"below the minimum nothing is cached", Default(), Session{}, []req{
			{Request{Model: "m", Prompt: 900}, Tokens{Uncached: 900}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 1100}, Tokens{Write5m: 1100}, ReasonKept, false},
		}},
		{"openai: 128-token steps, no write counter", openai, Session{}, []req{
			{Request{Model: "gpt", Prompt: 1000}, Tokens{Uncached: 1000}, ReasonFirst, false},
			{Request{Model: "gpt", Prompt: 2000}, Tokens{Uncached: 2000}, ReasonKept, false},
			{Request{Model: "gpt", Prompt: 2100}, Tokens{Uncached: 180, Read: 1920}, ReasonKept, false},
		}},
		{"summarizer calls are uncached and leave the cache alone", Default(), Session{}, []req{
			{Request{Model: "m", Prompt: 50000}, Tokens{Write5m: 50000}, ReasonFirst, false},
			{Request{Model: "m", Prompt: 51000, Output: 3000, Summarizer: true}, Tokens{Uncached: 51000, Output: 3000}, ReasonSummarizer, false},
			{Request{Model: "m", Prompt: 52000}, Tokens{Write5m: 2000, Read: 50000}, ReasonKept, false},
		}},
		{"provider none caches nothing", none, Session{FirstRead: 10000}, []req{
			{Request{Model: "m", Prompt: 50000}, Tokens{Uncached: 50000}, ReasonNoCache, false},
		}},
	}
	for _, c := range cases {
		m := New(c.p, c.s)
		for i, r := range c.reqs {
			st := m.Step(r.Request)
			if st.Tokens != r.want || st.Reason != r.why || st.Break != r.brk {
				t.Errorf("%s, request %d: got %+v %s break=%v, want %+v %s break=%v", c.name, i, st.Tokens, st.Reason, st.Break, r.want, r.why, r.brk)
			}
		}
	}
}

func TestNoTimestampsNeverExpire(t *testing.T) {
	m := New(Default(), Session{})
	m.Step(Request{Model: "m", Prompt: 50000})
	if st := m.Step(Request{Model: "m", Prompt: 51000}); st.Read != 50000 {
		t.Fatalf("read %d (%s), want 50000: without timestamps the cache is alive", st.Read, st.Reason)
	}
	// One side known is not enough to measure a gap either.
	m.Step(Request{Model: "m", Prompt: 52000, Send: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if st := m.Step(Request{Model: "m", Prompt: 53000}); st.Reason != ReasonKept {
		t.Fatalf("reason %s, want kept", st.Reason)
	}
}

func TestBilled(t *testing.T) {
	tok := Tokens{Uncached: 1000, Write5m: 2000, Write1h: 3000, Read: 10000, Output: 500}
	// b3533c53's identity: 27,941 + 263,914 + 658,423 = 950,278 input tokens.
	if got := (Tokens{Uncached: 27941, Write5m: 263914, Read: 658423}).Prompt(); got != 950278 {
		t.Fatalf("prompt %d", got)
	}
	for _, c := range []struct {
		p    Provider
		want float64
	}{{Anthropic, 1000 + 2500 + 6000 + 1000}, {OpenAI, 1000 + 2000 + 3000 + 1000}, {NoCache, 16000}} {
		if got := RatesFor(c.p).Billed(tok); got != c.want {
			t.Errorf("%s: billed %v, want %v", c.p, got, c.want)
		}
	}
}

func TestKept(t *testing.T) {
	a := []Block{{1, 100}, {2, 50}, {3, 70}}
	b := []Block{{1, 100}, {2, 50}, {4, 10}, {3, 70}}
	if got := Kept(a, b); got != 150 {
		t.Fatalf("kept %d, want 150", got)
	}
	if got := Kept(a, a[:2]); got != 150 || Total(a) != 220 {
		t.Fatalf("kept %d total %d", got, Total(a))
	}
	if Kept(nil, b) != 0 {
		t.Fatal("nothing kept from an empty prompt")
	}
}

func TestFamilyAndHead(t *testing.T) {
	for _, c := range []struct {
		v    string
		f    Family
		head int
	}{{"1.0.53", Family1, 14000}, {"2.0.60", Family20, 20500}, {"2.1.6", Family20, 20500}, {"2.1.9", Family219, 18400},
		{"2.1.20", Family219, 18400}, {"3.0.0", Family219, 18400}, {"", FamilyUnknown, 20500}, {"x.y", FamilyUnknown, 20500}} {
		if f := FamilyOf(c.v); f != c.f || EstimateHead(f) != c.head {
			t.Errorf("%q: family %v head %d, want %v %d", c.v, f, EstimateHead(f), c.f, c.head)
		}
	}
}
