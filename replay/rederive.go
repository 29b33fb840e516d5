package replay

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/policy"
)

// Verdicts of a re-derived clai compaction.
const (
	// RederiveMatch: the window matches the row and the digest rendered
	// from the session's own rows equals the stored text byte for byte.
	RederiveMatch = "match"
	// RederiveMismatch: the window matches but the text differs (see
	// FirstDiff).
	RederiveMismatch = "mismatch"
	// RederiveWindow: the rebuilt window is not the recorded one (rows
	// deleted or edited later, or a chain that does not link).
	RederiveWindow = "window-mismatch"
	// RederiveSkipped: nothing to compare (a dangling or failed row, a
	// deleted summary, a model-written or old-version summary); Notes say
	// which.
	RederiveSkipped = "skipped"
)

// Rederived is one recorded clai compaction re-derived from the session's
// own rows (shared/specs/clai.md §1, "Offline replay of compaction k").
type Rederived struct {
	Index        int    `json:"index"` // position in Recorded.Compactions
	CompactionID string `json:"compaction_id"`
	Line         int    `json:"line"` // rowid of the assistant_compactions row
	Trigger      string `json:"trigger"`
	Status       string `json:"status"`
	Kind         string `json:"kind"`
	Verdict      string `json:"verdict"`
	// The window rebuilt from the rows, and the recorded one.
	From         string `json:"from"`
	To           string `json:"to"`
	Messages     int    `json:"messages"`
	WantFrom     string `json:"want_from"`
	WantTo       string `json:"want_to"`
	WantMessages int    `json:"want_messages"`
	WindowOK     bool   `json:"window_ok"`
	// Text is the re-derived digest ("" when none was rendered).
	Text         string `json:"-"`
	DerivedBytes int    `json:"derived_bytes"`
	StoredBytes  int    `json:"stored_bytes"`
	// FirstDiff is the first byte offset where the derived and stored
	// texts differ (the shorter length when one is a prefix of the other),
	// -1 when they are equal or nothing was compared.
	FirstDiff int `json:"first_diff"`
	// Notes says what was found on the way, in plain words.
	Notes []string `json:"notes"`
	// Variant is the clai variant the digest was rendered with ("" when
	// none was rendered).
	Variant string `json:"variant,omitempty"`
}

// RederiveClai re-derives every compaction clai recorded in s: for
// compaction k it takes the messages stored before k's summary, builds the
// view from the latest compaction completed before k was created, selects
// the window (force unless the trigger was automatic), checks the window's
// first and last ids and length against the row, renders the digest with p
// (ClaiDefaults(ClaiLegacy) reproduces what clai HEAD stored) and compares
// it byte for byte with the stored text. It never panics on broken rows:
// dangling, failed, deleted or unlinked rows are reported in Notes.
func RederiveClai(s *corpus.Session, p policy.ClaiParams) []Rederived {
	return rederiveClai(s, p, false)
}

// Rederive re-derives the digests s recorded when p models an agent whose
// digests can be derived again (policy.Rederiver) and s is that agent's
// database (clai); nil otherwise, or when s recorded no compaction. A
// Claude Code log's compact boundaries are not clai digests: re-derived as
// ones, each was a "window-mismatch" against "the database's rows". Each
// digest is rendered with the agent's own parameters (RederiveParams, not
// p's --set) in the variant that wrote it (policy.ClaiWrittenVariant of
// the stored text), not p's own: the question is whether the database
// holds what clai wrote, and a run of the fixed variant replays a
// database clai as released (legacy) wrote.
func Rederive(s *corpus.Session, p policy.Policy) []Rederived {
	r, ok := p.(policy.Rederiver)
	if !ok || s.Format != corpus.FormatClai || len(s.Recorded.Compactions) == 0 {
		return nil
	}
	return rederiveClai(s, r.RederiveParams(), true)
}

// rederiveClai re-derives s's compactions with p, in the variant that
// wrote each digest when written is set.
func rederiveClai(s *corpus.Session, p policy.ClaiParams, written bool) []Rederived {
	byID := make(map[string]int, len(s.Messages))
	for i := range s.Messages {
		byID[s.Messages[i].ID] = i
	}
	cs := s.Recorded.Compactions
	rows := newCompletedRows(cs)
	out := make([]Rederived, 0, len(cs))
	for k := range cs {
		out = append(out, rederiveOne(s, rows, k, byID, p, written))
	}
	return out
}

