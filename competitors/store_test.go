package competitors

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestEveryFactoryNamesItsStore(t *testing.T) {
	known := map[string]bool{StoreBbolt: true, StoreSQLite: true, StorePostgreSQL: true, StoreRocksDB: true, StoreInMemory: true, StoreRedb: true}
	for _, f := range All() {
		if !known[f.Store] {
			t.Errorf("%s: Store = %q; want one of the Store constants", f.Name, f.Store)
		}
	}
	want := map[string]string{
		"nessie": StoreInMemory, "nessie-pg": StorePostgreSQL, "nessie-rocks": StoreRocksDB,
		"polaris": StoreInMemory, "polaris-pg": StorePostgreSQL,
		"fixture": StoreSQLite, "fixture-pg": StorePostgreSQL, "sql-pg": StorePostgreSQL, "rest": StoreBbolt,
		"rustberg": StoreRedb, "rustberg-pg": StorePostgreSQL,
	}
	for name, store := range want {
		f, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if f.Store != store {
			t.Errorf("%s: Store = %q; want %q", name, f.Store, store)
		}
	}
	if f, _ := Lookup("fixture-pg"); f.SetupParallel != 0 {
		t.Errorf("fixture-pg: SetupParallel = %d; want no limit (PostgreSQL takes concurrent writers)", f.SetupParallel)
	}
}

func TestBuiltCompetitorCarriesStore(t *testing.T) {
	f, err := Lookup("embedded")
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.New(context.Background(), Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Params()["store"]; got != StoreBbolt {
		t.Errorf("embedded params.store = %v; want %q", got, StoreBbolt)
	}
}

func TestEnvPrefix(t *testing.T) {
	for name, want := range map[string]string{"nessie": "KATBENCH_NESSIE", "nessie-pg": "KATBENCH_NESSIE_PG", "polaris-pg": "KATBENCH_POLARIS_PG"} {
		if got := envPrefix(name); got != want {
			t.Errorf("envPrefix(%q) = %q; want %q", name, got, want)
		}
	}
}

func TestTransientPostgresSerializationFailure(t *testing.T) {
	for code, want := range map[string]bool{"40001": true, "40P01": true, "23505": false} {
		err := fmt.Errorf("failed to create table: %w", &pgconn.PgError{Code: code})
		if got := Transient(err); got != want {
			t.Errorf("Transient(SQLSTATE %s) = %v; want %v", code, got, want)
		}
	}
}
