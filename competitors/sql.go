package competitors

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/uptrace/bun/driver/sqliteshim"
)

// sqlCompetitor is iceberg-go's own SQL catalog on SQLite: the peer every
// embedded number is shown against.
type sqlCompetitor struct {
	Base
}

// Ephemeral: the SQLite file and warehouse live in the run's directory.
func (*sqlCompetitor) Ephemeral() bool { return true }

func init() {
	Register(Factory{
		Name:        "sql",
		Description: "iceberg-go's SQL catalog on SQLite in a fresh directory (the peer)",
		New:         newSQL,
	})
}

const sqlitePragmas = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"

func newSQL(ctx context.Context, cfg Config) (Competitor, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("sql: no directory given")
	}
	warehouse := filepath.Join(cfg.Dir, "warehouse")
	if err := os.MkdirAll(warehouse, 0o755); err != nil {
		return nil, fmt.Errorf("sql: create warehouse: %w", err)
	}
	db := filepath.Join(cfg.Dir, "sql-catalog.db")
	// Configured as a user of SQLite would for concurrent writers: WAL,
	// a busy timeout and immediate write transactions, so parallel setup
	// waits for the lock instead of failing with SQLITE_BUSY.
	uri := "file:" + db + "?" + sqlitePragmas
	cat, err := icecatalog.Load(ctx, "katbench", iceberg.Properties{
		"type":                "sql",
		"uri":                 uri,
		sqlcat.DriverKey:      sqliteshim.ShimName,
		sqlcat.DialectKey:     string(sqlcat.SQLite),
		"warehouse":           "file://" + warehouse,
		"init_catalog_tables": "true",
	})
	if err != nil {
		return nil, fmt.Errorf("sql: open %s: %w", db, err)
	}
	c := &sqlCompetitor{Base: Base{N: "sql", Cat: cat, P: map[string]any{"dir": cfg.Dir, "driver": sqliteshim.ShimName, "sqlite_options": sqlitePragmas}}}
	c.CloseFn = func() error {
		if cl, ok := cat.(icecatalog.Closer); ok {
			return cl.Close()
		}
		return nil
	}
	return c, nil
}
