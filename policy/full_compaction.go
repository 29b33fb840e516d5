package policy

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/calib-dev/calib/corpus"
)

// fullCompaction is the stage a preset uses to replace the whole history
// by a summary near the window: Claude Code's auto-compact (and, with its
// own rebuild, Codex's). It is not a policy on its own: claude-code and
// codex build it from their parameters.
//
// Trigger: the context the agent measured reaches trigger tokens, read from
// recorded usage where the log has it (anchoredContext).
type fullCompaction struct {
	trigger    int
	overhead   int
	summarizer Summarizer
	// restore: the most recently read files Claude Code re-attaches after a
	// compaction (POST_COMPACT_MAX_FILES_TO_RESTORE = 5,
	// POST_COMPACT_MAX_TOKENS_PER_FILE = 5,000, POST_COMPACT_TOKEN_BUDGET =
	// 50,000; peers.md §3, third-party); 0 files for agents that restore
	// none.
	restoreFiles, restoreFileTokens, restoreBudget int
	// prefix starts the summary message (Claude Code's continuation line,
	// Codex's SUMMARY_PREFIX).
	prefix string
	// strategies are the recorded compaction strategies this stage models
	// (claude-code "compact", codex "compacted").
	strategies []string
	meter      *Meter
}

// summaryIDPrefix marks a summary message this stage wrote; the number
// after it counts the stage's compactions so far, so that the context
// measure can tell in O(1) how many compactions are behind the history.
const summaryIDPrefix = "calib-summary-"

// compactions is how many full compactions are behind h: the number in
// its first message's id when the stage rebuilt it, else 0.
func compactions(h []corpus.Message) int {
	if len(h) == 0 || !strings.HasPrefix(h[0].ID, summaryIDPrefix) {
		return 0
	}
	num, _, _ := strings.Cut(strings.TrimPrefix(h[0].ID, summaryIDPrefix), ":")
	n, _ := strconv.Atoi(num)
	return n
}

// markCompactions sets the count of compactions behind a rebuilt history
// in its first message's id ("calib-summary-N", or
// "calib-summary-N:<id>" on a message kept from the history, a copy).
func markCompactions(out []corpus.Message, n int) {
	id := out[0].ID
	if strings.HasPrefix(id, summaryIDPrefix) {
		_, id, _ = strings.Cut(id, ":")
	}
	out[0].ID = fmt.Sprintf("%s%d", summaryIDPrefix, n)
	if id != "" {
		out[0].ID += ":" + id
	}
}

// maxAnchorWalk bounds how far back anchoredContext looks for a request
// the recording and the policy agree on (in assistant messages): beyond
// it the estimate is used, so a policy that never catches up with the
// recording still costs O(1) per checkpoint.
const maxAnchorWalk = 64

// anchoredContext is the context at a checkpoint, as the agent measured it
// before sending the next request: the recorded usage (usage(m) picks the
// figure) of the newest request behind which the recording and h have the
// same number of full compactions; with withTail, plus the meter's tokens
// of that request's response and of every message after it (Claude Code
// 1.0.x). Without withTail the previous request's figure alone (Claude
// Code 2.x, Codex's total_tokens), less the replay's drift from the
// recording by then (drift: what its own clears took out beyond the
// agent's). It returns the estimate (at.Units in tokens plus overhead)
// when no such request is at hand; recorded says which.
func anchoredContext(h []corpus.Message, at Checkpoint, m *Meter, overhead int,
	strategies []string, usage func(*corpus.Usage) int, withTail bool) (tokens int, recorded bool) {
	s := at.Session
	own := compactions(h)
	walked := 0
	var index *RecordedIndex // taken at the first request with usage
	for i := len(h) - 1; i >= 0 && walked < maxAnchorWalk; i-- {
		msg := &h[i]
		if msg.Role != corpus.RoleAssistant {
			continue
		}
		walked++
		u, k := recordedUsageAt(s, at.Recorded, msg)
		if u != nil && index == nil {
			index = at.recorded()
		}
		if u != nil && index.before(k, strategies) == own {
			figure := usage(u) - drift(at, s, k, m)
			if !withTail {
				return figure, true
			}
			// The tail is measured once its anchor is found: measured on
			// the way back, a walk that found none (a log without usage)
			// measured up to maxAnchorWalk requests' messages for nothing,
			// at every request.
			var tail int64
			for j := i; j < len(h); j++ {
				tail += m.Message(&h[j])
			}
			return figure + m.Tokens(tail), true
		}
		if u == nil && !msg.Synthetic {
			break // a request without usage: the log has none to anchor on
		}
	}
	return m.Tokens(at.Units) + overhead, false
}

// summary is the summary text for a compaction at checkpoint at:
// summarizer=recorded takes the recorded full compaction nearest to it
// (its summary, when the recording kept one), any other summarizer writes
// its text; used names what was used, for reports.
func (f *fullCompaction) summary(h []corpus.Message, at Checkpoint) (text, used string, err error) {
	if f.summarizer.kind == "recorded" && at.Session != nil {
		if k := at.recorded().nearest(at.Raw, f.strategies); k >= 0 && at.Session.Recorded.Compactions[k].Summary != "" {
			return at.Session.Recorded.Compactions[k].Summary, "recorded", nil
		}
	}
	if f.summarizer.kind == "recorded" {
		return fillText(2000), "recorded (none near this request; used fixed:2000)", nil
	}
	return f.summarizer.Summarize(SummaryRequest{Prefix: h, Session: at.Session})
}

