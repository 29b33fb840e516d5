// Package corpus is the normalized model of recorded agent sessions (smith,
// clai, Claude Code, Codex, Gemini CLI, opencode): what each format keeps,
// what the agent itself did (its recorded compactions) and every line a
// reader had to skip or repair. The readers live in one subpackage per
// format (corpus/smith, corpus/clai, corpus/claudecode, corpus/codex,
// corpus/gemini, corpus/opencode); corpus/load recognises a file's format
// and calls its reader. It knows nothing about policies.
package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
	"unsafe"
)

// Format names the on-disk format a session was read from.
type Format string

const (
	FormatSmithTranscript Format = "smith-transcript" // transcript.jsonl (raw, pre-compaction)
	FormatSmithSession    Format = "smith-session"    // session.json with no transcript beside it
	FormatClai            Format = "clai"             // .clai/data.sqlite
	FormatClaudeCode      Format = "claude-code"      // ~/.claude/projects/<project>/<session>.jsonl
	FormatCodex           Format = "codex"            // ~/.codex/sessions/.../rollout-*.jsonl
	FormatGemini          Format = "gemini-cli"       // ~/.gemini/tmp/<project>/chats/session-*.json[l]
	FormatOpencode        Format = "opencode"         // ~/.local/share/opencode/opencode.db or storage/
)

// Smith reports whether f is one of smith's formats.
func (f Format) Smith() bool { return f == FormatSmithTranscript || f == FormatSmithSession }

// Role is who wrote a message. The values are the lower-case names every
// supported format already uses.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
	RoleSystem    Role = "system"
)

// BlockKind is the type of one content block.
type BlockKind string

const (
	KindText             BlockKind = "text"
	KindThinking         BlockKind = "thinking"
	KindRedactedThinking BlockKind = "redacted_thinking"
	KindToolUse          BlockKind = "tool_use"
	KindToolResult       BlockKind = "tool_result"
	KindImage            BlockKind = "image"
	KindDocument         BlockKind = "document"
	// KindUnknown keeps a block of a type this version of calib does not
	// know; its raw JSON is in Payload and a warning names it.
	KindUnknown BlockKind = "unknown"
)

// Session is one recorded conversation.
type Session struct {
	ID     string
	Format Format
	// Path is the file (or database) the session was read from, as given on
	// the command line (never made absolute, so reports stay portable).
	Path string
	Meta Meta
	// Messages is the raw history in order, as complete as the format keeps
	// it. For smith this is transcript.jsonl when present; for clai it is
	// every row of assistant_messages of the session, summaries included.
	Messages []Message
	// Recorded is what the real agent did with that history.
	Recorded Recorded
	// Warnings lists the lines (or rows) that were skipped or repaired.
	Warnings []Warning
}

// Meta is what a format records about a session besides its messages.
// Empty strings mean "not recorded".
type Meta struct {
	AgentVersion string
	Model        string
	Provider     string
	Cwd          string
	Title        string
	Kind         string // clai: interactive | background_job
	// ContextRatio is smith's learned estimate-to-billed ratio
	// (session.json context_ratio); 0 when not recorded.
	ContextRatio float64
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// Parent is the id of the session this one continues (clai rotation
	// links, smith forks), when recorded.
	Parent string
}

// Message is one entry of a history.
type Message struct {
	// ID is the id the format recorded (smith 16-hex ids, clai UUIDs,
	// Claude Code uuids). Formats that record none get "L<line>".
	ID   string
	Role Role
	// Synthetic marks a message the agent wrote itself (a continuation
	// prompt), not a real user turn.
	Synthetic bool
	// Summary marks a product of compaction (smith "Summary of the earlier
	// conversation: ", a clai compaction summary, a Claude Code
	// isCompactSummary message).
	Summary bool
	// Sidechain marks messages of a subagent run recorded inline (Claude
	// Code isSidechain); they are not part of the main thread.
	Sidechain bool
	Blocks    []Block
	// Time is when the message was written, when the format records it.
	Time time.Time
	// Source is the writer a format records for the message, e.g. clai's
	// provider_metadata_json.source ("clai-compaction", "claude-code").
	Source string
	// Line is the 1-based line (or rowid) the message came from, for
	// error messages that point back into the input.
	Line int
}

// RealTurn reports whether m starts a real turn: a user message the agent
// did not write itself. It is the one turn test the policies and the replay
// share (smith's window_start, clai's turn count, the replay's Turn);
// inspect narrows it further (its turn count leaves out sidechains, summaries and tool-result-only messages).
func (m *Message) RealTurn() bool { return m.Role == RoleUser && !m.Synthetic }

