#!/usr/bin/env bash
# postgres_up.sh — start a PostgreSQL cluster on loopback for the catalogs that store in it.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=postgres_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

USAGE="usage: postgres_up.sh [--port N] [--install-only]

Starts a PostgreSQL server of this machine's installation (Debian's
postgresql package: initdb and postgres under /usr/lib/postgresql/VER/bin,
the newest VER; KATBENCH_PG_BIN names another bin dir) with a fresh cluster
in the state dir, listening on 127.0.0.1 only. Creates one login role and one
database of the same name per catalog that stores here:
$KB_PG_DATABASES, all with one generated password. Then prints:

  eval \"\$(containers/postgres_up.sh)\"
  # KATBENCH_PG_URL=postgres://sqlcat:PASS@127.0.0.1:N/sqlcat?sslmode=disable
  #   (iceberg-go's SQL catalog, competitor sql-pg)
  # KATBENCH_PG_HOST, KATBENCH_PG_PORT, KATBENCH_PG_PASSWORD,
  # KATBENCH_PG_<NAME>_DB and KATBENCH_PG_<NAME>_USER for each database

PostgreSQL refuses to run as root: started by root, the server runs as the
system user \$KATBENCH_PG_OS_USER (default katbench-pg), created with useradd
--system when missing; the state dir and its parents must be reachable by it.
The superuser (role katbench) logs in only through the Unix socket in the
state dir. fsync and synchronous_commit stay at PostgreSQL's defaults (on).

  --port N          listen port (default 15432)
  --install-only    install Debian's postgresql package with apt-get when no
                    PostgreSQL is found (as root or through sudo), then exit

A second run while the cluster is healthy prints the same exports again. Stop
it with containers/postgres_down.sh, which removes the cluster."
kb_usage_if_help "$USAGE" "$@"

if kb_install_only "$@"; then
	if bin=$(kb_pg_bin); then
		kb_log "PostgreSQL ready: $bin ($("$bin/postgres" --version))"
		exit 0
	fi
	kb_need_cmd apt-get "to install PostgreSQL (Debian's postgresql package)"
	sudo=""
	if [ "$(id -u)" != 0 ]; then
		kb_need_cmd sudo "to run apt-get as root"
		sudo=sudo
	fi
	kb_log "installing Debian's postgresql package with apt-get"
	# A fresh machine has no package lists; update once, then install.
	if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2; then
		$sudo apt-get update >&2
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2
	fi
	bin=$(kb_pg_bin) || kb_die "apt-get installed postgresql but no initdb/postgres was found under /usr/lib/postgresql"
	kb_log "PostgreSQL ready: $bin ($("$bin/postgres" --version))"
	exit 0
fi

port=$(kb_port_option 15432 "$@")
bin=$(kb_pg_bin) || kb_die "no PostgreSQL found (initdb, postgres under /usr/lib/postgresql/*/bin or KATBENCH_PG_BIN): run containers/postgres_up.sh --install-only (or make setup)"

state=$(kb_state_dir postgres)
healthy() { "$bin/pg_isready" -q -h 127.0.0.1 -p "$(cat "$state/port")" -t 2; }
kb_existing "$state" healthy
kb_require_free_port "$port" PostgreSQL
kb_undo_on_failure "$HERE/postgres_down.sh"

runas=()
osuser=$(id -un)
if [ "$(id -u)" = 0 ]; then
	osuser=${KATBENCH_PG_OS_USER:-katbench-pg}
	if id -u "$osuser" >/dev/null 2>&1; then
		kb_log "PostgreSQL refuses root: running it as the existing system user $osuser"
	else
		kb_need_cmd useradd "to create the system user PostgreSQL runs as"
		useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$osuser" ||
			kb_die "useradd $osuser failed"
		kb_log "PostgreSQL refuses root: created the system user $osuser to run it"
	fi
	runas=(setpriv "--reuid=$osuser" "--regid=$(id -g "$osuser")" --init-groups --)
fi

mkdir -p "$state/data" "$state/run"
printf '%s\n' "$port" >"$state/port"
printf '%s\n' "$osuser" >"$state/osuser"
if [ "$(id -u)" = 0 ]; then
	chown "$osuser:" "$state" "$state/data" "$state/run"
fi
chmod 700 "$state/data" "$state/run"
if ! "${runas[@]}" test -w "$state/data"; then
	kb_die "user $osuser cannot write $state/data: every parent of the state dir $(kb_state_root) must be searchable by it (chmod o+x), or set KATBENCH_STATE_DIR"
fi

password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
(
	umask 077
	printf '%s\n' "$password" >"$state/run/pwfile"
)
[ "$(id -u)" != 0 ] || chown "$osuser:" "$state/run/pwfile"

kb_log "creating a cluster in $state/data with $bin/initdb (as $osuser)"
"${runas[@]}" "$bin/initdb" -D "$state/data" -U katbench --pwfile="$state/run/pwfile" \
	--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >>"$state/log" 2>&1 ||
	{
		kb_log_tail "$state"
		kb_die "initdb failed"
	}
rm -f -- "$state/run/pwfile"
cat >>"$state/data/postgresql.conf" <<EOF

# written by containers/postgres_up.sh
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$state/run'
max_connections = 300
EOF

kb_log "starting PostgreSQL ($("$bin/postgres" --version)) on 127.0.0.1:$port as $osuser (log $state/log)"
kb_start_bg "$state" "${runas[@]}" "$bin/postgres" -D "$state/data"
kb_wait_ready "$state" 60 PostgreSQL healthy

sql=''
for db in $KB_PG_DATABASES; do
	sql+="CREATE ROLE $db LOGIN PASSWORD '$password';
CREATE DATABASE $db OWNER $db;
"
done
kb_pg_psql postgres <<<"$sql" >>"$state/log" 2>&1 || {
	kb_log_tail "$state"
	kb_die "creating the roles and databases failed"
}

exports=(
	"KATBENCH_PG_URL=postgres://sqlcat:$password@127.0.0.1:$port/sqlcat?sslmode=disable"
	"KATBENCH_PG_HOST=127.0.0.1"
	"KATBENCH_PG_PORT=$port"
	"KATBENCH_PG_PASSWORD=$password"
)
for db in $KB_PG_DATABASES; do
	up=$(printf '%s' "$db" | tr '[:lower:]' '[:upper:]')
	exports+=("KATBENCH_PG_${up}_DB=$db" "KATBENCH_PG_${up}_USER=$db")
done
kb_write_exports "$state" "${exports[@]}"
kb_log "PostgreSQL ready on 127.0.0.1:$port (databases: $KB_PG_DATABASES)"
kb_print_exports "$state"
