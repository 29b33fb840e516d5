package synth

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/clai"
	_ "modernc.org/sqlite" // driver "sqlite"
)

// ClaiProfile describes generated clai sessions. Sizes are bytes of text as
// clai stores it (before JSON escaping).
type ClaiProfile struct {
	// Sessions is the number of sessions (at least 1). When TargetBytes is
	// set, sessions are added until the messages' content_json reaches it.
	Sessions    int
	TargetBytes int64
	// Turns is the number of user turns per session; ToolCalls the tool
	// calls per turn.
	Turns, ToolCalls int
	// Typical sizes; actual sizes vary between a tenth and twice these.
	UserBytes, AssistantBytes, ToolBytes int
	// ThinkingBytes > 0 opens each assistant message with a signed
	// thinking part.
	ThinkingBytes int
	// Provider is the connection's provider. "claude-code", "codex" and
	// "opencode" are CLIs: one assistant message per run whose tool results
	// live only in assistant_tool_calls, and session_rotation_summary
	// compactions. Anything else (default "anthropic") is the HTTP engine:
	// one tool message per result, local_summary compactions.
	Provider string
	Model    string
	// ProtocolID writes the later schema, where assistant_runs and
	// assistant_compactions name the column protocol_id, not provider_id.
	ProtocolID bool
	// Compact, when set, is asked before every user turn but the first
	// whether to record a compaction, and gets everything it needs to
	// compute one (a digest of the session's history, say).
	Compact ClaiCompactFunc
	// Links makes session Links[i] the parent of session i
	// (assistant_session_links, kind rotation).
	Links map[int]int
}

// ClaiCompactFunc decides on one compaction. It returns ok=false to record
// none at this point.
type ClaiCompactFunc func(h ClaiHistory) (c ClaiCompaction, ok bool)

// ClaiHistory is a session as written so far, as the corpus loader will
// return it: messages in created_at, rowid order, compaction summaries
// included, with Line = rowid and Args/Payload the exact stored JSON.
type ClaiHistory struct {
	Session     int // index of the session in the database
	SessionID   string
	Provider    string
	Messages    []corpus.Message
	Compactions []ClaiCompaction // recorded so far in this session
}

// ClaiCompaction is one compaction to record. The writer follows clai's
// lifecycle (repository.rs): the row is inserted "running" with no summary,
// then the summary message is written, then the row is completed.
type ClaiCompaction struct {
	// Trigger: automatic (default), manual or error_recovery. Strategy
	// defaults to what clai picks for the provider.
	Trigger, Strategy string
	// Status: completed (default), running (a dangling row: no summary is
	// written) or failed (Error is recorded, no summary).
	Status string
	Error  string
	// The compacted window, as recorded.
	SourceFrom, SourceTo string
	InputMessages        int
	// Summary is the full stored text of the summary message, preambles
	// included (see ClaiSummaryText).
	Summary string
	// Filled in by the writer.
	ID, SummaryID string
}

// ClaiSummaryText is clai's summary_message_text: P1, a blank line, then
// the summary trimmed.
func ClaiSummaryText(summary string) string {
	return clai.SummaryPreamble + "\n\n" + strings.TrimSpace(summary)
}

// ClaiOldDigestText is a deterministic digest as v26.6.10–v26.6.14 stored
// it: the old P1 and P2 around a transcript body.
func ClaiOldDigestText(body string) string {
	return clai.SummaryPreambleOld + "\n\n" + strings.TrimSpace(clai.DigestPreambleOld+"\n\n"+body)
}

// claiEpoch is when generated histories start (epoch ms, like clai).
var claiEpoch = time.Date(2026, 6, 20, 9, 0, 0, 0, time.UTC).UnixMilli()

// WriteClai writes a clai workspace database at path (which must not
// exist) the way clai does: WAL journal, enum columns as quoted JSON
// strings, epoch-ms times, UUID v4 ids, JSON written as serde_json writes
// it. The same (profile, seed) always gives the same rows.
func WriteClai(path string, p ClaiProfile, seed uint64) error {
	_, err := writeClai(path, p, seed, false)
	return err
}

