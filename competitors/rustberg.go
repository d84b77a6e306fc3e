package competitors

// Rustberg (crates.io rustberg): a Cedar-authorized Iceberg REST catalog in
// Rust, one binary, its catalog in an embedded redb file or in PostgreSQL.
// containers/rustberg_up.sh starts it with an API key of its own making; the
// key reaches the client as the bearer token prop KATBENCH_RUSTBERG_PROPS
// carries.

// StoreRedb is a redb file (Rustberg's embedded catalog), beside the Store
// constants of competitor.go.
const StoreRedb = "redb"

const (
	rustbergExample = "http://HOST:8381 (Rustberg serves Iceberg REST at the root; containers/rustberg_up.sh listens on 8381, 8391 with --store postgres)"
	rustbergDirect  = "http://127.0.0.1:8381 --prop token=API_KEY"
)

var rustbergServers = []remoteRESTServer{
	{
		name:    "rustberg",
		usage:   "URL [WAREHOUSE]",
		desc:    "Rustberg, Cedar-authorized Iceberg REST catalog in Rust, catalog in an embedded redb file (containers/rustberg_up.sh)",
		example: rustbergExample,
		direct:  rustbergDirect,
		store:   StoreRedb,
		up:      "containers/rustberg_up.sh",
	},
	{
		name:    "rustberg-pg",
		usage:   "URL [WAREHOUSE]",
		desc:    "Rustberg, Cedar-authorized Iceberg REST catalog in Rust, catalog on PostgreSQL (containers/rustberg_up.sh --store postgres)",
		example: rustbergExample,
		direct:  rustbergDirect,
		store:   StorePostgreSQL,
		up:      "containers/rustberg_up.sh --store postgres",
	},
}

func init() {
	for _, s := range rustbergServers {
		registerRemoteREST(s)
	}
}
