#!/usr/bin/env bash
# rustfs_down.sh — stop the RustFS that rustfs_up.sh started (container or binary).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=rustfs_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: rustfs_down.sh

Stops the RustFS recorded in \$KATBENCH_STATE_DIR/rustfs (docker rm -f for a
container, TERM then KILL for the binary) and removes that state dir with its
data dir; the cached binary stays. Exits 0 with a note when nothing is
running." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"
kb_down "$(kb_state_dir rustfs)" RustFS
