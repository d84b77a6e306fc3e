package competitors

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/iceberg-go"
	icecatalog "github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// PGURLEnv names the PostgreSQL URL sql-pg connects to
// (postgres://USER:PASSWORD@HOST:PORT/DATABASE?sslmode=disable), printed by
// containers/postgres_up.sh.
const PGURLEnv = "KATBENCH_PG_URL"

// pgStartHint is what to run when PostgreSQL is missing or refuses us.
const pgStartHint = "start it with `eval \"$(containers/postgres_up.sh)\"`"

// pgPoolSize bounds the open and the idle connections of sql-pg's pool: as
// many as the most workers a scenario runs, so no measured operation waits
// for a connection to be dialled.
const pgPoolSize = 64

// sqlPGCompetitor is iceberg-go's SQL catalog on PostgreSQL, in process,
// through pgx's database/sql driver: its errors carry the SQLSTATE
// iceberg-go's serializable write transactions retry on (40001, 40P01),
// which bun's pgdriver errors do not expose. Each instance keeps its rows under a catalog name of its own
// (the catalog_name column iceberg-go partitions by), so runs sharing one
// database never see each other's tables, and Close deletes those rows.
// Safe for concurrent use; Reopen is not (see [Reopener]).
type sqlPGCompetitor struct {
	Base
	db    *sql.DB
	name  string // catalog_name of this instance's rows
	props iceberg.Properties
	addr  string // PostgreSQL's host:port
}

// StoreAddr is where PostgreSQL listens (StoreServed).
func (c *sqlPGCompetitor) StoreAddr() string { return c.addr }

var (
	_ StoreServed = (*sqlPGCompetitor)(nil)
	_ Controller  = (*sqlPGCompetitor)(nil)
	_ Reopener    = (*sqlPGCompetitor)(nil)
	_ Ephemeral   = (*sqlPGCompetitor)(nil)
)

// Control is a no-op, as for the SQLite peer: the catalog is in process.
func (*sqlPGCompetitor) Control(context.Context) error { return nil }

// Ephemeral: Close deletes every row of this instance's catalog name, and
// the warehouse files live in the run's directory.
func (*sqlPGCompetitor) Ephemeral() bool { return true }

// Reopen builds the catalog again on the same connection pool; iceberg-go's
// SQL catalog holds no table state between calls, so nothing read before
// survives in the process.
func (c *sqlPGCompetitor) Reopen(ctx context.Context) error {
	if cl, ok := c.Cat.(icecatalog.Closer); ok {
		if err := cl.Close(); err != nil {
			return fmt.Errorf("%s: reopen: close: %w", c.TargetName, err)
		}
	}
	cat, err := sqlcat.NewCatalog(c.name, c.db, sqlcat.Postgres, c.props)
	if err != nil {
		return fmt.Errorf("%s: reopen: %w", c.TargetName, err)
	}
	c.Cat = cat
	return nil
}

func init() {
	Register(Factory{
		Name:        "sql-pg",
		Description: "iceberg-go's SQL catalog on PostgreSQL (pgx, env KATBENCH_PG_URL from containers/postgres_up.sh), in-process",
		Store:       StorePostgreSQL,
		Storage:     true,
		Example: `  eval "$(containers/postgres_up.sh)"; katbench sql-pg --quick
  katbench run sql sql-pg --quick`,
		Env: "KATBENCH_PG_URL (postgres://USER:PASSWORD@HOST:PORT/DB; containers/postgres_up.sh prints it)",
		New: newSQLPG,
	})
}

// pgTarget is a parsed KATBENCH_PG_URL. String forms never hold the password.
type pgTarget struct {
	addr, user, password, database string
}

// parsePGURL accepts postgres[ql]://USER[:PASSWORD]@HOST[:PORT]/DATABASE
// with no query but sslmode=disable (the loopback cluster speaks no TLS).
// Its errors never repeat the password.
func parsePGURL(raw string) (pgTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url's error quotes the whole input, password included.
		return pgTarget{}, errors.New("not a URL like postgres://USER:PASSWORD@127.0.0.1:15432/DATABASE?sslmode=disable")
	}
	safe := u.Redacted()
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return pgTarget{}, fmt.Errorf("%s: scheme %q is not postgres://", safe, u.Scheme)
	}
	if u.Hostname() == "" || u.User == nil || u.User.Username() == "" {
		return pgTarget{}, fmt.Errorf("%s: want postgres://USER:PASSWORD@HOST:PORT/DATABASE", safe)
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return pgTarget{}, fmt.Errorf("%s: no database name in the path", safe)
	}
	for k, v := range u.Query() {
		if k != "sslmode" || len(v) != 1 || v[0] != "disable" {
			return pgTarget{}, fmt.Errorf("%s: only ?sslmode=disable is supported (got %s)", safe, k)
		}
	}
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	pw, _ := u.User.Password()
	return pgTarget{addr: net.JoinHostPort(u.Hostname(), port), user: u.User.Username(), password: pw, database: db}, nil
}

