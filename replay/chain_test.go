package replay

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// rotator rotates when the text since the last rotation exceeds limit: the
// new history is a summary message plus the last two messages.
type rotator struct{ limit int64 }

func (r rotator) Name() string          { return "rotator" }
func (r rotator) Params() policy.Params { return nil }
func (r rotator) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleUser
}
func (r rotator) Measure(m *corpus.Message) (int64, int64, int64) {
	if m.Summary {
		return 0, 0, 0
	}
	return int64(len(m.Blocks[0].Text)), 1, 0
}
func (r rotator) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	if at.Units <= r.limit || len(h) < 3 {
		return policy.Outcome{History: h, Strategy: policy.None, Units: at.Units, Count: at.Count}
	}
	d := fmt.Sprintf("digest of %d messages", len(h))
	out := append([]corpus.Message{{ID: fmt.Sprintf("sum%d", at.Request), Role: corpus.RoleSystem, Summary: true, Blocks: text(d)}}, h[len(h)-2:]...)
	o := policy.Outcome{History: out, Strategy: policy.Rotated, Digest: &policy.Digest{Text: d, P1: 1, P2: 1}}
	for i := range out {
		u, c, _ := r.Measure(&out[i])
		o.Units += u
		o.Count += c
	}
	return o
}

func chatSession(turns int) *corpus.Session {
	s := &corpus.Session{ID: "chat"}
	return extendChat(s, turns)
}

func extendChat(s *corpus.Session, turns int) *corpus.Session {
	c := *s
	c.Messages = append(append([]corpus.Message(nil), s.Messages...), chatTurns(0, turns)...)
	return &c
}

// chatTurns are the chat's turns from, from+1, ... (a user and an
// assistant message each).
func chatTurns(from, turns int) []corpus.Message {
	var msgs []corpus.Message
	for i := from; i < from+turns; i++ {
		msgs = append(msgs,
			corpus.Message{ID: fmt.Sprintf("x%du", i), Role: corpus.RoleUser, Blocks: text(strings.Repeat("u", 100))},
			corpus.Message{ID: fmt.Sprintf("x%da", i), Role: corpus.RoleAssistant, Blocks: text(strings.Repeat("a", 300))})
	}
	return msgs
}

// chatExtension is extendChat as a stream (an Extender): its batches,
// concatenated, are the messages extendChat appends.
func chatExtension(*corpus.Session) func(int) []corpus.Message {
	done := 0
	return func(turns int) []corpus.Message {
		done += turns
		return chatTurns(done-turns, turns)
	}
}

