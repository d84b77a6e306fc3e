#!/usr/bin/env bash
# postgres_down.sh — stop the PostgreSQL cluster that postgres_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=postgres_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: postgres_down.sh

Stops the PostgreSQL recorded in \$KATBENCH_STATE_DIR/postgres (TERM: a fast
shutdown, then KILL after 15s) and removes its state with the cluster and
every catalog database in it. Exits 0 with a note when nothing is running.
Stop the catalogs that store in it first (all_down.sh does)." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
state=$(kb_state_dir postgres)
if [ -d "$state" ]; then
	pid=$(kb_recorded_pid "$state")
	# SIGINT is PostgreSQL's fast shutdown: it ends open sessions instead
	# of waiting for them (TERM, kb_stop_pid's signal, would wait).
	if kb_pid_alive "$pid" && kb_pid_matches "$pid" postgres; then
		kill -INT "$pid" 2>/dev/null || true
	fi
fi
kb_down "$state" PostgreSQL
