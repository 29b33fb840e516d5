package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
)

// ClaiRotationName is the policy's registry name.
const ClaiRotationName = "clai-rotation"

// Variants of clai-rotation.
const (
	ClaiLegacy = "legacy" // clai HEAD as released: the digest grows without bound
	ClaiFixed  = "fixed"  // PR #154: clamp each message to its slice, strip prior preambles
)

// ClaiParams are clai-rotation's resolved parameters. Names follow clai's
// constants in lower snake case (shared/specs/clai.md §2.1, §2.8).
type ClaiParams struct {
	Variant string
	// Clamp and Strip are the fix's two halves. Their parameters are
	// auto|on|off, auto following the variant (legacy: off, fixed: on), so
	// variant=legacy,strip=on shows what the strip alone changes.
	Clamp, Strip bool
	Budget       int // SUMMARY_TRANSCRIPT_MAX_CHARS
	// Head share of the budget as a fraction HeadNum/HeadDen (clai: 1/3,
	// integer division, so 96 000 → 32 000 exactly).
	HeadNum, HeadDen int
	ToolCallCap      int   // DIGEST_TOOL_CALL_MAX_CHARS
	ToolResultCap    int   // DIGEST_TOOL_RESULT_MAX_CHARS
	TailMessages     int   // RECENT_TAIL_MESSAGES
	MinMessages      int   // MIN_AUTOMATIC_COMPACT_MESSAGES
	TriggerChars     int64 // AUTO_COMPACTION_MESSAGE_CHARS
	// CLIClampBytes is CLI_FRESH_CONTEXT_SUMMARY_MAX_BYTES (0: no clamp,
	// as clai was released; 64 000 with the fix) and CLIHeadNum/CLIHeadDen the share of it kept from the
	// digest's start (2/3: 42 666 of 64 000 bytes).
	CLIClampBytes          int
	CLIHeadNum, CLIHeadDen int
	// Force compacts at every checkpoint with manual/error_recovery
	// semantics: no trigger check, a minimum of 2 messages, a smaller tail
	// when the history is short.
	Force bool
}

// ClaiDefaults are clai's own values with the given variant.
func ClaiDefaults(variant string) ClaiParams {
	fixed := variant == ClaiFixed
	return ClaiParams{Variant: variant, Clamp: fixed, Strip: fixed, Budget: 96_000, HeadNum: 1, HeadDen: 3,
		ToolCallCap: 200, ToolResultCap: 400, TailMessages: 16, MinMessages: 24, TriggerChars: 120_000,
		CLIClampBytes: claiCLIClamp(fixed), CLIHeadNum: 2, CLIHeadDen: 3}
}

// claiCLIClamp is the CLI-boundary clamp each variant has: clai as
// released seeds a fresh CLI session with the whole digest (no clamp); the
// fix clamps it to 64 000 bytes.
func claiCLIClamp(fixed bool) int {
	if fixed {
		return 64_000
	}
	return 0
}

// Digest returns the digest options these parameters select.
func (p ClaiParams) Digest() ClaiDigestOptions {
	return ClaiDigestOptions{Budget: p.Budget, HeadNum: p.HeadNum, HeadDen: p.HeadDen,
		ToolCallCap: p.ToolCallCap, ToolResultCap: p.ToolResultCap, Clamp: p.Clamp, Strip: p.Strip}
}

