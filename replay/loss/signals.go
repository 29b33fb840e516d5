package loss

// Hide says when a replay first stopped sending a result whole.
type Hide struct {
	CallID string
	// Request is the replay's request number at which the result was first
	// sent as something other than its full text (a stub, a marker, a
	// truncated head, a summary, or nothing).
	Request int
	// At is the index in Session.Messages of the first message that was not
	// part of that request's history: the response the request produced.
	// The agent's messages from At on are the ones that could only have
	// used the result if it got it back.
	At int
	// Stage is the policy stage that hid it ("microcompact", "persisted",
	// "duplicates", "summary", ...), and Event the index of the compaction
	// in the replay's trace (-1 when not known).
	Stage string
	Event int
	// Kept is how many bytes of the result's text the hiding kept at its
	// head (a cut); 0 for a stub, a marker or a removal. A distinctive
	// line within them stayed visible, so quoting it is no need.
	Kept int
}

// Signal is what hiding one result cost, read from the recording.
type Signal struct {
	Result *Result
	Hide   Hide
	// Unseen: hidden already at the first request after the result arrived
	// (no message of the agent came between them): the model never saw it
	// whole.
	Unseen bool
	// NeededMsg is the first message of the agent from Hide.At on that
	// names the result's subject or quotes one of its distinctive lines and
	// is not itself fetching it back; -1 if none. NeededBy says which:
	// "name" or "quote".
	NeededMsg, NeededLine int
	NeededBy              string
	// NeededRequest and FetchedRequest are the requests that produced
	// those messages, and ArrivedRequest the first request sent after the
	// result arrived, when a replay's tracker knows them; -1 otherwise.
	NeededRequest, FetchedRequest, ArrivedRequest int
	// FetchedMsg is the first message from Hide.At on whose calls got the
	// result back (the same call again, a read of its persisted file, or a
	// call whose output repeats it); -1 if none.
	FetchedMsg, FetchedLine int
	// Refetched: fetched back at or before the first need (or without any
	// need). Lost: needed, and not fetched back before that need.
	Refetched, Lost bool
	// RefetchTokens is the result's size when it was fetched back at all
	// after it was hidden: what getting it back cost.
	RefetchTokens int
}

// Needed reports whether the agent used the result after it was hidden.
func (s *Signal) Needed() bool { return s.NeededMsg >= 0 }

// Counts are the loss signals summed over results, as the metrics name
// them.
type Counts struct {
	Hidden        int `json:"results_hidden"`
	Unseen        int `json:"results_unseen"`
	Needed        int `json:"results_needed"`
	Refetched     int `json:"results_refetched"`
	Lost          int `json:"results_lost"`
	RefetchTokens int `json:"refetch_tokens"`
}

// Add counts one signal.
func (c *Counts) Add(s *Signal) {
	c.Hidden++
	if s.Unseen {
		c.Unseen++
	}
	if s.Needed() {
		c.Needed++
	}
	if s.Refetched {
		c.Refetched++
	}
	if s.Lost {
		c.Lost++
	}
	c.RefetchTokens += s.RefetchTokens
}

// Plus adds two counts.
func (c Counts) Plus(o Counts) Counts {
	return Counts{c.Hidden + o.Hidden, c.Unseen + o.Unseen, c.Needed + o.Needed,
		c.Refetched + o.Refetched, c.Lost + o.Lost, c.RefetchTokens + o.RefetchTokens}
}

// Result returns the indexed result with a tool call id, or nil. When a
// log repeats an id, the first result with it is the one returned.
func (ix *Index) Result(id string) *Result {
	if k, ok := ix.byID[id]; ok {
		return &ix.Results[k]
	}
	return nil
}

// Signal reads what hiding one result cost, from the evidence of every
// result (built once; Report builds only what its hides need). A hide of
// an id the index does not hold returns nil.
func (ix *Index) Signal(h Hide) *Signal {
	if ix.Result(h.CallID) == nil {
		return nil
	}
	return ix.signal(ix.fullEvidence(), h)
}

