#!/usr/bin/env bash
# fixture_down.sh — stop the REST fixture that fixture_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=fixture_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: fixture_down.sh

Stops the REST fixture recorded in \$KATBENCH_STATE_DIR/fixture (TERM, then
KILL after 15s) and removes its warehouse, SQLite file and state. Exits 0 with
a note when nothing is running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
kb_down "$(kb_state_dir fixture)" "REST fixture"
