package competitors

import (
	"strings"

	"github.com/nordisk/katbench/transport/s3"
	s3io "github.com/nordisk/katbench/transport/s3/icebergio"
)

// Env is what the environment says about one competitor. cmd reads it
// (ReadEnv with os.Getenv) and hands it down in Config.Env: a competitor
// never reads the environment itself, so what a run used is what its
// caller gave it. The zero value says nothing.
type Env struct {
	// URL, Warehouse and ServerVersion are KATBENCH_<NAME>_URL,
	// _WAREHOUSE and _SERVER_VERSION (see envPrefix): a remote server's
	// address when no argument gives one, and the version its up script
	// started.
	URL, Warehouse, ServerVersion string
	// Props are client property lists (k=v,…) in the order they apply,
	// later winning: BENCH_REST_PROPS, then KATBENCH_<NAME>_PROPS.
	Props []EnvProps
	// PGURL is KATBENCH_PG_URL, the PostgreSQL of sql-pg.
	PGURL string
	// S3 are the fallback table-IO properties (s3io.Fallbacks) of the
	// environment's S3 store: KATBENCH_S3_ENDPOINT, AWS_ACCESS_KEY_ID,
	// AWS_SECRET_ACCESS_KEY, AWS_REGION. A REST competitor hands them to
	// its client's IO, used only where neither the client nor the table's
	// config sets the property; they are never on a line.
	S3 map[string]string
}

// EnvProps is one client property list and the variable it came from.
type EnvProps struct {
	Var, Value string
}

// ReadEnv returns what getenv (os.Getenv, in cmd) says about the
// competitor name.
func ReadEnv(name string, getenv func(string) string) Env {
	p := envPrefix(name)
	e := Env{URL: getenv(p + "_URL"), Warehouse: getenv(p + "_WAREHOUSE"), ServerVersion: getenv(p + "_SERVER_VERSION"),
		PGURL: getenv(PGURLEnv), S3: s3io.Fallbacks(s3.FromEnv(getenv))}
	for _, v := range []string{"BENCH_REST_PROPS", p + "_PROPS"} {
		if s := getenv(v); s != "" {
			e.Props = append(e.Props, EnvProps{Var: v, Value: s})
		}
	}
	return e
}

// envPrefix is the prefix of a competitor's environment variables:
// KATBENCH_ and the name upper-cased with '-' as '_' (nessie-pg:
// KATBENCH_NESSIE_PG_URL).
func envPrefix(name string) string {
	return "KATBENCH_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}
