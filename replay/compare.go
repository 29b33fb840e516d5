package replay

import (
	"fmt"

	"github.com/calib-dev/calib/corpus"
)

// Divergence is the first place a replayed working history differs from
// the history the agent recorded (smith's session.json).
type Divergence struct {
	Match bool `json:"match"`
	// Index is the message index of the first difference, or -1.
	Index    int    `json:"index"`
	Replayed int    `json:"replayed_messages"`
	Recorded int    `json:"recorded_messages"`
	What     string `json:"what,omitempty"`
	Want     string `json:"recorded,omitempty"`
	Got      string `json:"replayed,omitempty"`
}

// excerpt bounds how much of a differing text a report shows.
const excerpt = 80

// CompareHistory compares the replayed final history with the recorded
// one, message by message and block by block. Message ids are ignored for
// summaries (smith gives each a fresh random id) and when either side has
// none recorded.
func CompareHistory(replayed, recorded []corpus.Message) Divergence {
	d := Divergence{Match: true, Index: -1, Replayed: len(replayed), Recorded: len(recorded)}
	n := min(len(replayed), len(recorded))
	for i := range n {
		if what, want, got := diffMessage(&recorded[i], &replayed[i]); what != "" {
			d.Match, d.Index, d.What, d.Want, d.Got = false, i, what, want, got
			return d
		}
	}
	if len(replayed) != len(recorded) {
		d.Match, d.Index = false, n
		d.What = fmt.Sprintf("the recorded history has %d messages, the replay %d", len(recorded), len(replayed))
	}
	return d
}

func diffMessage(want, got *corpus.Message) (what, w, g string) {
	if want.Role != got.Role {
		return "role", string(want.Role), string(got.Role)
	}
	if want.Synthetic != got.Synthetic {
		return "synthetic", fmt.Sprint(want.Synthetic), fmt.Sprint(got.Synthetic)
	}
	if !want.Summary && !got.Summary && want.ID != "" && got.ID != "" && want.ID != got.ID && !lineID(want.ID) && !lineID(got.ID) {
		return "id", want.ID, got.ID
	}
	if len(want.Blocks) != len(got.Blocks) {
		return "block count", fmt.Sprint(len(want.Blocks)), fmt.Sprint(len(got.Blocks))
	}
	for j := range want.Blocks {
		a, b := &want.Blocks[j], &got.Blocks[j]
		switch {
		case a.Kind != b.Kind:
			return fmt.Sprintf("block %d kind", j), string(a.Kind), string(b.Kind)
		case a.ToolCallID != b.ToolCallID:
			return fmt.Sprintf("block %d tool_call_id", j), a.ToolCallID, b.ToolCallID
		case a.Text != b.Text:
			off := firstDiff(a.Text, b.Text)
			return fmt.Sprintf("block %d text at byte %d (lengths %d and %d)", j, off, len(a.Text), len(b.Text)),
				clip(a.Text, off), clip(b.Text, off)
		case string(a.Args) != string(b.Args):
			return fmt.Sprintf("block %d tool_args", j), clip(string(a.Args), 0), clip(string(b.Args), 0)
		case a.IsError != b.IsError:
			return fmt.Sprintf("block %d is_error", j), fmt.Sprint(a.IsError), fmt.Sprint(b.IsError)
		case a.Signature != b.Signature:
			return fmt.Sprintf("block %d signature", j), clip(a.Signature, 0), clip(b.Signature, 0)
		}
	}
	return "", "", ""
}

// lineID reports an id made up by a reader ("L<line>") for a format that
// records none.
func lineID(id string) bool { return len(id) > 1 && id[0] == 'L' && id[1] >= '0' && id[1] <= '9' }

func firstDiff(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func clip(s string, off int) string {
	off = max(0, off-excerpt/4)
	if off > len(s) {
		off = len(s)
	}
	end := min(len(s), off+excerpt)
	out := s[off:end]
	if off > 0 {
		out = "…" + out
	}
	if end < len(s) {
		out += "…"
	}
	return out
}
