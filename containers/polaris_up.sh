#!/usr/bin/env bash
# polaris_up.sh — start Apache Polaris (Docker) and bootstrap a catalog katbench can use.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=polaris_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

POLARIS_IMAGE=${KATBENCH_POLARIS_IMAGE:-apache/polaris:latest}
CLIENT_ID=root
CLIENT_SECRET=s3cr3t
SCOPE=PRINCIPAL_ROLE:ALL
CATALOG=katbench
CATALOG_ROLE=katbench_content
PRINCIPAL_ROLE=service_admin
LOCATION=file:///tmp/katbench_polaris_warehouse/

USAGE="usage: polaris_up.sh [--port N] [--dry-run]

Starts Apache Polaris ($POLARIS_IMAGE) with Docker on 127.0.0.1 and
bootstraps it: root credentials $CLIENT_ID:$CLIENT_SECRET in realm POLARIS,
FILE storage allowed, an OAuth token with scope=$SCOPE, an INTERNAL catalog
'$CATALOG' at $LOCATION (inside the container), a catalog role
'$CATALOG_ROLE' granted CATALOG_MANAGE_CONTENT and assigned to the principal
role '$PRINCIPAL_ROLE' that root holds. Then prints:

  eval \"\$(containers/polaris_up.sh)\"
  # KATBENCH_POLARIS_URL, KATBENCH_POLARIS_WAREHOUSE, KATBENCH_POLARIS_PROPS,
  # BENCH_REST_PROPS=\"credential=$CLIENT_ID:$CLIENT_SECRET,scope=$SCOPE\"

  --port N    Polaris API port on the host (default 8281; the management
              port is N+1). The container listens on 8181/8182.
  --dry-run   print the HTTP calls (method, URL, body) the bootstrap makes,
              on stdout, and exit 0; needs no Docker.

Polaris needs Docker: no runnable Polaris server is published on the
registries this machine reaches (Maven Central has polaris-runtime-service, a
library, but no runner jar), so without Docker this exits non-zero.
Stop it with containers/polaris_down.sh."
kb_usage_if_help "$USAGE" "$@"

port=8281
dry=0
while [ $# -gt 0 ]; do
	case "$1" in
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
	*) kb_die "unknown argument '$1' (see --help)" ;;
	esac
done
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
	fi
	call POST "$base/api/management/v1/catalogs" \
		"{\"catalog\":{\"name\":\"$CATALOG\",\"type\":\"INTERNAL\",\"readOnly\":false,\"properties\":{\"default-base-location\":\"$LOCATION\"},\"storageConfigInfo\":{\"storageType\":\"FILE\",\"allowedLocations\":[\"$LOCATION\"]}}}" >/dev/null
	call POST "$base/api/management/v1/catalogs/$CATALOG/catalog-roles" \
		"{\"catalogRole\":{\"name\":\"$CATALOG_ROLE\",\"properties\":{}}}" >/dev/null
	call PUT "$base/api/management/v1/catalogs/$CATALOG/catalog-roles/$CATALOG_ROLE/grants" \
		'{"grant":{"type":"catalog","privilege":"CATALOG_MANAGE_CONTENT"}}' >/dev/null
	call PUT "$base/api/management/v1/principal-roles/$PRINCIPAL_ROLE/catalog-roles/$CATALOG" \
		"{\"catalogRole\":{\"name\":\"$CATALOG_ROLE\"}}" >/dev/null
}

if [ "$dry" = 1 ]; then
	exec 3>&1
	bootstrap
	exit 0
fi

if ! kb_docker_ok; then
	kb_die "Polaris needs Docker and no Docker engine answers here ('docker info' failed); no runnable Polaris server is on the registries this machine reaches. Run with Docker, or use --dry-run to see the bootstrap calls."
fi

state=$(kb_state_dir polaris)
healthy() { kb_http_ok "http://127.0.0.1:$(($(cat "$state/port") + 1))/q/health/ready"; }
kb_existing "$state" healthy
kb_require_free_port "$port" "Polaris API"
kb_require_free_port "$mport" "Polaris management"
kb_undo_on_failure "$HERE/polaris_down.sh"
kb_need_cmd curl "health checks and the bootstrap calls"

mkdir -p "$state"
printf '%s\n' "$port" >"$state/port"
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
kb_wait_ready "$state" 180 Polaris healthy
bootstrap

props="credential=$CLIENT_ID:$CLIENT_SECRET,scope=$SCOPE"
kb_write_exports "$state" \
	"KATBENCH_POLARIS_URL=$base/api/catalog" \
	"KATBENCH_POLARIS_WAREHOUSE=$CATALOG" \
	"KATBENCH_POLARIS_PROPS=$props" \
	"BENCH_REST_PROPS=$props"
kb_log "Polaris ready at $base/api/catalog (warehouse $CATALOG)"
kb_print_exports "$state"
