#!/usr/bin/env bash
# polaris_down.sh — stop a Polaris that polaris_up.sh started (container or JVM).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=polaris_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: polaris_down.sh [--store memory|postgres] [--keep-store]

Stops the Polaris that polaris_up.sh --store S recorded in
\$KATBENCH_STATE_DIR (polaris or polaris-pg; docker rm -f for a container,
TERM then KILL for the JVM) and removes that state dir with its warehouse;
with postgres also the warehouse in polaris-pg-store, and database polaris of
the running PostgreSQL is dropped and re-created empty (the cluster keeps
running; stop it with postgres_down.sh). --keep-store leaves the persistence
and its warehouse as they are (what a failed start does). The build cache
stays. Exits 0 with a note when nothing is running." "$@"

kb_down_args memory "$@"
store=$KB_STORE
keep=$KB_KEEP
case "$store" in
memory) kb_down "$(kb_state_dir polaris)" Polaris ;;
postgres)
	kb_down "$(kb_state_dir polaris-pg)" "Polaris (postgres)"
	if [ "$keep" = 0 ]; then
		kb_pg_reset_db polaris
		rm -rf -- "$(kb_state_dir polaris-pg-store)"
	fi
	;;
*) kb_die "unknown --store '$store' (want memory or postgres)" ;;
esac