// signal reads one hide's signal from evidence that covers its result. It
// costs a few binary searches in the result's lists: nothing is rescanned.
func (ix *Index) signal(ev *evidence, h Hide) *Signal {
	s := new(Signal)
	if !ix.readSignal(ev, h, s) {
		return nil
	}
	return s
}

// readSignal is signal into s (Report fills one slice of them: one
// allocation per report, not per hidden result); false when the index
// has no result with the hide's id.
func (ix *Index) readSignal(ev *evidence, h Hide, s *Signal) bool {
	r := ix.Result(h.CallID)
	if r == nil {
		return false
	}
	*s = Signal{Result: r, Hide: h, NeededMsg: -1, FetchedMsg: -1, NeededRequest: -1, FetchedRequest: -1, ArrivedRequest: -1}
	from := ix.unitAtOrAfter(h.At)
	s.Unseen = ix.unitAtOrAfter(r.Msg+1) == from
	if ix.contentless(r) {
		return true // hidden, never needed nor fetched back
	}
	fetch := ix.firstFetch(ev, r, from)
	need, by := ix.firstNeed(ev, r, from, h.Kept)
	if fetch >= 0 {
		s.FetchedMsg, s.FetchedLine = int(ix.units[fetch].msg), int(ix.units[fetch].line)
		s.RefetchTokens = ix.Tokens(r)
	}
	if need >= 0 {
		s.NeededMsg, s.NeededLine, s.NeededBy = int(ix.units[need].msg), int(ix.units[need].line), by
	}
	s.Refetched = fetch >= 0 && (need < 0 || fetch <= need)
	s.Lost = need >= 0 && (fetch < 0 || fetch > need)
	return true
}

// unitAtOrAfter is the first unit whose message index is >= msg
// (len(units) when none).
func (ix *Index) unitAtOrAfter(msg int) int32 {
	lo, hi := 0, len(ix.units)
	for lo < hi {
		mid := (lo + hi) / 2
		if int(ix.units[mid].msg) < msg {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return int32(lo)
}

// firstFetch is the first unit >= from that fetched r back, or -1.
func (ix *Index) firstFetch(ev *evidence, r *Result, from int32) int32 {
	best := firstAtOrAfter(ev.fetched[r.pos], from)
	if key := ev.facts.resultKey(r); key >= 0 {
		if u := firstAtOrAfter(ev.facts.keyUnits[key], from); u >= 0 && (best < 0 || u < best) {
			best = u
		}
	}
	return best
}

// isFetch reports whether unit u fetched r back.
func (ix *Index) isFetch(ev *evidence, r *Result, u int32) bool {
	if firstAtOrAfter(ev.fetched[r.pos], u) == u {
		return true
	}
	key := ev.facts.resultKey(r)
	return key >= 0 && firstAtOrAfter(ev.facts.keyUnits[key], u) == u
}

// firstNeed is the first unit >= from that names r's subject or quotes a
// distinctive line of it, skipping the units that fetch r back (naming a
// path to read it again is not using what it held), or -1.
func (ix *Index) firstNeed(ev *evidence, r *Result, from int32, kept int) (int32, string) {
	for u := from; ; {
		best, by := int32(-1), ""
		for _, id := range ev.mentions[r.pos] {
			if v := firstAtOrAfter(ev.mentionUnits[id], u); v >= 0 && (best < 0 || v < best) {
				best, by = v, "name"
			}
		}
		if v := firstQuote(ev.quotes[r.pos], u, kept); v >= 0 && (best < 0 || v < best) {
			best, by = v, "quote"
		}
		if best < 0 || !ix.isFetch(ev, r, best) {
			return best, by
		}
		u = best + 1
	}
}

// firstQuote is the first unit >= u quoting a line that ends past kept
// (one the hiding did not leave visible), or -1.
func firstQuote(hits []quoteHit, u int32, kept int) int32 {
	lo, hi := 0, len(hits)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if hits[mid].unit < u {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for _, q := range hits[lo:] {
		if int(q.end) > kept {
			return q.unit
		}
	}
	return -1
}
