package loss

import "hash/maphash"

// Twins are results whose text repeats an earlier result's exactly: the
// same file read again unchanged, the same command's same output. A
// tool-heavy session has many (a third of the result bytes of the smith
// corpus in the README's speed section). A twin's lines are the lines of
// the first result with its text, in the same order, and its size in any
// meter is the same: the index reads them once for both, instead of
// splitting, hashing and measuring the same bytes again.

// twinMinBytes is the shortest text looked up for a twin: below it,
// reading the text again costs about what looking it up does.
const twinMinBytes = 256

// twinKey files a text under its length and a hash of its first and last
// twinEdge bytes; texts with the same key are then compared whole. A key
// shared by two different texts only leaves the later one without a twin.
type twinKey struct {
	n    int
	edge uint64
}

const twinEdge = 64

// twins returns, per result, the first result with the same text (itself
// when no earlier one has it). Only results with a Text are looked up (a
// structured result's text is built by joining its payload's strings).
// It is computed once per index.
func (ix *Index) twins() []int32 {
	ix.twinOnce.Do(func() {
		ix.twin = make([]int32, len(ix.Results))
		seed := maphash.MakeSeed()
		first := map[twinKey]int32{}
		for k := range ix.Results {
			ix.twin[k] = int32(k)
			text := ix.plainText(k)
			if len(text) < twinMinBytes {
				continue
			}
			key := twinKey{len(text), maphash.String(seed, text[:twinEdge])*31 ^ maphash.String(seed, text[len(text)-twinEdge:])}
			j, ok := first[key]
			if !ok {
				first[key] = int32(k)
				continue
			}
			if ix.plainText(int(j)) == text {
				ix.twin[k] = j
			}
		}
	})
	return ix.twin
}

// plainText is a result's Text ("" for a structured result).
func (ix *Index) plainText(k int) string {
	r := &ix.Results[k]
	return ix.Session.Messages[r.Msg].Blocks[r.Block].Text
}
