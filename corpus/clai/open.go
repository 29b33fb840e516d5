package clai

import (
	"time"

	"github.com/calib-dev/calib/corpus/internal/sqlitero"
)

// claiBusyTimeout bounds how long a load waits for a lock held by another
// process (clai itself sets 5 s on its own connections). Readers of a WAL
// database are never blocked by an ordinary writer; this only matters when
// clai holds the database in exclusive mode or is recovering it.
const claiBusyTimeout = 5 * time.Second

// claiExplain turns SQLite's terse errors into ones that say what to do.
func claiExplain(err error, busy time.Duration) error {
	return sqlitero.Explain(err, busy, sqlitero.Owner{Agent: "clai", File: "a clai .clai/data.sqlite",
		Intact: "an intact clai .clai/data.sqlite", Copy: "copy the workspace's .clai folder"})
}
