package policy

import (
	"fmt"
	"math/bits"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/calib-dev/calib/corpus"
	"github.com/tiktoken-go/tokenizer"
)

// Meter names, as the meter parameter spells them.
const (
	MeterBytes4 = "bytes4" // smith's own: bytes of every counted field, one floor division by 4 over the whole history
	MeterO200k  = "o200k"  // a real BPE (OpenAI o200k_base), counted per string
	MeterChars4 = "chars4" // UTF-16 code units / 4, rounded per block, as JavaScript agents estimate
)

// MeterOptions say which fields a meter counts and what media costs.
type MeterOptions struct {
	// Signatures counts thinking signatures (smith's staged design counts
	// them, the snapshot does not).
	Signatures bool
	// ImageTokens and DocumentTokens are the allowances for one media block
	// (smith: 1 600 and 5 000, counted as ×4 bytes by bytes4).
	ImageTokens    int64
	DocumentTokens int64
	// Memo, when set, is a memo of the corpus's counts consulted before
	// the meter's own (o200k) or before counting (chars4), so the policies
	// built for the jobs of one sweep count each corpus string once
	// between them (Def.Build).
	Memo *TokenMemo
}

// TokenMemo is a count memo for the strings of loaded sessions, shared by
// every meter that replays them: each string's o200k tokens and its
// UTF-16 length (chars4). Its keys are fixed when it is built, so it
// never grows: strings a policy rewrites (truncated results, digests) go
// to an o200k meter's own memo, which dies with the replay, and chars4
// counts them afresh. Without it, a sweep tokenizes the whole corpus once
// per job, and a chars4 sweep measured every string about three times per
// job (a request's measure, the invariant check, the clearing plan).
type TokenMemo struct {
	counts map[memoKey]*memoCounts // read-only map
}

// memoCounts are one string's counts, each -1 until counted.
type memoCounts struct {
	o200k, utf16 atomic.Int64
}

// NewTokenMemo registers every string of sessions long enough to memoize.
// It counts nothing: each count is filled by the first meter that needs it.
func NewTokenMemo(sessions []*corpus.Session) *TokenMemo {
	t := &TokenMemo{counts: map[memoKey]*memoCounts{}}
	add := func(s string) {
		if len(s) >= memoMin {
			e := &memoCounts{}
			e.o200k.Store(-1)
			e.utf16.Store(-1)
			t.counts[memoKey{unsafe.StringData(s), len(s)}] = e
		}
	}
	for _, s := range sessions {
		for i := range s.Messages {
			for j := range s.Messages[i].Blocks {
				b := &s.Messages[i].Blocks[j]
				add(b.Text)
				add(unsafe.String(unsafe.SliceData(b.Args), len(b.Args)))
				add(b.ToolName)
				add(b.Signature)
			}
		}
	}
	return t
}

// Meter measures messages in units and converts a total of units into
// tokens. The trade-offs:
//   - bytes4 is what smith itself compares with its budget, so it is the
//     meter that reproduces smith's decisions. Its units are bytes and the
//     single floor division happens in Tokens, over the whole total, exactly
//     as smith's estimate_tokens and Working do. It overestimates English
//     prose a little and underestimates dense code and non-Latin text.
//   - o200k counts real BPE tokens (OpenAI's o200k_base, compiled in, no
//     network). It is not Claude's tokenizer, but it is much closer to any
//     provider's bill than bytes/4; it shows how far bytes/4 is off on a
//     given corpus. It costs a tokenization per string, which the meter
//     memoizes so that a replay or sweep pays it once per string.
//   - chars4 counts UTF-16 code units / 4 per block (rounded half up), the
//     estimate JavaScript agents make with string.length / 4. It is cheap,
//     and differs from bytes4 on non-ASCII text (an ideograph is 3 bytes but
//     1 code unit).
//
// A Meter is safe for concurrent use.
type Meter struct {
	name string
	opt  MeterOptions
	bpe  *bpeCounter // o200k only
}

