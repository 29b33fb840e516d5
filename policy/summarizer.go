package policy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/corpus"
)

// DefaultSummarizer is the summarizer a policy uses unless told otherwise:
// a fixed 2 000-byte text, about the size of the dense factual summary
// smith asks its model for. It reproduces smith's token figures only as
// far as the real summaries were about that long; summarizer=recorded uses
// the real text where the session kept it.
const DefaultSummarizer = "fixed:2000"

// maxFixedSummary bounds fixed:BYTES at 16 MiB, twice the text of the
// largest context window (2M tokens at 4 bytes each): each compaction
// builds its summary, so fixed:100000000000 ran out of memory instead of
// being refused.
const maxFixedSummary = 1 << 24

// Summarizer produces a summary offline, deterministically, in place of
// the model call an agent makes. The syntax (the summarizer parameter):
//
//	fixed:BYTES  a text of exactly BYTES bytes (fixed:0 is an empty summary,
//	             which smith treats as a failure: Dropped)
//	ratio:R      R × the bytes of the transcript smith would send to its
//	             summarizer (role + texts of the non-thinking blocks)
//	recorded     the summary smith recorded for this cut (the
//	             "Summary of the earlier conversation: " message of
//	             session.json followed by the same message as the cut);
//	             where there is none, fixed:2000, and the outcome says so
//	fail         the summarizer fails, which exercises the Dropped path
type Summarizer struct {
	kind  string // fixed | ratio | recorded | fail
	bytes int
	ratio float64
}

// ParseSummarizer parses the summarizer parameter.
func ParseSummarizer(s string) (Summarizer, error) {
	kind, arg, hasArg := strings.Cut(s, ":")
	switch kind {
	case "fixed":
		n, err := strconv.Atoi(strings.ReplaceAll(arg, "_", ""))
		if !hasArg || err != nil || n < 0 {
			return Summarizer{}, errors.New("fixed needs a byte count >= 0, e.g. fixed:2000")
		}
		if n > maxFixedSummary {
			size := fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
			if n >= 1<<30 {
				size = fmt.Sprintf("%.0f GiB", float64(n)/(1<<30))
			}
			return Summarizer{}, fmt.Errorf("fixed:%d would build a %s summary at every compaction; the most is fixed:%d (16 MiB, twice the text of a 2M-token window)", n, size, maxFixedSummary)
		}
		return Summarizer{kind: kind, bytes: n}, nil
	case "ratio":
		r, err := strconv.ParseFloat(arg, 64)
		if !hasArg || err != nil || !(r >= 0 && r <= 1) {
			return Summarizer{}, errors.New("ratio needs a fraction in [0, 1] of the bytes replaced, e.g. ratio:0.05")
		}
		return Summarizer{kind: kind, ratio: r}, nil
	case "recorded", "fail":
		if hasArg {
			return Summarizer{}, fmt.Errorf("%s takes no argument", kind)
		}
		return Summarizer{kind: kind}, nil
	}
	return Summarizer{}, errors.New("expected fixed:BYTES, ratio:R, recorded or fail")
}

// canonSummarizer is a summarizer parameter's one spelling (ParamSpec.Canon).
func canonSummarizer(s string) (string, error) {
	sm, err := ParseSummarizer(s)
	if err != nil {
		return "", err
	}
	return sm.String(), nil
}

// String is the parameter value the summarizer was parsed from.
func (s Summarizer) String() string {
	switch s.kind {
	case "fixed":
		return "fixed:" + strconv.Itoa(s.bytes)
	case "ratio":
		return "ratio:" + strconv.FormatFloat(s.ratio, 'g', -1, 64)
	}
	return s.kind
}

// SummaryRequest is what a summarizer sees: the prefix being replaced, the
// first message that survives the cut, and the session being replayed.
type SummaryRequest struct {
	Prefix  []corpus.Message
	Next    *corpus.Message
	Session *corpus.Session
}

// errSummaryFailed is the fail summarizer's error; errEmptySummary is
// smith's: an empty summary raises, which leads to Dropped.
var (
	errSummaryFailed = errors.New("summarizer=fail")
	errEmptySummary  = errors.New("empty summary")
)

// Summarize returns the replacement text (without smith's prefix) and a
// description of the summarizer actually used, for reports.
func (s Summarizer) Summarize(r SummaryRequest) (string, string, error) {
	var text string
	used := s.String()
	switch s.kind {
	case "fail":
		return "", used, errSummaryFailed
	case "fixed":
		text = fillText(s.bytes)
	case "ratio":
		text = fillText(int(s.ratio * float64(transcriptBytes(r.Prefix))))
	case "recorded":
		if t, ok := recordedSummary(r); ok {
			text = t
		} else {
			text = fillText(2000)
			used = "recorded (none at this cut; used fixed:2000)"
		}
	}
	if text == "" {
		return "", used, errEmptySummary
	}
	return text, used, nil
}

// recordedSummary finds the summary smith recorded for this cut: a summary
// message in the recorded history whose next message is the one the cut
// keeps first (matched by message id, which smith writes on every message
// since #59). smith's session.json keeps only the newest summary, so this
// finds the text of the last compaction of a session, not earlier ones.
func recordedSummary(r SummaryRequest) (string, bool) {
	if r.Session == nil || r.Next == nil || r.Next.ID == "" {
		return "", false
	}
	h := r.Session.Recorded.History
	for i := 0; i+1 < len(h); i++ {
		if h[i+1].ID != r.Next.ID || h[i].Role != corpus.RoleUser || len(h[i].Blocks) == 0 {
			continue
		}
		if t, ok := strings.CutPrefix(h[i].Blocks[0].Text, smithSummaryPrefix); ok {
			return t, true
		}
	}
	return "", false
}

// transcriptBytes is the size of the transcript smith's summarize_prefix
// sends: per message "role: " + the texts of its non-thinking blocks joined
// by "\n", messages joined by "\n\n".
func transcriptBytes(prefix []corpus.Message) int {
	n := 0
	for i := range prefix {
		m := &prefix[i]
		if i > 0 {
			n += 2
		}
		n += len(m.Role) + 2
		texts := 0
		for j := range m.Blocks {
			b := &m.Blocks[j]
			switch b.Kind {
			case corpus.KindText, corpus.KindToolResult:
				if texts > 0 {
					n++
				}
				n += len(b.Content())
				texts++
			}
		}
	}
	return n
}

// fillText is a deterministic ASCII text of exactly n bytes.
func fillText(n int) string {
	const unit = "calib stand-in summary of the earlier turns. "
	if n <= 0 {
		return ""
	}
	return strings.Repeat(unit, n/len(unit)+1)[:n]
}
