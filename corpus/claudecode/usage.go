package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/jsonscan"
)

// Recorded usage (message.usage on assistant lines). One API message is
// written as one line per content block, all with the same message.id;
// across those lines only output_tokens changes (370 differences in 288
// messages of the real logs, none in an input field), so the last line
// wins. The request's context (send time, stop hook, breakpoint) is taken
// at its first line.

// ccUsage is message.usage; pointers tell absent fields from zeros.
type ccUsage struct {
	Input         *int64   `json:"input_tokens"`
	CacheCreation *int64   `json:"cache_creation_input_tokens"`
	CacheRead     *int64   `json:"cache_read_input_tokens"`
	Output        *int64   `json:"output_tokens"`
	Split         *ccSplit `json:"cache_creation"`
}

// ccSplit is message.usage.cache_creation. An alias of an unnamed struct,
// so encoding/json's errors, which the usage warning quotes, read as they
// did when the field was declared inline.
type ccSplit = struct {
	W5m *int64 `json:"ephemeral_5m_input_tokens"`
	W1h *int64 `json:"ephemeral_1h_input_tokens"`
}

var (
	ccUsageFields = []string{"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens", "cache_creation"}
	ccSplitFields = []string{"ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens"}
)

// decodeUsage decodes message.usage as json.Unmarshal does. Every
// assistant line carries one, and encoding/json was 12% of loading the real
// logs, so the Scanner decodes it; whatever the Scanner declines (a value of
// another type, a key given twice or matching only case-insensitively, input
// nested too deep) goes to encoding/json, whose error the warning quotes.
// FuzzDecodeUsage holds the two to the same answers. It returns the usage
// rather than filling a caller's: encoding/json's target is declared only
// where encoding/json runs, so the Scanner's path allocates no ccUsage.
func decodeUsage(raw []byte) (ccUsage, error) {
	if !jsonscan.TooDeep(raw) {
		var fast ccUsage
		s := jsonscan.Scanner{B: raw}
		if scanUsage(&s, &fast) && s.End() && s.Err == nil {
			return fast, nil
		}
	}
	var cu ccUsage
	err := json.Unmarshal(raw, &cu)
	return cu, err
}

func scanUsage(s *jsonscan.Scanner, cu *ccUsage) bool {
	counts := [...]**int64{&cu.Input, &cu.CacheCreation, &cu.CacheRead, &cu.Output}
	// The six counts' storage, one allocation instead of one per count.
	slots := new([len(counts) + 2]int64)
	return jsonscan.Members(s, ccUsageFields, func(k int) bool {
		if k < len(counts) {
			return s.Int64PtrTo(counts[k], &slots[k])
		}
		return jsonscan.Ptr(s, &cu.Split, func(sp *ccSplit) bool {
			return jsonscan.Members(s, ccSplitFields, func(k int) bool {
				if k == 0 {
					return s.Int64PtrTo(&sp.W5m, &slots[len(counts)])
				}
				return s.Int64PtrTo(&sp.W1h, &slots[len(counts)+1])
			})
		})
	})
}

// ccUsageState is a thread's usage bookkeeping.
type ccUsageState struct {
	list []corpus.Usage
	// at maps a message index to 1 + its index in list (0: none yet); a
	// slice, as message indexes are small and dense, where a map cost a
	// hash per assistant line.
	at           []int
	userTime     time.Time // the last user line's timestamp
	userLine     int
	stopHook     bool // a stop_hook_summary since the last request
	missing      int  // assistant messages (not synthetic) with no usage
	firstMissing int
	// The last message.usage decoded without error, and its bytes.
	last    ccUsage
	lastRaw []byte
	lastOK  bool
}

func (u *ccUsageState) sawUser(ts time.Time, line int) {
	u.userTime, u.userLine = ts, line
}

