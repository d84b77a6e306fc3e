#!/usr/bin/env bash
# polaris_down.sh — stop the Polaris container that polaris_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=polaris_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: polaris_down.sh

Removes the Polaris container recorded in \$KATBENCH_STATE_DIR/polaris
(docker rm -f; its in-container warehouse goes with it) and the state dir.
Exits 0 with a note when nothing is running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
kb_down "$(kb_state_dir polaris)" Polaris
