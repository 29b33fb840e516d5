package cache

import (
	"math"
	"sort"
)

// Sample is one request as calibration sees it.
type Sample struct {
	// Recorded is the prompt the provider counted (input + writes +
	// reads); 0 when the log recorded no usage for the request.
	Recorded int
	// History is the metered size of the history the request sent, in
	// the meter's own tokens (unscaled).
	History int
	// Event is true when the history was rewritten since the previous
	// request (a clear, a compaction) or output was capped as it arrived:
	// its growth is not steady, or not the recording's.
	Event bool
}

// Calibration maps a metered history to the provider's prompt:
// P = Overhead + Scale·History (overhead_tokens=recorded and
// meter_scale=recorded).
type Calibration struct {
	Scale    float64 `json:"meter_scale"`
	Overhead int     `json:"overhead_tokens"`
	// Anchor is the request the overhead was taken at; requests up to it
	// use their recorded prompt, which the log's own history cannot
	// explain (first-turn attachments, skill content).
	Anchor int `json:"anchor_request"`
	// Steady is how many requests the scale was measured on (0: the
	// default scale was used).
	Steady int `json:"steady_requests"`
	// Recorded is false when the session has no usage: the policy's own
	// overhead and meter apply, and the report says so.
	Recorded bool `json:"from_recorded_usage"`
	// HiddenEvents and HiddenTokens count the content the log does not
	// hold that later requests carried (Cost's hidden-content rule).
	HiddenEvents int `json:"hidden_events"`
	HiddenTokens int `json:"hidden_tokens"`
}

// Constants of the scale estimator, each from the real logs: steady
// requests grow by at least 2,000 metered tokens (smaller steps are
// dominated by the ±10% per-request spread) with a ratio in (0.5, 2)
// (outside it, the step carries content the log does not hold: the
// rcgray sessions' +44.5K skill at request 1); the median of the first 5
// keeps all 9 fully determined sessions within 1.7% end to end, where the
// ratio over the first requests missed by up to 13%.
const (
	steadyMinGrowth = 2000
	steadyCount     = 5
)

// Calibrate infers scale and overhead from the recorded prompts of a
// session's requests. defaultScale is used when no request is steady
// (the pooled 2.x figure is 1.19). A session without recorded usage gets
// Recorded=false and must use the policy's own figures.
func Calibrate(ss []Sample, defaultScale float64) Calibration {
	anchor := -1
	for i := 0; i < len(ss) && i <= 1; i++ {
		if ss[i].Recorded > 0 {
			anchor = i
		}
	}
	if anchor < 0 {
		return Calibration{Scale: defaultScale, Anchor: -1}
	}
	var ratios []float64
	for i := 2; i < len(ss) && len(ratios) < steadyCount; i++ {
		a, b := ss[i-1], ss[i]
		if b.Event || a.Recorded <= 0 || b.Recorded <= 0 {
			continue
		}
		dP, dM := b.Recorded-a.Recorded, b.History-a.History
		if dM < steadyMinGrowth || dP <= 0 {
			continue
		}
		if r := float64(dP) / float64(dM); r > 0.5 && r < 2 {
			ratios = append(ratios, r)
		}
	}
	c := Calibration{Scale: defaultScale, Anchor: anchor, Recorded: true, Steady: len(ratios)}
	if len(ratios) > 0 {
		sort.Float64s(ratios)
		c.Scale = ratios[len(ratios)/2]
	}
	c.Overhead = max(0, int(math.Round(float64(ss[anchor].Recorded)-c.Scale*float64(ss[anchor].History))))
	return c
}

// anchoredTo is the fit c, from the recording, for a replay whose
// requests are ss: its scale, and its overhead taken again where the
// replay's anchor is (the last of requests 0 and 1 whose recorded prompt
// the replay still compares with), so that the prompts the anchor stands
// in for and the predictions after it agree. A replay that left the
// recording at its first request keeps the fit's overhead, anchored
// nowhere.
func (c Calibration) anchoredTo(ss []Sample) Calibration {
	c.Anchor = -1
	for i := 0; i < len(ss) && i <= 1; i++ {
		if ss[i].Recorded > 0 {
			c.Anchor = i
		}
	}
	if c.Anchor >= 0 {
		c.Overhead = max(0, int(math.Round(float64(ss[c.Anchor].Recorded)-c.Scale*float64(ss[c.Anchor].History))))
	}
	return c
}

// Prompt predicts request k's prompt from its metered history; requests
// up to the anchor use the recorded prompt when there is one.
func (c Calibration) Prompt(k, history, recorded int) int {
	if k <= c.Anchor && recorded > 0 {
		return recorded
	}
	return c.Overhead + int(math.Round(c.Scale*float64(history)))
}

// apply overrides a calibration with fixed or policy settings. A
// calibration that is not from the recording keeps the policy's figures
// (scale 1, overhead 0) unless a number is given.
func (p Params) apply(c Calibration, ss []Sample) Calibration {
	if !c.Recorded {
		c.Scale, c.Overhead = 1, 0
	}
	switch p.Scale.Mode {
	case SettingPolicy:
		c.Scale = 1
	case SettingFixed:
		c.Scale = p.Scale.Value
	}
	switch p.Overhead.Mode {
	case SettingPolicy:
		c.Overhead = 0
	case SettingFixed:
		c.Overhead = int(math.Round(p.Overhead.Value))
	case SettingRecorded:
		if c.Recorded && p.Scale.Mode != SettingRecorded {
			// A scale given by hand: the overhead still comes from the
			// anchor request's recorded prompt.
			c.Overhead = max(0, int(math.Round(float64(ss[c.Anchor].Recorded)-c.Scale*float64(ss[c.Anchor].History))))
		}
	}
	if p.Overhead.Mode != SettingRecorded || p.Scale.Mode != SettingRecorded {
		// Settings by hand: every request is predicted from them, and the
		// recorded prompts no longer stand in for the first requests.
		c.Anchor = -1
		c.Recorded = c.Recorded && p.Overhead.Mode == SettingRecorded
	}
	return c
}
