#!/usr/bin/env bash
# fixture_down.sh — stop a REST fixture that fixture_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=fixture_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: fixture_down.sh [--store sqlite|postgres] [--keep-store]

Stops the REST fixture that fixture_up.sh --store S recorded in
\$KATBENCH_STATE_DIR (fixture or fixture-pg; TERM, then KILL after 15s) and
removes its state: with sqlite the warehouse and the SQLite file; with
postgres the warehouse in fixture-pg-store, and database fixture of the
running PostgreSQL is dropped and re-created empty (the cluster keeps
running; stop it with postgres_down.sh). --keep-store leaves the catalog and
its warehouse as they are (what a failed start does). Exits 0 with a note
when nothing is running." "$@"

kb_down_args sqlite "$@"
store=$KB_STORE
keep=$KB_KEEP
case "$store" in
sqlite) kb_down "$(kb_state_dir fixture)" "REST fixture" ;;
postgres)
	kb_down "$(kb_state_dir fixture-pg)" "REST fixture (postgres)"
	if [ "$keep" = 0 ]; then
		kb_pg_reset_db fixture
		rm -rf -- "$(kb_state_dir fixture-pg-store)"
	fi
	;;
*) kb_die "unknown --store '$store' (want sqlite or postgres)" ;;
esac
