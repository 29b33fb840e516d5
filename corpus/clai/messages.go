package clai

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/calib-dev/calib/corpus"
)

// claiRow is one assistant_messages row as read, before decoding.
type claiRow struct {
	rowid     int64
	id        string
	sessionID string
	role      string
	roleNull  bool // role is NULL, which the schema forbids
	content   string
	meta      sql.NullString
	createdAt int64
	// Filled by the decoder.
	msg      corpus.Message
	warnings []string
}

// claiBatchBytes is how much content one decode job carries: big enough to
// amortise the hand-off, small enough to keep both cores busy.
const claiBatchBytes = 1 << 20

// readMessages scans assistant_messages in table order (a sequential read,
// the fastest SQLite offers) while worker goroutines decode content_json,
// then orders each session's messages by created_at, rowid: clai's own
// list_messages order, with rowid breaking ties as its index scan does.
func (r *claiReader) readMessages() error {
	t := "assistant_messages"
	q := fmt.Sprintf("SELECT rowid, id, session_id, role, content_json, %s, created_at FROM assistant_messages",
		r.col(t, "provider_metadata_json"))
	rows, err := r.tx.QueryContext(r.ctx, q)
	if err != nil {
		return fmt.Errorf("assistant_messages: %w", err)
	}
	defer rows.Close()

	jobs := make(chan []claiRow, 4)
	var wg sync.WaitGroup
	for range max(1, runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for batch := range jobs {
				for i := range batch {
					claiDecodeRow(&batch[i])
				}
			}
		})
	}
	var batches [][]claiRow
	var batch []claiRow
	size := 0
	var scanErr error
	for rows.Next() {
		var row claiRow
		var role sql.NullString
		// Scanning into a string keeps the driver's value without another
		// copy; decoded strings without escapes are substrings of it.
		dest := []any{&row.rowid, &row.id, &row.sessionID, &role, &row.content, &row.meta, &row.createdAt}
		if err := rows.Scan(dest...); err != nil {
			if scanErr = r.badRow(t, rows, dest, 2, err); scanErr != nil {
				break
			}
			continue
		}
		row.role, row.roleNull = role.String, !role.Valid
		batch = append(batch, row)
		size += len(row.content)
		if size >= claiBatchBytes {
			batches = append(batches, batch)
			jobs <- batch
			batch, size = nil, 0
		}
	}
	if len(batch) > 0 {
		batches = append(batches, batch)
		jobs <- batch
	}
	close(jobs)
	wg.Wait()
	if scanErr == nil {
		scanErr = rows.Err()
	}
	if scanErr != nil {
		return fmt.Errorf("assistant_messages: %w", scanErr)
	}

	type placed struct {
		createdAt, rowid int64
		msg              *corpus.Message
	}
	per := map[*corpus.Session][]placed{}
	for _, b := range batches {
		for i := range b {
			row := &b[i]
			s := r.sessionOf("assistant_messages", row.rowid, row.sessionID)
			for _, w := range row.warnings {
				r.warn(s, row.rowid, "assistant_messages row %d (id %s): %s", row.rowid, row.id, w)
			}
			per[s] = append(per[s], placed{row.createdAt, row.rowid, &row.msg})
		}
	}
	for _, s := range r.sessions {
		ps := per[s]
		sort.Slice(ps, func(i, j int) bool {
			if ps[i].createdAt != ps[j].createdAt {
				return ps[i].createdAt < ps[j].createdAt
			}
			return ps[i].rowid < ps[j].rowid
		})
		s.Messages = make([]corpus.Message, len(ps))
		idx := r.msgIndex[s]
		for i, p := range ps {
			s.Messages[i] = *p.msg
			if j, ok := idx[p.msg.ID]; ok {
				// A compaction naming the id would find the later row.
				r.warn(s, p.rowid, "assistant_messages row %d: id %s is row %d's too; expected unique message ids (clai's PRIMARY KEY); compactions that name it read row %d", p.rowid, p.msg.ID, s.Messages[j].Line, s.Messages[j].Line)
				continue
			}
			idx[p.msg.ID] = i
		}
	}
	return nil
}

// claiPart is one ContentPart of content_json (types.rs): internally tagged
// by "type", field names snake_case as declared.
type claiPart struct {
	Type       string          `json:"type"`
	Text       string          `json:"text"`
	Signature  string          `json:"signature"`
	ToolCallID string          `json:"tool_call_id"`
	ToolName   string          `json:"tool_name"`
	Arguments  json.RawMessage `json:"arguments"`
	Payload    json.RawMessage `json:"payload"`
	ID         string          `json:"id"`
	Path       string          `json:"path"`
	MediaType  string          `json:"media_type"`
	raw        string          // the part's JSON text (fast path only)
}

