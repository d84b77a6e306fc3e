#!/usr/bin/env bash
# rustberg_down.sh — stop a Rustberg that rustberg_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=rustberg_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: rustberg_down.sh [--store redb|postgres] [--keep-store]

Stops the Rustberg that rustberg_up.sh --store S recorded in
\$KATBENCH_STATE_DIR (rustberg or rustberg-pg; TERM, then KILL after 15s) and
removes its state: with redb the warehouse, the redb file, the config and
the audit trail; with postgres the warehouse in rustberg-pg-store, and
database rustberg of the running PostgreSQL is dropped and re-created empty
(the cluster keeps running; stop it with postgres_down.sh). --keep-store
leaves the catalog and its warehouse as they are (what a failed start does).
The built binary stays in the cache. Exits 0 with a note when nothing is
running." "$@"

kb_down_args redb "$@"
store=$KB_STORE
keep=$KB_KEEP
case "$store" in
redb) kb_down "$(kb_state_dir rustberg)" Rustberg ;;
postgres)
	kb_down "$(kb_state_dir rustberg-pg)" "Rustberg (postgres)"
	if [ "$keep" = 0 ]; then
		if kb_pg_running && kb_pg_psql postgres -tA <<<"SELECT 1 FROM pg_database WHERE datname = 'rustberg'" | grep -q 1; then
			kb_pg_reset_db rustberg
		fi
		rm -rf -- "$(kb_state_dir rustberg-pg-store)"
	fi
	;;
*) kb_die "unknown --store '$store' (want redb or postgres)" ;;
esac