// WriteClaiSessions is WriteClai that also returns every session as
// written (what a correct loader must return), compactions included.
func WriteClaiSessions(path string, p ClaiProfile, seed uint64) ([]ClaiHistory, error) {
	return writeClai(path, p, seed, true)
}

func writeClai(path string, p ClaiProfile, seed uint64, keep bool) ([]ClaiHistory, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%s already exists; WriteClai creates a new database", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: abs, RawQuery: q.Encode()}).String())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	w := &claiWriter{p: p, r: newRand(seed), now: claiEpoch, keep: keep}
	if w.p.Provider == "" {
		w.p.Provider = "anthropic"
	}
	if w.p.Model == "" {
		w.p.Model = "claude-sonnet-4-5"
	}
	err = w.write(db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("writing clai database %s: %w", path, err)
	}
	return w.done, nil
}

// ClaiIsCLI reports whether clai treats a provider as a CLI
// (providers/cli.rs is_cli_provider).
func ClaiIsCLI(provider string) bool {
	return provider == "claude-code" || provider == "codex" || provider == "opencode"
}

type claiWriter struct {
	p     ClaiProfile
	r     *rand.Rand
	tx    *sql.Tx
	now   int64 // epoch ms of the last row written
	rowid int64 // assistant_messages rows written
	bytes int64 // content_json bytes written
	ids   []string
	keep  bool
	done  []ClaiHistory
	// The session being written.
	h ClaiHistory
}