// noteUsage records the usage of the assistant line n, which went into
// message mi of thread t.
func (l *ccLoader) noteUsage(t *ccThread, ln *ccLine, n, mi int) {
	st := &t.usage
	for len(st.at) <= mi {
		st.at = append(st.at, 0)
	}
	k := st.at[mi] - 1
	seen := k >= 0
	raw := ln.Message.Usage
	if len(raw) == 0 || string(raw) == "null" {
		if !seen && ln.Message.Model != "<synthetic>" {
			if st.missing == 0 {
				st.firstMissing = n
			}
			st.missing++
		}
		return
	}
	cu, err := st.decode(raw)
	if err != nil {
		l.warn(n, "%s; the request's usage is ignored", corpus.UsageDecodeError("message.usage", err))
		return
	}
	if msg := corpus.CheckUsage("message.usage", corpus.UsageField{Name: "input_tokens", Value: cu.Input},
		corpus.UsageField{Name: "cache_creation_input_tokens", Value: cu.CacheCreation},
		corpus.UsageField{Name: "cache_read_input_tokens", Value: cu.CacheRead},
		corpus.UsageField{Name: "output_tokens", Value: cu.Output}); msg != "" {
		l.warn(n, "%s", msg)
		return
	}
	u := corpus.Usage{AtMessage: mi, Model: ln.Message.Model, Requests: 1, InputTokens: int(*cu.Input),
		CacheWriteTokens: int(*cu.CacheCreation), CacheReadTokens: int(*cu.CacheRead), OutputTokens: int(*cu.Output),
		Done: l.lineTime, Line: n}
	if u.Prompt() == 0 && u.OutputTokens == 0 {
		// "Prompt is too long" and other <synthetic> messages: not an API
		// request (3 in the real logs, each with every counter 0).
		return
	}
	if s := cu.Split; s != nil {
		if msg := corpus.CheckUsage("message.usage.cache_creation", corpus.UsageField{Name: "ephemeral_5m_input_tokens", Value: s.W5m},
			corpus.UsageField{Name: "ephemeral_1h_input_tokens", Value: s.W1h}); msg != "" {
			l.warn(n, "%s", msg)
			return
		}
		u.CacheWrite5m, u.CacheWrite1h, u.Split = int(*s.W5m), int(*s.W1h), true
		if u.CacheWrite5m+u.CacheWrite1h != u.CacheWriteTokens {
			l.warn(n, "message.usage.cache_creation splits %d+%d tokens by TTL but cache_creation_input_tokens is %d (expected equal); the split is ignored and the writes count as 5-minute writes",
				u.CacheWrite5m, u.CacheWrite1h, u.CacheWriteTokens)
			u.CacheWrite5m, u.CacheWrite1h, u.Split = 0, 0, false
		}
	}
	// else 1.0.x: no split, so its writes are 5-minute writes (Usage.Writes).
	if seen {
		first := st.list[k]
		u.Sent, u.AfterStopHook, u.Breakpoint = first.Sent, first.AfterStopHook, first.Breakpoint
		st.list[k] = u
		return
	}
	u.Sent = st.userTime
	u.AfterStopHook = st.stopHook
	st.stopHook = false
	if r := len(t.results); r > 0 && t.results[r-1].ln == st.userLine {
		u.Breakpoint = t.results[r-1].id
	}
	st.at[mi] = len(st.list) + 1
	st.list = append(st.list, u)
}

// decode decodes message.usage, or gives the last one decoded when raw is
// the same bytes: the lines of one API response mostly repeat it whole
// (365 of the real logs' 1,245 assistant lines). The pointers it shares
// with the last one are only read.
func (u *ccUsageState) decode(raw []byte) (ccUsage, error) {
	if u.lastOK && bytes.Equal(raw, u.lastRaw) {
		return u.last, nil
	}
	cu, err := decodeUsage(raw)
	u.lastOK = err == nil
	if u.lastOK {
		u.lastRaw = append(u.lastRaw[:0], raw...)
		u.last = cu
	}
	return cu, err
}

// usageWarning is the one warning for a thread where some assistant
// messages record usage and others do not.
func (u *ccUsageState) warning(path string) []corpus.Warning {
	if u.missing == 0 || len(u.list) == 0 {
		return nil
	}
	return []corpus.Warning{{File: path, Line: u.firstMissing, Message: fmt.Sprintf(
		"%d assistant message(s) record no message.usage (first here) while %d do; cost agreement counts only the requests with usage",
		u.missing, len(u.list))}}
}
