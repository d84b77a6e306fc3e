#!/usr/bin/env bash
# nessie_up.sh — start Project Nessie (Iceberg REST) with an S3 warehouse on a local store.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=nessie_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

NESSIE_VERSION=${KATBENCH_NESSIE_VERSION:-0.99.0}
WAREHOUSE=warehouse
# SHA-256 of an empty body; S3 servers want it in x-amz-content-sha256.
EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

USAGE="usage: nessie_up.sh [--store memory|jdbc|rocksdb] [--port N] [--management-port N] [--s3-port N] [--install-only]

Starts Nessie $NESSIE_VERSION and its Iceberg REST catalog on 127.0.0.1, with
the version store --store names:

  memory    IN_MEMORY (default; a restart loses everything): competitor
            nessie, state dir nessie, ports 19120/19121, bucket katbench-nessie
  jdbc      JDBC2 on PostgreSQL, database nessie of postgres_up.sh's cluster
            (started when none runs): competitor nessie-pg, state dir
            nessie-pg, ports 19130/19131, bucket katbench-nessie-pg
  rocksdb   ROCKSDB in the state dir nessie-rocks-store (kept when the server
            dies, so a restart finds it): competitor nessie-rocks, state dir
            nessie-rocks, ports 19140/19141, bucket katbench-nessie-rocks

The three can run at once. It runs with Docker (ghcr.io/projectnessie/nessie) when a
Docker engine answers, else the runner uber-jar
org.projectnessie.nessie:nessie-quarkus:$NESSIE_VERSION:jar:runner from Maven
Central (fetched once into \$KATBENCH_CACHE/jars) with java -jar on Java >= 21
(JAVA_HOME if new enough, else a JDK under /usr/lib/jvm).

Nessie refuses file: warehouses, so this also starts (or reuses) versitygw via
versitygw_up.sh, creates the store's bucket on it and points warehouse
'$WAREHOUSE' at it. Prints:

  eval \"\$(containers/nessie_up.sh)\"
  # KATBENCH_NESSIE_URL, KATBENCH_NESSIE_WAREHOUSE, KATBENCH_NESSIE_SERVER_VERSION,
  # KATBENCH_S3_ENDPOINT, AWS_*  (KATBENCH_NESSIE_PG_* with --store jdbc,
  # KATBENCH_NESSIE_ROCKS_* with --store rocksdb)

  --store S             version store (above)
  --port N              Nessie HTTP port (default per store, above)
  --management-port N   Quarkus management/health port (default per store;
                        Nessie's own default 9000 collides with S3 servers)
  --s3-port N           versitygw port when one is started (default 7070)
  --install-only        without Docker: fetch the runner jar into the cache and
                        exit (make setup; versitygw_up.sh --install-only builds
                        the S3 store)

KATBENCH_NESSIE_VERSION picks another version; KATBENCH_JAVA_OPTS adds JVM
flags; KATBENCH_NO_DOCKER=1 forces the jar (--store rocksdb always uses the
jar). Stop with containers/nessie_down.sh --store S (which also stops the
versitygw only if this script started it, and empties the store)."
kb_usage_if_help "$USAGE" "$@"

# nessie_jar prints the cached runner jar, fetching it once.
nessie_jar() {
	kb_mvn_jar "org.projectnessie.nessie:nessie-quarkus:$NESSIE_VERSION:jar:runner" \
		"nessie-quarkus-$NESSIE_VERSION-runner.jar"
}

if kb_install_only "$@"; then
	if kb_docker_ok; then
		kb_log "a Docker daemon answers: nessie_up.sh will run ghcr.io/projectnessie/nessie:$NESSIE_VERSION; nothing to fetch"
	else
		kb_log "Nessie runner jar ready: $(nessie_jar)"
	fi
	exit 0
fi

store=memory
port=''
mport=''
s3port=7070
while [ $# -gt 0 ]; do
	case "$1" in
	--store)
		[ $# -ge 2 ] || kb_die "--store needs a value"
		store=$2
		shift 2
		;;
	--store=*) store=${1#*=} && shift ;;
	--port | --management-port | --s3-port)
		[ $# -ge 2 ] || kb_die "$1 needs a value"
		case "$1" in
		--port) port=$2 ;;
		--management-port) mport=$2 ;;
		--s3-port) s3port=$2 ;;
		esac
		shift 2
		;;
	--port=*) port=${1#*=} && shift ;;
	--management-port=*) mport=${1#*=} && shift ;;
	--s3-port=*) s3port=${1#*=} && shift ;;
	*) kb_die "unknown argument '$1' (see --help)" ;;
	esac
