package clai

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/sqlitero"
)

// Load reads a clai workspace database (.clai/data.sqlite): one Session
// per assistant_sessions row, ordered by created_at then id. It never
// writes: see sqlitero.Open for how the database and its -wal/-shm files stay
// byte-identical, also while clai is running and writing.
func Load(p string, opts corpus.Options) ([]*corpus.Session, error) {
	return loadBusy(p, opts, claiBusyTimeout)
}

// loadBusy is Load with a chosen lock timeout (tests use a short
// one).
func loadBusy(p string, _ corpus.Options, busy time.Duration) ([]*corpus.Session, error) {
	var ss []*corpus.Session
	err := sqlitero.Read(p, busy, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		ss, err = (&claiReader{path: p, tx: tx, ctx: ctx}).load()
		return err
	})
	if err != nil {
		return nil, &corpus.FileError{Path: p, Err: claiExplain(err, busy)}
	}
	return ss, nil
}

// claiReader holds the state of one load: the read transaction, the
// schema it found and the sessions by id.
type claiReader struct {
	path string
	tx   *sql.Tx
	ctx  context.Context
	// cols maps table name to its column names; a missing table is absent.
	cols     map[string]map[string]bool
	sessions []*corpus.Session
	byID     map[string]*corpus.Session
	// msgIndex maps a session's message id to its index in Messages.
	msgIndex map[*corpus.Session]map[string]int
	// unattached holds warnings about skipped rows whose session is not
	// known; they go to the first session.
	unattached []corpus.Warning
}

// claiTables are the tables a clai workspace database has; the first two
// are required, the others appeared in later migrations or may be empty.
var claiTables = []string{"assistant_sessions", "assistant_messages", "assistant_compactions", "assistant_session_links"}

func (r *claiReader) load() ([]*corpus.Session, error) {
	// In this order: the tables after assistant_sessions attach to its
	// sessions, and usage and tool calls to the messages and runs.
	for _, read := range []func() error{r.schema, r.readSessions, r.readMessages, r.readLinks,
		r.readRuns, r.readRunUsage, r.readCompactions, r.readToolCalls} {
		if err := read(); err != nil {
			return nil, err
		}
	}
	if len(r.sessions) == 0 {
		return nil, fmt.Errorf("%w: the clai database has no rows in assistant_sessions", corpus.ErrNoSessions)
	}
	r.sessions[0].Warnings = append(r.sessions[0].Warnings, r.unattached...)
	for _, s := range r.sessions {
		sortByRow(s.Warnings)
	}
	return r.sessions, nil
}

// warnedTables is the order sortByRow gives the tables a warning names.
var warnedTables = []string{"assistant_sessions", "assistant_messages", "assistant_session_links", "assistant_runs",
	"assistant_compactions", "assistant_tool_calls"}

// sortByRow orders a session's warnings by table, then row: the checks of
// one table run in several passes (a column's type, then its JSON), and
// their warnings came out pass by pass, so the 20 shown were the first
// pass's, not the first 20 rows'. A warning names its table first
// ("assistant_messages row 130: ..."); one that does not sorts last.
func sortByRow(ws []corpus.Warning) {
	rank := func(w *corpus.Warning) int {
		table, _, _ := strings.Cut(w.Message, " ")
		if i := slices.Index(warnedTables, table); i >= 0 {
			return i
		}
		return len(warnedTables)
	}
	slices.SortStableFunc(ws, func(a, b corpus.Warning) int {
		if ra, rb := rank(&a), rank(&b); ra != rb {
			return ra - rb
		}
		return a.Line - b.Line
	})
}

