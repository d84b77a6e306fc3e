#!/usr/bin/env bash
# versitygw_down.sh — stop the versitygw that versitygw_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=versitygw_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: versitygw_down.sh

Stops the versitygw recorded in \$KATBENCH_STATE_DIR/versitygw (TERM, then
KILL after 15s) and removes its temp root and state. Exits 0 with a note when
nothing is running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
kb_down "$(kb_state_dir versitygw)" versitygw
