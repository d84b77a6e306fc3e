#!/usr/bin/env bash
# polaris_up.sh — start Apache Polaris (Docker, or without Docker a Quarkus
# fast-jar built once from Maven Central) and bootstrap a catalog katbench can use.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=polaris_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

POLARIS_VERSION=1.4.1
POLARIS_IMAGE=${KATBENCH_POLARIS_IMAGE:-apache/polaris:latest}
CLIENT_ID=root
CLIENT_SECRET=s3cr3t
SCOPE=PRINCIPAL_ROLE:ALL
CATALOG=katbench
CATALOG_ROLE=katbench_content
PRINCIPAL_ROLE=service_admin
DOCKER_LOCATION=file:///tmp/katbench_polaris_warehouse/

USAGE="usage: polaris_up.sh [--store memory|postgres] [--port N] [--dry-run] [--install-only]

Starts Apache Polaris $POLARIS_VERSION on 127.0.0.1, with the persistence
--store names:

  memory    in-memory (default; a restart loses everything): competitor
            polaris, state dir polaris, port 8281
  postgres  relational-jdbc on database polaris of postgres_up.sh's cluster
            (started when none runs; the realm is bootstrapped at start),
            warehouse in the state dir polaris-pg-store (kept when the server
            dies, so a restart finds it): competitor polaris-pg, port 8291,
            always the jar (no Docker)

Both can run at once. It bootstraps it: root
credentials $CLIENT_ID:$CLIENT_SECRET in realm POLARIS, FILE storage allowed,
an OAuth token with scope=$SCOPE, an INTERNAL catalog '$CATALOG' on a file://
warehouse (drop-with-purge enabled: Polaris purges a dropped view, and
refuses the drop without it), a catalog role '$CATALOG_ROLE' granted CATALOG_MANAGE_CONTENT and
assigned to the principal role '$PRINCIPAL_ROLE' that root holds. Then prints:

  eval \"\$(containers/polaris_up.sh)\"
  # KATBENCH_POLARIS_URL=http://127.0.0.1:N/api/catalog,
  # KATBENCH_POLARIS_WAREHOUSE=$CATALOG,
  # KATBENCH_POLARIS_PROPS=\"credential=$CLIENT_ID:$CLIENT_SECRET,scope=$SCOPE\",
  # KATBENCH_POLARIS_SERVER_VERSION (KATBENCH_POLARIS_PG_* with --store postgres)
  # (Polaris' own client properties: BENCH_REST_PROPS would hand Polaris'
  # OAuth settings to every REST competitor of the run, Nessie's included)

How it runs:
  - Docker ($POLARIS_IMAGE) when a Docker daemon answers
    (KATBENCH_NO_DOCKER=1 skips this); the warehouse is inside the container.
  - Otherwise the Quarkus fast-jar in
    \$KATBENCH_CACHE/polaris/$POLARIS_VERSION-KIT/quarkus-app (KIT: a hash of
    the build inputs' content, so a changed kit is built again), run with Java >= 21
    (~25-40 s to ready, ~310 MB RSS), warehouse in the state dir. No runnable
    Polaris is published, so the first run BUILDS it (about 10 min on 2 cores,
    up to 20 on a busy machine; ~400 MB into ~/.m2, ~170 MB into the cache),
    with progress lines every 30 s and the full Maven log in
    \$KATBENCH_CACHE/polaris/build.log. It needs mvn, curl, Java 25
    (POLARIS_JAVA_HOME, default /usr/lib/jvm/temurin-25-jdk-amd64 or the
    newest JDK >= 25 under /usr/lib/jvm) and the build inputs in POLARIS_SRC:
    the folder layout of the team's shared/third_party/polaris (server/pom.xml,
    server/spec, server/server-templates, server/src: the Apache-2.0 inputs
    from the apache-polaris-$POLARIS_VERSION tag plus our pom.xml; see
    RECIPE.md there). Default: ../shared/third_party/polaris beside the repo.

  --store S         persistence (above)
  --port N          Polaris API port (default per store); the management
                    (health) port is N+1
  --dry-run         print the bootstrap's HTTP calls (method, URL, body) on
                    stdout and exit 0; starts and needs nothing
  --install-only    without Docker: build the fast-jar into the cache if it
                    is missing, then exit without starting (make setup)