func claiRotationSpecs() []ParamSpec {
	return []ParamSpec{
		{Name: "variant", Kind: Enum, Default: ClaiLegacy, Choices: []string{ClaiLegacy, ClaiFixed},
			Help: "legacy: clai as released (the digest grows by its predecessor every rotation); fixed: PR #154"},
		{Name: "clamp", Kind: Enum, Default: "auto", Choices: []string{"auto", "on", "off"},
			Help: "clamp a message that alone exceeds its head or tail slice (auto: on for fixed, off for legacy)"},
		{Name: "strip", Kind: Enum, Default: "auto", Choices: []string{"auto", "on", "off"},
			Help: "strip a prior digest's preambles before rendering it again (auto: on for fixed, off for legacy)"},
		{Name: "budget", Kind: Int, Default: "96000", Min: 1000, Max: 1e9,
			Help: "SUMMARY_TRANSCRIPT_MAX_CHARS: bytes of rendered transcript a digest keeps"},
		{Name: "head_share", Kind: String, Default: "1/3", Check: checkShare,
			Help: "share of the budget for the opening messages, a fraction a/b or a decimal (the tail gets the rest)"},
		{Name: "tool_call_cap", Kind: Int, Default: "200", Min: 1, Max: 1e9,
			Help: "DIGEST_TOOL_CALL_MAX_CHARS: bytes of tool-call arguments kept in the digest"},
		{Name: "tool_result_cap", Kind: Int, Default: "400", Min: 1, Max: 1e9,
			Help: "DIGEST_TOOL_RESULT_MAX_CHARS: bytes of a tool result kept in the digest"},
		{Name: "tail_messages", Kind: Int, Default: "16", Min: 0, Max: 1e6,
			Help: "RECENT_TAIL_MESSAGES: newest messages kept verbatim after a rotation"},
		{Name: "min_messages", Kind: Int, Default: "24", Min: 2, Max: 1e6,
			Help: "MIN_AUTOMATIC_COMPACT_MESSAGES: smallest window; the trigger needs min_messages+tail_messages"},
		{Name: "trigger_chars", Kind: Int, Default: "120000", Min: 0, Max: 1e15,
			Help: "AUTO_COMPACTION_MESSAGE_CHARS: estimated history size (digest excluded) that triggers a rotation"},
		{Name: "cli_clamp_bytes", Kind: AutoInt, Default: "auto", Min: 0, Max: 1e9,
			Help: "CLI_FRESH_CONTEXT_SUMMARY_MAX_BYTES: bytes of the digest a fresh CLI session is seeded with (auto: 0 = off for legacy, as released; 64000 for fixed)"},
		{Name: "cli_head_share", Kind: String, Default: "2/3", Check: checkShare,
			Help: "share of cli_clamp_bytes kept from the digest's start"},
		{Name: "force", Kind: Bool, Default: "false",
			Help: "compact at every checkpoint as a manual or error_recovery compaction does (no trigger, minimum 2 messages)"},
	}
}

// claiRotationDef registers clai-rotation. It replays clai as clai does
// (Only): its 16-message tail is cut where clai's own messages (tool calls
// kept in their own table) allow, and in other agents' logs it can
// separate a tool call from its result (a Claude Code session shows it),
// which compare therefore skips and replay reports as a violation.
func claiRotationDef() Def {
	return Def{Name: ClaiRotationName, Rotates: true, Formats: []corpus.Format{corpus.FormatClai}, Stages: []string{"rotation"}, Agent: "clai (shared/specs/clai.md)",
		Only:    []corpus.Format{corpus.FormatClai},
		Summary: "clai's session-rotation digest (shared/specs/clai.md §2): legacy reproduces the unbounded growth, fixed is PR #154",
		Specs:   claiRotationSpecs(),
		New: func(v Values) (Policy, error) {
			p := ClaiDefaults(v.Str("variant"))
			p.Clamp = onOff(v.Str("clamp"), p.Clamp)
			p.Strip = onOff(v.Str("strip"), p.Strip)
			p.Budget = v.Int("budget")
			p.HeadNum, p.HeadDen, _ = parseShare(v.Str("head_share"))
			p.ToolCallCap = v.Int("tool_call_cap")
			p.ToolResultCap = v.Int("tool_result_cap")
			p.TailMessages = v.Int("tail_messages")
			p.MinMessages = v.Int("min_messages")
			p.TriggerChars, _ = strconv.ParseInt(v.Str("trigger_chars"), 10, 64)
			if c := v.Str("cli_clamp_bytes"); c != "auto" {
				p.CLIClampBytes, _ = strconv.Atoi(c)
			}
			p.CLIHeadNum, p.CLIHeadDen, _ = parseShare(v.Str("cli_head_share"))
			p.Force = v.Bool("force")
			return newClaiRotation(p)
		}}
}

func onOff(v string, auto bool) bool {
	switch v {
	case "on":
		return true
	case "off":
		return false
	}
	return auto
}

func checkShare(s string) error {
	_, _, err := parseShare(s)
	return err
}