func TestChainExtendsToTheAskedRotations(t *testing.T) {
	s := chatSession(3)
	tr, err := Chain(context.Background(), s, rotator{limit: 2000}, 7, chatExtension, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rotations(tr); got != 7 {
		t.Fatalf("rotations = %d, want 7", got)
	}
	if tr.Session != s {
		t.Fatal("the trace must name the recorded session, not its extension")
	}
	if len(s.Messages) != 6 {
		t.Fatal("Chain modified the recorded session")
	}
	last := tr.Events[len(tr.Events)-1]
	if len(tr.Requests) != last.Request+1 {
		t.Fatalf("requests after the last rotation were not cut: %d, last rotation at %d", len(tr.Requests), last.Request)
	}
	// Deterministic: the same call gives the same trace.
	again, _ := Chain(context.Background(), s, rotator{limit: 2000}, 7, chatExtension, Options{})
	if fmt.Sprint(again.Requests) != fmt.Sprint(tr.Requests) {
		t.Fatal("Chain is not deterministic")
	}
}

// A chain holds one batch of its extension, not the extension: a chain of
// 200 rotations over 40 KB turns (about 1,000 turns, 40 MB) has no more
// than a few MB live at its 100th rotation. It held the whole extension
// before (digest-growth --variants fixed: 0.42 GB at 200 rotations of the
// demo with one job, 0.73 GB at 400).
func TestChainHoldsOneBatch(t *testing.T) {
	big := func(*corpus.Session) func(int) []corpus.Message {
		done := 0
		return func(turns int) []corpus.Message {
			var msgs []corpus.Message
			for i := done; i < done+turns; i++ {
				msgs = append(msgs,
					corpus.Message{ID: fmt.Sprintf("b%du", i), Role: corpus.RoleUser, Blocks: text(strings.Repeat("u", 100))},
					corpus.Message{ID: fmt.Sprintf("b%da", i), Role: corpus.RoleAssistant, Blocks: text(strings.Repeat("a", 40_000))})
			}
			done += turns
			return msgs
		}
	}
	var before, at100 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rots := 0
	opts := Options{Observe: func(_ Request, e *Event) {
		if e != nil && e.Outcome.Digest != nil {
			if rots++; rots == 100 {
				runtime.GC()
				runtime.ReadMemStats(&at100)
			}
		}
	}}
	tr, err := Chain(context.Background(), chatSession(3), rotator{limit: 200_000}, 200, big, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := rotations(tr); got != 200 {
		t.Fatalf("rotations = %d, want 200", got)
	}
	if tr.Messages < 1_500 {
		t.Fatalf("the chain walked %d messages: too few for the extension to weigh", tr.Messages)
	}
	if grew := int64(at100.HeapAlloc) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Fatalf("%.1f MB live at the 100th rotation: the chain holds more than a batch of its extension", float64(grew)/(1<<20))
	}
}

func TestChainGivesUpOnAPolicyThatNeverRotates(t *testing.T) {
	_, err := Chain(context.Background(), chatSession(3), rotator{limit: 1 << 60}, 2, chatExtension, Options{})
	if err == nil || !strings.Contains(err.Error(), "only 0 of 2 rotations") {
		t.Fatalf("err = %v", err)
	}
	_, err = Chain(context.Background(), chatSession(3), rotator{limit: 1 << 60}, 2, nil, Options{})
	if err == nil || !strings.Contains(err.Error(), "no extender") {
		t.Fatalf("err = %v", err)
	}
}

func rotations(t *Trace) int {
	n := 0
	for _, e := range t.Events {
		if e.Outcome.Digest != nil {
			n++
		}
	}
	return n
}

// A chain walks on where it stopped instead of replaying from the start:
// its trace must equal a single replay of the fully extended session, cut
// after the n-th rotation.
func TestChainEqualsOneReplayOfTheExtendedSession(t *testing.T) {
	s := chatSession(3)
	p := rotator{limit: 2000}
	tr, err := Chain(context.Background(), s, p, 7, chatExtension, Options{})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := Run(context.Background(), extendChat(s, 200), p, Options{})
	last := tr.Events[len(tr.Events)-1]
	want := full.Requests[:last.Request+1]
	if fmt.Sprint(tr.Requests) != fmt.Sprint(want) || len(tr.Events) != 7 || tr.Messages != last.Raw {
		t.Fatalf("chain requests %v\nwant %v", tr.Requests, want)
	}
}

// FirstChanged is where each prompt stops matching the previous one: the
// previous prompt's length while messages are only appended (the chat
// appends a user and an assistant message between requests), 0 after a
// rotation (the digest replaces message 0).
func TestFirstChanged(t *testing.T) {
	tr, err := Run(context.Background(), chatSession(12), rotator{limit: 2000}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rotations(tr) < 2 {
		t.Fatalf("only %d rotations: the test needs several", rotations(tr))
	}
	prompt := 0 // length of the previous request's prompt
	for i, r := range tr.Requests {
		want, cur := prompt, prompt+2
		if i == 0 {
			cur = 0
		}
		if r.Event >= 0 {
			want, cur = 0, tr.Events[r.Event].HistoryAfter
		}
		if r.FirstChanged != want {
			t.Fatalf("request %d: first changed %d, want %d", i, r.FirstChanged, want)
		}
		prompt = cur
	}
}

// Options.Observe sees every request once, in order, with its compaction:
// digest-growth's progress bar counts rotations with it.
func TestObserveSeesEveryRequest(t *testing.T) {
	var reqs, rots int
	opts := Options{Observe: func(r Request, e *Event) {
		if r.Index != reqs || (e == nil) != (r.Event < 0) {
			t.Fatalf("request %d seen as %d, event %v / %d", reqs, r.Index, e, r.Event)
		}
		reqs++
		if e != nil && e.Outcome.Digest != nil {
			rots++
		}
	}}
	tr, err := Chain(context.Background(), chatSession(3), rotator{limit: 2000}, 7, chatExtension, opts)
	if err != nil {
		t.Fatal(err)
	}
	if reqs != len(tr.Requests) || rots != 7 {
		t.Fatalf("observed %d requests and %d rotations; the trace has %d and 7", reqs, rots, len(tr.Requests))
	}
}

func TestCheckRotations(t *testing.T) {
	for _, c := range []struct {
		n       int
		bounded bool
		want    string // "" for no error
	}{
		{0, false, ""},
		{500, false, ""},
		{-1, false, "expected 0 (as recorded) or more"},
		{-1, true, "expected 0 (as recorded) or more"},
		{1000, false, "at most 500; a legacy digest grows by its predecessor every rotation, so a chain's memory grows with its length and its time with the square (the demo, both variants: 5.9 s and 0.15 GB at 200 rotations; 1000 would take about 2 min and 0.8 GB)"},
		{100000, false, "at most 500; a legacy digest grows by its predecessor every rotation, so a chain's memory grows with its length and its time with the square (the demo, both variants: 5.9 s and 0.15 GB at 200 rotations; 100000 would take about 17 days and 75.0 GB)"},
		// A bounded digest's chain grows linearly, so it may run ten
		// times as long.
		{1000, true, ""},
		{5000, true, ""},
		{20000, true, "at most 5000 for a bounded digest; a chain's time grows with its length (the demo, fixed: 11.5 s and 0.14 GB at 5,000 rotations; 20000 would take about 46 s and 0.6 GB)"},
		{1000000, true, "at most 5000 for a bounded digest; a chain's time grows with its length (the demo, fixed: 11.5 s and 0.14 GB at 5,000 rotations; 1000000 would take about 38 min and 28.0 GB)"},
	} {
		err := CheckRotations(c.n, c.bounded)
		if got := fmt.Sprint(err); (err == nil) != (c.want == "") || err != nil && got != c.want {
			t.Errorf("CheckRotations(%d, %v) = %v, want %q", c.n, c.bounded, err, c.want)
		}
	}
	for secs, want := range map[float64]string{30: "30 s", 90: "2 min", 7200: "2 h", 2 * 86400: "2 days"} {
		if got := aboutDuration(secs); got != want {
			t.Errorf("aboutDuration(%v) = %q, want %q", secs, got, want)
		}
	}
}
