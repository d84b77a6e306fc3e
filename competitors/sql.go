package competitors

import (
	"context"
	"fmt"
	"maps"
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
	props iceberg.Properties // what the catalog was loaded with
}

var (
	_ Controller = (*sqlCompetitor)(nil)
	_ Reopener   = (*sqlCompetitor)(nil)
)

// Reopen closes the catalog and loads it again from its SQLite file.
func (c *sqlCompetitor) Reopen(ctx context.Context) error {
	if cl, ok := c.Cat.(icecatalog.Closer); ok {
		if err := cl.Close(); err != nil {
			return fmt.Errorf("%s: reopen: close: %w", c.TargetName, err)
		}
	}
	cat, err := icecatalog.Load(ctx, "katbench", c.props)
	if err != nil {
		return fmt.Errorf("%s: reopen: %w", c.TargetName, err)
	}
	c.Cat = cat
	return nil
}

// Control is a no-op: in-process there is no path between the caller and
// the catalog, so the floor is one call through the capability interface
// between two clock reads.
func (*sqlCompetitor) Control(context.Context) error { return nil }

// Ephemeral: the SQLite file and warehouse live in the run's directory.
func (*sqlCompetitor) Ephemeral() bool { return true }

func init() {
	Register(Factory{
		Name:        "sql",
		Description: "iceberg-go's SQL catalog on SQLite in a fresh directory, SQLite's default rollback journal (the peer)",
		Store:       StoreSQLite,
		Storage:     true,
		Example:     "  katbench sql --quick\n  katbench run embedded sql sql-wal --quick",
		New:         sqlFactory("sql", sqlitePragmas),
	})
	Register(Factory{
		Name:        "sql-wal",
		Description: "iceberg-go's SQL catalog on SQLite tuned with WAL journaling (one fsync per commit)",
		Store:       StoreSQLite,
		Storage:     true,
		Example:     "  katbench sql-wal --quick\n  katbench run sql sql-wal --quick",
		New:         sqlFactory("sql-wal", sqlitePragmas+"&_pragma=journal_mode(WAL)"),
	})
}

// sqlitePragmas make concurrent writers wait for SQLite's lock instead of
// failing with SQLITE_BUSY (parallel dataset setup needs it); journaling and
// synchronous stay at SQLite's defaults (rollback journal, FULL).
const sqlitePragmas = "_pragma=busy_timeout(10000)&_txlock=immediate"

func sqlFactory(name, pragmas string) func(context.Context, Config) (Competitor, error) {
	return func(ctx context.Context, cfg Config) (Competitor, error) { return newSQL(ctx, cfg, name, pragmas) }
}

func newSQL(ctx context.Context, cfg Config, name, pragmas string) (Competitor, error) {
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%s: no directory given", name)
	}
	warehouse := filepath.Join(cfg.Dir, "warehouse")
	if err := os.MkdirAll(warehouse, 0o755); err != nil {
		return nil, fmt.Errorf("%s: create warehouse: %w", name, err)
	}
	db := filepath.Join(cfg.Dir, "sql-catalog.db")
	uri := "file:" + db + "?" + pragmas
	props := iceberg.Properties{
		"type":                "sql",
		"uri":                 uri,
		sqlcat.DriverKey:      sqliteshim.ShimName,
		sqlcat.DialectKey:     string(sqlcat.SQLite),
		"warehouse":           "file://" + warehouse,
		"init_catalog_tables": "true",
	}
	params := map[string]any{"dir": cfg.Dir, "driver": sqliteshim.ShimName, "sqlite_options": pragmas}
	if cfg.Storage.Warehouse != "" { // the peer shares the embedded catalog's storage
		maps.Copy(props, cfg.Storage.IOProps)
		props["warehouse"] = cfg.Storage.Warehouse
		maps.Copy(params, cfg.Storage.Params)
	}
	cat, err := icecatalog.Load(ctx, "katbench", props)
	if err != nil {
		return nil, fmt.Errorf("%s: open %s: %w", name, db, err)
	}
	c := &sqlCompetitor{Base: Base{TargetName: name, Cat: cat, LineParams: params}, props: props}
	c.CloseFn = func() error {
		if cl, ok := c.Cat.(icecatalog.Closer); ok {
			return cl.Close()
		}
		return nil
	}
	return c, nil
}
