package loss

// callFacts are what a report reads from the tool calls: each call's
// subject (decoding its input), its key, the units repeating each key and
// the units reading each call id's persisted output back. Decoding the
// inputs was a tenth of one replay's report; a report for one replay
// needs only the calls from its first hide on and the hidden results' own
// calls, so it reads those alone (readCalls), while a shared index reads
// every call once for all its reports (prepare).
type callFacts struct {
	subj []Subject // per call in Index.calls; zero for a call not read
	key  []int32   // per call: its key id, -1 if it has none or was not read
	// keyUnits[key id] are the units (ascending) holding a read call with
	// that key; persistReads the units reading each call id's persisted
	// output back.
	keyUnits     [][]int32
	persistReads map[string][]int32
}

// prepare reads every call and sets every result's subject and tool, once
// (safe to race for): what a shared index and Signal read.
func (ix *Index) prepare() {
	ix.prepared.Do(func() {
		ix.all = ix.readCalls(nil)
		for k := range ix.Results {
			ix.setSubject(k, ix.all)
		}
	})
}

// readCalls reads the calls marked in read (nil: every call), in call
// order, so that every unit list is built ascending.
func (ix *Index) readCalls(read []bool) *callFacts {
	s := ix.Session
	f := &callFacts{subj: make([]Subject, len(ix.calls)), key: make([]int32, len(ix.calls)), persistReads: map[string][]int32{}}
	keys := map[string]int32{}
	var key []byte // the current call's key, built in place
	var ids []string
	for c := range ix.calls {
		f.key[c] = -1
		if read != nil && !read[c] {
			continue
		}
		tc := &ix.calls[c]
		b := &s.Messages[ix.units[tc.unit].msg].Blocks[tc.block]
		subj := SubjectOf(b.ToolName, b.Args, s.Meta.Cwd)
		f.subj[c] = subj
		// A call that failed got nothing back: it fetches no result again
		// (a failed Edit, a MultiEdit that changed nothing, counted as
		// refetches), though its key is still its own result's.
		failed := ix.failed(b.ToolCallID)
		if key = appendCallKey(key[:0], subj); len(key) > 0 {
			// A lookup of string(key) does not copy it; only a new key is
			// stored as a string of its own.
			id, ok := keys[string(key)]
			if !ok {
				id = int32(len(f.keyUnits))
				keys[string(key)] = id
				f.keyUnits = append(f.keyUnits, nil)
			}
			if !failed {
				f.keyUnits[id] = appendUnit(f.keyUnits[id], tc.unit)
			}
			f.key[c] = id
		}
		if failed {
			continue
		}
		ids = persistedIDs(ids[:0], subj)
		for _, id := range ids {
			f.persistReads[id] = appendUnit(f.persistReads[id], tc.unit)
		}
	}
	return f
}

// readCallsFor reads what a report of hides needs, the agent's messages
// being read from unit from on: the calls of those units (their names are
// no use of a result, their keys and persisted reads fetch one back) and
// the hidden results' own calls (their subjects and keys). A call before
// from is read only when it is a hidden result's: the units a signal asks
// about are all from from on, so an earlier unit in a list changes no
// answer. It sets the hidden results' subjects and tools, the ones their
// signals show.
func (ix *Index) readCallsFor(hides []Hide, from int32) *callFacts {
	read := make([]bool, len(ix.calls))
	if int(from) < len(ix.units) {
		for c := ix.units[from].calls[0]; int(c) < len(read); c++ {
			read[c] = true
		}
	}
	for _, h := range hides {
		if k, ok := ix.byID[h.CallID]; ok && ix.Results[k].call >= 0 {
			read[ix.Results[k].call] = true
		}
	}
	f := ix.readCalls(read)
	for _, h := range hides {
		if k, ok := ix.byID[h.CallID]; ok {
			ix.setSubject(k, f)
		}
	}
	return f
}

// setSubject sets result k's subject and tool from its call's.
func (ix *Index) setSubject(k int, f *callFacts) {
	r := &ix.Results[k]
	if r.call < 0 {
		r.Subject = Subject{Family: FamilyOther}
		return
	}
	r.Subject = f.subj[r.call]
	r.Tool = r.Subject.Tool
}

// resultKey is result r's call's key id in f, -1 if none.
func (f *callFacts) resultKey(r *Result) int32 {
	if r.call < 0 {
		return -1
	}
	return f.key[r.call]
}

// failed reports whether the call with this id got an error back (its
// result is marked is_error).
func (ix *Index) failed(callID string) bool {
	k, ok := ix.byID[callID]
	if !ok {
		return false
	}
	r := &ix.Results[k]
	return ix.Session.Messages[r.Msg].Blocks[r.Block].IsError
}

// contentless reports whether r is a failed file read, write or search:
// its text is the error ("File content (50155 tokens) exceeds maximum
// allowed tokens"), no file's content, so hiding it hides nothing the
// agent could need, however often it names the path after. A shell
// command's error output stays: a traceback is information.
func (ix *Index) contentless(r *Result) bool {
	fam := r.Subject.Family
	return (fam == FamilyFile || fam == FamilySearch) && ix.Session.Messages[r.Msg].Blocks[r.Block].IsError
}