// schema reads the tables and their columns, and refuses a SQLite file that
// is not a clai database by naming what it lacks.
func (r *claiReader) schema() error {
	rows, err := r.tx.QueryContext(r.ctx, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	r.cols = map[string]map[string]bool{}
	for _, n := range names {
		if !strings.HasPrefix(n, "assistant_") {
			continue
		}
		cols, err := r.columns(n)
		if err != nil {
			return err
		}
		r.cols[n] = cols
	}
	var missing []string
	for _, t := range claiTables {
		if r.cols[t] == nil {
			missing = append(missing, t)
		}
	}
	if r.cols["assistant_sessions"] == nil || r.cols["assistant_messages"] == nil {
		found := "none"
		if len(names) > 0 {
			found = strings.Join(names, ", ")
		}
		return &corpus.NotSessionFile{Err: fmt.Errorf("not a clai database: missing table(s) %s (tables found: %s); expected a clai workspace database (.clai/data.sqlite)", strings.Join(missing, ", "), found)}
	}
	for _, need := range []struct{ table, cols string }{
		{"assistant_sessions", "id created_at"},
		{"assistant_messages", "id session_id role content_json created_at"},
	} {
		for _, c := range strings.Fields(need.cols) {
			if !r.cols[need.table][c] {
				return fmt.Errorf("table %s has no column %s; expected clai's schema (this database may come from an unsupported clai version)", need.table, c)
			}
		}
	}
	return nil
}

func (r *claiReader) columns(table string) (map[string]bool, error) {
	// table comes from sqlite_master, quoted as an identifier.
	rows, err := r.tx.QueryContext(r.ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		cols[n] = true
	}
	return cols, rows.Err()
}

// col returns the column name if the table has it, else NULL, so one query
// serves every schema version.
func (r *claiReader) col(table string, names ...string) string {
	for _, n := range names {
		if r.cols[table][n] {
			return n
		}
	}
	return "NULL"
}

func (r *claiReader) warn(s *corpus.Session, rowid int64, format string, args ...any) {
	s.Warnings = append(s.Warnings, corpus.Warnf(r.path, int(rowid), format, args...))
}

// eachRow runs q and, for each row, scans it into dest and calls row. An
// error of the query or of the iteration is named by label (the table); a
// row that does not scan is skipped with a warning (badRow; q's first
// column is the rowid, column sidCol the row's session); what a row holds
// is row's to judge.
func (r *claiReader) eachRow(label, q string, sidCol int, dest []any, row func()) error {
	rows, err := r.tx.QueryContext(r.ctx, q)
	if err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			if err := r.badRow(label, rows, dest, sidCol, err); err != nil {
				return err
			}
			continue
		}
		row()
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", label, err)
	}
	return nil
}

func (r *claiReader) readSessions() error {
	t := "assistant_sessions"
	q := fmt.Sprintf("SELECT rowid, id, %s, %s, %s, created_at, %s FROM assistant_sessions ORDER BY created_at, id, rowid",
		r.col(t, "kind"), r.col(t, "title"), r.col(t, "context_json"), r.col(t, "updated_at"))
	r.byID = map[string]*corpus.Session{}
	r.msgIndex = map[*corpus.Session]map[string]int{}
	var (
		rowid, created      int64
		id                  string
		kind, title, ctxRaw sql.NullString
		updated             sql.NullInt64
	)
	firstRow := map[string]int64{}
	return r.eachRow("assistant_sessions", q, 1, []any{&rowid, &id, &kind, &title, &ctxRaw, &created, &updated}, func() {
		if first := r.byID[id]; first != nil {
			// Two sessions of one id would split its rows between them (all
			// went to the second, and the first, empty, was reported).
			r.warn(first, rowid, "assistant_sessions row %d: id %s is row %d's too; expected unique session ids (clai's PRIMARY KEY); this row is skipped and the session's rows load once, under row %d", rowid, id, firstRow[id], firstRow[id])
			return
		}
		firstRow[id] = rowid
		s := &corpus.Session{ID: id, Format: corpus.FormatClai, Path: r.path}
		if id == "" {
			// clai writes a UUID; '' fits the schema (TEXT PRIMARY KEY) but
			// would print as a blank in every report.
			r.warn(s, rowid, "assistant_sessions row %d: id is empty; expected clai's session id (a UUID); the session and its rows load under the empty id", rowid)
		}
		s.Meta.Kind = claiUnquote(kind.String)
		s.Meta.Title = title.String
		s.Meta.CreatedAt = claiTime(created)
		s.Meta.UpdatedAt = claiNullTime(updated)
		if ctxRaw.Valid {
			var sc struct {
				CliSessionProvider string `json:"cliSessionProvider"`
			}
			if err := json.Unmarshal([]byte(ctxRaw.String), &sc); err != nil {
				r.warn(s, rowid, "assistant_sessions row %d (id %s): context_json is not a JSON object (%v); expected clai's SessionContext", rowid, id, err)
			}
			s.Meta.Provider = sc.CliSessionProvider
		}
		r.addSession(s)
	})
}

