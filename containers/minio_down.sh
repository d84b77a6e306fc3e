#!/usr/bin/env bash
# minio_down.sh — stop the MinIO that minio_up.sh started.
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=minio_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: minio_down.sh

Stops the MinIO recorded in \$KATBENCH_STATE_DIR/minio (process: TERM, then
KILL after 15s; container: docker rm -f) and removes its data dir and state.
Exits 0 with a note when nothing is running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
kb_down "$(kb_state_dir minio)" MinIO
