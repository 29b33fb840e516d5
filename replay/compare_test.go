package replay

import (
	"strings"
	"testing"

	"github.com/calib-dev/calib/corpus"
)

func TestCompareHistory(t *testing.T) {
	base := session(3, 50).Messages
	same := append([]corpus.Message(nil), base...)
	if d := CompareHistory(same, base); !d.Match || d.Index != -1 {
		t.Fatalf("identical histories: %+v", d)
	}

	cut := append([]corpus.Message(nil), base...)
	b := append([]corpus.Block(nil), cut[6].Blocks...)
	b[0].Text = strings.Repeat("x", 20) + "[... truncated ...]"
	cut[6].Blocks = b
	d := CompareHistory(cut, base)
	if d.Match || d.Index != 6 || !strings.HasPrefix(d.What, "block 0 text at byte 20 (lengths 50 and 39)") {
		t.Fatalf("text divergence: %+v", d)
	}

	if d := CompareHistory(base[:5], base); d.Match || d.Index != 5 || !strings.Contains(d.What, "12 messages, the replay 5") {
		t.Fatalf("shorter replay: %+v", d)
	}

	// A summary's id is random in smith: ignored.
	sumA := []corpus.Message{{ID: "aaaa", Role: corpus.RoleUser, Summary: true, Blocks: text("Summary of the earlier conversation: x")}}
	sumB := []corpus.Message{{ID: "bbbb", Role: corpus.RoleUser, Summary: true, Blocks: text("Summary of the earlier conversation: x")}}
	if d := CompareHistory(sumA, sumB); !d.Match {
		t.Fatalf("summary ids must be ignored: %+v", d)
	}
}