// parseShare reads a share strictly between 0 and 1 as a fraction: "1/3"
// or a decimal such as "0.25" (= 25/100), so slices are computed with
// integer arithmetic exactly as clai's budget / 3.
func parseShare(s string) (num, den int, err error) {
	bad := fmt.Errorf("expected a fraction a/b or a decimal strictly between 0 and 1, such as 1/3 or 0.25")
	if a, b, ok := strings.Cut(s, "/"); ok {
		num, err1 := strconv.Atoi(strings.TrimSpace(a))
		den, err2 := strconv.Atoi(strings.TrimSpace(b))
		if err1 != nil || err2 != nil || num <= 0 || den <= num || den > 1_000_000 {
			return 0, 0, bad
		}
		return num, den, nil
	}
	whole, frac, ok := strings.Cut(strings.TrimSpace(s), ".")
	if !ok || (whole != "0" && whole != "") || frac == "" || len(frac) > 6 {
		return 0, 0, bad
	}
	num, err = strconv.Atoi(frac)
	if err != nil || num <= 0 || strings.ContainsAny(frac, "+-") {
		return 0, 0, bad
	}
	den = 1
	for range frac {
		den *= 10
	}
	return num, den, nil
}

func formatShare(num, den int) string { return strconv.Itoa(num) + "/" + strconv.Itoa(den) }

// claiMinSlice is the smallest head or tail slice the policy accepts: the
// clamp must fit a message header and its note in a slice.
const claiMinSlice = 400

// claiRotation is the clai-rotation policy.
type claiRotation struct {
	p ClaiParams
}

// newClaiRotation validates p and builds the policy.
func newClaiRotation(p ClaiParams) (*claiRotation, error) {
	switch {
	case p.Variant != ClaiLegacy && p.Variant != ClaiFixed:
		return nil, fmt.Errorf("clai-rotation: variant=%q: expected legacy or fixed", p.Variant)
	case p.HeadDen <= 0 || p.HeadNum <= 0 || p.HeadNum >= p.HeadDen:
		return nil, fmt.Errorf("clai-rotation: head_share=%s: expected a share strictly between 0 and 1", formatShare(p.HeadNum, p.HeadDen))
	case p.Budget < 1000:
		return nil, fmt.Errorf("clai-rotation: budget=%d: expected at least 1000 bytes", p.Budget)
	case p.ToolCallCap < 1 || p.ToolResultCap < 1:
		return nil, fmt.Errorf("clai-rotation: tool_call_cap=%d, tool_result_cap=%d: expected at least 1", p.ToolCallCap, p.ToolResultCap)
	case p.MinMessages < 2 || p.TailMessages < 0:
		return nil, fmt.Errorf("clai-rotation: min_messages=%d, tail_messages=%d: expected min_messages >= 2 and tail_messages >= 0", p.MinMessages, p.TailMessages)
	case p.TriggerChars < 0:
		return nil, fmt.Errorf("clai-rotation: trigger_chars=%d: expected >= 0", p.TriggerChars)
	case p.CLIClampBytes != 0 && p.CLIClampBytes < 1000:
		return nil, fmt.Errorf("clai-rotation: cli_clamp_bytes=%d: expected 0 (off) or at least 1000", p.CLIClampBytes)
	case p.CLIClampBytes != 0 && (p.CLIHeadDen <= 0 || p.CLIHeadNum <= 0 || p.CLIHeadNum >= p.CLIHeadDen):
		return nil, fmt.Errorf("clai-rotation: cli_head_share=%s: expected a share strictly between 0 and 1", formatShare(p.CLIHeadNum, p.CLIHeadDen))
	}
	if head := p.Digest().headBudget(); p.Clamp && (head < claiMinSlice || p.Budget-head < claiMinSlice) {
		return nil, fmt.Errorf("clai-rotation: head_share=%s of budget=%d gives slices of %d and %d bytes; with clamp on each must be at least %d (raise the budget or move the share towards 1/2)",
			formatShare(p.HeadNum, p.HeadDen), p.Budget, head, p.Budget-head, claiMinSlice)
	}
	return &claiRotation{p: p}, nil
}