// explainPGError turns a failed first contact into what the user should do.
// PostgreSQL's SQLSTATEs: 28P01 wrong password, 28000 no such role or no
// pg_hba entry, 3D000 no such database.
func explainPGError(t pgTarget, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "28P01", "28000":
			return fmt.Errorf("PostgreSQL at %s refused user %q: KATBENCH_PG_URL does not match the running cluster; eval the output of containers/postgres_up.sh again: %w",
				t.addr, t.user, err)
		case "3D000":
			return fmt.Errorf("PostgreSQL at %s has no database %q: containers/postgres_up.sh creates it (postgres_down.sh, then postgres_up.sh, for a fresh cluster): %w",
				t.addr, t.database, err)
		}
		return fmt.Errorf("PostgreSQL at %s: %w", t.addr, err)
	}
	var opErr *net.OpError
	var connErr *pgconn.ConnectError
	if errors.As(err, &opErr) || errors.As(err, &connErr) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("PostgreSQL at %s is not reachable (%w): %s", t.addr, err, pgStartHint)
	}
	return fmt.Errorf("PostgreSQL at %s: %w", t.addr, err)
}

func newSQLPG(ctx context.Context, cfg Config) (Competitor, error) {
	const name = "sql-pg"
	if cfg.Dir == "" {
		return nil, fmt.Errorf("%s: no directory given", name)
	}
	raw := cfg.Env.PGURL
	if raw == "" {
		return nil, fmt.Errorf("%s: no PostgreSQL (%s is unset): %s", name, PGURLEnv, pgStartHint)
	}
	t, err := parsePGURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", name, PGURLEnv, err)
	}
	cc, err := pgx.ParseConfig("")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	host, port, _ := net.SplitHostPort(t.addr)
	pn, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: port %q is not 1..65535", name, PGURLEnv, port)
	}
	cc.Host, cc.Port, cc.User, cc.Password, cc.Database = host, uint16(pn), t.user, t.password, t.database
	cc.TLSConfig, cc.Fallbacks = nil, nil // sslmode=disable
	cc.ConnectTimeout = 5 * time.Second
	cc.RuntimeParams = map[string]string{"application_name": "katbench sql-pg"}
	db := stdlib.OpenDB(*cc)
	db.SetMaxOpenConns(pgPoolSize)
	db.SetMaxIdleConns(pgPoolSize)
	fail := func(err error) (Competitor, error) {
		return nil, errors.Join(fmt.Errorf("%s: %w", name, err), db.Close())
	}

	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var version string
	if err := db.QueryRowContext(pctx, "SHOW server_version").Scan(&version); err != nil {
		return fail(explainPGError(t, err))
	}
	warehouse := filepath.Join(cfg.Dir, "warehouse")
	if err := os.MkdirAll(warehouse, 0o755); err != nil {
		return fail(fmt.Errorf("create warehouse: %w", err))
	}
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return fail(fmt.Errorf("catalog name: %w", err))
	}
	catName := "katbench-" + hex.EncodeToString(suffix[:])
	props := iceberg.Properties{
		"type":                "sql",
		"warehouse":           "file://" + warehouse,
		"init_catalog_tables": "true",
	}
	params := map[string]any{
		"dir": cfg.Dir, "driver": "pgx stdlib", "pg_addr": t.addr, "pg_database": t.database,
		"pg_version": version, "catalog_name": catName, "durability": "postgresql synchronous_commit",
	}
	if cfg.Storage.Warehouse != "" { // beside the embedded catalog, on its storage
		for k, v := range cfg.Storage.IOProps {
			props[k] = v
		}
		props["warehouse"] = cfg.Storage.Warehouse
		for k, v := range cfg.Storage.Params {
			params[k] = v
		}
	}
	cat, err := sqlcat.NewCatalog(catName, db, sqlcat.Postgres, props)
	if err != nil {
		return fail(fmt.Errorf("open the catalog in database %q at %s: %w", t.database, t.addr, err))
	}
	c := &sqlPGCompetitor{Base: Base{TargetName: name, Cat: cat, LineParams: params}, db: db, name: catName, props: props, addr: t.addr}
	c.CloseFn = func() error {
		var errs []error
		if cl, ok := c.Cat.(icecatalog.Closer); ok {
			errs = append(errs, cl.Close())
		}
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, tbl := range []string{"iceberg_tables", "iceberg_namespace_properties"} {
			if _, err := db.ExecContext(dctx, "DELETE FROM "+tbl+" WHERE catalog_name = $1", catName); err != nil {
				errs = append(errs, fmt.Errorf("%s: delete this run's rows from %s: %w", name, tbl, err))
			}
		}
		return errors.Join(append(errs, db.Close())...)
	}
	return c, nil
}
