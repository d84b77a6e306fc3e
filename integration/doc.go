// Package integration holds katbench's end-to-end tests: real servers started
// through containers/*_up.sh (versitygw, Nessie, the Apache Iceberg REST
// fixture), the katbench binary built from ./cmd/katbench, and assertions on
// the JSONL it prints. Nothing here is mocked.
//
// Run with `make integration` or `go test ./integration/...`. Outside CI a
// missing outside part (Java, Maven, network answer) skips with the reason;
// with CI=true it fails (see internal/testenv). The first run downloads the
// Nessie runner jar and the fixture's classpath into $KATBENCH_CACHE.
package integration
