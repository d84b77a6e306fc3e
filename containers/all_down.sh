#!/usr/bin/env bash
# all_down.sh — run every NAME_down.sh (for humans cleaning up after a session).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=all_down
# shellcheck source=lib.sh
. "$HERE/lib.sh"

kb_usage_if_help "usage: all_down.sh

Runs every containers/*_down.sh for the state dir
$(kb_state_root)
(set KATBENCH_STATE_DIR for another). Each stops only what its up script
recorded; Nessie goes first so it can leave a reused versitygw to its own
down, and every variant storing in PostgreSQL (--store jdbc, postgres,
rocksdb) before the cluster itself. Exits non-zero if any down script failed." "$@"
[ $# -eq 0 ] || kb_die "unknown argument '$1' (see --help)"

rc=0
"$HERE/nessie_down.sh" --store jdbc || rc=1
"$HERE/nessie_down.sh" --store rocksdb || rc=1
"$HERE/polaris_down.sh" --store postgres || rc=1
"$HERE/fixture_down.sh" --store postgres || rc=1
for name in nessie polaris fixture postgres rustfs minio versitygw; do
	"$HERE/${name}_down.sh" || rc=1
done
exit "$rc"
