package cache

import (
	"math"
	"testing"
	"time"
)

// row is one request of a real Claude Code log as the recorded usage
// gives it: the first line of the message id, the stream, model, send and
// response time (seconds from the first request), the prompt P = input +
// writes + read, the break events between it and the previous request,
// and the recorded usage. The rows were extracted from
// ../shared/corpus-real/claude-code (usage on the last line per
// message.id); each test names its log. They pin the model's rules to the
// requests that establish them.
type row struct {
	line          int
	stream, model string
	send, done    float64
	prompt        int
	cause         Cause
	input         int
	write5m       int
	write1h       int
	read          int
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// replayRows runs rows through a model whose head is the session's real H
// and returns the steps. The recorded uncached input is the tail (the
// results after the last-completed one): the tail rule is tested here,
// not the meter that would estimate it.
func replayRows(p Params, head int, rows []row) []Step {
	m := New(p, Session{FirstRead: rows[0].read, Head: head})
	out := make([]Step, len(rows))
	for i, r := range rows {
		tail := 0
		if i > 0 && r.input > 20 {
			tail = r.input
		}
		out[i] = m.Step(Request{Stream: r.stream, Model: r.model, Send: at(r.send), Done: at(r.done),
			Prompt: r.prompt, Cause: r.cause, Tail: tail})
	}
	return out
}

func recordedBilled(rates Rates, rows []row) float64 {
	var b float64
	for _, r := range rows {
		b += rates.Billed(Tokens{Uncached: r.input, Write5m: r.write5m, Write1h: r.write1h, Read: r.read})
	}
	return b
}

// checkRows asserts every predicted read within tol tokens of the
// recorded one (the logs over-read by up to 18 tokens at a second user
// turn, and the cache keeps P−1 or P−2 at steady requests) and the
// session's billed input within maxErr.
func checkRows(t *testing.T, p Params, head int, rows []row, tol int, maxErr float64) {
	t.Helper()
	steps := replayRows(p, head, rows)
	var pred float64
	for i, st := range steps {
		r := rows[i]
		if d := st.Read - r.read; d > tol || d < -tol {
			t.Errorf("line %d: predicted read %d (%s), recorded %d", r.line, st.Read, st.Reason, r.read)
		}
		if st.Prompt() != r.prompt {
			t.Errorf("line %d: split sums to %d, prompt %d", r.line, st.Prompt(), r.prompt)
		}
		pred += st.Billed
	}
	rec := recordedBilled(RatesFor(p.Provider), rows)
	if e := pred/rec - 1; math.Abs(e) > maxErr {
		t.Errorf("billed input %.0f predicted vs %.0f recorded: error %+.2f%% beyond %.2f%%", pred, rec, 100*e, 100*maxErr)
	}
}

const opus45 = "claude-opus-4-5-20251101"

// b3533c53 (2.1.14): line 30's tail (3 of 4 parallel Reads completed
// before the last line's result: 27,936 uncached) and the microcompact
// boundary at line 39, after which line 40 reads only H = 18,429 although
// the first cleared result sits after ~100K of unchanged attachments.
func TestEvidenceMicrocompactBreaksToHead(t *testing.T) {
	rows := []row{
		{8, "", opus45, 0.0, 6.1, 115226, 0, 2, 101685, 0, 13539},
		{10, "", opus45, 6.7, 10.0, 115339, 0, 0, 115, 0, 115224},
		{18, "", opus45, 39.6, 44.1, 117509, 0, 1, 2153, 0, 115355},
		{21, "", opus45, 44.2, 50.1, 124877, 0, 0, 7369, 0, 117508},
		{30, "", opus45, 50.5, 57.4, 161486, 0, 27936, 8673, 0, 124877},
		{40, "", opus45, 57.8, 65.6, 153492, Rewrite, 1, 135062, 0, 18429},
		{43, "", opus45, 65.9, 78.3, 162349, 0, 1, 8857, 0, 153491},
	}
	checkRows(t, Default(), 18429, rows, 20, 0.005)
	// The naive rule (longest unchanged prefix) reads far more after the
	// boundary than the provider did, and underestimates the bill.
	p := Default()
	p.Break = BreakPrefix
	m := New(p, Session{FirstRead: 13539, Head: 18429})
	for _, r := range rows[:5] {
		m.Step(Request{Model: opus45, Send: at(r.send), Done: at(r.done), Prompt: r.prompt, Kept: r.prompt})
	}
	st := m.Step(Request{Model: opus45, Send: at(57.8), Done: at(65.6), Prompt: 153492, Cause: Rewrite, Kept: 100000})
	if st.Read != 100000 {
		t.Errorf("prefix rule read %d, want the 100,000 unchanged tokens", st.Read)
	}
}

// 03aa9bb5 (2.1.9): line 10 comes 942 s after line 6's response; the
// cache expired and the request read exactly the session's first read
// (15,847), a head other sessions keep warm.
func TestEvidenceExpiryReadsFirstRead(t *testing.T) {
	rows := []row{
		{4, "", opus45, 0.0, 5.6, 114288, 0, 2, 98439, 0, 15847},
		{6, "", opus45, 5.8, 8.6, 114401, 0, 0, 115, 0, 114286},
		{10, "", opus45, 951.0, 957.2, 115103, 0, 1, 99255, 0, 15847},
		{13, "", opus45, 957.2, 962.8, 122472, 0, 0, 7370, 0, 115102},
		{20, "", opus45, 963.1, 969.1, 148665, 0, 17585, 8608, 0, 122472},
	}
	checkRows(t, Default(), 18400, rows, 20, 0.005)
	if st := replayRows(Default(), 18400, rows)[2]; st.Reason != ReasonExpired {
		t.Errorf("line 10: reason %s, want expired", st.Reason)
	}
}

// fc491683 (2.1.20) writes only 1-hour entries (2× base input): the
// boundary at line 49 and the first thinking request at line 62 both read
// H = 18,020.
func TestEvidenceOneHourWritesAndThinking(t *testing.T) {
	rows := []row{
		{8, "", opus45, 0.0, 5.9, 114097, 0, 2, 0, 98605, 15490},
		{10, "", opus45, 6.5, 10.2, 114210, 0, 0, 0, 115, 114095},
		{18, "", opus45, 49.2, 53.1, 115750, 0, 1, 0, 1539, 114210},
		{22, "", opus45, 53.1, 58.6, 123112, 0, 0, 0, 7363, 115749},
		{32, "", opus45, 58.8, 65.1, 144802, 0, 13078, 0, 8612, 123112},
		{42, "", opus45, 65.3, 73.0, 173083, 0, 0, 0, 41359, 131724},
		{50, "", opus45, 73.3, 81.1, 157854, Rewrite, 1, 0, 139833, 18020},
		{54, "", opus45, 81.4, 115.7, 166708, 0, 1, 0, 8854, 157853},
		{62, "", opus45, 230.9, 258.0, 169858, Thinking, 10, 0, 151828, 18020},
	}
	p, err := Resolve("claude-code-1h", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, p, 18020, rows, 20, 0.005)
	// Priced as 5-minute writes, the same requests would be billed 37.5%
	// less on their writes: the split matters.
	if a, b := recordedBilled(RatesFor(Anthropic), rows), RatesFor(Anthropic).Billed(Tokens{Write5m: 1}); a <= 0 || b != 1.25 {
		t.Fatalf("rates: %v %v", a, b)
	}
}

// 2caf2337 (2.0.60): the session's first stop-hook summary (before line
// 41) breaks to H = 20,623; the later one (before line 86) does not.
func TestEvidenceFirstStopHookBreaks(t *testing.T) {
	rows := []row{
		{5, "", opus45, 0.0, 6.6, 32510, 0, 3, 16236, 0, 16271},
		{10, "", opus45, 7.1, 18.9, 77090, 0, 3, 44580, 0, 32507},
		{13, "", opus45, 19.1, 23.0, 77542, 0, 1, 454, 0, 77087},
		{16, "", opus45, 23.2, 26.7, 77766, 0, 1, 224, 0, 77541},
		{19, "", opus45, 27.1, 32.1, 78102, 0, 1, 336, 0, 77765},
		{24, "", opus45, 32.2, 39.4, 78790, 0, 3, 686, 0, 78101},
		{27, "", opus45, 112.9, 117.0, 81683, 0, 3, 2893, 0, 78787},
		{32, "", opus45, 117.4, 133.7, 83729, 0, 1, 2048, 0, 81680},
		{36, "", opus45, 133.9, 143.9, 85472, 0, 1, 1743, 0, 83728},
		{41, "", opus45, 157.3, 162.3, 86468, TurnEnd, 2, 65843, 0, 20623},
		{44, "", opus45, 162.7, 168.5, 93752, 0, 0, 7286, 0, 86466},
		{51, "", opus45, 169.3, 175.2, 122504, 0, 0, 28752, 0, 93752},
		{58, "", opus45, 175.8, 182.1, 146765, 0, 3861, 20400, 0, 122504},
		{63, "", opus45, 182.2, 187.8, 147772, 0, 0, 4868, 0, 142904},
		{68, "", opus45, 188.2, 194.3, 152068, 0, 2175, 2121, 0, 147772},
		{71, "", opus45, 194.4, 200.3, 152503, 0, 0, 2610, 0, 149893},
		{74, "", opus45, 200.4, 204.1, 152883, 0, 0, 380, 0, 152503},
		{77, "", opus45, 204.5, 209.7, 155824, 0, 0, 2941, 0, 152883},
		{79, "", opus45, 209.8, 226.3, 156050, 0, 0, 226, 0, 155824},
		{82, "", opus45, 226.4, 252.8, 157727, 0, 0, 1677, 0, 156050},
		{86, "", opus45, 269.7, 281.4, 159257, 0, 2, 1528, 0, 157727},
	}
	checkRows(t, Default(), 20623, rows, 20, 0.005)
}

// The TTL boundary: 0a725fb5 line 111 read its whole prefix 302.5 s after
// the previous response, and the earliest expiry seen is 315.5 s; TTL 5 m
// plus 10 s slack separates all 16 gap events.
func TestEvidenceTTLBoundary(t *testing.T) {
	for _, c := range []struct {
		gap     float64
		expired bool
	}{{204.6, false}, {302.5, false}, {310, false}, {310.5, true}, {315.5, true}, {942, true}} {
		m := New(Default(), Session{FirstRead: 0, Head: 14000})
		m.Step(Request{Model: "m", Send: at(0), Done: at(5), Prompt: 50000})
		st := m.Step(Request{Model: "m", Send: at(5 + c.gap), Done: at(10 + c.gap), Prompt: 50100})
		if got := st.Reason == ReasonExpired; got != c.expired {
			t.Errorf("gap %.1f s: expired=%v, want %v", c.gap, got, c.expired)
		}
	}
}