// Name implements Policy.
func (c *claiRotation) Name() string { return ClaiRotationName }

// Config returns the resolved parameters.
func (c *claiRotation) Config() ClaiParams { return c.p }

// Variant is the variant the policy models (Varianted).
func (c *claiRotation) Variant() string { return c.p.Variant }

// BoundedDigest says that the clamp is on (Bounded): every message is cut
// to the slice it lands in, so a digest stays within its budget plus its
// preambles and marker, however long the chain; and that the budget is
// one a long chain can afford (MaxBoundedBudget): budget=1e9 bounds
// nothing, and took the 5,000-rotation allowance of a bounded digest into
// a chain of about 35 minutes and a digest of 0.5 GB.
func (c *claiRotation) BoundedDigest() bool { return c.p.Clamp && c.p.Budget <= MaxBoundedBudget }

// MaxBoundedBudget is the largest budget whose digest counts as bounded
// for the rotation limits: about twice clai's 96,000 bytes, the budget
// replay.MaxBoundedRotations was measured at.
const MaxBoundedBudget = 200_000

// RederiveParams are the parameters clai's stored digests are checked
// against (Rederiver): clai's own constants, not this run's --set. clai
// wrote the digests with its constants, and a run exploring tail_messages=8
// or budget=48000 found every stored digest a mismatch, blamed on rows
// "deleted or edited since". The variant is chosen per digest (replay's
// Rederive).
func (c *claiRotation) RederiveParams() ClaiParams { return ClaiDefaults(ClaiLegacy) }

// Params implements Policy. clamp and strip are reported as the on/off
// they resolved to, not as "auto".
func (c *claiRotation) Params() Params {
	p := c.p
	oo := func(b bool) string {
		if b {
			return "on"
		}
		return "off"
	}
	return Params{
		{"variant", p.Variant}, {"clamp", oo(p.Clamp)}, {"strip", oo(p.Strip)},
		{"budget", strconv.Itoa(p.Budget)}, {"head_share", formatShare(p.HeadNum, p.HeadDen)},
		{"tool_call_cap", strconv.Itoa(p.ToolCallCap)}, {"tool_result_cap", strconv.Itoa(p.ToolResultCap)},
		{"tail_messages", strconv.Itoa(p.TailMessages)}, {"min_messages", strconv.Itoa(p.MinMessages)},
		{"trigger_chars", strconv.FormatInt(p.TriggerChars, 10)}, {"cli_clamp_bytes", strconv.Itoa(p.CLIClampBytes)},
		{"cli_head_share", formatShare(p.CLIHeadNum, p.CLIHeadDen)}, {"force", strconv.FormatBool(p.Force)},
	}
}

// Checkpoint implements Policy. clai checks at the start of a CLI run
// (local_agent.rs:266-300), and a run starts after the user's message has
// been stored: the view the trigger and the window see already ends with
// that message, and the 16-message tail includes it. The replay asks
// before appending a message, so the check that belongs to a user message
// is made right before the message that follows it (the run's assistant
// message, or the summary clai wrote at that run start). A session whose
// last message is a user message therefore misses that final check, whose
// rotation would have no reply after it anyway.
func (c *claiRotation) Checkpoint(_ corpus.Format, prev, next *corpus.Message) bool {
	return prev != nil && prev.Role == corpus.RoleUser && !claiIsSummary(prev)
}

// Measure implements Policy: estimate_history_chars's term for a message,
// render_content_parts with the 4 000/8 000 caps plus 16. Compaction
// summaries weigh nothing and do not count (the digest is excluded from the
// trigger, specs §2.2).
func (c *claiRotation) Measure(m *corpus.Message) (int64, int64, int64) {
	if claiIsSummary(m) {
		return 0, 0, 0
	}
	return int64(claiContentLen(m.Blocks, claiSummaryToolCall, claiSummaryToolResult) + 16), 1, 0
}

// ClaiShouldAutoCompact is should_auto_compact over a view with no tool
// definitions (CLI runs pass none): at least min+tail non-summary messages
// and an estimate of at least trigger chars.
func ClaiShouldAutoCompact(view []corpus.Message, minMessages, tailMessages int, triggerChars int64) bool {
	var units int64
	counted := 0
	for i := range view {
		if claiIsSummary(&view[i]) {
			continue
		}
		counted++
		units += int64(claiContentLen(view[i].Blocks, claiSummaryToolCall, claiSummaryToolResult) + 16)
	}
	return counted >= minMessages+tailMessages && units >= triggerChars
}