func (w *claiWriter) write(db *sql.DB) error {
	ddl := strings.ReplaceAll(claiDDL, "PROVIDER", w.providerCol())
	if _, err := db.Exec(ddl); err != nil {
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	w.tx = tx
	for i := 0; w.more(i); i++ {
		if err := w.session(i); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

func (w *claiWriter) more(i int) bool {
	if w.p.TargetBytes > 0 {
		return w.bytes < w.p.TargetBytes
	}
	return i < max(1, w.p.Sessions)
}

func (w *claiWriter) providerCol() string {
	if w.p.ProtocolID {
		return "protocol_id"
	}
	return "provider_id"
}

// uuid returns a UUID v4 string drawn from the seeded source.
func (w *claiWriter) uuid() string {
	var b [16]byte
	for i := range b {
		b[i] = byte(w.r.Uint32())
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := fmt.Sprintf("%x", b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// tick advances the clock by lo..hi ms and returns it; lo = 0 makes ties.
func (w *claiWriter) tick(lo, hi int) int64 {
	w.now += int64(between(w.r, lo, hi))
	return w.now
}

func (w *claiWriter) exec(q string, args ...any) error {
	_, err := w.tx.Exec(q, args...)
	return err
}

func (w *claiWriter) session(i int) error {
	cli := ClaiIsCLI(w.p.Provider)
	w.h = ClaiHistory{Session: i, SessionID: w.uuid(), Provider: w.p.Provider}
	created := w.tick(60_000, 600_000)
	ctxJSON := "{}"
	if cli {
		ctxJSON = `{"cliSessionId":"` + w.uuid() + `","cliSessionProvider":"` + w.p.Provider + `"}`
	}
	title := strings.TrimSpace(strings.SplitN(text(w.r, 60), "\n", 2)[0])
	w.ids = append(w.ids, w.h.SessionID)
	if err := w.exec(`INSERT INTO assistant_sessions (id, kind, title, context_json, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		w.h.SessionID, `"interactive"`, title, ctxJSON, created, created); err != nil {
		return err
	}
	if parent, ok := w.p.Links[i]; ok && parent < len(w.ids) && parent != i {
		if err := w.exec(`INSERT INTO assistant_session_links (child_session_id, parent_session_id, kind, created_at) VALUES (?, ?, 'rotation', ?)`,
			w.h.SessionID, w.ids[parent], created); err != nil {
			return err
		}
	}
	for turn := 0; turn < max(1, w.p.Turns); turn++ {
		if turn > 0 && w.p.Compact != nil {
			if c, ok := w.p.Compact(w.h); ok {
				if err := w.compaction(c, cli); err != nil {
					return err
				}
			}
		}
		if err := w.turn(cli); err != nil {
			return err
		}
	}
	if w.keep {
		w.done = append(w.done, w.h)
	}
	return w.exec(`UPDATE assistant_sessions SET updated_at = ? WHERE id = ?`, w.now, w.h.SessionID)
}

// turn writes one user prompt and the run that answers it.
func (w *claiWriter) turn(cli bool) error {
	user := []corpus.Block{{Kind: corpus.KindText, Text: text(w.r, vary(w.r, w.p.UserBytes))}}
	if err := w.message(corpus.RoleUser, user, w.tick(5_000, 120_000), w.source(cli)); err != nil {
		return err
	}
	runID := w.uuid()
	started := w.tick(1, 20)
	var calls []claiCall
	for range w.p.ToolCalls {
		calls = append(calls, w.call(cli))
	}
	var blocks []corpus.Block
	if w.p.ThinkingBytes > 0 {
		blocks = append(blocks, corpus.Block{Kind: corpus.KindThinking, Text: text(w.r, vary(w.r, w.p.ThinkingBytes)), Signature: randBase64(w.r, 344)})
	}
	blocks = append(blocks, corpus.Block{Kind: corpus.KindText, Text: text(w.r, vary(w.r, w.p.AssistantBytes))})
	if cli {
		// One assistant message per run (its slot is created at run start and
		// rewritten in place); results live only in assistant_tool_calls.
		for _, c := range calls {
			blocks = append(blocks, c.use)
		}
		blocks = append(blocks, corpus.Block{Kind: corpus.KindText, Text: text(w.r, vary(w.r, w.p.AssistantBytes))})
		if err := w.message(corpus.RoleAssistant, blocks, started, w.source(cli)); err != nil {
			return err
		}
	} else if len(calls) > 0 {
		for _, c := range calls {
			blocks = append(blocks, c.use)
		}
		if err := w.message(corpus.RoleAssistant, blocks, w.tick(500, 30_000), ""); err != nil {
			return err
		}
		for _, c := range calls {
			// One tool message per result, written back to back: equal
			// created_at values happen, and rowid orders them.
			if err := w.message(corpus.RoleTool, []corpus.Block{c.result}, w.tick(0, 3), ""); err != nil {
				return err
			}
		}
		final := []corpus.Block{{Kind: corpus.KindText, Text: text(w.r, vary(w.r, w.p.AssistantBytes))}}
		if err := w.message(corpus.RoleAssistant, final, w.tick(500, 30_000), ""); err != nil {
			return err
		}
	} else if err := w.message(corpus.RoleAssistant, blocks, w.tick(500, 30_000), ""); err != nil {
		return err
	}
	if err := w.exec(`INSERT INTO assistant_runs (id, session_id, status, trigger, connection_id, `+w.providerCol()+`, model_id, usage_json, error, notices_json, started_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?, ?)`,
		runID, w.h.SessionID, `"completed"`, `"user"`, "conn-1", w.p.Provider, w.p.Model, started, w.tick(1, 50)); err != nil {
		return err
	}
	// Only CLI runs are given assistant_tool_calls rows here: that is where
	// their results live. (What the HTTP engine records there is not in the
	// spec; its results are in the tool messages.)
	for _, c := range calls {
		if !cli {
			break
		}
		if err := w.exec(`INSERT INTO assistant_tool_calls (id, run_id, session_id, tool_name, params_json, status, result_json, error, started_at, completed_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
			c.use.ToolCallID, runID, w.h.SessionID, c.use.ToolName, string(c.use.Args), `"completed"`, string(c.result.Payload), started, w.now); err != nil {
			return err
		}
	}
	return nil
}

func (w *claiWriter) source(cli bool) string {
	if cli {
		return w.p.Provider
	}
	return ""
}

type claiCall struct{ use, result corpus.Block }

// call makes one tool call and its result, with arguments and payload as
// serde_json writes them (compact, keys sorted).
func (w *claiWriter) call(cli bool) claiCall {
	id := "toolu_" + randAlnum(w.r, 24)
	path := fmt.Sprintf("src/%s/%s.rs", randAlnum(w.r, 6), randAlnum(w.r, 8))
	var name string
	var args []byte
	if w.r.IntN(3) == 0 {
		name = "bash"
		args = claiObject(nil, "command", "cargo test --lib "+randAlnum(w.r, 8), "timeout_ms", 120000)
	} else {
		name = "read_file"
		args = claiObject(nil, "path", path)
	}
	if cli {
		name = map[string]string{"bash": "Bash", "read_file": "Read"}[name]
	}
	payload := claiObject(nil, "content", text(w.r, vary(w.r, w.p.ToolBytes)), "is_error", false)
	return claiCall{
		use:    corpus.Block{Kind: corpus.KindToolUse, ToolCallID: id, ToolName: name, Args: args},
		result: corpus.Block{Kind: corpus.KindToolResult, ToolCallID: id, Payload: payload},
	}
}

// message inserts one assistant_messages row and appends it to the history.
func (w *claiWriter) message(role corpus.Role, blocks []corpus.Block, at int64, source string) error {
	return w.messageMeta(role, blocks, at, source, nil)
}

func (w *claiWriter) messageMeta(role corpus.Role, blocks []corpus.Block, at int64, source string, meta []byte) error {
	id := w.uuid()
	content := claiContentJSON(nil, blocks)
	if meta == nil && source != "" {
		meta = claiObject(nil, "source", source)
	}
	var metaArg any
	if meta != nil {
		metaArg = string(meta)
	}
	if err := w.exec(`INSERT INTO assistant_messages (id, session_id, role, content_json, provider_metadata_json, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, w.h.SessionID, `"`+string(role)+`"`, string(content), metaArg, at); err != nil {
		return err
	}
	w.rowid++
	w.bytes += int64(len(content))
	w.h.Messages = append(w.h.Messages, corpus.Message{ID: id, Role: role, Blocks: blocks,
		Time: time.UnixMilli(at).UTC(), Source: source, Summary: source == "clai-compaction", Line: int(w.rowid)})
	return nil
}

// compaction records one compaction with clai's lifecycle.
func (w *claiWriter) compaction(c ClaiCompaction, cli bool) error {
	if c.Trigger == "" {
		c.Trigger = "automatic"
	}
	if c.Strategy == "" {
		c.Strategy = "local_summary"
		if cli {
			c.Strategy = "session_rotation_summary"
		}
	}
	if c.Status == "" {
		c.Status = "completed"
	}
	c.ID = w.uuid()
	created := w.tick(1, 10)
	var from, to any
	if c.SourceFrom != "" {
		from = c.SourceFrom
	}
	if c.SourceTo != "" {
		to = c.SourceTo
	}
	if err := w.exec(`INSERT INTO assistant_compactions (id, session_id, trigger, strategy, status, source_from_message_id, source_to_message_id, summary_message_id, created_run_id, `+w.providerCol()+`, model_id, input_message_count, created_at, completed_at, error) VALUES (?, ?, ?, ?, '"running"', ?, ?, NULL, NULL, ?, ?, ?, ?, NULL, NULL)`,
		c.ID, w.h.SessionID, claiQuote(c.Trigger), claiQuote(c.Strategy), from, to, w.p.Provider, w.p.Model, c.InputMessages, created); err != nil {
		return err
	}
	switch c.Status {
	case "running":
	case "failed":
		if err := w.exec(`UPDATE assistant_compactions SET status = '"failed"', error = ?, completed_at = ? WHERE id = ?`, c.Error, w.tick(1, 100), c.ID); err != nil {
			return err
		}
	default:
		at := w.tick(100, 5_000)
		// A json! object: serde_json without preserve_order sorts its keys.
		meta := claiObject(nil, "compactionId", c.ID, "createdAt", at, "source", "clai-compaction",
			"sourceFromMessageId", c.SourceFrom, "sourceToMessageId", c.SourceTo, "strategy", c.Strategy, "trigger", c.Trigger)
		if err := w.messageMeta(corpus.RoleSystem, []corpus.Block{{Kind: corpus.KindText, Text: c.Summary}}, at, "clai-compaction", meta); err != nil {
			return err
		}
		c.SummaryID = w.h.Messages[len(w.h.Messages)-1].ID
		if err := w.exec(`UPDATE assistant_compactions SET status = ?, summary_message_id = ?, completed_at = ? WHERE id = ?`,
			claiQuote(c.Status), c.SummaryID, w.tick(1, 20), c.ID); err != nil {
			return err
		}
	}
	w.h.Compactions = append(w.h.Compactions, c)
	return nil
}