KATBENCH_JAVA_OPTS adds JVM flags. Stop it with containers/polaris_down.sh
--store S, which removes the state dir (warehouse included) and, with
postgres, empties database polaris; nothing else."
kb_usage_if_help "$USAGE" "$@"

port=''
store=memory
dry=0
install_only=0
while [ $# -gt 0 ]; do
	case "$1" in
	--store)
		[ $# -ge 2 ] || kb_die "--store needs a value"
		store=$2
		shift 2
		;;
	--store=*) store=${1#*=} && shift ;;
	--port)
		[ $# -ge 2 ] || kb_die "--port needs a value"
		port=$2
		shift 2
		;;
	--port=*)
		port=${1#--port=}
		shift
		;;
	--dry-run)
		dry=1
		shift
		;;
	--install-only)
		install_only=1
		shift
		;;
	*) kb_die "unknown argument '$1' (see --help)" ;;
	esac
done
case "$store" in
memory) name=polaris dport=8281 ;;
postgres) name=polaris-pg dport=8291 ;;
*) kb_die "unknown --store '$store' (want memory or postgres)" ;;
esac
port=${port:-$dport}
prefix=KATBENCH_$(printf '%s' "$name" | tr '[:lower:]-' '[:upper:]_')
kb_valid_port "$port"
[ "$port" -lt 65535 ] || kb_die "--port must leave room for the management port on port+1"
mport=$((port + 1))
base="http://127.0.0.1:$port"
token=''

# call METHOD URL BODY [form] makes one bootstrap call (or prints it with
# --dry-run). BODY is JSON unless the 4th argument is "form". A 409 (already
# exists) counts as success, so a bootstrap can be rerun. Prints the response.
call() {
	local method=$1 url=$2 body=$3 kind=${4:-json} code out
	if [ "$dry" = 1 ]; then
		# fd 3 is the script's stdout: callers capture or drop call's own.
		printf '%s %s\n' "$method" "$url" >&3
		if [ "$kind" = form ]; then
			printf '  Content-Type: application/x-www-form-urlencoded\n  %s\n' "$body" >&3
		else
			printf '  Authorization: Bearer <token>\n  Polaris-Realm: POLARIS\n  Content-Type: application/json\n  %s\n' "$body" >&3
		fi
		return 0
	fi
	out="$state/call.out"
	if [ "$kind" = form ]; then
		code=$(curl -s -o "$out" -w '%{http_code}' -m 30 -X "$method" "$url" \
			-H 'Content-Type: application/x-www-form-urlencoded' --data "$body" || true)
	else
		code=$(curl -s -o "$out" -w '%{http_code}' -m 30 -X "$method" "$url" \
			-H "Authorization: Bearer $token" -H 'Polaris-Realm: POLARIS' \
			-H 'Accept: application/json' -H 'Content-Type: application/json' --data "$body" || true)
	fi
	case "$code" in
	2?? | 409) cat "$out" ;;
	*) kb_die "$method $url failed (HTTP $code): $(head -c 600 "$out" 2>/dev/null)" ;;
	esac
}