done
case "$store" in
memory) name=nessie dport=19120 ;;
jdbc) name=nessie-pg dport=19130 ;;
rocksdb) name=nessie-rocks dport=19140 ;;
*) kb_die "unknown --store '$store' (want memory, jdbc or rocksdb)" ;;
esac
port=${port:-$dport}
mport=${mport:-$((dport + 1))}
BUCKET=katbench-$name
prefix=KATBENCH_$(printf '%s' "$name" | tr '[:lower:]-' '[:upper:]_')
kb_valid_port "$port"
kb_valid_port "$mport"
kb_valid_port "$s3port"
[ "$port" != "$mport" ] || kb_die "--port and --management-port must differ"

state=$(kb_state_dir "$name")
healthy() { kb_http_ok "http://127.0.0.1:$(cat "$state/port")/iceberg/v1/config?warehouse=$WAREHOUSE"; }
# A server that died leaves its state behind, which kb_existing removes;
# the versitygw it had started is still ours to stop.
[ -f "$state/started-versitygw" ] && had_s3=1 || had_s3=0
kb_existing "$state" healthy
kb_require_free_port "$port" "Nessie HTTP"
kb_require_free_port "$mport" "Nessie management"
kb_undo_with "$HERE/nessie_down.sh" --store "$store" --keep-store
kb_need_cmd curl "health checks and bucket creation"

use_docker=0
if kb_docker_ok && [ "$store" != rocksdb ]; then
	use_docker=1
else
	java_home=$(kb_java_home 21) ||
		kb_die "Nessie needs Java >= 21 and no Docker engine answers: set JAVA_HOME to a JDK 21+ or install one under /usr/lib/jvm"
	jar=$(nessie_jar)
fi

mkdir -p "$state"
printf '%s\n' "$port" >"$state/port"

# The S3 store: reuse a running versitygw recorded in the same state root,
# else start one and remember that we did, so down stops only what we started.
s3state=$(kb_state_dir versitygw)
if [ -f "$s3state/exports" ] && kb_pid_alive "$(kb_recorded_pid "$s3state")"; then
	kb_log "reusing the running versitygw in $s3state"
	[ "$had_s3" = 0 ] || touch "$state/started-versitygw"
else
	touch "$state/started-versitygw"
fi
s3exports=$("$HERE/versitygw_up.sh" --port "$s3port") ||
	kb_die "could not start versitygw for Nessie's warehouse"
eval "$s3exports"
: "${KATBENCH_S3_ENDPOINT:?versitygw_up.sh printed no endpoint}"

code=$(curl -s -o "$state/bucket.out" -w '%{http_code}' -m 10 -X PUT \
	-H "x-amz-content-sha256: $EMPTY_SHA256" \
	--aws-sigv4 "aws:amz:${AWS_REGION:-us-east-1}:s3" \
	--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
	"$KATBENCH_S3_ENDPOINT/$BUCKET" || true)
case "$code" in
2??) touch "$state/created-bucket" ;;
409) kb_log "bucket $BUCKET already exists; using it" ;;
*) kb_die "creating bucket $BUCKET on $KATBENCH_S3_ENDPOINT failed (HTTP $code): $(head -c 400 "$state/bucket.out" 2>/dev/null)" ;;
esac

