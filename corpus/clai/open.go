package clai

import (
	"context"
	"database/sql"
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
	return sqlitero.Explain(err, busy, sqlitero.Owner{Agent: "clai", File: "a clai .clai/data.sqlite",
		Intact: "an intact clai .clai/data.sqlite", Copy: "copy the workspace's .clai folder"})
}
