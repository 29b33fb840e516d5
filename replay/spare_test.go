package replay

import (
	"context"
	"reflect"
	"testing"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/synth"
	"github.com/calib-dev/calib/policy"
	"github.com/calib-dev/calib/replay/loss"
)

// sparing is a policy that hands p the walker's spare array
// (Checkpoint.Spare), or never (none), counts the outcomes p built in it,
// and fails t when a spare shares h's array or one still live.
type sparing struct {
	policy.Policy
	t     *testing.T
	none  bool
	built int
	// live is the history p returned last, which the walker then holds.
	live []corpus.Message
}

func (s *sparing) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	if s.none {
		at.Spare = nil
	}
	if shares(at.Spare, h) || shares(at.Spare, s.live) {
		s.t.Errorf("request %d: the spare shares the history handed or held", at.Request)
	}
	o := s.Policy.Compact(h, at)
	if o.Strategy != policy.None {
		if cap(at.Spare) > 0 && shares(at.Spare, o.History) {
			s.built++
		}
		s.live = o.History
	}
	return o
}

// TestSpareMatchesFresh replays smith-staged and smith-legacy over a
// tool-heavy session, loss tracked, with the walker's spare array lent to
// the policy and without: the traces (events, requests, final histories,
// loss) must be the same, with no violation; lent, most compactions must
// have been built in the spare, and the session must be as it was.
func TestSpareMatchesFresh(t *testing.T) {
	s := synth.ToolHeavySession(1500)
	before := deepCopySession(s)
	for _, tt := range []struct {
		name, set string
		// built is the share of compactions that must be built in the
		// spare, in fifths: without summaries the history grows from one
		// compaction to the next, past the spare's room now and then.
		built int
	}{
		{"smith-staged", "max_tokens=40000", 4},
		{"smith-staged", "max_tokens=40000,window_turns=1,compact_at=0.6", 4},
		{"smith-staged", "max_tokens=40000,stage_summarize=false", 1},
		{"smith-legacy", "max_tokens=30000", 4},
	} {
		t.Run(tt.name+"/"+tt.set, func(t *testing.T) {
			var traces [2]*Trace
			var built [2]int
			for k, none := range []bool{false, true} {
				kv, err := policy.ParseSet([]string{tt.set})
				if err != nil {
					t.Fatal(err)
				}
				p, err := policy.New(tt.name, kv)
				if err != nil {
					t.Fatal(err)
				}
				sp := &sparing{Policy: p, t: t, none: none}
				r, err := Run(context.Background(), s, sp, Options{KeepFinal: true, Loss: loss.Build(s, loss.Options{})})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Violations) != 0 {
					t.Fatalf("spare lent %v: violations %+v", !none, r.Violations)
				}
				traces[k], built[k] = r, sp.built
			}
			a, b := traces[0], traces[1]
			if len(a.Events) < 4 || len(a.Final) == 0 {
				t.Fatalf("%d events, %d final messages: the replay did too little to compare", len(a.Events), len(a.Final))
			}
			if built[1] != 0 || 5*built[0] < tt.built*len(a.Events) {
				t.Fatalf("%d of %d compactions built in the spare when lent (want %d fifths), %d when not", built[0], len(a.Events), tt.built, built[1])
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatal("the replay with the spare lent differs from the one without")
			}
			if !reflect.DeepEqual(s, before) {
				t.Fatal("the session was modified")
			}
		})
	}
}

// dropFront is a policy whose compaction drops the oldest message of h by
// returning the rest of h's own array, marked Owned: the array the walker
// then holds is the one it held, so it must not become the spare.
type dropFront struct{ policy.Policy }

func (dropFront) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	if len(h) < 6 {
		return policy.Outcome{History: h, Strategy: policy.None, Units: at.Units, Count: at.Count}
	}
	return policy.Outcome{History: h[1:], Strategy: policy.Dropped, Removed: 1, Owned: true,
		Units: at.Units - 1, Count: at.Count - 1}
}

func (dropFront) Measure(*corpus.Message) (int64, int64, int64) { return 1, 1, 0 }

// TestSpareNotShared replays a policy that keeps part of the array it
// was handed and one that builds in the spare, in turn: a spare that
// shares the history held fails the sparing wrapper.
func TestSpareNotShared(t *testing.T) {
	s := synth.ToolHeavySession(200)
	staged, err := policy.New("smith-staged", map[string]string{"max_tokens": "6000"})
	if err != nil {
		t.Fatal(err)
	}
	alt := &alternating{ps: []policy.Policy{dropFront{staged}, staged}}
	sp := &sparing{Policy: alt, t: t}
	if _, err := Run(context.Background(), s, sp, Options{}); err != nil {
		t.Fatal(err)
	}
	if alt.n < 20 || sp.built == 0 {
		t.Fatalf("%d compactions, %d built in the spare: too few to test", alt.n, sp.built)
	}
}

// alternating asks its policies in turn, one per checkpoint.
type alternating struct {
	ps []policy.Policy
	n  int
}

func (a *alternating) Name() string          { return a.ps[0].Name() }
func (a *alternating) Params() policy.Params { return a.ps[0].Params() }
func (a *alternating) Checkpoint(f corpus.Format, prev, next *corpus.Message) bool {
	return a.ps[0].Checkpoint(f, prev, next)
}
func (a *alternating) Measure(m *corpus.Message) (int64, int64, int64) { return a.ps[1].Measure(m) }
func (a *alternating) Compact(h []corpus.Message, at policy.Checkpoint) policy.Outcome {
	a.n++
	return a.ps[a.n%len(a.ps)].Compact(h, at)
}

func TestShares(t *testing.T) {
	a := make([]corpus.Message, 8)
	b := make([]corpus.Message, 8)
	for _, tt := range []struct {
		name string
		x, y []corpus.Message
		want bool
	}{
		{"same", a, a, true},
		{"a part", a, a[3:5], true},
		{"the part's capacity reaches on", a[:2], a[5:], true},
		{"side by side", a[:2:2], a[2:], false},
		{"other arrays", a, b, false},
		{"nil", nil, a, false},
		{"empty", a[:0:0], a, false},
	} {
		if got := shares(tt.x, tt.y); got != tt.want {
			t.Errorf("%s: shares = %v, want %v", tt.name, got, tt.want)
		}
		if got := shares(tt.y, tt.x); got != tt.want {
			t.Errorf("%s, swapped: shares = %v, want %v", tt.name, got, tt.want)
		}
	}
	if unsafe.Sizeof(corpus.Message{}) == 0 {
		t.Fatal("a message has no size")
	}
}