// Bytes is m's content size: the sum of its blocks' Bytes.
func (m *Message) Bytes() int {
	n := 0
	for i := range m.Blocks {
		n += m.Blocks[i].Bytes()
	}
	return n
}

// HasThinking reports whether m holds a thinking block, redacted or not.
func (m *Message) HasThinking() bool {
	for i := range m.Blocks {
		if k := m.Blocks[i].Kind; k == KindThinking || k == KindRedactedThinking {
			return true
		}
	}
	return false
}

// Block is one content block. Strings and byte slices are shared, never
// copied, between the loaded session and every replayed history.
type Block struct {
	Kind       BlockKind
	Text       string
	ToolCallID string
	ToolName   string
	// Args is the tool input exactly as recorded (raw JSON bytes): byte
	// counts and duplicate-call keys depend on it, so it is never
	// re-marshalled.
	Args []byte
	// Payload is the raw JSON of a structured tool result (clai's payload)
	// or of an unknown block.
	Payload   []byte
	IsError   bool
	Signature string
	// Media fields (image / document blocks).
	MediaType string
	Source    string
	MediaRef  string
}

// Bytes is b's content size as recorded: its text plus its raw tool
// arguments plus its raw structured payload. Signatures and media
// references are metadata, not content, and are not counted.
func (b *Block) Bytes() int { return len(b.Text) + len(b.Args) + len(b.Payload) }

// Content is the text the model was sent for the block: Text, or, for a
// tool result that has only a structured payload (clai's payload, a Codex
// or Gemini CLI output that is not a string), that payload's JSON; for a
// block of a type calib does not know (KindUnknown, warned about), its raw
// JSON, since its Text only names the type. Every measure and every stage
// that reads or cuts a result's text reads it, so that a structured
// result weighs what it carried: measured by Text alone, a clai session's
// results weighed nothing, and a replay of one under any other agent's
// policy sent less than a third of its tokens. The string shares the
// payload's bytes: it must not outlive a change to them (none is made).
func (b *Block) Content() string {
	if len(b.Payload) > 0 && (b.Kind == KindUnknown || b.Text == "" && b.Kind == KindToolResult) {
		return unsafe.String(unsafe.SliceData(b.Payload), len(b.Payload))
	}
	return b.Text
}

// Warning is a line or row that was skipped or repaired while loading.
// Line is the 1-based line number in File, or the rowid for a database.
type Warning struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// Warnf is the warning about line (or rowid) of file, its message
// formatted as fmt.Sprintf does: every reader's warn is this.
func Warnf(file string, line int, format string, args ...any) Warning {
	return Warning{File: file, Line: line, Message: fmt.Sprintf(format, args...)}
}

// Recorded is the ground truth a format keeps about compaction.
type Recorded struct {
	// History is smith's compacted working history (session.json) when a
	// transcript sits beside it; nil otherwise.
	History []Message
	// Compactions are the compactions the agent recorded, in order.
	Compactions []Compaction
	// ToolCalls are the tool calls the agent recorded outside its messages
	// (clai's assistant_tool_calls), in start order. Sessions run through a
	// CLI (Claude Code, Codex) keep their tool results only here.
	ToolCalls []ToolCall
	// Usage is what the provider reported per request, in order, where the
	// format records it (usage.go); UsageTotal the session totals of a
	// format that keeps only those (smith).
	Usage      []Usage
	UsageTotal *Usage
	// Persisted are the tool results the agent stored outside its context
	// and replaced there by a marker (Claude Code's
	// <session>/tool-results/<tool_use_id>.txt), in file-name order.
	Persisted []Persisted
}

// Persisted is one tool result that reached the model only as a marker from
// some request on; the transcript still holds the original text.
type Persisted struct {
	ToolCallID string
	// File is the stored file's path (as loaded) and Bytes its size; File
	// is empty for a result inferred without its folder (PlacedInferred),
	// and Bytes is then the transcript's result.
	File  string
	Bytes int64
	// Boundary is the index in Recorded.Compactions of the microcompact
	// boundary that cleared the same id, -1 if none did.
	Boundary int
	// AtMessage is the index in Session.Messages of the first message
	// written after the marker replaced the result: the request that
	// produced it was the first one sent the marker. -1 if unknown.
	AtMessage int
	// Placed says how AtMessage was found (PlacedBoundary, PlacedCacheBreak,
	// PlacedArrival).
	Placed string
	// Marker is the text the model was sent instead of the result.
	Marker string
	// Chars is the replayed result's length in UTF-16 code units (what
	// JavaScript's String.length gives, and Claude Code's chars/4 counts):
	// the transcript's text, or the file's when the transcript has none.
	// A trigger that reads recorded usage weighs the agent's own clears by
	// it without measuring the text at every request.
	Chars int
}

