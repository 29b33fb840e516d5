package policy

import (
	"strconv"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/codex"
)

// CodexName is the codex policy: what --policy auto replays a Codex
// rollout with.
const CodexName = "codex"

// codexDef is Codex CLI's auto-compaction (codex-rs core compact.rs,
// peers.md §2): before a sampling request, when the last request's
// total_tokens reached model_auto_compact_token_limit (by default 90% of
// the model's context window: 244,800 of 272,000), the history is rebuilt
// as the initial context, the newest user messages up to 20,000 tokens and
// one user message holding SUMMARY_PREFIX and the summary. Earlier
// summaries are filtered out of the kept user messages, never nested.
// Codex never clears single tool results.
func codexDef() Def {
	return Def{
		Formats: []corpus.Format{corpus.FormatCodex},
		Stages:  []string{"compact"},
		Name:    CodexName,
		Agent:   "Codex CLI (openai/codex codex-rs core/src/compact.rs; peers.md §2)",
		Summary: "Codex CLI: auto-compact at 90% of the context window into initial context + newest user messages (20,000 tokens) + one summary",
		Specs: []ParamSpec{
			{Name: "context_window", Kind: AutoInt, Default: "auto", Min: 1, Max: MaxTokens,
				Help: "the model's context window; auto: from the rollout's model_context_window (258400, the usable 95%, is read as 272000), else 272000 (the gpt-5 family)"},
			{Name: "auto_compact_limit", Kind: Int, Default: "0", Min: 0, Max: MaxTokens,
				Help: "model_auto_compact_token_limit; 0: context_window * 9 / 10 (244,800 of 272,000); a limit above that is clamped to it, as newer builds do (min(config, 90%); older ones took it as given)"},
			{Name: "user_message_tokens", Kind: Int, Default: "20000", Min: 0, Max: MaxTokens, Help: "newest user messages kept, in tokens (COMPACT_USER_MESSAGE_MAX_TOKENS)"},
			{Name: "summarizer", Kind: String, Default: "recorded", Canon: canonSummarizer,
				Help: "recorded: the nearest recorded compacted summary; fixed:BYTES, ratio:R or fail"},
			{Name: "overhead_tokens", Kind: Int, Default: "0", Min: 0, Max: MaxTokens,
				Help: "instructions and tools, added to the estimate where the rollout has no token_count"},
		},
		New: newCodex,
	}
}

// Codex is the codex policy with resolved parameters.
type Codex struct {
	params     Params
	window     int // 0: auto
	limit      int
	userTokens int
	overhead   int
	stage      fullCompaction
	meter      *Meter
	strategies []string
}

// codexDefaultWindow is CONTEXT_WINDOW_272K, the gpt-5 family's window.
const codexDefaultWindow = 272000

// codexEffectivePercent is effective_context_window_percent's default: the
// share of the window Codex reports as usable.
const codexEffectivePercent = 95

// codexWindow is the model's context window behind a rollout's recorded
// model_context_window. Codex builds that have effective_context_window_percent
// record the usable share of the window (ModelClient::get_model_context_window:
// context_window * 95 / 100, so 258,400 for the gpt-5 family), while
// auto-compaction takes 90% of the whole window (auto_compact_token_limit:
// 244,800 of 272,000, not 232,560 of 258,400). A recorded figure that is 95%
// of a whole number of thousands is read as such a share; any other (272,000,
// as builds before that percent recorded) as the window itself.
func codexWindow(recorded int) int {
	if whole := recorded * 100 / codexEffectivePercent; recorded*100%codexEffectivePercent == 0 && whole%1000 == 0 {
		return whole
	}
	return recorded
}

func newCodex(v Values) (Policy, error) {
	sum, err := ParseSummarizer(v.Str("summarizer"))
	if err != nil {
		return nil, err
	}
	m, err := NewMeter(MeterBytes4, MeterOptions{Memo: v.memo}) // Codex's approx_token_count: bytes / 4
	if err != nil {
		return nil, err
	}
	p := &Codex{params: v.Params(), limit: v.Int("auto_compact_limit"), userTokens: v.Int("user_message_tokens"),
		overhead: v.Int("overhead_tokens"), meter: m, strategies: []string{"compacted"}}
	if w := v.Str("context_window"); w != "auto" {
		p.window, _ = strconv.Atoi(w)
	}
	p.stage = fullCompaction{summarizer: sum, prefix: codex.SummaryPrefix + "\n", strategies: p.strategies, meter: m}
	return p, nil
}

func (p *Codex) Name() string   { return CodexName }
func (p *Codex) Params() Params { return p.params }

// Checkpoint: before each sampling request.
func (p *Codex) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return next.Role == corpus.RoleAssistant
}

// Metering is the meter and overhead_tokens (policy.Metered).
func (p *Codex) Metering() (*Meter, int) { return p.meter, p.overhead }

