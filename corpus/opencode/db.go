package opencode

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/calib-dev/calib/corpus"
	"github.com/calib-dev/calib/corpus/internal/sqlitero"
)

// busyTimeout bounds how long a load waits for a lock another process
// holds. Readers of a WAL database are never blocked by an ordinary writer.
const busyTimeout = 5 * time.Second

// required are the columns calib reads, per table (session.sql.ts).
var required = map[string][]string{
	"session": {"id", "title", "directory", "version", "time_created", "time_updated"},
	"message": {"id", "session_id", "time_created", "data"},
	"part":    {"id", "message_id", "data"},
}

// Load reads an opencode database (opencode.db): one session per row of
// the session table, ordered by creation time then id. It never writes:
// the database is opened as clai's is (see sqlitero.Open), so it and its
// -wal and -shm files stay byte-identical, also while opencode runs.
func Load(p string, _ corpus.Options) ([]*corpus.Session, error) {
	var ss []*corpus.Session
	err := sqlitero.Read(p, busyTimeout, func(ctx context.Context, tx *sql.Tx) error {
		var err error
		ss, err = readDB(ctx, tx, p)
		return err
	})
	if err != nil {
		return nil, &corpus.FileError{Path: p, Err: explain(err, busyTimeout)}
	}
	return ss, nil
}

// schemaError says what a SQLite file lacks to be an opencode database.
func schemaError(cols map[string]map[string]bool) error {
	var missing []string
	for _, t := range []string{"session", "message", "part"} {
		if cols[t] == nil {
			missing = append(missing, "table "+t)
			continue
		}
		for _, c := range required[t] {
			if !cols[t][c] {
				missing = append(missing, t+"."+c)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("not an opencode database: it has no %s; expected opencode's opencode.db (tables session, message and part)", strings.Join(missing, ", "))
}

func readDB(ctx context.Context, tx *sql.Tx, p string) ([]*corpus.Session, error) {
	cols, err := sqlitero.Tables(ctx, tx, "session", "message", "part")
	if err != nil {
		return nil, err
	}
	if err := schemaError(cols); err != nil {
		return nil, err
	}
	parent := "NULL"
	if cols["session"]["parent_id"] {
		parent = "parent_id"
	}
	var fileWarnings []corpus.Warning
	warn := func(rowid int64, format string, args ...any) {
		fileWarnings = append(fileWarnings, corpus.Warnf(p, int(rowid), format, args...))
	}

	var sessions []*corpus.Session
	byID := map[string]*corpus.Session{}
	rows, err := tx.QueryContext(ctx, `SELECT rowid, id, `+parent+`, title, directory, version, time_created, time_updated FROM session ORDER BY time_created, id, rowid`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rowid int64
		var id, par, title, dir, version sql.NullString
		var created, updated sql.NullFloat64
		if err := rows.Scan(&rowid, &id, &par, &title, &dir, &version, &created, &updated); err != nil {
			warn(rowid, "session (table session, row %d): %v; session skipped", rowid, err)
			continue
		}
		if !id.Valid || id.String == "" {
			warn(rowid, "session (table session, row %d) has no id; session skipped", rowid)
			continue
		}
		if first := byID[id.String]; first != nil {
			// Both were built from the id's rows, and the second was
			// reported as the file given twice.
			warn(rowid, "session (table session, row %d): id %s is another row's too; expected unique session ids (opencode's PRIMARY KEY); row skipped, the session loads once", rowid, id.String)
			continue
		}
		in := &sessionInfo{ID: id.String, ParentID: par.String, Title: title.String, Directory: dir.String, Version: version.String}
		in.Time.Created, in.Time.Updated = created.Float64, updated.Float64
		s := newSession(in, p)
		sessions = append(sessions, s)
		byID[s.ID] = s
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	msgs := map[string][]message{} // session id -> messages in order
	sessOf := map[string]string{}  // message id -> session id
	msgAt := map[string]int{}      // message id -> index in its session's list
	err = dataRows(ctx, tx, p, `SELECT rowid, id, session_id, data FROM message ORDER BY session_id, time_created, id`,
		"message", "session %q, which is not in the session table", func(sid string) bool { return byID[sid] != nil }, warn,
		func(r row, sid string) {
			sessOf[r.id] = sid
			msgAt[r.id] = len(msgs[sid])
			msgs[sid] = append(msgs[sid], message{row: r})
		})
	if err != nil {
		return nil, err
	}
	err = dataRows(ctx, tx, p, `SELECT rowid, id, message_id, data FROM part ORDER BY message_id, id`,
		"part", "message %q, which is not in the message table (or was skipped)", func(mid string) bool { _, ok := sessOf[mid]; return ok }, warn,
		func(r row, mid string) {
			m := &msgs[sessOf[mid]][msgAt[mid]]
			m.parts = append(m.parts, r)
		})
	if err != nil {
		return nil, err
	}

	if len(sessions) == 0 {
		if len(fileWarnings) > 0 {
			w := fileWarnings[0]
			return nil, fmt.Errorf("%w: the opencode database has no readable session rows (row %d: %s)", corpus.ErrNoSessions, w.Line, w.Message)
		}
		return nil, fmt.Errorf("%w: the opencode database has no rows in session", corpus.ErrNoSessions)
	}
	for _, s := range sessions {
		build(s, msgs[s.ID])
	}
	// Rows that belong to no session are reported with the first session.
	ws := append(fileWarnings, sessions[0].Warnings...)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].Line < ws[j].Line })
	sessions[0].Warnings = ws
	return sessions, nil
}

// dataRows reads the rows (rowid, id, owner, data) that q selects from
// table and hands keep each one whose owner known accepts and that has
// data, as a row of database p; the others are warned about (owned names the
// missing owner, with a %q for its id) and skipped.
func dataRows(ctx context.Context, tx *sql.Tx, p, q, table, owned string, known func(owner string) bool,
	warn func(rowid int64, format string, args ...any), keep func(r row, owner string)) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var rowid int64
		var id, owner sql.NullString
		var data []byte
		if err := rows.Scan(&rowid, &id, &owner, &data); err != nil {
			warn(rowid, "%s (table %s, row %d): %v; %s skipped", table, table, rowid, err, table)
			continue
		}
		if !known(owner.String) {
			warn(rowid, "%s %s (table %s, row %d) belongs to "+owned+"; %s skipped", table, id.String, table, rowid, owner.String, table)
			continue
		}
		if data == nil {
			warn(rowid, "%s %s (table %s, row %d) has no data (expected the %s as JSON); %s skipped", table, id.String, table, rowid, table, table)
			continue
		}
		keep(row{id: id.String, data: data, file: p, line: int(rowid), table: table}, owner.String)
	}
	return rows.Err()
}

// explain turns SQLite's terse errors into ones that say what to do.
func explain(err error, busy time.Duration) error {
	return sqlitero.Explain(err, busy, sqlitero.Owner{Agent: "opencode", File: "opencode's opencode.db",
		Intact: "an intact opencode.db", Copy: "copy opencode.db with its -wal and -shm files"})
}
