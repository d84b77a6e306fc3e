#!/usr/bin/env bash
# fixture_up.sh — start the Apache Iceberg REST fixture (RESTCatalogServer).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=fixture_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

ICEBERG_VERSION=1.10.1

USAGE="usage: fixture_up.sh [--store sqlite|postgres] [--port N] [--install-only]

Starts org.apache.iceberg.rest.RESTCatalogServer — the Apache Iceberg REST
reference server (test-fixtures jar of org.apache.iceberg:iceberg-open-api
$ICEBERG_VERSION, the code of the apache/iceberg-rest-fixture image) — with
java on Java 17..21 and a file:// warehouse, its JDBC catalog on the store
--store names:

  sqlite    a SQLite file in the state dir fixture (default; one writer at a
            time): competitor fixture, port 8181
  postgres  database fixture of postgres_up.sh's cluster (started when none
            runs), warehouse in the state dir fixture-pg-store (kept when the
            server dies, so a restart finds it): competitor fixture-pg, port 8191

Both can run at once. Waits until GET /v1/config answers, then prints:

  eval \"\$(containers/fixture_up.sh)\"   # KATBENCH_FIXTURE_URL, KATBENCH_FIXTURE_WAREHOUSE
  # (KATBENCH_FIXTURE_PG_* with --store postgres; *_SERVER_VERSION too)

  --store S         the catalog's store (above)
  --port N          listen port (default per store). Note: the fixture binds all
                    interfaces (Jetty's default); it has no option for loopback only.
  --install-only    fetch the classpath into the cache and exit (make setup)

The classpath (about 70 MB, listed in containers/fixture/pom.xml) is fetched
once with mvn into \$KATBENCH_CACHE/fixture-$ICEBERG_VERSION. Other CATALOG_*
variables pass through to the server (CATALOG_URI=... replaces the SQLite
file). KATBENCH_JAVA_OPTS adds JVM flags. Stop it with
containers/fixture_down.sh --store S."
kb_usage_if_help "$USAGE" "$@"

# fixture_lib prints the cached classpath folder, fetching it once.
fixture_lib() {
	local lib
	local want
	lib="$(kb_cache_dir)/fixture-$ICEBERG_VERSION/lib"
	# Keyed by the POM's content: a classpath fetched for an older POM
	# (without the PostgreSQL driver) is fetched again.
	want=$(sha256sum "$HERE/fixture/pom.xml" | cut -c1-16)
	if [ "$(cat "$lib/.complete" 2>/dev/null)" != "$want" ]; then
		kb_need_cmd mvn "to fetch the fixture's classpath from Maven Central"
		kb_log "fetching the REST fixture classpath into $lib (first run only)"
		rm -rf -- "$lib"
		mkdir -p "$lib"
		mvn -q -B -f "$HERE/fixture/pom.xml" dependency:copy-dependencies \
			-DincludeScope=runtime -DoutputDirectory="$lib" >&2 ||
			kb_die "mvn could not fetch the fixture classpath (containers/fixture/pom.xml)"
		[ -f "$lib/iceberg-open-api-$ICEBERG_VERSION-test-fixtures.jar" ] ||
			kb_die "mvn ran but $lib has no iceberg-open-api test-fixtures jar"
		printf '%s\n' "$want" >"$lib/.complete"
	fi
	printf '%s\n' "$lib"
}

if kb_install_only "$@"; then
	kb_log "REST fixture classpath ready: $(fixture_lib)"
	exit 0
fi

store=$(kb_store_option "$@")
store=${store:-sqlite}
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--store) shift 2 ;;
	--store=*) shift ;;
	*) args+=("$1") && shift ;;
	esac
done
case "$store" in
sqlite) name=fixture dport=8181 ;;
postgres) name=fixture-pg dport=8191 ;;
*) kb_die "unknown --store '$store' (want sqlite or postgres)" ;;
esac
port=$(kb_port_option "$dport" "${args[@]}")
prefix=KATBENCH_$(printf '%s' "$name" | tr '[:lower:]-' '[:upper:]_')

state=$(kb_state_dir "$name")
healthy() { kb_http_ok "http://127.0.0.1:$(cat "$state/port")/v1/config"; }
kb_existing "$state" healthy
kb_require_free_port "$port" "Iceberg REST fixture"
kb_undo_with "$HERE/fixture_down.sh" --store "$store" --keep-store
kb_need_cmd curl "health checks"

java_home=$(kb_java_home 17 21) ||
	kb_die "the REST fixture needs Java 17..21 (Hadoop fails on newer JVMs): set JAVA_HOME or install openjdk-17-jre-headless"

lib=$(fixture_lib)

mkdir -p "$state"
printf '%s\n' "$port" >"$state/port"
jdbcenv=()
if [ "$store" = postgres ]; then
	pgexports=$(kb_pg_ensure "$state") || kb_die "could not start PostgreSQL for the fixture's JDBC catalog"
	eval "$pgexports"
	wdir="$(kb_state_dir fixture-pg-store)/warehouse"
	if [ -d "$wdir" ]; then
		kb_log "reusing the warehouse in $wdir (containers/fixture_down.sh --store postgres empties it)"
	fi
	catalog_uri="jdbc:postgresql://$KATBENCH_PG_HOST:$KATBENCH_PG_PORT/$KATBENCH_PG_FIXTURE_DB"
	jdbcenv=("CATALOG_JDBC_USER=$KATBENCH_PG_FIXTURE_USER" "CATALOG_JDBC_PASSWORD=$KATBENCH_PG_PASSWORD")
else
	wdir="$state/warehouse"
	# A file, not :memory:: each pooled JDBC connection to :memory: would see a
	# database of its own, so concurrent clients would miss each other's tables.
	catalog_uri=${CATALOG_URI:-jdbc:sqlite:file:$state/catalog.db}
fi
mkdir -p "$wdir"
warehouse="file://$wdir"
# shellcheck disable=SC2086 # KATBENCH_JAVA_OPTS is a list of flags
kb_start_bg "$state" env CATALOG_WAREHOUSE="$warehouse" CATALOG_URI="$catalog_uri" \
	CATALOG_REST_PORT="$port" "${jdbcenv[@]}" \
	"$java_home/bin/java" ${KATBENCH_JAVA_OPTS:-} -Djava.io.tmpdir="$state" \
	-cp "$lib/*" org.apache.iceberg.rest.RESTCatalogServer
kb_log "starting the REST fixture on :$port with $java_home (log $state/log)"
kb_wait_ready "$state" 120 "REST fixture" healthy

kb_write_exports "$state" \
	"${prefix}_URL=http://127.0.0.1:$port" \
	"${prefix}_WAREHOUSE=$warehouse" \
	"${prefix}_SERVER_VERSION=$ICEBERG_VERSION"
kb_log "REST fixture (JDBC catalog on $store, competitor $name) ready at http://127.0.0.1:$port"
kb_print_exports "$state"
