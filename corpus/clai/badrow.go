package clai

import (
	"database/sql"
	"fmt"
	"strconv"

	"github.com/calib-dev/calib/corpus"
)

// badRow handles a row that does not scan into the types clai's schema
// gives its columns. SQLite does not enforce column types, so a damaged or
// hand-edited database can hold text in created_at, and a foreign schema
// with the right table names can hold NULL where clai's has NOT NULL. Such
// a row is skipped with a warning naming its table, row, column, value and
// the type expected, and the rest of the database still loads: before, one
// such row failed the whole database. rows is positioned on the bad row,
// whose first column is its rowid; sidCol is the column holding the
// session the row belongs to (the warning goes there), or -1.
func (r *claiReader) badRow(table string, rows *sql.Rows, dest []any, sidCol int, scanErr error) error {
	cols, err := rows.Columns()
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	raw := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	rowid, _ := raw[0].(int64)
	what := scanErr.Error()
	for i, d := range dest {
		if want := claiWant(d, raw[i]); want != "" {
			what = fmt.Sprintf("%s is %s; expected %s", cols[i], claiDescribe(raw[i]), want)
			break
		}
	}
	sid := ""
	if sidCol >= 0 {
		sid, _ = raw[sidCol].(string)
	}
	skipped := "row skipped"
	s := r.byID[sid]
	if s == nil && table == "assistant_sessions" && sid != "" {
		// The session's own row: its messages still load, under its id.
		s = &corpus.Session{ID: sid, Format: corpus.FormatClai, Path: r.path}
		r.addSession(s)
		skipped = "the session's metadata is skipped, its messages still load"
	}
	w := corpus.Warning{File: r.path, Line: int(rowid),
		Message: fmt.Sprintf("%s row %d: %s (clai's schema); %s", table, rowid, what, skipped)}
	if s == nil {
		r.unattached = append(r.unattached, w)
		return nil
	}
	s.Warnings = append(s.Warnings, w)
	return nil
}

// claiWant says what a scan destination needs if v cannot go into it
// (database/sql's conversion rules for the types the reader scans into),
// or "" if it can.
func claiWant(dest, v any) string {
	isInt := func() bool {
		switch x := v.(type) {
		case int64:
			return true
		case float64:
			_, err := strconv.ParseInt(strconv.FormatFloat(x, 'g', -1, 64), 10, 64)
			return err == nil
		case string:
			_, err := strconv.ParseInt(x, 10, 64)
			return err == nil
		case []byte:
			_, err := strconv.ParseInt(string(x), 10, 64)
			return err == nil
		}
		return false
	}
	switch dest.(type) {
	case *int64:
		if !isInt() {
			return "an integer"
		}
	case *sql.NullInt64:
		if v != nil && !isInt() {
			return "an integer or NULL"
		}
	case *string:
		if v == nil {
			return "text, not NULL"
		}
	}
	return ""
}

// claiDescribe names a stored value for a warning, cut short.
func claiDescribe(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("the text %q", x)
	case []byte:
		return fmt.Sprintf("a %d-byte blob", len(x))
	case float64:
		return "the real " + strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprintf("%v", v)
}
