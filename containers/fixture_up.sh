#!/usr/bin/env bash
# fixture_up.sh — start the Apache Iceberg REST fixture (RESTCatalogServer).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=fixture_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

ICEBERG_VERSION=1.10.1

USAGE="usage: fixture_up.sh [--port N] [--install-only]

Starts org.apache.iceberg.rest.RESTCatalogServer — the Apache Iceberg REST
reference server (test-fixtures jar of org.apache.iceberg:iceberg-open-api
$ICEBERG_VERSION, the code of the apache/iceberg-rest-fixture image) — with
java on Java 17..21, its JDBC catalog on a SQLite file and a file:// warehouse,
both in a temp dir. Waits until GET /v1/config answers, then prints:

  eval \"\$(containers/fixture_up.sh)\"   # KATBENCH_FIXTURE_URL, KATBENCH_FIXTURE_WAREHOUSE

  --port N          listen port (default 8181). Note: the fixture binds all
                    interfaces (Jetty's default); it has no option for loopback only.
  --install-only    fetch the classpath into the cache and exit (make setup)

The classpath (about 70 MB, listed in containers/fixture/pom.xml) is fetched
once with mvn into \$KATBENCH_CACHE/fixture-$ICEBERG_VERSION. Other CATALOG_*
variables pass through to the server (CATALOG_URI=... replaces the SQLite
file). KATBENCH_JAVA_OPTS adds JVM flags. Stop it with containers/fixture_down.sh."
kb_usage_if_help "$USAGE" "$@"

# fixture_lib prints the cached classpath folder, fetching it once.
fixture_lib() {
	local lib
	lib="$(kb_cache_dir)/fixture-$ICEBERG_VERSION/lib"
	if [ ! -f "$lib/.complete" ]; then
		kb_need_cmd mvn "to fetch the fixture's classpath from Maven Central"
		kb_log "fetching the REST fixture classpath into $lib (first run only)"
		rm -rf -- "$lib"
		mkdir -p "$lib"
		mvn -q -B -f "$HERE/fixture/pom.xml" dependency:copy-dependencies \
			-DincludeScope=runtime -DoutputDirectory="$lib" >&2 ||
			kb_die "mvn could not fetch the fixture classpath (containers/fixture/pom.xml)"
		[ -f "$lib/iceberg-open-api-$ICEBERG_VERSION-test-fixtures.jar" ] ||
			kb_die "mvn ran but $lib has no iceberg-open-api test-fixtures jar"
		touch "$lib/.complete"
	fi
	printf '%s\n' "$lib"
}

if kb_install_only "$@"; then
	kb_log "REST fixture classpath ready: $(fixture_lib)"
	exit 0
fi

port=$(kb_port_option 8181 "$@")

state=$(kb_state_dir fixture)
healthy() { kb_http_ok "http://127.0.0.1:$(cat "$state/port")/v1/config"; }
kb_existing "$state" healthy
kb_require_free_port "$port" "Iceberg REST fixture"
kb_undo_on_failure "$HERE/fixture_down.sh"
kb_need_cmd curl "health checks"

java_home=$(kb_java_home 17 21) ||
	kb_die "the REST fixture needs Java 17..21 (Hadoop fails on newer JVMs): set JAVA_HOME or install openjdk-17-jre-headless"

lib=$(fixture_lib)

mkdir -p "$state/warehouse"
printf '%s\n' "$port" >"$state/port"
warehouse="file://$state/warehouse"
# A file, not :memory:: each pooled JDBC connection to :memory: would see a
# database of its own, so concurrent clients would miss each other's tables.
catalog_uri=${CATALOG_URI:-jdbc:sqlite:file:$state/catalog.db}
# shellcheck disable=SC2086 # KATBENCH_JAVA_OPTS is a list of flags
kb_start_bg "$state" env CATALOG_WAREHOUSE="$warehouse" CATALOG_URI="$catalog_uri" \
	CATALOG_REST_PORT="$port" \
	"$java_home/bin/java" ${KATBENCH_JAVA_OPTS:-} -Djava.io.tmpdir="$state" \
	-cp "$lib/*" org.apache.iceberg.rest.RESTCatalogServer
kb_log "starting the REST fixture on :$port with $java_home (log $state/log)"
kb_wait_ready "$state" 120 "REST fixture" healthy

kb_write_exports "$state" \
	"KATBENCH_FIXTURE_URL=http://127.0.0.1:$port" \
	"KATBENCH_FIXTURE_WAREHOUSE=$warehouse"
kb_log "REST fixture ready at http://127.0.0.1:$port"
kb_print_exports "$state"