var claiRoles = map[string]corpus.Role{"system": corpus.RoleSystem, "user": corpus.RoleUser, "assistant": corpus.RoleAssistant, "tool": corpus.RoleTool}

// claiDecodeRow turns a row into a Message. It runs on worker goroutines,
// so it only touches its own row.
func claiDecodeRow(row *claiRow) {
	m := &row.msg
	m.ID = row.id
	m.Line = int(row.rowid)
	m.Time = claiTime(row.createdAt)
	role := claiUnquote(row.role)
	switch r, ok := claiRoles[role]; {
	case ok:
		m.Role = r
	case row.roleNull:
		row.warnings = append(row.warnings, `role is NULL; expected one of "system", "user", "assistant", "tool" (kept without a role)`)
	default:
		m.Role = corpus.Role(role)
		row.warnings = append(row.warnings, fmt.Sprintf("unknown role %q; expected one of \"system\", \"user\", \"assistant\", \"tool\" (kept as is)", role))
	}
	if row.meta.Valid {
		source, ok := claiFastSource(row.meta.String)
		if !ok {
			var meta struct {
				Source string `json:"source"`
			}
			if err := json.Unmarshal([]byte(row.meta.String), &meta); err != nil {
				row.warnings = append(row.warnings, fmt.Sprintf("provider_metadata_json is not a JSON object (%v); ignored", err))
			}
			source = meta.Source
		}
		m.Source = source
		m.Summary = source == claiCompactionSource
	}
	parts, fast := claiFastParts(row.content)
	if !fast {
		if err := json.Unmarshal([]byte(row.content), &parts); err != nil {
			// Keep the message (compaction rows may point at it) with its
			// raw content as one unknown block.
			m.Blocks = []corpus.Block{{Kind: corpus.KindUnknown, Payload: []byte(row.content)}}
			row.warnings = append(row.warnings, fmt.Sprintf("content_json is not a JSON array of content parts (%v); kept as one unknown block", err))
			return
		}
	}
	m.Blocks = make([]corpus.Block, 0, len(parts))
	var raw []json.RawMessage // decoded only if a part has an unknown type
	for i := range parts {
		p := &parts[i]
		var b corpus.Block
		switch p.Type {
		case "text":
			b = corpus.Block{Kind: corpus.KindText, Text: p.Text}
		case "thinking":
			b = corpus.Block{Kind: corpus.KindThinking, Text: p.Text, Signature: p.Signature}
		case "tool_use":
			args := []byte(p.Arguments)
			if args == nil {
				args = []byte("null") // serde's default for a missing arguments
			}
			b = corpus.Block{Kind: corpus.KindToolUse, ToolCallID: p.ToolCallID, ToolName: p.ToolName, Args: args}
		case "tool_result":
			b = corpus.Block{Kind: corpus.KindToolResult, ToolCallID: p.ToolCallID, Payload: p.Payload}
		case "image":
			b = corpus.Block{Kind: corpus.KindImage, MediaRef: p.ID, Source: p.Path, MediaType: p.MediaType}
		default:
			pr := []byte(p.raw)
			if !fast {
				if raw == nil {
					_ = json.Unmarshal([]byte(row.content), &raw) // cannot fail: parts decoded
				}
				if i < len(raw) {
					pr = raw[i]
				}
			}
			b = corpus.Block{Kind: corpus.KindUnknown, Payload: pr}
			row.warnings = append(row.warnings, fmt.Sprintf("content part %d has unknown type %q; expected text, thinking, tool_use, tool_result or image (kept as an unknown block)", i, p.Type))
		}
		m.Blocks = append(m.Blocks, b)
	}
}

// claiCompactionSource marks a compaction summary message
// (COMPACTION_METADATA_SOURCE).
const claiCompactionSource = "clai-compaction"

// claiContentText is clai's content_text: the text parts joined by "\n".
func claiContentText(m *corpus.Message) string {
	n := 0
	var first string
	for _, b := range m.Blocks {
		if b.Kind == corpus.KindText {
			if n == 0 {
				first = b.Text
			}
			n++
		}
	}
	if n <= 1 {
		return first
	}
	var buf bytes.Buffer
	n = 0
	for _, b := range m.Blocks {
		if b.Kind == corpus.KindText {
			if n > 0 {
				buf.WriteByte('\n')
			}
			buf.WriteString(b.Text)
			n++
		}
	}
	return buf.String()
}
