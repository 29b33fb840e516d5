package cache

import "testing"

func TestCalibrate(t *testing.T) {
	// Request 1 carries 44,500 tokens of skill content the log does not
	// hold (as in the rcgray 2.0.60–2.1.6 sessions); the steady requests
	// grow at 1.2 provider tokens per metered token, with one outlier
	// (ratio 3, hidden content) and one event that are both ignored.
	ss := []Sample{
		{Recorded: 32000, History: 500},
		{Recorded: 32000 + 44500 + 120, History: 600},
		{Recorded: 76620 + 2400, History: 2600},   // ratio 1.2
		{Recorded: 79020 + 3630, History: 5600},   // 1.21
		{Recorded: 82650 + 15000, History: 10600}, // 3.0: hidden content
		{Recorded: 60000, History: 9000, Event: true},
		{Recorded: 62380, History: 11000}, // 1.19
		{Recorded: 64780, History: 13000}, // 1.2
		{Recorded: 67180, History: 15000}, // 1.2
		{Recorded: 99999, History: 16000}, // beyond the first 5 steady ones
	}
	c := Calibrate(ss, 1.0)
	if c.Steady != 5 || c.Scale != 1.2 || c.Anchor != 1 || !c.Recorded {
		t.Fatalf("calibration %+v, want scale 1.2 from 5 steady requests anchored at request 1", c)
	}
	if want := 76620 - 720; c.Overhead != want {
		t.Fatalf("overhead %d, want %d (P1 − s·M1)", c.Overhead, want)
	}
	if got := c.Prompt(1, 600, 76620); got != 76620 {
		t.Fatalf("anchor request uses its recorded prompt, got %d", got)
	}
	if got := c.Prompt(6, 11000, 62380); got != 75900+13200 {
		t.Fatalf("prompt %d", got)
	}
	none := Calibrate([]Sample{{History: 100}, {History: 200}}, 1.19)
	if none.Recorded || none.Scale != 1.19 || none.Anchor != -1 {
		t.Fatalf("without usage: %+v", none)
	}
	if got := none.Prompt(0, 1000, 0); got != 1190 {
		t.Fatalf("prompt without usage %d", got)
	}
	few := Calibrate([]Sample{{Recorded: 20000, History: 100}}, 1.19)
	if !few.Recorded || few.Steady != 0 || few.Scale != 1.19 || few.Anchor != 0 || few.Overhead != 20000-119 {
		t.Fatalf("one request: %+v", few)
	}
}

func TestCompareAndSummarize(t *testing.T) {
	r := RatesFor(Anthropic)
	rec := []Tokens{{Uncached: 2, Write5m: 101685, Read: 13539}, {Write5m: 115, Read: 115224}}
	m := New(Default(), Session{FirstRead: 13539, Head: 18400})
	pred := []Step{m.Step(Request{Prompt: 115226}), m.Step(Request{Prompt: 115339})}
	a := Compare("b3533c53", r, []int{8, 10}, rec, pred)
	if a.Requests != 2 || a.Recorded.CacheReadTokens != 128763 || a.Predicted.CacheReadTokens != 13539+115226 {
		t.Fatalf("%+v", a)
	}
	want := r.Billed(pred[0].Tokens.Add(pred[1].Tokens))/r.Billed(rec[0].Add(rec[1])) - 1
	if d := a.BilledError - want; d > 1e-6 || d < -1e-6 {
		t.Fatalf("billed error %v want %v", a.BilledError, want)
	}
	s := Summarize([]SessionAgreement{{Session: "b", BilledError: -0.02}, {Session: "a", BilledError: 0.04}})
	if s.Sessions[0].Session != "a" || s.Summary.Sessions != 2 || s.Summary.MaxAbsBilledError != 0.04 || s.Summary.MeanAbsBilledError != 0.03 {
		t.Fatalf("%+v", s)
	}
	if e := Summarize(nil); e.Sessions == nil || e.Summary.Sessions != 0 {
		t.Fatalf("empty: %+v", e)
	}
}

func TestCalibrationSettings(t *testing.T) {
	ss := []Sample{{Recorded: 20100, History: 100}, {Recorded: 21000, History: 1000}, {Recorded: 23400, History: 3000}}
	base := Calibrate(ss, 1.19)
	for _, c := range []struct {
		overhead, scale string
		want            Calibration
	}{
		{"recorded", "recorded", base},
		// A scale by hand: the overhead still comes from the anchor request.
		{"recorded", "1.5", Calibration{Scale: 1.5, Overhead: 21000 - 1500, Anchor: -1, Steady: base.Steady, Recorded: true}},
		{"policy", "policy", Calibration{Scale: 1, Overhead: 0, Anchor: -1, Steady: base.Steady}},
		{"5000", "2", Calibration{Scale: 2, Overhead: 5000, Anchor: -1, Steady: base.Steady}},
	} {
		p, err := Resolve("claude-code", map[string]string{SetOverhead: c.overhead, SetScale: c.scale})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.apply(base, ss); got != c.want {
			t.Errorf("overhead=%s scale=%s: %+v, want %+v", c.overhead, c.scale, got, c.want)
		}
	}
	// Without usage the policy's figures stay unless a number is given.
	none := Calibrate([]Sample{{History: 100}}, 1.19)
	if got := Default().apply(none, nil); got.Scale != 1 || got.Overhead != 0 {
		t.Errorf("no usage: %+v", got)
	}
}

// TestAnchoredTo: the recording's fit keeps its scale and takes its
// overhead again at the replay's own anchor, the last of requests 0 and 1
// whose recorded prompt the replay still compares with; a replay that
// compares with neither keeps the fit's overhead, anchored nowhere.
func TestAnchoredTo(t *testing.T) {
	fit := Calibration{Scale: 1.2, Overhead: 20_000, Anchor: 1, Steady: 5, Recorded: true}
	for _, c := range []struct {
		name             string
		ss               []Sample
		anchor, overhead int
	}{
		{"both compare", []Sample{{Recorded: 31_000, History: 10_000}, {Recorded: 77_000, History: 40_000}}, 1, 29_000},
		{"request 1 rewritten", []Sample{{Recorded: 31_000, History: 10_000}, {History: 39_000}}, 0, 19_000},
		{"neither compares", []Sample{{History: 10_000}, {History: 39_000}}, -1, 20_000},
		{"floored at 0", []Sample{{Recorded: 1_000, History: 10_000}}, 0, 0},
	} {
		got := fit.anchoredTo(c.ss)
		if got.Anchor != c.anchor || got.Overhead != c.overhead || got.Scale != 1.2 || got.Steady != 5 || !got.Recorded {
			t.Errorf("%s: anchor %d, overhead %d, scale %v, steady %d; want %d, %d, 1.2, 5", c.name, got.Anchor, got.Overhead, got.Scale, got.Steady, c.anchor, c.overhead)
		}
	}
}
