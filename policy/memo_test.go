package policy

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

// Meters sharing a TokenMemo count like a meter with its own memo; the
// shared memo fills in the corpus strings and never takes in others (a
// rewritten string stays in the meter's own memo), so it cannot grow.
func TestTokenMemoShared(t *testing.T) {
	long := strings.Repeat("the quick brown fox jumps over the lazy dog ", 10)
	s := &corpus.Session{Messages: []corpus.Message{{Blocks: []corpus.Block{
		{Kind: corpus.KindText, Text: long},
		{Kind: corpus.KindToolResult, Text: "short", Args: []byte(`{"path": "` + strings.Repeat("a/", 40) + `"}`)},
	}}}}
	memo := NewTokenMemo([]*corpus.Session{s})
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
		if e.Load() < 0 {
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