func rederiveOne(s *corpus.Session, rows *completedRows, k int, byID map[string]int, p policy.ClaiParams, written bool) Rederived {
	cs := rows.cs
	c := &cs[k]
	r := Rederived{Index: k, CompactionID: c.ID, Line: c.Line, Trigger: c.Trigger, Status: c.Status, Kind: string(c.Kind),
		WantFrom: c.SourceFrom, WantTo: c.SourceTo, WantMessages: c.InputMessages, FirstDiff: -1,
		StoredBytes: len(c.Summary), Notes: []string{}}
	note := func(format string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, a...)) }
	switch c.Status {
	case "running":
		note("the row is still \"running\" with no summary: clai stopped during this compaction (or is compacting now); nothing to compare")
		r.Verdict = RederiveSkipped
		return r
	case "failed":
		note("the row is \"failed\": no summary was stored")
		r.Verdict = RederiveSkipped
		return r
	}

	// 1. The messages stored before the summary. Without the summary
	// message, the row's creation time is the best cut there is.
	var prefix []corpus.Message
	si, found := byID[c.SummaryID]
	switch {
	case c.SummaryID != "" && found:
		prefix = s.Messages[:si]
	default:
		if c.SummaryID == "" {
			note("summary_message_id is NULL: the summary message was deleted (ON DELETE SET NULL)")
		} else {
			note("summary message %s is not in the session: it was deleted", c.SummaryID)
		}
		n := 0
		for n < len(s.Messages) && !s.Messages[n].Time.After(c.CreatedAt) {
			n++
		}
		prefix = s.Messages[:n]
		note("window rebuilt from the %d messages stored up to the row's created_at", n)
	}

	// The chain key: k's window starts with the previous summary.
	if prev := rows.previous(k); prev >= 0 && c.SourceFrom != cs[prev].SummaryID {
		note("the chain does not link: source_from_message_id %q is not the previous compaction's summary %q (row %d)",
			c.SourceFrom, cs[prev].SummaryID, cs[prev].Line)
	}

	// 2. The view and the window.
	latest := rows.latest(k)
	var view []corpus.Message
	if latest >= 0 {
		var ok bool
		view, ok = historyView(prefix, byID, cs[latest].SummaryID, cs[latest].SourceTo)
		if !ok {
			note("the latest compaction before it (row %d) has its summary or source_to message missing: clai falls back to every non-summary message", cs[latest].Line)
		}
	} else {
		view, _ = policy.ClaiHistoryView(prefix, "", "")
	}
	force := c.Trigger != "automatic"
	window, ok := policy.ClaiSelectCompactionWindow(view, force, p.MinMessages, p.TailMessages)
	if !ok {
		note("no window: %d messages in the view are too few for a %s compaction", len(view), c.Trigger)
		r.Verdict = RederiveWindow
		return r
	}

	// 3. The window against the row.
	r.From, r.To, r.Messages = window[0].ID, window[len(window)-1].ID, len(window)
	r.WindowOK = r.From == c.SourceFrom && r.To == c.SourceTo && r.Messages == c.InputMessages
	if !r.WindowOK {
		note("rebuilt window %s..%s (%d messages) differs from the row's %s..%s (%d): rows deleted or edited since",
			r.From, r.To, r.Messages, orNull(c.SourceFrom), orNull(c.SourceTo), c.InputMessages)
	}

	// 4. Render and compare.
	switch {
	case c.SummaryMissing || c.Summary == "":
		r.Verdict = verdictWithoutText(r.WindowOK)
		return r
	case c.Kind == corpus.DigestModel:
		note("a model-written summary (its text does not follow P1 with P2): not deterministic, only the window is checked")
		r.Verdict = verdictWithoutText(r.WindowOK)
		return r
	case c.Kind == corpus.DigestOld:
		note("a digest with the preambles of clai v26.6.10–v26.6.14, whose algorithm predates select_head_and_tail: only the window is checked")
		r.Verdict = verdictWithoutText(r.WindowOK)
		return r
	}
	if written {
		p = p.WithVariant(policy.ClaiWrittenVariant(c.Summary, window))
	}
	r.Text, _ = policy.ClaiDigestText(window, p.Digest())
	r.Variant = p.Variant
	r.DerivedBytes = len(r.Text)
	r.FirstDiff = claiFirstDiff(r.Text, c.Summary)
	switch {
	case !r.WindowOK:
		r.Verdict = RederiveWindow
	case r.FirstDiff < 0:
		r.Verdict = RederiveMatch
	default:
		r.Verdict = RederiveMismatch
		note("the stored text differs from byte %d on (stored %d bytes, derived %d)", r.FirstDiff, r.StoredBytes, r.DerivedBytes)
	}
	return r
}

// historyView is policy.ClaiHistoryView(prefix, summaryID, sourceTo),
// with the two messages found by byID (each id's last position in the
// session) when that position is inside prefix, which makes it their last
// position in prefix too; otherwise (an id missing, held again after the
// prefix, or both ids one, which ClaiHistoryView takes for a summary
// without a source_to) by ClaiHistoryView's own search.
func historyView(prefix []corpus.Message, byID map[string]int, summaryID, sourceTo string) ([]corpus.Message, bool) {
	si, okS := byID[summaryID]
	ti, okT := byID[sourceTo]
	if summaryID != "" && sourceTo != "" && summaryID != sourceTo && okS && okT && si < len(prefix) && ti < len(prefix) {
		return policy.ClaiHistoryViewAt(prefix, si, ti), true
	}
	return policy.ClaiHistoryView(prefix, summaryID, sourceTo)
}

func verdictWithoutText(windowOK bool) string {
	if windowOK {
		return RederiveSkipped
	}
	return RederiveWindow
}

func orNull(s string) string {
	if s == "" {
		return "NULL"
	}
	return s
}

// usable is repository.rs's "latest" filter.
func usable(c *corpus.Compaction) bool {
	return c.Status == "completed" && c.SummaryID != "" && c.SourceTo != ""
}

// claiFirstDiff is the first byte offset at which a and b differ, -1 if equal.
func claiFirstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) == len(b) {
		return -1
	}
	return n
}