func (p ClaiParams) triggers(units, counted int64) bool {
	return counted >= int64(p.MinMessages+p.TailMessages) && units >= p.TriggerChars
}

// ClaiHistoryView is provider_history_messages_with_compaction
// (compaction.rs:217-271) for the latest completed compaction, given by its
// summary message id and source_to id: [summary] ++ the messages after
// source_to, compaction summaries dropped. When either id is empty or not
// found, the view is every message except compaction summaries and ok is
// false (clai falls back silently; callers report it).
func ClaiHistoryView(msgs []corpus.Message, summaryID, sourceTo string) (view []corpus.Message, ok bool) {
	si, ti := -1, -1
	if summaryID != "" && sourceTo != "" {
		for i := range msgs {
			switch msgs[i].ID {
			case summaryID:
				si = i
			case sourceTo:
				ti = i
			}
		}
	}
	if si < 0 || ti < 0 {
		for i := range msgs {
			if !claiIsSummary(&msgs[i]) {
				view = append(view, msgs[i])
			}
		}
		return view, false
	}
	return ClaiHistoryViewAt(msgs, si, ti), true
}

// ClaiHistoryViewAt is ClaiHistoryView with the summary and source_to
// messages found already: the last message of msgs with each id is at si
// and ti. A caller re-deriving many compactions of one session finds them
// by an index of the session's ids; searching msgs for every compaction
// made re-deriving quadratic in the session.
func ClaiHistoryViewAt(msgs []corpus.Message, si, ti int) []corpus.Message {
	view := []corpus.Message{msgs[si]}
	for i := ti + 1; i < len(msgs); i++ {
		if !claiIsSummary(&msgs[i]) {
			view = append(view, msgs[i])
		}
	}
	return view
}

// claiCompactable is select_compaction_window's filter (compaction.rs:280):
// system messages are left out unless they are compaction summaries, which
// keeps the prior digest in the window.
func claiCompactable(m *corpus.Message) bool {
	return m.Role != corpus.RoleSystem || claiIsSummary(m)
}

// claiWindowLen is the length of the window select_compaction_window takes
// from n compactable messages (compaction.rs:273-312), or false for None.
func claiWindowLen(n int, force bool, minMessages, tailMessages int) (int, bool) {
	least := minMessages
	tail := tailMessages
	if force {
		least = 2 // MIN_MANUAL_COMPACT_MESSAGES
		tail = min(tailMessages, n-least)
	}
	if n < least {
		return 0, false
	}
	w := n - tail
	if w < least {
		return 0, false
	}
	return w, true
}

// ClaiSelectCompactionWindow is select_compaction_window(view, force): the
// compactable messages of the view minus the recent tail, or false when
// there are too few.
func ClaiSelectCompactionWindow(view []corpus.Message, force bool, minMessages, tailMessages int) ([]corpus.Message, bool) {
	var comp []corpus.Message
	for i := range view {
		if claiCompactable(&view[i]) {
			comp = append(comp, view[i])
		}
	}
	n, ok := claiWindowLen(len(comp), force, minMessages, tailMessages)
	if !ok {
		return nil, false
	}
	return comp[:n:n], true
}

