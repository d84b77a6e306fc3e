package competitors

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	sqlcat "github.com/apache/iceberg-go/catalog/sql"
	"github.com/apache/iceberg-go/table"

	"github.com/nordisk/katbench/internal/testenv"
)

// closedPort returns a loopback port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

func newSQLPGFor(t *testing.T, pgURL string) (Competitor, error) {
	t.Helper()
	t.Setenv(PGURLEnv, pgURL)
	f, err := Lookup("sql-pg")
	if err != nil {
		t.Fatal(err)
	}
	return f.New(context.Background(), Config{Dir: t.TempDir(), Env: ReadEnv("sql-pg", os.Getenv)})
}

func TestSQLPGUnreachable(t *testing.T) {
	u := "postgres://sqlcat:not-the-password@127.0.0.1:" + strconv.Itoa(closedPort(t)) + "/sqlcat?sslmode=disable"
	c, err := newSQLPGFor(t, u)
	if err == nil {
		c.Close()
		t.Fatal("sql-pg against a closed port: no error")
	}
	msg := err.Error()
	for _, want := range []string{"sql-pg", "not reachable", "postgres_up.sh"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "not-the-password") {
		t.Errorf("error %q repeats the password", msg)
	}
}

func TestSQLPGUnset(t *testing.T) {
	_, err := newSQLPGFor(t, "")
	if err == nil || !strings.Contains(err.Error(), PGURLEnv) || !strings.Contains(err.Error(), "postgres_up.sh") {
		t.Fatalf("sql-pg without %s: err = %v; want one naming the variable and postgres_up.sh", PGURLEnv, err)
	}
}

func TestSQLPGBadURL(t *testing.T) {
	for _, u := range []string{
		"mysql://u:secretpw@127.0.0.1:1/db",
		"postgres://u:secretpw@127.0.0.1:1/",
		"postgres://u:secretpw@127.0.0.1:1/db?sslmode=require",
		"postgres://127.0.0.1:1/db",
	} {
		_, err := newSQLPGFor(t, u)
		if err == nil {
			t.Errorf("%s: no error", u)
			continue
		}
		if strings.Contains(err.Error(), "secretpw") {
			t.Errorf("%s: error %q repeats the password", u, err)
		}
	}
}

// TestSQLPGAgainstPostgres runs against a real cluster: a wrong password and
// a missing database are refused with what to do; the right URL gives a
// catalog whose tables are PostgreSQL rows, and Close deletes them.
func TestSQLPGAgainstPostgres(t *testing.T) {
	pg := testenv.Postgres(t)
	u, err := url.Parse(pg.URL)
	if err != nil {
		t.Fatal(err)
	}

	wrong := *u
	wrong.User = url.UserPassword(u.User.Username(), "wrong-password")
	_, err = newSQLPGFor(t, wrong.String())
	if err == nil || !strings.Contains(err.Error(), "refused user") || !strings.Contains(err.Error(), "postgres_up.sh") {
		t.Errorf("wrong password: err = %v; want a refusal naming postgres_up.sh", err)
	} else if strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("wrong password: error %q repeats the password", err)
	}

	missing := *u
	missing.Path = "/no_such_db"
	_, err = newSQLPGFor(t, missing.String())
	if err == nil || !strings.Contains(err.Error(), `no database "no_such_db"`) {
		t.Errorf("missing database: err = %v; want one naming the database", err)
	}

	c, err := newSQLPGFor(t, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Params()["store"]; got != StorePostgreSQL {
		t.Errorf("params.store = %v; want %q", got, StorePostgreSQL)
	}
	if strings.Contains(fmt.Sprint(c.Params()), pg.Password) {
		t.Errorf("params %v hold the password", c.Params())
	}
	ctx := context.Background()
	cat := c.Catalog()
	ns := table.Identifier{"pgtest"}
	if err := cat.CreateNamespace(ctx, ns, nil); err != nil {
		t.Fatal(err)
	}
	schema := iceberg.NewSchema(0, iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.PrimitiveTypes.Int64})
	if _, err := cat.CreateTable(ctx, table.Identifier{"pgtest", "t1"}, schema); err != nil {
		t.Fatal(err)
	}
	// A second catalog on the same database sees none of the first one's
	// tables: each instance has its own catalog name.
	other, err := newSQLPGFor(t, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if ok, err := other.Catalog().CheckTableExists(ctx, table.Identifier{"pgtest", "t1"}); err != nil || ok {
		t.Errorf("another sql-pg instance sees the first one's table: exists=%v err=%v", ok, err)
	}
	if r, ok := As[Reopener](c); !ok {
		t.Error("sql-pg is not a Reopener")
	} else if err := r.Reopen(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Catalog().LoadTable(ctx, table.Identifier{"pgtest", "t1"}); err != nil {
		t.Fatalf("load after reopen: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Close deleted the rows: a catalog opened under the same name finds nothing.
	name := c.Params()["catalog_name"].(string)
	again, err := newSQLPGFor(t, pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	sc := again.(*sqlPGCompetitor)
	cat2, err := sqlcatNew(name, sc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat2.LoadTable(ctx, table.Identifier{"pgtest", "t1"}); err == nil {
		t.Error("the table is still there after Close")
	}
}

// sqlcatNew opens iceberg-go's SQL catalog under name on sc's pool.
func sqlcatNew(name string, sc *sqlPGCompetitor) (catalog.Catalog, error) {
	props := iceberg.Properties{"warehouse": sc.props["warehouse"], "init_catalog_tables": "false"}
	return sqlcat.NewCatalog(name, sc.db, sqlcat.Postgres, props)
}