func (r *claiReader) addSession(s *corpus.Session) {
	r.sessions = append(r.sessions, s)
	r.byID[s.ID] = s
	r.msgIndex[s] = map[string]int{}
}

func (r *claiReader) readLinks() error {
	if r.cols["assistant_session_links"] == nil {
		return nil
	}
	var rowid int64
	var child, parent string
	return r.eachRow("assistant_session_links", "SELECT rowid, child_session_id, parent_session_id FROM assistant_session_links ORDER BY rowid", 1, []any{&rowid, &child, &parent}, func() {
		s := r.byID[child]
		if s == nil {
			return // the link of a deleted session: nothing to attach it to
		}
		s.Meta.Parent = parent
		if r.byID[parent] == nil {
			r.warn(s, rowid, "assistant_session_links row %d: parent session %s of session %s does not exist; expected a row in assistant_sessions", rowid, parent, child)
		}
	})
}

// readRuns takes a session's provider and model from its latest run.
func (r *claiReader) readRuns() error {
	t := "assistant_runs"
	if r.cols[t] == nil || !r.cols[t]["session_id"] {
		return nil
	}
	q := fmt.Sprintf("SELECT rowid, session_id, %s, %s FROM assistant_runs ORDER BY %s, rowid",
		r.col(t, "provider_id", "protocol_id"), r.col(t, "model_id"), r.col(t, "started_at"))
	var rowid int64
	var sid string
	var provider, model sql.NullString
	return r.eachRow("assistant_runs", q, 1, []any{&rowid, &sid, &provider, &model}, func() {
		if s := r.byID[sid]; s != nil {
			if provider.String != "" {
				s.Meta.Provider = claiUnquote(provider.String)
			}
			if model.String != "" {
				s.Meta.Model = claiUnquote(model.String)
			}
		}
	})
}

// claiUnquote reads an enum column: clai stores serde_json::to_string of
// the enum, a JSON string with its quotes ('"user"'). A few columns hold
// bare words; those come back as they are.
func claiUnquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		var out string
		if json.Unmarshal([]byte(s), &out) == nil {
			return out
		}
	}
	return s
}

// claiTime converts clai's epoch milliseconds.
func claiTime(ms int64) time.Time {
	return time.UnixMilli(ms).UTC()
}

// claiNullTime converts a nullable epoch-milliseconds column: NULL is the
// zero time (unknown).
func claiNullTime(ms sql.NullInt64) time.Time {
	if !ms.Valid {
		return time.Time{}
	}
	return claiTime(ms.Int64)
}

// sessionOf returns the session a row belongs to. A row whose session is
// gone (clai does not guarantee cascades) gets a stand-in session, so its
// data is still loaded and the gap is reported.
func (r *claiReader) sessionOf(table string, rowid int64, sid string) *corpus.Session {
	if s := r.byID[sid]; s != nil {
		return s
	}
	s := &corpus.Session{ID: sid, Format: corpus.FormatClai, Path: r.path}
	r.addSession(s)
	r.warn(s, rowid, "%s row %d belongs to session %s, which has no assistant_sessions row (deleted without cascade); loaded as a session without metadata", table, rowid, sid)
	return s
}