// NewMeter builds a meter by name.
func NewMeter(name string, opt MeterOptions) (*Meter, error) {
	m := &Meter{name: name, opt: opt}
	switch name {
	case MeterBytes4, MeterChars4:
	case MeterO200k:
		m.bpe = &bpeCounter{shared: opt.Memo}
	default:
		return nil, fmt.Errorf("unknown meter %q (valid: bytes4|o200k|chars4)", name)
	}
	return m, nil
}

// Name is the meter's parameter value.
func (m *Meter) Name() string { return m.name }

// Tokens converts a sum of units into tokens: bytes4 divides once, the
// others already count tokens.
func (m *Meter) Tokens(units int64) int {
	if m.name == MeterBytes4 {
		return int(units / 4)
	}
	return int(units)
}

// Message is the units of one message: the sum of its blocks.
func (m *Meter) Message(msg *corpus.Message) int64 {
	var n int64
	for i := range msg.Blocks {
		n += m.Block(&msg.Blocks[i])
	}
	return n
}

// Block is the units of one block: its text, tool arguments (the raw JSON
// as recorded), tool name and (when counted) signature, or the media
// allowance for an image or document.
func (m *Meter) Block(b *corpus.Block) int64 {
	var media int64
	switch b.Kind {
	case corpus.KindImage:
		media = m.opt.ImageTokens
	case corpus.KindDocument:
		media = m.opt.DocumentTokens
	}
	sig := ""
	if m.opt.Signatures {
		sig = b.Signature
	}
	text := b.Content()
	switch m.name {
	case MeterO200k:
		return media + m.bpe.count(text) + m.bpe.count(unsafe.String(unsafe.SliceData(b.Args), len(b.Args))) +
			m.bpe.count(b.ToolName) + m.bpe.count(sig)
	case MeterChars4:
		u := m.utf16(text) + m.utf16(unsafe.String(unsafe.SliceData(b.Args), len(b.Args))) +
			m.utf16(b.ToolName) + m.utf16(sig)
		return media + (u+2)/4 // Math.round(u/4) for u >= 0
	}
	// bytes4: smith counts a media block as its token allowance × 4 bytes.
	return media*4 + int64(len(text)+len(b.Args)+len(b.ToolName)+len(sig))
}

// utf16 is utf16Len(s), from the shared memo when s is a corpus string
// it holds.
func (m *Meter) utf16(s string) int64 {
	if m.opt.Memo == nil || len(s) < memoMin {
		return utf16Len(s)
	}
	e, ok := m.opt.Memo.counts[memoKey{unsafe.StringData(s), len(s)}]
	if !ok {
		return utf16Len(s)
	}
	if n := e.utf16.Load(); n >= 0 {
		return n
	}
	n := utf16Len(s) // two meters may both count it: same result
	e.utf16.Store(n)
	return n
}

// utf16Len is the length JavaScript's String.length reports for s: one
// code unit per rune (an invalid byte decodes as one RuneError), two for a
// rune outside the Basic Multilingual Plane.
//
// Why the fast paths: the chars4 meter measures every block of every
// request, and this was a tenth of a replay one rune at a time. Text goes
// eight bytes at a time: a word with no top bit set is eight ASCII runes,
// and in any other word the ASCII bytes before the first non-ASCII one
// are counted at once. A valid two- or three-byte sequence (accents, CJK,
// symbols) is one code unit, checked without the library's out-of-line
// decoder; four-byte runes and invalid bytes are decoded as before.
func utf16Len(s string) int64 {
	n := int64(0)
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			m := word64(s[i:]) & highBits
			if m == 0 {
				n += 8
				i += 8
				continue
			}
			k := bits.TrailingZeros64(m) / 8 // ASCII bytes before the first other
			n += int64(k)
			i += k
		} else if c := s[i]; c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		for i < len(s) && s[i] >= utf8.RuneSelf { // a run of non-ASCII runes
			if size := bmpSeq(s[i:]); size > 0 {
				n++
				i += size
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			i += size
			if r >= 0x10000 {
				n += 2 // a surrogate pair
			} else {
				n++
			}
		}
	}
	return n
}