// Compact implements Policy. Without force it costs O(1) unless the
// trigger holds. The working history after a rotation is already the view
// clai would build ([summary] ++ the messages after source_to), so the view
// here is h with every compaction summary but a leading one dropped;
// summaries recorded in the raw session are thereby ignored, and the policy
// rotates on its own.
func (c *claiRotation) Compact(h []corpus.Message, at Checkpoint) Outcome {
	p := c.p
	before := c.charged(h, at.Units)
	none := untouched(h, at, before)
	if !p.Force && !p.triggers(at.Units, at.Count) {
		return none
	}
	idx := make([]int, 0, len(h))
	for i := range h {
		m := &h[i]
		if (i > 0 && claiIsSummary(m)) || !claiCompactable(m) {
			continue
		}
		idx = append(idx, i)
	}
	n, ok := claiWindowLen(len(idx), p.Force, p.MinMessages, p.TailMessages)
	if !ok {
		return none
	}
	window := make([]corpus.Message, n)
	for j := range n {
		window[j] = h[idx[j]]
	}
	text, msg0 := ClaiDigestText(window, p.Digest())
	from, to := idx[0], idx[n-1]
	summary := corpus.Message{ID: claiSummaryID(h[from].ID, h[to].ID, n), Role: corpus.RoleSystem,
		Summary: true, Source: claiCompactionSource, Blocks: []corpus.Block{{Kind: corpus.KindText, Text: text}}}

	hist := make([]corpus.Message, 1, len(h)-to)
	hist[0] = summary
	var units, counted int64
	for i := to + 1; i < len(h); i++ {
		if claiIsSummary(&h[i]) {
			continue
		}
		hist = append(hist, h[i])
		u, _, _ := c.Measure(&h[i])
		units += u
		counted++
	}
	head, _, _ := claiCLISplit(text, p.CLIClampBytes, p.CLIHeadNum, p.CLIHeadDen)
	p1, p2 := clai.PreambleCounts(text)
	d := &Digest{Text: text, WindowMessages: n, Msg0Bytes: msg0, P1: p1, P2: p2,
		Omissions: claiCountOmissions(text), CLIHeadBytes: len(head),
		CLIHeadPreambleBytes: claiPreambleBytes(text, len(head)),
		OverBudget:           len(text) > p.Budget+claiDigestOverhead,
		Budget:               p.Budget,
		Bytes:                len(text), SHA256: sha256String(text)}
	// What the rotation removed: the blocks the new history lacks (the
	// digest's one block is new; it counted the window's messages) and
	// their bytes net of the digest's (bytes_removed was 0).
	blocks, bytes := contentOf(h)
	kept, keptBytes := contentOf(hist)
	// A rotation has no token target: it reaches it, as every policy
	// without one reports (the JSON's reached_target true).
	return Outcome{History: hist, Strategy: Rotated, ReachedTarget: true,
		Stages: []StageReport{{Name: "rotation", BeforeTokens: before, AfterTokens: c.charged(hist, units),
			BlocksTouched: max(0, blocks-kept+1), BytesRemoved: bytes - keptBytes}},
		BeforeTokens: before, AfterTokens: c.charged(hist, units),
		Removed: len(h) - (len(hist) - 1), Units: units, Count: counted, Digest: d, Summarizer: "digest"}
}

// sha256String is sha256.Sum256([]byte(s)) without the copy of s: a legacy
// chain's digest reaches tens of MB, and the copy was a third of what a
// rotation allocated.
func sha256String(s string) [sha256.Size]byte {
	h := sha256.New()
	buf := make([]byte, min(len(s), 32<<10))
	for len(s) > 0 {
		n := copy(buf, s)
		h.Write(buf[:n])
		s = s[n:]
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// charged is the request cost in tokens, as bytes/4 (clai itself counts no
// tokens): the trigger's estimate of the history plus the digest a fresh
// CLI session is seeded with, after the CLI clamp. units is the estimate.
func (c *claiRotation) charged(h []corpus.Message, units int64) int {
	seed := 0
	if len(h) > 0 && claiIsSummary(&h[0]) {
		for _, b := range h[0].Blocks {
			seed += len(b.Text)
		}
		if c.p.CLIClampBytes > 0 && seed > c.p.CLIClampBytes {
			seed = c.p.CLIClampBytes + len(claiCLIClampMarker)
		}
	}
	return int((units + int64(seed)) / 4)
}

// claiSummaryID is a deterministic UUID-shaped (v4 layout, 36 chars) id
// for a summary message, so that its rendered header has real clai's size:
// "[system message <uuid>]".
func claiSummaryID(from, to string, n int) string {
	sum := sha256.Sum256([]byte(from + "\x00" + to + "\x00" + strconv.Itoa(n)))
	sum[6] = sum[6]&0x0f | 0x40
	sum[8] = sum[8]&0x3f | 0x80
	h := hex.EncodeToString(sum[:16])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
