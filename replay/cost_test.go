package replay

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/cache"
)

// The cost layer reads each response's size and thinking from the trace,
// which the replay records as it appends the response: the output tokens
// are its bytes over 4, and the first response with thinking after the
// first request breaks the cache (Anthropic's rule under the default
// preset).
func TestCostReadsTheResponses(t *testing.T) {
	text := func(n int) corpus.Block { return corpus.Block{Kind: corpus.KindText, Text: strings.Repeat("a", n)} }
	s := &corpus.Session{ID: "s", Format: corpus.FormatSmithTranscript, Messages: []corpus.Message{
		{Role: corpus.RoleUser, Blocks: []corpus.Block{text(40)}},
		{Role: corpus.RoleAssistant, Blocks: []corpus.Block{text(400)}},
		{Role: corpus.RoleUser, Blocks: []corpus.Block{text(40)}},
		{Role: corpus.RoleAssistant, Blocks: []corpus.Block{{Kind: corpus.KindThinking, Text: strings.Repeat("t", 200)}, text(600)}},
		{Role: corpus.RoleUser, Blocks: []corpus.Block{text(40)}},
		{Role: corpus.RoleAssistant, Blocks: []corpus.Block{text(1200)}},
	}}
	p, err := policy.New("smith-staged", nil)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Run(context.Background(), s, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := Cost(tr, cache.DefaultOptions(cache.Default()))
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	var why []cache.Reason
	for _, r := range sc.Requests {
		out, why = append(out, r.Output), append(why, r.Reason)
	}
	if want := []int{100, 200, 300}; !slices.Equal(out, want) {
		t.Errorf("output tokens %v, want %v (response bytes / 4, thinking included)", out, want)
	}
	if want := []cache.Reason{cache.ReasonFirst, cache.ReasonBreak, cache.ReasonKept}; !slices.Equal(why, want) {
		t.Errorf("cache reasons %v, want %v (the thinking response's request breaks the cache)", why, want)
	}
}

// A chain's requests past the recording produce the extension's synthetic
// messages, and those are billed as output too: the cost layer read them
// from the recorded session only, so every one was free (sweep --rotations
// on the demo: 77,874 output tokens where the chains' responses hold
// 272,645).
func TestCostOfAChainBillsTheExtension(t *testing.T) {
	// rotator's checkpoints sit before each user message (100 bytes: 25
	// tokens), the message each request produces.
	s := chatSession(3)
	tr, err := Chain(context.Background(), s, rotator{limit: 2000}, 3, chatExtension, Options{})
	if err != nil {
		t.Fatal(err)
	}
	past := 0
	for _, r := range tr.Requests {
		if r.Next >= len(s.Messages) {
			past++
		}
	}
	if past == 0 {
		t.Fatal("the chain never went past the recording")
	}
	sc, err := Cost(tr, cache.DefaultOptions(cache.Default()))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sc.Requests {
		if r.Request >= 0 && r.Output != 25 {
			t.Errorf("request %d (producing message %d; %d recorded): output %d tokens, want 25", r.Request, tr.Requests[r.Request].Next, len(s.Messages), r.Output)
		}
	}
}