bootstrap() {
	local resp
	resp=$(call POST "$base/api/catalog/v1/oauth/tokens" \
		"grant_type=client_credentials&client_id=$CLIENT_ID&client_secret=$CLIENT_SECRET&scope=$SCOPE" form)
	if [ "$dry" = 0 ]; then
		token=$(printf '%s' "$resp" | sed -n 's/.*"access_token"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p')
		[ -n "$token" ] || kb_die "no access_token in the token response: $(printf '%s' "$resp" | head -c 300)"
		# A restart on its own persistence (--store postgres) finds the
		# catalog and its grants there; Polaris answers a repeated grant
		# with a 500 (duplicate key), so they are not made twice.
		if [ "${restarted:-0}" = 1 ] && [ "$(curl -s -o /dev/null -w '%{http_code}' -m 30 \
			-H "Authorization: Bearer $token" -H 'Polaris-Realm: POLARIS' \
			"$base/api/management/v1/catalogs/$CATALOG" || true)" = 200 ]; then
			kb_log "catalog $CATALOG is in the persistence already (restart): no bootstrap calls"
			return 0
		fi
	fi
	call POST "$base/api/management/v1/catalogs" \
		"{\"catalog\":{\"name\":\"$CATALOG\",\"type\":\"INTERNAL\",\"readOnly\":false,\"properties\":{\"default-base-location\":\"$LOCATION\",\"polaris.config.drop-with-purge.enabled\":\"true\"},\"storageConfigInfo\":{\"storageType\":\"FILE\",\"allowedLocations\":[\"$LOCATION\"]}}}" >/dev/null
	call POST "$base/api/management/v1/catalogs/$CATALOG/catalog-roles" \
		"{\"catalogRole\":{\"name\":\"$CATALOG_ROLE\",\"properties\":{}}}" >/dev/null
	call PUT "$base/api/management/v1/catalogs/$CATALOG/catalog-roles/$CATALOG_ROLE/grants" \
		'{"grant":{"type":"catalog","privilege":"CATALOG_MANAGE_CONTENT"}}' >/dev/null
	call PUT "$base/api/management/v1/principal-roles/$PRINCIPAL_ROLE/catalog-roles/$CATALOG" \
		"{\"catalogRole\":{\"name\":\"$CATALOG_ROLE\"}}" >/dev/null
}

# polaris_src prints the folder holding the build inputs (POLARIS_SRC).
polaris_src() {
	printf '%s\n' "${POLARIS_SRC:-$(kb_shared_dir)/third_party/polaris}"
}

# polaris_inputs prints the folder holding server/pom.xml's inputs
# (POLARIS_SRC/server, or POLARIS_SRC itself when it is that folder); it
# dies when POLARIS_SRC has neither layout.
polaris_inputs() {
	local src
	src=$(polaris_src)
	if [ -f "$src/server/pom.xml" ]; then
		printf '%s\n' "$src/server"
	elif [ -f "$src/pom.xml" ] && [ -d "$src/spec" ] && [ -d "$src/server-templates" ] && [ -d "$src/src" ]; then
		printf '%s\n' "$src"
	else
		kb_die "no Polaris build inputs in POLARIS_SRC=$src: want the folder layout of the team's shared/third_party/polaris (server/pom.xml, server/spec, server/server-templates, server/src; see its RECIPE.md). Set POLARIS_SRC, or run with Docker."
	fi
}

# polaris_kit_hash prints a short hash of the content of every file of the
# build inputs (POLARIS_SRC), names included: the build cache's key, so a
# jar built from an older kit (without JDBC persistence) is never reused.
polaris_kit_hash() {
	local src
	src=$(polaris_src)
	polaris_inputs >/dev/null || return 1
	(cd "$src" && find . -type f ! -name '*.md' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-12)
}

# polaris_app prints the cached fast-jar's folder (quarkus-app) for the
# current build inputs.
polaris_app() {
	local h
	h=$(polaris_kit_hash) || return 1
	[ -n "$h" ] || return 1
	printf '%s\n' "$(kb_cache_dir)/polaris/$POLARIS_VERSION-$h/quarkus-app"
}