// How a persisted result's clearing request was placed, most certain first.
const (
	// PlacedBoundary: a microcompact_boundary listing the id precedes the
	// request (Claude Code 2.1.9+): recorded, firm.
	PlacedBoundary = "boundary"
	// PlacedCacheBreak: no boundary line (2.0.60-2.1.6); the request is a
	// mid-turn prompt-cache break at which Claude Code's keep-40k
	// microcompact clears the id. It reproduces every file of the real
	// logs (7 sessions, 0 missing, 0 extra): inferred, likely.
	PlacedCacheBreak = "cache-break"
	// PlacedArrival: neither; the first request after the result arrived
	// (the log has no usage to find the break): a guess that makes the
	// result unseen.
	PlacedArrival = "arrival"
	// PlacedInferred: no file at all. A 2.0.60-2.1.6 log without its
	// tool-results folder: the result is one the keep-40k microcompact
	// clears at a mid-turn cache break where the recorded prompt fell
	// (File is empty). From their transcripts alone it finds the 68 files
	// of the 4 real logs that have any, and nothing in the 3 that have
	// none: likely.
	PlacedInferred = "inferred"
)

// ToolCall is one tool call an agent recorded apart from its messages.
type ToolCall struct {
	ID     string
	RunID  string
	Name   string
	Status string // clai: the status, unquoted
	// Params and Result are the raw JSON exactly as stored (nil if NULL).
	Params      []byte
	Result      []byte
	Error       string
	StartedAt   time.Time
	CompletedAt time.Time
	Line        int // rowid
}

// Compaction is one compaction the agent performed, as recorded.
type Compaction struct {
	Index int    // 0-based position in Recorded.Compactions
	ID    string // the recording's id, when it has one
	// Strategy is the recording's own name: clai local_summary |
	// session_rotation_summary; claude-code compact | microcompact; codex
	// compacted; gemini-cli compress; opencode compaction | prune.
	Strategy string
	Trigger  string // automatic | manual | error_recovery | auto ...
	Status   string // clai: running | completed | failed
	// AtMessage is the index in Session.Messages of the first message
	// written after the compaction (where it took effect); -1 if unknown.
	AtMessage int
	// Window, for clai: the compacted window's first and last message ids
	// and its length, as recorded.
	SourceFrom    string
	SourceTo      string
	InputMessages int
	// SummaryID is the id of the message holding the summary; Summary its
	// text (empty when the message is missing, see SummaryMissing).
	SummaryID      string
	Summary        string
	SummaryMissing bool
	// Kind classifies a stored clai summary by its preambles: "digest"
	// (deterministic), "digest-old" (v26.6.10–14 preambles), "model"
	// (a model-written summary) or "" when there is no text.
	Kind DigestKind
	// P1 and P2 count the copies of clai's summary and digest preambles in
	// the text: the nesting depth of a chained digest.
	P1, P2 int
	// Chained is true when SourceFrom is the previous compaction's
	// SummaryID (clai rotation chains).
	Chained bool
	// Token figures the agent recorded (Claude Code boundaries).
	TokensBefore int
	TokensAfter  int
	TokensSaved  int
	// ClearedIDs are the tool call ids the agent cleared (microcompact).
	ClearedIDs []string
	// Replacement is the history the agent rebuilt, when it recorded it
	// (Codex replacement_history: the retained user messages, then the
	// summary or an encrypted compaction item).
	Replacement []Message
	CreatedAt   time.Time
	CompletedAt time.Time
	Line        int // line or rowid of the record
}

// Clearing reports whether c cleared tool results in place (a Claude Code
// microcompact) rather than replacing the history: the one notion of
// "clearing" that replay's agreement and the commands share.
func (c *Compaction) Clearing() bool {
	return c.Strategy == "microcompact" || len(c.ClearedIDs) > 0
}

// HasClearing reports whether s recorded any clearing event to compare a
// policy with.
func (s *Session) HasClearing() bool {
	for i := range s.Recorded.Compactions {
		if s.Recorded.Compactions[i].Clearing() {
			return true
		}
	}
	return false
}

// DigestKind classifies a stored summary text.
type DigestKind string

const (
	DigestDeterministic DigestKind = "digest"
	DigestOld           DigestKind = "digest-old"
	DigestModel         DigestKind = "model"
)

// MediaHash is the MediaRef of media recorded inline (base64 data in a
// Claude Code or Codex log): the hex SHA-256 of the data as written, so
// the same image sent twice has the same reference.
func MediaHash(data string) string {
	sum := sha256.Sum256([]byte(data))
	return hex.EncodeToString(sum[:])
}