// Window is context_window (Windowed): explicit, else the window behind the
// session's newest recorded model_context_window (codexWindow), else
// 272,000. threshold reads the newest one near each request; a rollout
// records one window.
func (p *Codex) Window(s *corpus.Session) int {
	if p.window > 0 {
		return p.window
	}
	for i := len(s.Recorded.Usage) - 1; i >= 0; i-- {
		if w := s.Recorded.Usage[i].ContextWindow; w > 0 {
			return codexWindow(w)
		}
	}
	return codexDefaultWindow
}

// Measure is bytes of every block (the bytes4 meter's units); no second
// sum.
func (p *Codex) Measure(m *corpus.Message) (int64, int64, int64) {
	return p.meter.Message(m), 0, 0
}

// threshold is the auto-compact limit for a history: 90% of the window
// (explicit, else the window behind the newest recorded
// model_context_window, else 272,000), or the explicit limit when lower
// (newer builds clamp it: min(config, 90%), peers.md §2).
func (p *Codex) threshold(h []corpus.Message, at Checkpoint) int {
	w := p.window
	for i := len(h) - 1; w == 0 && i >= 0 && len(h)-i <= maxAnchorWalk; i-- {
		if h[i].Role != corpus.RoleAssistant {
			continue
		}
		if u := recordedUsage(at.Session, at.Recorded, &h[i]); u != nil && u.ContextWindow > 0 {
			w = codexWindow(u.ContextWindow)
		}
	}
	if w == 0 {
		w = codexDefaultWindow
	}
	if p.limit > 0 {
		return min(p.limit, w*9/10)
	}
	return w * 9 / 10
}

// Compact rebuilds the history when the last request's total_tokens (or,
// without a token_count, the estimate) reached the limit.
func (p *Codex) Compact(h []corpus.Message, at Checkpoint) Outcome {
	limit := p.threshold(h, at)
	ctx, _ := anchoredContext(h, at, p.meter, p.overhead, p.strategies,
		usageContext, false)
	o := Outcome{History: h, Strategy: None, BeforeTokens: ctx, AfterTokens: ctx, TriggerTokens: limit, TargetTokens: limit,
		ReachedTarget: true, Units: at.Units, Count: at.Count}
	if ctx < limit && !at.Force {
		return o
	}
	text, used, err := p.stage.summary(h, at)
	if err != nil {
		return o
	}
	out := p.rebuild(h, text)
	var units int64
	for i := range out {
		units += p.meter.Message(&out[i])
	}
	after := p.meter.Tokens(units) + p.overhead
	// Rotated, not Summarized: Codex compacts mid-turn and drops the turn's
	// calls and outputs (they are in the summary), so the history is
	// replaced by a summary and a tail of user messages, as a rotation.
	o.History, o.Strategy, o.AfterTokens, o.Units, o.Count, o.Summarizer = out, Rotated, after, units, 0, used
	o.SummaryTokens = p.meter.Tokens(p.meter.Message(&out[len(out)-1]))
	o.Removed = len(h) - len(out)
	// What the stage removed: every block the rebuilt history lacks (the
	// summary's one block is new), and the bytes net of what it added. It
	// reported 0 and 0, and its loss went under the strategy's name.
	blocks, bytes := contentOf(h)
	kept, keptBytes := contentOf(out)
	o.Stages = []StageReport{{Name: "compact", BeforeTokens: ctx, AfterTokens: after, BlocksTouched: max(0, blocks-kept+1), BytesRemoved: bytes - keptBytes}}
	return o
}

// rebuild is build_compacted_history: the initial context (the developer
// and injected user messages that open the history), then the newest real
// user messages within user_message_tokens (the oldest kept one cut to
// what is left), then the summary. Summary messages are never kept.
func (p *Codex) rebuild(h []corpus.Message, summary string) []corpus.Message {
	var out []corpus.Message
	i := 0
	for ; i < len(h); i++ {
		m := &h[i]
		if m.Summary || !(m.Role == corpus.RoleSystem || m.Role == corpus.RoleUser && m.Synthetic) {
			break
		}
		out = append(out, *m)
	}
	var users []corpus.Message
	left := p.userTokens
	for j := len(h) - 1; j >= i && left > 0; j-- {
		m := h[j]
		if m.Role != corpus.RoleUser || m.Synthetic || m.Summary {
			continue
		}
		n := p.meter.Tokens(p.meter.Message(&m))
		if n > left {
			m.Blocks = []corpus.Block{{Kind: corpus.KindText, Text: cutBytes(textOf(&m), 4*left)}}
			n = left
		}
		left -= n
		users = append(users, m)
	}
	for l, r := 0, len(users)-1; l < r; l, r = l+1, r-1 {
		users[l], users[r] = users[r], users[l]
	}
	out = append(out, users...)
	if len(summary) < len(p.stage.prefix) || summary[:len(p.stage.prefix)] != p.stage.prefix {
		summary = p.stage.prefix + summary
	}
	out = append(out, summaryMessage(summary))
	markCompactions(out, compactions(h)+1)
	return out
}

// textOf joins a message's text blocks.
func textOf(m *corpus.Message) string {
	var s string
	for _, b := range m.Blocks {
		if b.Kind == corpus.KindText {
			if s != "" {
				s += "\n"
			}
			s += b.Text
		}
	}
	return s
}

// cutBytes cuts s to at most n bytes on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