# build_java_home prints the JDK the build uses: POLARIS_JAVA_HOME, else
# Temurin 25 where the recipe was established, else the newest JDK >= 25.
build_java_home() {
	local cand best='' bestv=0 v
	if [ -n "${POLARIS_JAVA_HOME:-}" ]; then
		[ -x "$POLARIS_JAVA_HOME/bin/javac" ] || kb_die "POLARIS_JAVA_HOME=$POLARIS_JAVA_HOME has no bin/javac"
		printf '%s\n' "$POLARIS_JAVA_HOME"
		return
	fi
	if [ -x /usr/lib/jvm/temurin-25-jdk-amd64/bin/javac ]; then
		printf '%s\n' /usr/lib/jvm/temurin-25-jdk-amd64
		return
	fi
	for cand in /usr/lib/jvm/*; do
		if [ ! -x "$cand/bin/javac" ] || [ -L "$cand" ]; then continue; fi
		v=$(kb_java_major "$cand/bin/java")
		if [ "$v" -ge 25 ] && [ "$v" -gt "$bestv" ]; then
			best=$cand
			bestv=$v
		fi
	done
	[ -n "$best" ] || kb_die "building Polaris needs a JDK >= 25 (set POLARIS_JAVA_HOME; the recipe used /usr/lib/jvm/temurin-25-jdk-amd64)"
	printf '%s\n' "$best"
}

# run_logged WHAT LOG CMD... runs CMD with its output appended to LOG and a
# progress line on stderr every 30 s (elapsed time, the Maven phase or
# download it is in); on failure it shows the log's tail and dies.
run_logged() {
	local what=$1 log=$2 pid start next last
	shift 2
	start=$SECONDS
	next=$((start + 30))
	"$@" >>"$log" 2>&1 &
	pid=$!
	while kb_pid_alive "$pid"; do
		sleep 1
		if [ "$SECONDS" -ge "$next" ]; then
			next=$((next + 30))
			last=$(grep -E '^\[INFO\] (--- |Download(ed|ing) from|Building|Generating|Compiling|\[)' "$log" 2>/dev/null |
				tail -n 1 | sed 's/^\[INFO\] //' | cut -c1-110 || true)
			kb_log "$what: $((SECONDS - start))s elapsed, now: ${last:-starting}"
		fi
	done
	if ! wait "$pid"; then
		kb_log "last lines of $log:"
		tail -n 40 "$log" >&2 || true
		kb_die "$what failed after $((SECONDS - start))s (full log: $log)"
	fi
	kb_log "$what: done in $((SECONDS - start))s"
}

# build_polaris assembles the Polaris fast-jar into the cache, once: the two
# published Polaris jars installed under local.polaris with generated POMs
# (their parent POM is not served), then `mvn package` of POLARIS_SRC's
# server/pom.xml, which regenerates the API modules from the OpenAPI specs
# and runs the Quarkus build. The result appears atomically (rename).
build_polaris() {
	local src inputs app cache work repo a jar jhome log
	# build_polaris runs as `(build_polaris) || …`, where set -e is off:
	# every step that can fail exits by itself.
	app=$(polaris_app) || exit 1
	cache="$(kb_cache_dir)/polaris"
	kb_lock "$cache/.lock"
	[ ! -f "$app/quarkus-run.jar" ] || return 0
	src=$(polaris_src)
	inputs=$(polaris_inputs) || exit 1
	[ -f "$inputs/pom.xml" ] || kb_die "no pom.xml in the Polaris build inputs '$inputs'"
	kb_need_cmd mvn "to build Polaris from Maven Central"
	kb_need_cmd curl "to fetch the published Polaris jars"
	jhome=$(build_java_home)
	log="$cache/build.log"
	: >"$log"
	kb_log "building Polaris $POLARIS_VERSION from $inputs with $jhome into $app: first run only, about 10 min on 2 cores (up to 20 on a busy machine); Maven log in $log"
	work=$(mktemp -d "$cache/build.XXXXXX")
	# build_polaris runs in a subshell of its own: EXIT is the end of the build.
	# shellcheck disable=SC2064 # expand now: work is local
	trap "rm -rf -- '$work'" EXIT
	mkdir -p "$work/src-tree"
	cp -r "$inputs/." "$work/src-tree/"
	# Polaris' JDBC persistence is not published: when the kit has its
	# module's sources (persistence/relational-jdbc, runtime/common), they
	# are compiled into the same jar, as the kit's build.sh does.
	if [ -d "$src/persistence/relational-jdbc/src/main/java" ]; then
		cp -r "$src/persistence/relational-jdbc/src/main/java/." "$work/src-tree/src/main/java/"
		cp -r "$src/persistence/relational-jdbc/src/main/resources/." "$work/src-tree/src/main/resources/"
	fi
	if [ -d "$src/runtime/common/src/main/java" ]; then
		cp -r "$src/runtime/common/src/main/java/." "$work/src-tree/src/main/java/"
	fi
	export JAVA_HOME=$jhome
	# Maven's own central URL, from its super POM: the jars come from where
	# every other dependency comes from (a mirror, if one is configured).
	repo=$( (cd "$work" && mvn -B -q -Dstyle.color=never help:evaluate \
		-Dexpression='project.repositories[0].url' -DforceStdout 2>>"$log") |
		sed 's/\x1b\[[0-9;]*m//g' | tr -d '[:space:]' || true)
	[ -n "$repo" ] || kb_die "cannot read Maven's central repository URL (mvn help:evaluate; log $log)"
	for a in polaris-core polaris-runtime-service; do
		jar="$work/$a-$POLARIS_VERSION.jar"
		kb_log "fetching $a-$POLARIS_VERSION.jar from $repo"
		curl -fsS -m 300 -o "$jar" "$repo/org/apache/polaris/$a/$POLARIS_VERSION/$a-$POLARIS_VERSION.jar" ||
			kb_die "could not download $a $POLARIS_VERSION from $repo"
		mvn -B -q install:install-file -Dfile="$jar" -DgroupId=local.polaris \
			-DartifactId="$a" -Dversion="$POLARIS_VERSION" -Dpackaging=jar -DgeneratePom=true >>"$log" 2>&1 ||
			kb_die "mvn install:install-file $a failed (log $log)"
	done
	export MAVEN_OPTS=-Xmx2g
	(cd "$work/src-tree" && run_logged "mvn package (downloads, code generation, compile, Quarkus build)" "$log" \
		mvn -B -Dstyle.color=never package -DskipTests)
	[ -f "$work/src-tree/target/quarkus-app/quarkus-run.jar" ] || kb_die "mvn package produced no target/quarkus-app/quarkus-run.jar (log $log)"
	rm -rf -- "$(dirname -- "$app").partial"
	mkdir -p "$(dirname -- "$app").partial"
	mv -- "$work/src-tree/target/quarkus-app" "$(dirname -- "$app").partial/"
	rm -rf -- "$(dirname -- "$app")"
	mv -- "$(dirname -- "$app").partial" "$(dirname -- "$app")"
	kb_log "built $app/quarkus-run.jar ($(du -sh "$app" | cut -f1))"
}

# ensure_polaris_app prints the fast-jar folder, building it when missing.
ensure_polaris_app() {
	local app
	app=$(polaris_app) || exit 1
	if [ ! -f "$app/quarkus-run.jar" ]; then
		(build_polaris) || exit $?
	fi
	printf '%s\n' "$app"
}

if [ "$dry" = 1 ]; then
	LOCATION="file://$(kb_state_dir "$name")/warehouse/"
	exec 3>&1
	bootstrap
	exit 0
fi

if [ "$install_only" = 1 ]; then
	if kb_docker_ok; then
		kb_log "a Docker daemon answers: polaris_up.sh will run $POLARIS_IMAGE; nothing to build"
		exit 0
	fi
	app=$(ensure_polaris_app)
	kb_log "Polaris fast-jar ready: $app/quarkus-run.jar"
	exit 0
fi

state=$(kb_state_dir "$name")
healthy() { kb_http_ok "http://127.0.0.1:$(($(cat "$state/port") + 1))/q/health/ready"; }
kb_existing "$state" healthy
kb_require_free_port "$port" "Polaris API"
kb_require_free_port "$mport" "Polaris management"
kb_need_cmd curl "health checks and the bootstrap calls"

if kb_docker_ok && [ "$store" = memory ]; then
	kb_undo_on_failure "$HERE/polaris_down.sh"
	mkdir -p "$state"
	printf '%s\n' "$port" >"$state/port"
	LOCATION=$DOCKER_LOCATION
	kb_log "starting $POLARIS_IMAGE with Docker on 127.0.0.1:$port"
	cid=$(timeout 600 docker run -d -p "127.0.0.1:$port:8181" -p "127.0.0.1:$mport:8182" \
		-e "POLARIS_BOOTSTRAP_CREDENTIALS=POLARIS,$CLIENT_ID,$CLIENT_SECRET" \
		-e 'polaris.realm-context.realms=POLARIS' \
		-e 'polaris.features."SUPPORTED_CATALOG_STORAGE_TYPES"=["FILE","S3"]' \
		-e 'polaris.features."ALLOW_INSECURE_STORAGE_TYPES"=true' \
		-e 'polaris.readiness.ignore-severe-issues=true' \
		-e 'quarkus.otel.sdk.disabled=true' \
		"$POLARIS_IMAGE") || kb_die "docker run $POLARIS_IMAGE failed"
	printf '%s\n' "$cid" >"$state/container"
else
	java_home=$(kb_java_home 21) ||
		kb_die "Polaris needs Java >= 21 and no Docker engine answers: set JAVA_HOME to a JDK 21+ or install one under /usr/lib/jvm"
	# Built before any state exists: a failed build leaves no state behind.
	app=$(ensure_polaris_app)
	kb_undo_with "$HERE/polaris_down.sh" --store "$store" --keep-store
	mkdir -p "$state/tmp"
	printf '%s\n' "$port" >"$state/port"
	persist=()
	dbenv=()
	if [ "$store" = postgres ]; then
		pgexports=$(kb_pg_ensure "$state") || kb_die "could not start PostgreSQL for Polaris' persistence"
		eval "$pgexports"
		wdir="$(kb_state_dir polaris-pg-store)/warehouse"
		if [ -d "$wdir" ]; then
			kb_log "reusing the warehouse in $wdir (containers/polaris_down.sh --store postgres empties it)"
		fi
		persist=(-Dpolaris.persistence.type=relational-jdbc)
		# Polaris refuses to bootstrap a realm twice ("already been
		# bootstrapped"): only a database without Polaris' schema is
		# bootstrapped at start; a restart finds its realm there.
		tables=$(kb_pg_psql "$KATBENCH_PG_POLARIS_DB" -At <<<"SELECT count(*) FROM information_schema.tables WHERE table_schema = 'polaris_schema'") ||
			kb_die "cannot read database $KATBENCH_PG_POLARIS_DB of the PostgreSQL cluster"
		if [ "$tables" = 0 ]; then
			persist+=(-Dpolaris.persistence.auto-bootstrap-types=relational-jdbc)
		else
			kb_log "database $KATBENCH_PG_POLARIS_DB holds a bootstrapped Polaris ($tables tables in polaris_schema): starting on it"
			restarted=1
		fi
		# The datasource through the environment: the password stays off
		# the command line.
		dbenv=("QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://$KATBENCH_PG_HOST:$KATBENCH_PG_PORT/$KATBENCH_PG_POLARIS_DB"
			"QUARKUS_DATASOURCE_USERNAME=$KATBENCH_PG_POLARIS_USER" "QUARKUS_DATASOURCE_PASSWORD=$KATBENCH_PG_PASSWORD")
	else
		wdir="$state/warehouse"
	fi
	mkdir -p "$wdir"
	LOCATION="file://$wdir/"
	kb_log "starting Polaris $POLARIS_VERSION ($store persistence, $app) with $java_home on 127.0.0.1:$port (log $state/log)"
	# shellcheck disable=SC2086 # KATBENCH_JAVA_OPTS is a list of flags
	kb_start_bg "$state" env -C "$state" "POLARIS_BOOTSTRAP_CREDENTIALS=POLARIS,$CLIENT_ID,$CLIENT_SECRET" "${dbenv[@]}" \
		"$java_home/bin/java" ${KATBENCH_JAVA_OPTS:-} -Djava.io.tmpdir="$state/tmp" "${persist[@]}" \
		-Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$port" \
		-Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$mport" \
		-Dpolaris.realm-context.realms=POLARIS \
		'-Dpolaris.features."SUPPORTED_CATALOG_STORAGE_TYPES"=["FILE","S3"]' \
		'-Dpolaris.features."ALLOW_INSECURE_STORAGE_TYPES"=true' \
		-Dpolaris.readiness.ignore-severe-issues=true \
		-Dquarkus.otel.sdk.disabled=true -Dquarkus.log.file.enabled=false \
		-jar "$app/quarkus-run.jar"
fi
kb_wait_ready "$state" 240 Polaris healthy
bootstrap

props="credential=$CLIENT_ID:$CLIENT_SECRET,scope=$SCOPE"
kb_write_exports "$state" \
	"${prefix}_URL=$base/api/catalog" \
	"${prefix}_WAREHOUSE=$CATALOG" \
	"${prefix}_PROPS=$props" \
	"${prefix}_SERVER_VERSION=$POLARIS_VERSION"
kb_log "Polaris ($store persistence, competitor $name) ready at $base/api/catalog (warehouse $CATALOG)"
kb_print_exports "$state"
