#!/usr/bin/env bash
# postgres_restart.sh — start the PostgreSQL of postgres_up.sh again on its own data after a crash.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=postgres_restart
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: postgres_restart.sh

Starts the PostgreSQL cluster recorded in \$KATBENCH_STATE_DIR/postgres
again, on the same data directory, port and databases, after its server
died (kill -9, a crash, a reboot): PostgreSQL replays its write-ahead log on
start, so every transaction it acknowledged is back. postgres_up.sh would
instead remove a dead cluster and make a fresh one. Waits until it accepts
connections, then prints the same exports as postgres_up.sh. Refuses when
the recorded server still runs or no cluster was ever created.

  katbench verify sql-pg --kill-every 5s \\
    --kill-pid-file \"\$KATBENCH_STATE_DIR/postgres/pid\" \\
    --restart containers/postgres_restart.sh" "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"

bin=$(kb_pg_bin) || kb_die "no PostgreSQL found (initdb, postgres under /usr/lib/postgresql/*/bin or KATBENCH_PG_BIN)"
state=$(kb_state_dir postgres)
if [ ! -f "$state/data/PG_VERSION" ] || [ ! -f "$state/exports" ] || [ ! -f "$state/port" ]; then
	kb_die "no cluster recorded in $state: start one with containers/postgres_up.sh"
fi
pid=$(kb_recorded_pid "$state")
if kb_pid_alive "$pid" && kb_pid_matches "$pid" postgres; then
	kb_die "the recorded PostgreSQL (pid $pid) still runs: nothing to restart"
fi
port=$(cat "$state/port")
kb_require_free_port "$port" PostgreSQL
osuser=$(cat "$state/osuser")
runas=()
if [ "$(id -u)" = 0 ]; then
	runas=(setpriv "--reuid=$osuser" "--regid=$(id -g "$osuser")" --init-groups --)
fi
data=$(readlink -f "$state/data")

# The killed postmaster's children each run in a session of their own (so a
# kill of its process group misses them) and exit once they notice it is
# gone; a crash of the whole server takes them at once. Kill what still runs
# in the data directory, and wait until nothing does.
in_data() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/cwd" 2>/dev/null)" = "$data" ] || continue
		if kb_pid_alive "${p#/proc/}"; then
			printf '%s\n' "${p#/proc/}"
		fi
	done
}
deadline=$((SECONDS + 30))
while mapfile -t left < <(in_data) && [ "${#left[@]}" -gt 0 ]; do
	[ "$SECONDS" -lt "$deadline" ] || kb_die "processes still run in $data 30s after kill -9: ${left[*]}"
	kill -KILL "${left[@]}" 2>/dev/null || true
	sleep 0.2
done
# The lock files (the data directory's and the Unix socket's) name the dead
# postmaster. Nothing may have reaped it (a container's init that does not),
# and a zombie still answers kill -0, which PostgreSQL takes for a live
# server: with nothing left in the data directory, those locks are stale.
for lock in "$data/postmaster.pid" "$state/run/.s.PGSQL.$port.lock"; do
	if [ -f "$lock" ] && ! kb_pid_alive "$(head -n 1 "$lock" | tr -dc '0-9')"; then
		rm -f -- "$lock"
	fi
done

healthy() { "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 2; }
kb_log "restarting PostgreSQL on its data in $state/data (crash recovery replays its WAL)"
kb_start_bg "$state" "${runas[@]}" "$bin/postgres" -D "$state/data"
kb_wait_ready "$state" 120 PostgreSQL healthy
kb_print_exports "$state"
