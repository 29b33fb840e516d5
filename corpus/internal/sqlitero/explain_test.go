package sqlitero

import (
	"errors"
	"testing"
	"time"
)

type codeErr int

func (c codeErr) Error() string { return "sqlite error" }
func (c codeErr) Code() int     { return int(c) }

// Explain names the owner's program and file in each error it rewrites,
// keeps the SQLite error wrapped, and leaves other errors alone.
func TestExplain(t *testing.T) {
	o := Owner{Agent: "tool", File: "a tool.db", Intact: "an intact tool.db", Copy: "copy tool.db"}
	plain := errors.New("other")
	tests := []struct {
		err  error
		want string
	}{
		{codeErr(5), "the database is locked by another process (gave up after waiting 2s): tool may be holding it in exclusive mode or recovering it; retry when tool is idle, or copy tool.db and load the copy (sqlite error)"},
		{codeErr(6 | 1<<8), "the database is locked by another process (gave up after waiting 2s): tool may be holding it in exclusive mode or recovering it; retry when tool is idle, or copy tool.db and load the copy (sqlite error)"},
		{codeErr(26), "not a readable SQLite database (corrupt or encrypted); expected a tool.db (sqlite error)"},
		{codeErr(11), "the SQLite database is damaged; expected an intact tool.db (sqlite error)"},
		{codeErr(14), "SQLite could not open the database read-only (check that the file and its -wal/-shm files are readable) (sqlite error)"},
		{codeErr(776), "a hot rollback journal (-journal) lies beside the database: a writer stopped in the middle of a transaction, and reading needs that transaction rolled back, which calib, reading only, does not do; open the database once with tool or sqlite3 to roll it back, or copy tool.db (with the -journal) and load the copy (sqlite error)"},
		{codeErr(8), "sqlite error"},
		{codeErr(1), "sqlite error"},
		{plain, "other"},
		{shortFile(0), "not a SQLite database: the file is empty (0 bytes); expected a tool.db"},
		{shortFile(7), "not a SQLite database: the file is 7 bytes, shorter than a SQLite header; expected a tool.db"},
	}
	for _, tt := range tests {
		got := Explain(tt.err, 2*time.Second, o)
		if got.Error() != tt.want || !errors.Is(got, tt.err) {
			t.Errorf("Explain(%#v):\n got %v\nwant %s", tt.err, got, tt.want)
		}
	}
	if Explain(nil, time.Second, o) != nil {
		t.Error("Explain(nil) is not nil")
	}
}
