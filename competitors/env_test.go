package competitors

import (
	"slices"
	"testing"
)

func TestReadEnv(t *testing.T) {
	vars := map[string]string{
		"KATBENCH_NESSIE_PG_URL": "http://h:19120/iceberg", "KATBENCH_NESSIE_PG_WAREHOUSE": "wh",
		"KATBENCH_NESSIE_PG_SERVER_VERSION": "0.1", "KATBENCH_NESSIE_PG_PROPS": "scope=x",
		"BENCH_REST_PROPS": "a=1", "KATBENCH_PG_URL": "postgres://u@h/db", "KATBENCH_NESSIE_URL": "other",
	}
	e := ReadEnv("nessie-pg", func(k string) string { return vars[k] })
	if e.URL != "http://h:19120/iceberg" || e.Warehouse != "wh" || e.ServerVersion != "0.1" || e.PGURL != "postgres://u@h/db" {
		t.Errorf("ReadEnv = %+v", e)
	}
	if want := []EnvProps{{"BENCH_REST_PROPS", "a=1"}, {"KATBENCH_NESSIE_PG_PROPS", "scope=x"}}; !slices.Equal(e.Props, want) {
		t.Errorf("props %v, want %v (the global list first, so the competitor's wins)", e.Props, want)
	}
	if e := ReadEnv("grpc", func(string) string { return "" }); e.URL != "" || e.Props != nil {
		t.Errorf("empty environment: %+v", e)
	}
}

// TestPropsFromEnvOnly: props come from Config.Env, in order, then --prop.
func TestPropsFromEnvOnly(t *testing.T) {
	cfg := Config{Env: Env{Props: []EnvProps{{"BENCH_REST_PROPS", "a=1,b=1"}, {"KATBENCH_X_PROPS", "b=2"}}},
		Props: map[string]string{"c": "3"}}
	p := props(cfg, "x")
	if p["a"] != "1" || p["b"] != "2" || p["c"] != "3" {
		t.Errorf("props = %v", p)
	}
}