# One list of settings for both ways of running: a properties file the jar
# reads from ./config/ (keys stay off the command line), an env file for Docker.
case "$store" in
memory) storeprops=("nessie.version.store.type=IN_MEMORY") ;;
jdbc)
	pgexports=$(kb_pg_ensure "$state") || kb_die "could not start PostgreSQL for Nessie's version store"
	eval "$pgexports"
	storeprops=(
		"nessie.version.store.type=JDBC2"
		"nessie.version.store.persist.jdbc.datasource=postgresql"
		"quarkus.datasource.postgresql.jdbc.url=jdbc:postgresql://$KATBENCH_PG_HOST:$KATBENCH_PG_PORT/$KATBENCH_PG_NESSIE_DB"
		"quarkus.datasource.postgresql.username=$KATBENCH_PG_NESSIE_USER"
		"quarkus.datasource.postgresql.password=$KATBENCH_PG_PASSWORD"
	)
	;;
rocksdb)
	rocks="$(kb_state_dir nessie-rocks-store)/rocksdb"
	if [ -d "$rocks" ]; then
		kb_log "reusing the RocksDB version store in $rocks (containers/nessie_down.sh --store rocksdb empties it)"
	fi
	mkdir -p "$rocks"
	storeprops=(
		"nessie.version.store.type=ROCKSDB"
		"nessie.version.store.persist.rocks.database-path=$rocks"
	)
	;;
esac
props=(
	"${storeprops[@]}"
	"nessie.server.authentication.enabled=false"
	"quarkus.http.host=127.0.0.1"
	"quarkus.http.port=$port"
	"quarkus.management.host=127.0.0.1"
	"quarkus.management.port=$mport"
	"quarkus.otel.sdk.disabled=true"
	"nessie.catalog.default-warehouse=$WAREHOUSE"
	"nessie.catalog.warehouses.$WAREHOUSE.location=s3://$BUCKET/"
	"nessie.catalog.service.s3.default-options.endpoint=$KATBENCH_S3_ENDPOINT/"
	"nessie.catalog.service.s3.default-options.path-style-access=true"
	"nessie.catalog.service.s3.default-options.region=${AWS_REGION:-us-east-1}"
	"nessie.catalog.service.s3.default-options.access-key=urn:nessie-secret:quarkus:katbench-secrets.s3"
	"katbench-secrets.s3.name=$AWS_ACCESS_KEY_ID"
	"katbench-secrets.s3.secret=$AWS_SECRET_ACCESS_KEY"
)
mkdir -p "$state/config"
(
	umask 077
	printf '%s\n' "${props[@]}" >"$state/config/application.properties"
	printf '%s\n' "${props[@]}" >"$state/nessie.env"
)

if [ "$use_docker" = 1 ]; then
	kb_log "starting ghcr.io/projectnessie/nessie:$NESSIE_VERSION with Docker (host network)"
	cid=$(timeout 600 docker run -d --network host --env-file "$state/nessie.env" \
		"ghcr.io/projectnessie/nessie:$NESSIE_VERSION") || kb_die "docker run nessie failed"
	printf '%s\n' "$cid" >"$state/container"
	kb_wait_ready "$state" 300 Nessie healthy
else
	kb_log "starting Nessie $NESSIE_VERSION with $java_home on :$port (log $state/log)"
	# shellcheck disable=SC2086 # KATBENCH_JAVA_OPTS is a list of flags
	(cd "$state" && kb_start_bg "$state" "$java_home/bin/java" ${KATBENCH_JAVA_OPTS:-} \
		-Djava.io.tmpdir="$state" -jar "$jar")
	kb_wait_ready "$state" 300 Nessie healthy
fi

kb_write_exports "$state" \
	"${prefix}_URL=http://127.0.0.1:$port/iceberg" \
	"${prefix}_WAREHOUSE=$WAREHOUSE" \
	"${prefix}_SERVER_VERSION=$NESSIE_VERSION" \
	"KATBENCH_S3_ENDPOINT=$KATBENCH_S3_ENDPOINT" \
	"AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID" \
	"AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY" \
	"AWS_REGION=${AWS_REGION:-us-east-1}"
kb_log "Nessie ($store version store, competitor $name) ready at http://127.0.0.1:$port/iceberg (warehouse $WAREHOUSE = s3://$BUCKET/)"
kb_print_exports "$state"