// restored is the files Claude Code re-attaches after a compaction: the
// newest Read results by distinct file_path, each cut to restoreFileTokens,
// at most restoreFiles of them and restoreBudget tokens in all, newest
// first. One synthetic user message holds them (nil when there are none).
func (f *fullCompaction) restored(h []corpus.Message) *corpus.Message {
	if f.restoreFiles <= 0 {
		return nil
	}
	// A call's result is the last one in h with its id that is not an
	// error. The walk back meets results before their calls, so it notes
	// them as it goes (later: the newest of each id from the walk's
	// message on) and reads only as far back as the files it restores; a
	// call whose result is not there (an error, none, or one logged before
	// its call) has the results before its message read, once (before).
	later := map[string]*corpus.Block{}
	var before map[string]*corpus.Block
	resultOf := func(i int, id string) (*corpus.Block, bool) {
		if b, ok := later[id]; ok {
			return b, true
		}
		if before == nil {
			before = map[string]*corpus.Block{}
			for k := range h[:i] {
				for j := range h[k].Blocks {
					if b := &h[k].Blocks[j]; b.Kind == corpus.KindToolResult && !b.IsError {
						before[b.ToolCallID] = b
					}
				}
			}
		}
		b, ok := before[id]
		return b, ok
	}
	seen := map[string]bool{}
	r := f.newRestoreList()
	for i := len(h) - 1; i >= 0 && len(r.blocks) < f.restoreFiles; i-- {
		m := &h[i]
		for j := len(m.Blocks) - 1; j >= 0; j-- {
			if b := &m.Blocks[j]; b.Kind == corpus.KindToolResult && !b.IsError {
				if _, ok := later[b.ToolCallID]; !ok {
					later[b.ToolCallID] = b
				}
			}
		}
		if m.Role != corpus.RoleAssistant {
			continue
		}
		for j := len(m.Blocks) - 1; j >= 0 && len(r.blocks) < f.restoreFiles; j-- {
			b := &m.Blocks[j]
			if b.Kind != corpus.KindToolUse || b.ToolName != "Read" {
				continue
			}
			path := argString(b.Args, "file_path")
			if path == "" || seen[path] {
				continue
			}
			if res, ok := resultOf(i, b.ToolCallID); ok {
				seen[path] = true
				r.add(path, res.Content())
			}
		}
	}
	return r.message()
}

// restoreList is the restored files' blocks, newest first, each cut to
// restoreFileTokens, within restoreBudget tokens in all: a file too large
// for what is left of the budget is passed over.
type restoreList struct {
	f      *fullCompaction
	budget int
	blocks []corpus.Block
}

func (f *fullCompaction) newRestoreList() *restoreList {
	return &restoreList{f: f, budget: f.restoreBudget}
}

func (r *restoreList) add(path, text string) {
	text = cutTokens(text, r.f.restoreFileTokens)
	block := corpus.Block{Kind: corpus.KindText, Text: "Called the Read tool with the following input: " + path + "\n" + text}
	n := int(r.f.meter.Block(&block))
	if n > r.budget {
		return
	}
	r.budget -= n
	r.blocks = append(r.blocks, block)
}

// message is the synthetic user message holding the blocks, nil without.
func (r *restoreList) message() *corpus.Message {
	if len(r.blocks) == 0 {
		return nil
	}
	return &corpus.Message{ID: "calib-restored", Role: corpus.RoleUser, Synthetic: true, Blocks: r.blocks, Source: "calib"}
}

// argString reads a string field of a tool input (raw JSON) without
// decoding the rest: the path of a Read call.
func argString(args []byte, key string) string {
	s := string(args)
	k := strings.Index(s, `"`+key+`":`)
	if k < 0 {
		return ""
	}
	rest := strings.TrimLeft(s[k+len(key)+3:], " ")
	if !strings.HasPrefix(rest, `"`) {
		return ""
	}
	v, err := strconv.Unquote(rest[:strings.IndexByte(rest[1:], '"')+2])
	if err != nil {
		return ""
	}
	return v
}

// cutTokens cuts text to about n chars4 tokens (4n characters), on a rune
// boundary.
func cutTokens(text string, n int) string {
	limit := 4 * n
	if utf8.RuneCountInString(text) <= limit {
		return text
	}
	k := 0
	for i := range text {
		if k == limit {
			return text[:i]
		}
		k++
	}
	return text
}

// compact replaces h by the summary, the restored files and keep (the
// messages that survive after them), at checkpoint at.
func (f *fullCompaction) compact(h, keep []corpus.Message, at Checkpoint) ([]corpus.Message, string, error) {
	text, used, err := f.summary(h, at)
	if err != nil {
		return nil, used, err
	}
	if f.prefix != "" && !strings.HasPrefix(text, f.prefix) {
		text = f.prefix + text
	}
	out := []corpus.Message{summaryMessage(text)}
	if r := f.restored(h); r != nil {
		out = append(out, *r)
	}
	out = append(out, keep...)
	markCompactions(out, compactions(h)+1)
	return out, used, nil
}

// summaryMessage is the user message that carries a summary.
func summaryMessage(text string) corpus.Message {
	return corpus.Message{ID: summaryIDPrefix, Role: corpus.RoleUser, Synthetic: true, Summary: true, Source: "calib",
		Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}}
}