// bmpSeq is the length of the valid two- or three-byte UTF-8 sequence at
// the start of s (a rune below U+10000: not overlong, not a surrogate),
// or 0.
func bmpSeq(s string) int {
	switch c := s[0]; {
	case 0xc2 <= c && c <= 0xdf:
		if len(s) >= 2 && s[1]&0xc0 == 0x80 {
			return 2
		}
	case c&0xf0 == 0xe0:
		if len(s) >= 3 && s[1]&0xc0 == 0x80 && s[2]&0xc0 == 0x80 {
			r := rune(c&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f)
			if r >= 0x800 && (r < 0xd800 || r > 0xdfff) {
				return 3
			}
		}
	}
	return 0
}

// highBits has the top bit of every byte of a word: a word of ASCII has
// none of them set.
const highBits = 0x8080808080808080

// word64 is the little-endian word of s's first 8 bytes (the compiler
// merges the byte loads into one 64-bit load).
func word64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// memoMin is the shortest string whose count is memoized: shorter ones are
// cheaper to tokenize than to look up.
const memoMin = 64

// bpeCounter counts o200k tokens, loading the codec on first use and
// memoizing counts by the string's data pointer and length. Keys are
// addresses, so the memo also holds the string itself: that keeps the
// memory alive, so the address cannot be reused by another string while
// the entry exists. Corpus strings are shared by every replayed history, so
// each is tokenized once per meter.
type bpeCounter struct {
	once   sync.Once
	codec  tokenizer.Codec
	err    error
	memo   sync.Map   // memoKey -> memoVal
	shared *TokenMemo // consulted first, or nil
}

type memoKey struct {
	p *byte
	n int
}

type memoVal struct {
	s string // keeps the key's memory alive
	n int64
}

func (c *bpeCounter) count(s string) int64 {
	if s == "" {
		return 0
	}
	c.once.Do(func() { c.codec, c.err = tokenizer.Get(tokenizer.O200kBase) })
	if c.err != nil {
		// Get only fails for an unknown encoding name; fall back to bytes/4
		// rather than crash a sweep.
		return int64(len(s) / 4)
	}
	if len(s) < memoMin {
		return c.tokenize(s)
	}
	k := memoKey{unsafe.StringData(s), len(s)}
	if c.shared != nil {
		if e, ok := c.shared.counts[k]; ok {
			if n := e.o200k.Load(); n >= 0 {
				return n
			}
			n := c.tokenize(s) // two meters may both count it: same result
			e.o200k.Store(n)
			return n
		}
	}
	if v, ok := c.memo.Load(k); ok {
		return v.(memoVal).n
	}
	n := c.tokenize(s)
	c.memo.Store(k, memoVal{s, n})
	return n
}

func (c *bpeCounter) tokenize(s string) int64 {
	n, err := c.codec.Count(s)
	if err != nil {
		return int64(len(s) / 4)
	}
	return int64(n)
}

// Filled reports whether some meter filled in a count of t (for tests:
// that the jobs given t used it).
func (t *TokenMemo) Filled() bool {
	for _, e := range t.counts {
		if e.o200k.Load() >= 0 || e.utf16.Load() >= 0 {
			return true
		}
	}
	return false
}

// MeterOf is the name of the meter p counts with ("" when it has none:
// clai-rotation counts bytes of its own).
func MeterOf(p Policy) string {
	if m, ok := p.(Metered); ok {
		meter, _ := m.Metering()
		return meter.Name()
	}
	return p.Params().Get("meter")
}

// SharesCounts reports whether p meters with o200k or chars4, the meters
// whose counts a TokenMemo holds: jobs that share one count each string
// once between them (bytes4 only takes a length).
func SharesCounts(p Policy) bool {
	m := MeterOf(p)
	return m == MeterO200k || m == MeterChars4
}
