#!/usr/bin/env bash
# rustberg_up.sh — start Rustberg, a Cedar-authorized Iceberg REST catalog in Rust.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=rustberg_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

RUSTBERG_VERSION=0.3.0

USAGE="usage: rustberg_up.sh [--store redb|postgres] [--port N] [--no-auth] [--install-only]

Starts Rustberg $RUSTBERG_VERSION (crates.io rustberg, one binary) on 127.0.0.1
with a file:// warehouse, its catalog in the store --store names:

  redb      an embedded redb file in the state dir rustberg (default):
            competitor rustberg, port 8381
  postgres  database rustberg of postgres_up.sh's cluster (started when none
            runs; role and database created on first use), warehouse in the
            state dir rustberg-pg-store (kept when the server dies): competitor
            rustberg-pg, port 8391

Authentication is Rustberg's own, as deployed: an API key made with
\`rustberg generate-key --roles admin\` (admin: every action in its tenant, by
Rustberg's built-in Cedar policy), listed in the config file with its secret
in an environment variable of the server only. The client sends it as a
bearer token. Rate limiting is off (a benchmark would measure the limiter);
the audit trail goes to a file in the state dir. Waits until GET /ready
answers, then prints:

  eval \"\$(containers/rustberg_up.sh)\"   # KATBENCH_RUSTBERG_URL, _WAREHOUSE, _PROPS (token=…)
  # (KATBENCH_RUSTBERG_PG_* with --store postgres; *_SERVER_VERSION too)

  --store S         the catalog's store (above)
  --port N          listen port (default per store)
  --no-auth         start without authentication (Rustberg's --no-auth), no key
  --install-only    build the binary into the cache and exit (make setup)

The binary is built once with \`cargo install rustberg --version $RUSTBERG_VERSION
--locked --features catalog-postgres\` into \$KATBENCH_CACHE/rustberg-$RUSTBERG_VERSION
(about 45 min on a busy 2-core machine; needs cargo of Rust 1.94.1 or newer).
A cached binary built without catalog-postgres serves redb and is kept by
--install-only; --store postgres builds it again with the feature. Stop it with containers/rustberg_down.sh --store S."
kb_usage_if_help "$USAGE" "$@"

# rustberg_root prints the install root in the cache.
rustberg_root() {
	printf '%s/rustberg-%s\n' "$(kb_cache_dir)" "$RUSTBERG_VERSION"
}

# rustberg_has_pg ROOT succeeds when the binary in ROOT was built with the
# catalog-postgres feature (cargo records the features of an install).
rustberg_has_pg() {
	grep -q '"catalog-postgres"' "$1/.crates2.json" 2>/dev/null
}

# rustberg_check_cargo dies unless cargo is at least Rust 1.94.1, the
# crate's rust-version (Debian's cargo is older; rustup's is not).
rustberg_check_cargo() {
	local v major minor
	v=$(cargo --version 2>/dev/null | sed -n 's/^cargo \([0-9][0-9]*\.[0-9][0-9]*\).*/\1/p')
	major=${v%%.*} minor=${v#*.}
	if [ -z "$v" ] || [ "$major" -lt 1 ] || { [ "$major" = 1 ] && [ "$minor" -lt 94 ]; }; then
		kb_die "Rustberg $RUSTBERG_VERSION needs Rust 1.94.1 or newer; cargo here is '${v:-unknown}' (install a newer toolchain with rustup)"
	fi
}

# rustberg_bin NEED_PG prints the cached binary, building it when missing
# (or, with NEED_PG=1, when it lacks the catalog-postgres feature). The build
# goes into a temporary root renamed into place, under a lock, so an
# interrupted build leaves nothing half-made.
rustberg_bin() {
	local need_pg=$1 root tmp old
	root=$(rustberg_root)
	if [ -x "$root/bin/rustberg" ] && { [ "$need_pg" = 0 ] || rustberg_has_pg "$root"; }; then
		printf '%s\n' "$root/bin/rustberg"
		return 0
	fi
	kb_lock "$root.lock"
	if [ -x "$root/bin/rustberg" ] && { [ "$need_pg" = 0 ] || rustberg_has_pg "$root"; }; then
		printf '%s\n' "$root/bin/rustberg"
		return 0
	fi
	kb_need_cmd cargo "to build Rustberg $RUSTBERG_VERSION from crates.io"
	rustberg_check_cargo
	tmp="$root.tmp"
	rm -rf -- "$tmp"
	kb_log "building Rustberg $RUSTBERG_VERSION into $root (first run only; about 45 min on 2 busy cores)"
	cargo install rustberg --version "$RUSTBERG_VERSION" --locked --features catalog-postgres \
		--root "$tmp" >&2 || {
		rm -rf -- "$tmp"
		kb_die "cargo install rustberg --version $RUSTBERG_VERSION failed"
	}
	[ -x "$tmp/bin/rustberg" ] || kb_die "cargo install ran but $tmp/bin/rustberg is missing"
	old="$root.old"
	rm -rf -- "$old"
	if [ -d "$root" ]; then mv -- "$root" "$old"; fi
	mv -- "$tmp" "$root"
	rm -rf -- "$old"
	printf '%s\n' "$root/bin/rustberg"
}

if kb_install_only "$@"; then
	kb_log "Rustberg ready: $(rustberg_bin 0)"
	exit 0
fi

store=$(kb_store_option "$@")
store=${store:-redb}
auth=1
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--store) shift 2 ;;
	--store=*) shift ;;
	--no-auth) auth=0 && shift ;;
	*) args+=("$1") && shift ;;
	esac
done
case "$store" in
redb) name=rustberg dport=8381 need_pg=0 ;;
postgres) name=rustberg-pg dport=8391 need_pg=1 ;;
*) kb_die "unknown --store '$store' (want redb or postgres)" ;;
esac
port=$(kb_port_option "$dport" "${args[@]}")
prefix=KATBENCH_$(printf '%s' "$name" | tr '[:lower:]-' '[:upper:]_')

state=$(kb_state_dir "$name")
healthy() { kb_http_ok "http://127.0.0.1:$(cat "$state/port")/ready"; }
kb_refuse_other_port "$state" "$port"
kb_existing "$state" healthy
kb_require_free_port "$port" "Rustberg"
kb_undo_with "$HERE/rustberg_down.sh" --store "$store" --keep-store
kb_need_cmd curl "health checks"

bin=$(rustberg_bin "$need_pg")

mkdir -p "$state"
chmod 700 "$state"
printf '%s\n' "$port" >"$state/port"
if [ "$store" = postgres ]; then
	pgexports=$(kb_pg_ensure "$state") || kb_die "could not start PostgreSQL for Rustberg's catalog"
	eval "$pgexports"
	# postgres_up.sh makes the databases of the catalogs it knows at initdb;
	# Rustberg's role and database are made here, once, with the same password.
	kb_pg_psql postgres -tA <<<"SELECT 1 FROM pg_roles WHERE rolname = 'rustberg'" | grep -q 1 ||
		kb_pg_psql postgres <<<"CREATE ROLE rustberg LOGIN PASSWORD '$KATBENCH_PG_PASSWORD';
CREATE DATABASE rustberg OWNER rustberg;" >&2 ||
		kb_die "could not create Rustberg's role and database in PostgreSQL"
	wdir="$(kb_state_dir rustberg-pg-store)/warehouse"
	if [ -d "$wdir" ]; then
		kb_log "reusing the warehouse in $wdir (containers/rustberg_down.sh --store postgres empties it)"
	fi
	catalog_url="postgres://rustberg:$KATBENCH_PG_PASSWORD@$KATBENCH_PG_HOST:$KATBENCH_PG_PORT/rustberg"
else
	wdir="$state/warehouse"
	mkdir -p "$state/catalog"
	catalog_url="file://$state/catalog"
fi
mkdir -p "$wdir"
warehouse="file://$wdir"

# The config file names secrets by environment variable only, so it holds
# none: the catalog URL (with the PostgreSQL password) and the API key reach
# the server through its environment.
authconf="api_key_enabled = true"
keyline=()
if [ "$auth" = 1 ]; then
	key=$("$bin" generate-key --name katbench --roles admin --description "katbench benchmark principal" 2>/dev/null |
		sed -n 's/^API Key:[[:space:]]*\(rb_[^[:space:]]*\).*/\1/p') || true
	[ -n "$key" ] || kb_die "rustberg generate-key printed no key"
	keyline=("RUSTBERG_KEY_KATBENCH=$key")
	authconf="api_key_enabled = true

[[server.auth.api_keys]]
name = \"katbench\"
tenant = \"default\"
roles = [\"admin\"]
key_env = \"RUSTBERG_KEY_KATBENCH\""
fi
cat >"$state/rustberg.toml" <<EOF
[server]
host = "127.0.0.1"
port = $port

[server.auth]
$authconf

[storage]
warehouse_location = "$warehouse"

[rate_limit]
enabled = false

[audit]
sink = "file"
path = "$state/audit.jsonl"
EOF
# Plain HTTP on loopback (--insecure-http: without it Rustberg makes a
# self-signed certificate); --no-auth is refused outside --dev.
flags=(--insecure-http)
if [ "$auth" = 0 ]; then flags+=(--no-auth --dev); fi
kb_start_bg "$state" env "${keyline[@]}" RUSTBERG_CATALOG_URL="$catalog_url" \
	"$bin" --config "$state/rustberg.toml" "${flags[@]}"
kb_log "starting Rustberg on 127.0.0.1:$port, catalog on $store (log $state/log)"
kb_wait_ready "$state" 60 "Rustberg" healthy

props=""
if [ "$auth" = 1 ]; then props="token=$key"; fi
kb_write_exports "$state" \
	"${prefix}_URL=http://127.0.0.1:$port" \
	"${prefix}_WAREHOUSE=$warehouse" \
	"${prefix}_PROPS=$props" \
	"${prefix}_SERVER_VERSION=$RUSTBERG_VERSION"
chmod 600 "$state/exports"
kb_log "Rustberg (catalog on $store, competitor $name) ready at http://127.0.0.1:$port"
kb_print_exports "$state"
