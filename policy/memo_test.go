package policy

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// memoFixture is a session of one message, the text long and then second,
// and the TokenMemo built over it.
func memoFixture(long string, second corpus.Block) (*corpus.Session, *TokenMemo) {
	s := &corpus.Session{Messages: []corpus.Message{{Blocks: []corpus.Block{{Kind: corpus.KindText, Text: long}, second}}}}
	return s, NewTokenMemo([]*corpus.Session{s})
}

// Meters sharing a TokenMemo count like a meter with its own memo; the
// shared memo fills in the corpus strings and never takes in others (a
// rewritten string stays in the meter's own memo), so it cannot grow.
func TestTokenMemoShared(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 10)
	s, memo := memoFixture(long, corpus.Block{Kind: corpus.KindToolResult, Text: "short", Args: []byte(`{"path": "` + strings.Repeat("a/", 40) + `"}`)})
	if len(memo.counts) != 2 { // the long text and the long args; "short" is under memoMin
		t.Fatalf("memo keys = %d, want 2", len(memo.counts))
	}
	own, _ := NewMeter(MeterO200k, MeterOptions{})
	a, _ := NewMeter(MeterO200k, MeterOptions{Memo: memo})
	b, _ := NewMeter(MeterO200k, MeterOptions{Memo: memo})
	want := own.Message(&s.Messages[0])
	if got := a.Message(&s.Messages[0]); got != want {
		t.Fatalf("shared memo counts %d, own memo %d", got, want)
	}
	for k, e := range memo.counts {
		if e.o200k.Load() < 0 {
			t.Fatalf("corpus string %v not filled in", k)
		}
	}
	if got := b.Message(&s.Messages[0]); got != want {
		t.Fatalf("second meter on the filled memo counts %d, want %d", got, want)
	}
	rewritten := strings.ToUpper(long) // a new string, as a policy's truncation makes
	if a.Block(&corpus.Block{Kind: corpus.KindText, Text: rewritten}) <= 0 {
		t.Fatal("rewritten string not counted")
	}
	if len(memo.counts) != 2 {
		t.Fatalf("the shared memo grew to %d keys", len(memo.counts))
	}
}

// chars4 meters sharing a TokenMemo fill in its UTF-16 lengths and count
// like a meter without one, non-ASCII text included; a rewritten string is
// counted afresh, not looked up by another's address.
func TestTokenMemoSharedChars4(t *testing.T) {
	long := strings.Repeat("    12→ the quick brown fox, 速い茶色の狐 🦊\n", 10)
	s, memo := memoFixture(long, corpus.Block{Kind: corpus.KindToolUse, ToolName: "Read", Args: []byte(`{"file_path": "` + strings.Repeat("a/", 40) + `"}`)})
	plain, _ := NewMeter(MeterChars4, MeterOptions{})
	a, _ := NewMeter(MeterChars4, MeterOptions{Memo: memo})
	b, _ := NewMeter(MeterChars4, MeterOptions{Memo: memo})
	want := plain.Message(&s.Messages[0])
	for _, m := range []*Meter{a, b, a} {
		if got := m.Message(&s.Messages[0]); got != want {
			t.Fatalf("shared memo counts %d, no memo %d", got, want)
		}
	}
	for k, e := range memo.counts {
		if e.utf16.Load() < 0 {
			t.Fatalf("corpus string %v not filled in", k)
		}
		if e.o200k.Load() >= 0 {
			t.Fatalf("corpus string %v has an o200k count no meter asked for", k)
		}
	}
	cut := long[:len(long)-7] // a policy's cut: another string, in the same memory
	if got, want := a.Block(&corpus.Block{Kind: corpus.KindText, Text: cut}), plain.Block(&corpus.Block{Kind: corpus.KindText, Text: cut}); got != want {
		t.Fatalf("cut string counts %d with the memo, %d without", got, want)
	}
	if len(memo.counts) != 2 {
		t.Fatalf("the shared memo holds %d keys, want 2", len(memo.counts))
	}
}
