#!/usr/bin/env bash
# polaris_down.sh — stop the Polaris that polaris_up.sh started (container or JVM).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=polaris_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: polaris_down.sh

Stops the Polaris recorded in \$KATBENCH_STATE_DIR/polaris (docker rm -f for
a container, TERM then KILL for the JVM) and removes that state dir with its
warehouse; the build cache stays.
Exits 0 with a note when nothing is running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
kb_down "$(kb_state_dir polaris)" Polaris
