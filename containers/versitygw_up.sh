#!/usr/bin/env bash
# versitygw_up.sh — start a local plaintext S3 store (versitygw, posix backend).
set -euo pipefail
HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
KB_NAME=versitygw_up
# shellcheck source=lib.sh
. "$HERE/lib.sh"

VERSITYGW_PKG=github.com/versity/versitygw/cmd/versitygw@v1.8.0

USAGE="usage: versitygw_up.sh [--port N] [--install-only]

Starts versitygw (github.com/versity/versitygw v1.8.0, posix backend on a temp
root) on 127.0.0.1, waits until it answers, and prints export lines:

  eval \"\$(containers/versitygw_up.sh)\"

  --port N          listen port (default 7070)
  --install-only    build the binary into the cache and exit (make setup)

Environment: ROOT_ACCESS_KEY / ROOT_SECRET_KEY (default katbench /
katbench-secret), KATBENCH_STATE_DIR, KATBENCH_CACHE. The binary is built
once into \$KATBENCH_CACHE/bin. Stop it with containers/versitygw_down.sh."
kb_usage_if_help "$USAGE" "$@"
if kb_install_only "$@"; then
	kb_log "versitygw ready: $(kb_go_install "$VERSITYGW_PKG" versitygw)"
	exit 0
fi

port=$(kb_port_option 7070 "$@")

access=${ROOT_ACCESS_KEY:-katbench}
secret=${ROOT_SECRET_KEY:-katbench-secret}
state=$(kb_state_dir versitygw)

healthy() { kb_http_answers "http://127.0.0.1:$(cat "$state/port")/"; }
kb_refuse_other_port "$state" "$(kb_port_option "" "$@")"
kb_existing "$state" healthy
kb_require_free_port "$port" "versitygw"
kb_undo_on_failure "$HERE/versitygw_down.sh"
kb_need_cmd curl "health checks"
bin=$(kb_go_install "$VERSITYGW_PKG" versitygw)

mkdir -p "$state/root"
printf '%s\n' "$port" >"$state/port"
kb_log "starting versitygw on 127.0.0.1:$port (root $state/root, log $state/log)"
kb_start_bg "$state" env ROOT_ACCESS_KEY="$access" ROOT_SECRET_KEY="$secret" \
	"$bin" --port "127.0.0.1:$port" --access "$access" --secret "$secret" \
	--region us-east-1 --keep-alive --quiet posix "$state/root"
kb_wait_ready "$state" 60 versitygw healthy

kb_write_exports "$state" \
	"KATBENCH_S3_ENDPOINT=http://127.0.0.1:$port" \
	"AWS_ACCESS_KEY_ID=$access" \
	"AWS_SECRET_ACCESS_KEY=$secret" \
	"AWS_REGION=us-east-1"
kb_log "versitygw ready at http://127.0.0.1:$port"
kb_print_exports "$state"
