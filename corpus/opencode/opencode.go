// Package opencode reads opencode sessions into the corpus model: the
// SQLite database newer builds keep (~/.local/share/opencode/opencode.db,
// tables session, message and part) and the JSON files older builds wrote
// under ~/.local/share/opencode/storage (session/<project>/<id>.json,
// message/<session>/<id>.json, part/<message>/<id>.json).
//
// The shapes are those of anomalyco/opencode (formerly sst/opencode)
// packages/opencode/src/session/message-v2.ts (read at commit
// 007a9409bafea06d6b9084ff1f6d1fe9f5e3a803) and session/session.sql.ts
// (commit 063e8306d9895af9bdd175306cfa4fa3291fd83a): a row's data column
// (or a file) holds the message or part without the ids the row carries.
//
// How a session becomes messages follows toModelMessages, which builds what
// opencode sends:
//   - a user message's text parts (not "ignored" ones), its files (not
//     text/plain or directories, which opencode already inlined as synthetic
//     text parts), a compaction part as the request "What did we do so far?"
//     and a subtask part as "The following tool was executed by the user";
//   - an assistant message is one model request per step (step-start parts
//     divide it, as the AI SDK does): reasoning, text and tool calls, then a
//     tool message with the results of that step's calls (an error as an
//     error result; a call still pending or running when the session was
//     saved as the error result opencode itself sends for it). An assistant
//     message that ended in an error is not sent again, and is left out;
//   - step-finish parts carry each request's tokens and cost (recorded
//     usage); a message without them has its totals as one request.
//
// Recorded compactions (compaction.go): an assistant message with summary
// true is the summary of a compaction that took effect at the user message
// that asked for it; tool outputs pruned by opencode keep their text (the
// stored part is not rewritten) and carry state.time.compacted, the time of
// the prune.
package opencode

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/calib-dev/calib/corpus"
)

// sessionInfo is Session.Info as a storage file holds it (the database
// keeps the same fields as columns).
type sessionInfo struct {
	ID        string `json:"id"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	ParentID  string `json:"parentID"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Time      struct {
		Created float64 `json:"created"`
		Updated float64 `json:"updated"`
	} `json:"time"`
}

// info is MessageV2.Info (User | Assistant).
type info struct {
	ID        string `json:"id"`
	SessionID string `json:"sessionID"`
	Role      string `json:"role"`
	Time      struct {
		Created   float64 `json:"created"`
		Completed float64 `json:"completed"`
	} `json:"time"`
	Error      json.RawMessage `json:"error"`
	ParentID   string          `json:"parentID"`
	ModelID    string          `json:"modelID"`
	ProviderID string          `json:"providerID"`
	Mode       string          `json:"mode"`
	Agent      string          `json:"agent"`
	// Summary is a bool on an assistant message (a compaction summary) and
	// an object on a user message (a title and diffs).
	Summary json.RawMessage `json:"summary"`
	Cost    float64         `json:"cost"`
	Tokens  *tokens         `json:"tokens"`
	Finish  string          `json:"finish"`
	Model   *modelRef       `json:"model"`
}

type modelRef struct {
	ProviderID string `json:"providerID"`
	ModelID    string `json:"modelID"`
}

type tokens struct {
	Input     *int64       `json:"input"`
	Output    *int64       `json:"output"`
	Reasoning *int64       `json:"reasoning"`
	Cache     *cacheTokens `json:"cache"`
}

type cacheTokens struct {
	Read  *int64 `json:"read"`
	Write *int64 `json:"write"`
}

// part is MessageV2.Part, every variant's fields.
type part struct {
	ID        string `json:"id"`
	MessageID string `json:"messageID"`
	Type      string `json:"type"`
	// text, reasoning
	Text      string `json:"text"`
	Synthetic bool   `json:"synthetic"`
	Ignored   bool   `json:"ignored"`
	// file
	Mime     string `json:"mime"`
	Filename string `json:"filename"`
	URL      string `json:"url"`
	// tool
	CallID string     `json:"callID"`
	Tool   string     `json:"tool"`
	State  *toolState `json:"state"`
	// compaction
	Auto        bool   `json:"auto"`
	Overflow    bool   `json:"overflow"`
	TailStartID string `json:"tail_start_id"`
	// step-finish
	Cost   float64 `json:"cost"`
	Tokens *tokens `json:"tokens"`
}

type toolState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input"`
	Output   *string         `json:"output"`
	Error    string          `json:"error"`
	Metadata struct {
		Interrupted bool    `json:"interrupted"`
		Output      *string `json:"output"`
	} `json:"metadata"`
	Time struct {
		Start     float64 `json:"start"`
		End       float64 `json:"end"`
		Compacted float64 `json:"compacted"`
	} `json:"time"`
	Attachments []attachment `json:"attachments"`
}

type attachment struct {
	Mime string `json:"mime"`
	URL  string `json:"url"`
}

// row is a message or part as read from a table row or a file: where it
// came from (for warnings) and its raw data.
type row struct {
	id   string
	data []byte
	// file and line locate the row: the database and its rowid, or the
	// storage file (line 0).
	file string
	line int
	// table names the row's table ("message", "part"), or "" for a file.
	table string
}

// where names a row in a warning: its table and rowid, or its id.
func (r *row) where(kind string) string {
	if r.table != "" {
		return fmt.Sprintf("%s %s (table %s, row %d)", kind, r.id, r.table, r.line)
	}
	return fmt.Sprintf("%s %s", kind, r.id)
}

// message is one message row with its parts, in order.
type message struct {
	row
	parts []row
}

// millis converts opencode's millisecond timestamps; zero stays zero.
func millis(ms float64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(ms)).UTC()
}

// newSession starts a session from its info.
func newSession(in *sessionInfo, p string) *corpus.Session {
	return &corpus.Session{ID: in.ID, Format: corpus.FormatOpencode, Path: p, Meta: corpus.Meta{
		AgentVersion: in.Version, Cwd: in.Directory, Title: in.Title, Parent: in.ParentID,
		CreatedAt: millis(in.Time.Created), UpdatedAt: millis(in.Time.Updated),
	}}
}
