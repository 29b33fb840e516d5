package clai

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/calib-dev/calib/corpus/internal/sqlitero"
)

// claiBusyTimeout bounds how long a load waits for a lock held by another
// process (clai itself sets 5 s on its own connections). Readers of a WAL
// database are never blocked by an ordinary writer; this only matters when
// clai holds the database in exclusive mode or is recovering it.
const claiBusyTimeout = 5 * time.Second

// claiDB is an open, read-only view of one clai database; the opening
// (which leaves the database and its -wal and -shm byte-identical whatever
// state clai left them in) is shared with the other SQLite readers.
type claiDB = sqlitero.DB

// openClai opens a clai database strictly read-only: see sqlitero.Open.
func openClai(p string, busy time.Duration) (*claiDB, error) { return sqlitero.Open(p, busy) }

// claiBeginRead starts the read transaction a whole load runs in.
func claiBeginRead(ctx context.Context, c *claiDB) (*sql.Tx, error) {
	return sqlitero.BeginRead(ctx, c)
}

// claiExplain turns SQLite's terse errors into ones that say what to do.
func claiExplain(err error, busy time.Duration) error {
	if err == nil {
		return nil
	}
	var se interface{ Code() int }
	if !errors.As(err, &se) {
		return err
	}
	switch se.Code() & 0xff { // primary result code
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return fmt.Errorf("the database is locked by another process (gave up after waiting %v): clai may be holding it in exclusive mode or recovering it; retry when clai is idle, or copy the workspace's .clai folder and load the copy (%w)", busy, err)
	case 26: // SQLITE_NOTADB
		return fmt.Errorf("not a readable SQLite database (corrupt or encrypted); expected a clai .clai/data.sqlite (%w)", err)
	case 11: // SQLITE_CORRUPT
		return fmt.Errorf("the SQLite database is damaged; expected an intact clai .clai/data.sqlite (%w)", err)
	case 14: // SQLITE_CANTOPEN
		return fmt.Errorf("SQLite could not open the database read-only (check that the file and its -wal/-shm files are readable) (%w)", err)
	}
	return err
}
